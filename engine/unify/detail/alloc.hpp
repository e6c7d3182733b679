// Small-object allocation for terms, substitution nodes, goals and streams:
// per-thread free lists by size class, so the search does not pay malloc's
// price on every step.
#pragma once

#include <cstddef>

namespace rw::detail {

/// Memory for an object of `size` bytes (16-byte aligned). Sizes up to
/// kPoolMaxSize come from per-thread free lists; larger ones from operator new.
void* pool_alloc(std::size_t size);
/// Returns memory from `pool_alloc` with the same `size`. A block may be
/// returned on another thread than the one that allocated it.
void pool_free(void* p, std::size_t size) noexcept;

inline constexpr std::size_t kPoolMaxSize = 512;

}  // namespace rw::detail

// Small-object allocation for terms, substitution nodes, goals and streams:
// per-thread free lists by size class, so the search does not pay malloc's
// price on every step.
#pragma once

#include <cstddef>

namespace rw::detail {

/// Memory for an object of `size` bytes (16-byte aligned). Sizes up to
/// kPoolMaxSize come from per-thread free lists over slabs that grow to 2 MiB
/// (advised as transparent huge pages); larger ones from operator new. Under
/// AddressSanitizer, or built with RW_NO_POOL, every block is its own
/// operator new allocation.
void* pool_alloc(std::size_t size);
/// Returns memory from `pool_alloc` with the same `size`. A block may be
/// returned on another thread than the one that allocated it.
void pool_free(void* p, std::size_t size) noexcept;

inline constexpr std::size_t kPoolMaxSize = 512;

}  // namespace rw::detail

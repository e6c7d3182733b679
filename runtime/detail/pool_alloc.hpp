// Small-object allocation for graph nodes (Apply blocks), the arrays of
// scalar programs, and the unifier's terms, substitution nodes, goals and
// streams: per-thread free lists by size class, so that neither a rewrite nor
// a search pays malloc's price on every step.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

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

/// A standard allocator over `pool_alloc`, for the small arrays that are
/// made and dropped by the hundred while a graph is rewritten (a fused
/// program's registers and instructions). Stateless: any two compare equal,
/// so containers swap and move their storage freely.
template <class T> struct BlockAllocator {
  static_assert(alignof(T) <= 16, "pool blocks are 16-byte aligned");
  using value_type = T;
  BlockAllocator() noexcept = default;
  template <class U> BlockAllocator(const BlockAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (n > static_cast<std::size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    return static_cast<T*>(pool_alloc(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { pool_free(p, n * sizeof(T)); }
  template <class U> bool operator==(const BlockAllocator<U>&) const noexcept { return true; }
};

/// A vector whose storage comes from the pool.
template <class T> using PoolVector = std::vector<T, BlockAllocator<T>>;

}  // namespace rw::detail

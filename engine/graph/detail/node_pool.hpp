// NodePool: free lists of small fixed-size blocks carved from chunks, owned by
// one FunctionGraph for its vertices and edges; PoolAllocator adapts it to the
// standard containers Boost.Graph builds the graph from.
#pragma once

#include <array>
#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

#include "runtime/detail/asan.hpp"

#if defined(RW_ASAN)
#include <sanitizer/asan_interface.h>
#define RW_POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define RW_POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define RW_POOL_POISON(p, n) ((void)(p), (void)(n))
#define RW_POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace rw::detail {

/// Blocks of up to kMaxBlock bytes, in size classes of kGranule bytes, each
/// class a free list; a freed block is reused by the next request of its
/// class, and memory goes back to the system only when the pool dies. Larger
/// requests go to operator new. Not thread-safe: a graph is changed by one
/// thread at a time. Under AddressSanitizer free blocks are poisoned, so a
/// use after free is still caught.
class NodePool {
 public:
  static constexpr std::size_t kGranule = 16;
  static constexpr std::size_t kMaxBlock = 256;

  NodePool() = default;
  NodePool(const NodePool&) = delete;
  NodePool& operator=(const NodePool&) = delete;
  ~NodePool() {
    for (std::byte* c : chunks_) {
      RW_POOL_UNPOISON(c, kChunkBytes);
      ::operator delete(c);
    }
  }

  /// A block of at least `bytes` bytes, aligned for any object of that size.
  void* allocate(std::size_t bytes) {
    if (bytes > kMaxBlock) return ::operator new(bytes);
    const std::size_t k = size_class(bytes);
    if (FreeBlock* b = free_[k]) {
      RW_POOL_UNPOISON(b, (k + 1) * kGranule);
      free_[k] = b->next;
      return b;
    }
    const std::size_t size = (k + 1) * kGranule;
    if (static_cast<std::size_t>(end_ - cur_) < size) grow();
    std::byte* p = cur_;
    cur_ += size;
    RW_POOL_UNPOISON(p, size);
    return p;
  }

  /// Gives back a block from `allocate(bytes)`.
  void deallocate(void* p, std::size_t bytes) noexcept {
    if (bytes > kMaxBlock) {
      ::operator delete(p);
      return;
    }
    const std::size_t k = size_class(bytes);
    auto* b = static_cast<FreeBlock*>(p);
    b->next = free_[k];
    free_[k] = b;
    RW_POOL_POISON(p, (k + 1) * kGranule);
  }

 private:
  static constexpr std::size_t kChunkBytes = 16 * 1024;
  struct FreeBlock {
    FreeBlock* next;
  };
  static std::size_t size_class(std::size_t bytes) {
    return bytes == 0 ? 0 : (bytes - 1) / kGranule;
  }
  void grow() {
    // The tail of the old chunk is left unused: at most kMaxBlock bytes. Room
    // for the chunk's pointer first, so that keeping it cannot fail; grown
    // geometrically, as push_back would.
    if (chunks_.size() == chunks_.capacity()) chunks_.reserve(2 * chunks_.size() + 8);
    auto* c = static_cast<std::byte*>(::operator new(kChunkBytes));
    RW_POOL_POISON(c, kChunkBytes);
    chunks_.push_back(c);
    cur_ = c;
    end_ = c + kChunkBytes;
  }

  std::array<FreeBlock*, kMaxBlock / kGranule> free_{};
  std::vector<std::byte*> chunks_;
  std::byte* cur_ = nullptr;
  std::byte* end_ = nullptr;
};

/// A standard allocator over a NodePool (operator new when it has none, as a
/// default-constructed container's allocator). Containers that take one by
/// move assignment take its pool with it.
template <class T> class PoolAllocator {
 public:
  using value_type = T;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using is_always_equal = std::false_type;
  template <class U> struct rebind {
    using other = PoolAllocator<U>;
  };

  PoolAllocator() noexcept = default;
  explicit PoolAllocator(NodePool* pool) noexcept : pool_(pool) {}
  template <class U> PoolAllocator(const PoolAllocator<U>& o) noexcept : pool_(o.pool()) {}

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= NodePool::kGranule, "pooled objects are aligned to 16 bytes");
    const std::size_t bytes = n * sizeof(T);
    return static_cast<T*>(pool_ ? pool_->allocate(bytes) : ::operator new(bytes));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (pool_) pool_->deallocate(p, n * sizeof(T));
    else ::operator delete(p);
  }
  NodePool* pool() const noexcept { return pool_; }

  template <class U> friend bool operator==(const PoolAllocator& a, const PoolAllocator<U>& b) {
    return a.pool_ == b.pool();
  }

 private:
  NodePool* pool_ = nullptr;
};

}  // namespace rw::detail

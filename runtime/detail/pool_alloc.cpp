// Per-thread free lists by size class. Blocks are carved from slabs (64 KiB
// growing to 2 MiB) that live as long as the process; a thread's free lists
// go to a shared list when it ends, so memory freed by short-lived threads is
// reused.
#include "runtime/detail/pool_alloc.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>

#include <sys/mman.h>

#include "runtime/detail/asan.hpp"

namespace rw::detail {

#if defined(RW_ASAN) || defined(RW_NO_POOL)
// Under AddressSanitizer every block is its own allocation, so that misuse is
// caught and leaks are reported.
void* pool_alloc(std::size_t size) { return ::operator new(size, std::align_val_t{16}); }
void pool_free(void* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{16}); }
#else

namespace {

constexpr std::size_t kGranule = 16;
constexpr std::size_t kClasses = kPoolMaxSize / kGranule;
constexpr std::size_t kFirstSlab = 64 * 1024;
constexpr std::size_t kHugeSlab = 2 * 1024 * 1024;  // one transparent huge page

// A slab of `bytes`; the 2 MiB ones are aligned and advised as huge pages, so
// that a search touching millions of nodes does not also miss the TLB.
char* new_slab(std::size_t bytes) {
  if (bytes < kHugeSlab)
    return static_cast<char*>(::operator new(bytes, std::align_val_t{kGranule}));
  void* p = ::operator new(bytes, std::align_val_t{kHugeSlab});
#if defined(MADV_HUGEPAGE)
  ::madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return static_cast<char*>(p);
}

struct FreeBlock {
  FreeBlock* next;
};

// The class of a block of `size` bytes; an empty request takes the smallest.
constexpr std::size_t class_of(std::size_t size) {
  return size == 0 ? 0 : (size + kGranule - 1) / kGranule - 1;
}

// Free lists left behind by threads that have ended.
struct Orphans {
  std::mutex mutex;
  std::array<FreeBlock*, kClasses> lists{};
};
Orphans& orphans() {
  static Orphans* o = new Orphans;  // never destroyed: threads may end after main
  return *o;
}

void t_reaper_armed();

// Trivially destructible, so that it may still be used by blocks freed after
// the thread's other thread_locals are gone (static terms and graphs at exit).
struct Cache {
  std::array<FreeBlock*, kClasses> lists;
  char* slab;
  std::size_t slab_left;
  std::size_t next_slab;
  bool retired;  // the thread is ending: frees go to the orphans
  bool armed;    // the thread's reaper is registered

  /// Registers the thread's reaper, so that what its lists hold when it ends
  /// goes to the orphans. Done on the first allocation or free of a thread: a
  /// thread that only frees (a worker dropping a graph) fills lists too.
  void arm() {
    t_reaper_armed();
    armed = true;
  }

  void* refill(std::size_t c) {
    if (!armed) arm();
    {
      Orphans& o = orphans();
      std::lock_guard lock(o.mutex);
      if (FreeBlock* b = o.lists[c]) {
        if (retired) {  // the thread is ending: nobody would sweep its lists again
          o.lists[c] = b->next;
          return b;
        }
        o.lists[c] = nullptr;  // adopt the whole list
        lists[c] = b->next;
        return b;
      }
    }
    const std::size_t bytes = (c + 1) * kGranule;
    if (slab_left < bytes) {
      // The tail of the old slab goes to the free list of its size.
      if (slab_left >= kGranule) {
        auto* b = reinterpret_cast<FreeBlock*>(slab);
        const std::size_t k = class_of(slab_left);
        b->next = lists[k];
        lists[k] = b;
      }
      // Slabs grow from 64 KiB to 2 MiB, so a thread that allocates little
      // holds little.
      next_slab = next_slab ? std::min(next_slab * 2, kHugeSlab) : kFirstSlab;
      slab = new_slab(next_slab);
      slab_left = next_slab;
    }
    void* p = slab;
    slab += bytes;
    slab_left -= bytes;
    return p;
  }
};

thread_local Cache t_cache{};

void push_orphan(std::size_t c, FreeBlock* b) {
  Orphans& o = orphans();
  std::lock_guard lock(o.mutex);
  b->next = o.lists[c];
  o.lists[c] = b;
}

// Hands the ending thread's free lists to the orphans.
struct Reaper {
  bool armed = false;
  ~Reaper() {
    Orphans& o = orphans();
    std::lock_guard lock(o.mutex);
    for (std::size_t c = 0; c < kClasses; ++c) {
      FreeBlock* b = t_cache.lists[c];
      while (b) {
        FreeBlock* next = b->next;
        b->next = o.lists[c];
        o.lists[c] = b;
        b = next;
      }
      t_cache.lists[c] = nullptr;
    }
    t_cache.retired = true;
  }
};
thread_local Reaper t_reaper;
void t_reaper_armed() { t_reaper.armed = true; }

}  // namespace

void* pool_alloc(std::size_t size) {
  if (size > kPoolMaxSize) return ::operator new(size, std::align_val_t{kGranule});
  const std::size_t c = class_of(size);
  FreeBlock* b = t_cache.lists[c];
  if (b) {
    t_cache.lists[c] = b->next;
    return b;
  }
  return t_cache.refill(c);
}

void pool_free(void* p, std::size_t size) noexcept {
  if (!p) return;
  if (size > kPoolMaxSize) {
    ::operator delete(p, std::align_val_t{kGranule});
    return;
  }
  const std::size_t c = class_of(size);
  auto* b = static_cast<FreeBlock*>(p);
  if (t_cache.retired) {
    push_orphan(c, b);
    return;
  }
  if (!t_cache.armed) t_cache.arm();
  b->next = t_cache.lists[c];
  t_cache.lists[c] = b;
}
#endif

}  // namespace rw::detail

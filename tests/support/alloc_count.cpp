// Replacement global operator new/delete that count allocations per thread.
// Every form is replaced, so that each allocation and its release agree.
#include "support/alloc_count.hpp"

#include <cstdlib>
#include <new>

namespace {
thread_local long t_allocations = 0;

void* counted(std::size_t n) {
  ++t_allocations;
  return std::malloc(n ? n : 1);
}
void* counted_aligned(std::size_t n, std::align_val_t a) {
  ++t_allocations;
  const auto al = static_cast<std::size_t>(a);
  return std::aligned_alloc(al, (n + al - 1) / al * al);
}
void* or_throw(void* p) {
  if (!p) throw std::bad_alloc();
  return p;
}
}  // namespace

namespace rw::test {
long allocations_on_this_thread() { return t_allocations; }
}  // namespace rw::test

void* operator new(std::size_t n) { return or_throw(counted(n)); }
void* operator new[](std::size_t n) { return or_throw(counted(n)); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return counted(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return counted(n); }
void* operator new(std::size_t n, std::align_val_t a) { return or_throw(counted_aligned(n, a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return or_throw(counted_aligned(n, a)); }
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned(n, a);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return counted_aligned(n, a);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

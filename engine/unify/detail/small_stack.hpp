// SmallStack: a stack of trivially copyable values with room for N inline, so
// the unifier's work list costs no allocation for ordinary terms.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>

namespace rw::detail {

template <class T, std::size_t N> class SmallStack {
  static_assert(std::is_trivially_copyable_v<T>);

 public:
  SmallStack() noexcept = default;
  SmallStack(const SmallStack&) = delete;
  SmallStack& operator=(const SmallStack&) = delete;
  ~SmallStack() {
    if (ptr_ != buf_) ::operator delete(ptr_);
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  T& back() noexcept { return ptr_[size_ - 1]; }
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  void pop_back() noexcept { --size_; }
  void clear() noexcept { size_ = 0; }
  void push_back(const T& v) {
    if (size_ == cap_) grow();
    ptr_[size_++] = v;
  }
  /// Drops the elements above `n`.
  void truncate(std::size_t n) noexcept { size_ = n; }
  /// `n` copies of `v`.
  void assign(std::size_t n, const T& v) {
    size_ = 0;
    for (std::size_t i = 0; i < n; ++i) push_back(v);
  }
  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }

 private:
  void grow() {
    T* fresh = static_cast<T*>(::operator new(cap_ * 2 * sizeof(T)));
    std::memcpy(static_cast<void*>(fresh), ptr_, size_ * sizeof(T));
    if (ptr_ != buf_) ::operator delete(ptr_);
    ptr_ = fresh;
    cap_ *= 2;
  }

  T buf_[N];
  T* ptr_ = buf_;
  std::size_t size_ = 0;
  std::size_t cap_ = N;
};

}  // namespace rw::detail

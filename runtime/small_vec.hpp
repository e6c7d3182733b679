// SmallVec: a vector of trivially copyable values that keeps up to N of them
// inline, so shapes and strides of ordinary rank cost no allocation. Its
// iterators are plain pointers, so it converts to std::span.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <new>
#include <span>
#include <type_traits>

#include "support/error.hpp"

namespace rw {

template <class T, std::size_t N> class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVec holds trivially copyable values");

 public:
  using value_type = T;
  using size_type = std::size_t;
  using iterator = T*;
  using const_iterator = const T*;
  using reference = T&;
  using const_reference = const T&;

  SmallVec() noexcept = default;
  explicit SmallVec(std::size_t n, T value = T()) { assign(n, value); }
  SmallVec(std::initializer_list<T> init) { assign(init.begin(), init.end()); }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  SmallVec(It first, It last) {
    assign(first, last);
  }
  SmallVec(std::span<const T> s) { assign(s.begin(), s.end()); }
  SmallVec(const SmallVec& o) { assign(o.begin(), o.end()); }
  SmallVec(SmallVec&& o) noexcept { steal(o); }
  SmallVec& operator=(const SmallVec& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVec& operator=(SmallVec&& o) noexcept {
    if (this != &o) {
      release();
      steal(o);
    }
    return *this;
  }
  ~SmallVec() { release(); }

  T* data() noexcept { return ptr_; }
  const T* data() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  std::size_t capacity() const noexcept { return cap_; }
  T* begin() noexcept { return ptr_; }
  T* end() noexcept { return ptr_ + size_; }
  const T* begin() const noexcept { return ptr_; }
  const T* end() const noexcept { return ptr_ + size_; }
  std::reverse_iterator<T*> rbegin() noexcept { return std::reverse_iterator<T*>(end()); }
  std::reverse_iterator<T*> rend() noexcept { return std::reverse_iterator<T*>(begin()); }
  std::reverse_iterator<const T*> rbegin() const noexcept {
    return std::reverse_iterator<const T*>(end());
  }
  std::reverse_iterator<const T*> rend() const noexcept {
    return std::reverse_iterator<const T*>(begin());
  }
  T& operator[](std::size_t i) noexcept { return ptr_[i]; }
  const T& operator[](std::size_t i) const noexcept { return ptr_[i]; }
  T& front() noexcept { return ptr_[0]; }
  const T& front() const noexcept { return ptr_[0]; }
  T& back() noexcept { return ptr_[size_ - 1]; }
  const T& back() const noexcept { return ptr_[size_ - 1]; }
  T& at(std::size_t i) {
    if (i >= size_) throw IndexError("SmallVec::at");
    return ptr_[i];
  }
  const T& at(std::size_t i) const {
    if (i >= size_) throw IndexError("SmallVec::at");
    return ptr_[i];
  }
  operator std::span<const T>() const noexcept { return {ptr_, size_}; }

  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t n) {
    if (n <= cap_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T)));
    const std::size_t kept = size_;
    if (kept) std::memcpy(fresh, ptr_, kept * sizeof(T));
    release();  // resets size_: restore it below
    ptr_ = fresh;
    cap_ = n;
    size_ = kept;
  }
  void resize(std::size_t n, T value = T()) {
    reserve(n);
    for (std::size_t i = size_; i < n; ++i) ptr_[i] = value;
    size_ = n;
  }
  void push_back(T v) {
    if (size_ == cap_) reserve(cap_ * 2);
    ptr_[size_++] = v;
  }
  void pop_back() noexcept { --size_; }
  template <class... A> T& emplace_back(A&&... a) {
    push_back(T(std::forward<A>(a)...));
    return back();
  }
  T* insert(const T* pos, T v) {
    const std::size_t k = static_cast<std::size_t>(pos - ptr_);
    if (size_ == cap_) reserve(cap_ * 2);
    std::memmove(ptr_ + k + 1, ptr_ + k, (size_ - k) * sizeof(T));
    ptr_[k] = v;
    ++size_;
    return ptr_ + k;
  }
  T* erase(const T* pos) {
    const std::size_t k = static_cast<std::size_t>(pos - ptr_);
    std::memmove(ptr_ + k, ptr_ + k + 1, (size_ - k - 1) * sizeof(T));
    --size_;
    return ptr_ + k;
  }
  void assign(std::size_t n, T value) {
    clear();
    resize(n, value);
  }
  template <class It, class = typename std::iterator_traits<It>::iterator_category>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>)
      reserve(static_cast<std::size_t>(std::distance(first, last)));
    for (; first != last; ++first) push_back(static_cast<T>(*first));
  }

  friend bool operator==(const SmallVec& a, const SmallVec& b) noexcept {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool inline_storage() const noexcept { return ptr_ == reinterpret_cast<const T*>(buf_); }
  void release() noexcept {
    if (!inline_storage()) ::operator delete(ptr_);
    ptr_ = reinterpret_cast<T*>(buf_);
    cap_ = N;
    size_ = 0;
  }
  void steal(SmallVec& o) noexcept {
    if (o.inline_storage()) {
      std::memcpy(buf_, o.buf_, o.size_ * sizeof(T));
      ptr_ = reinterpret_cast<T*>(buf_);
      cap_ = N;
    } else {
      ptr_ = o.ptr_;
      cap_ = o.cap_;
      o.ptr_ = reinterpret_cast<T*>(o.buf_);
      o.cap_ = N;
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* ptr_ = reinterpret_cast<T*>(buf_);
  std::size_t size_ = 0;
  std::size_t cap_ = N;
  alignas(T) std::byte buf_[N * sizeof(T)];
};

}  // namespace rw

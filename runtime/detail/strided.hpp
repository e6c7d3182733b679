// N-dimensional strided loops: visit every element offset in row-major order.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/small_vec.hpp"

namespace rw::detail {

/// Calls f(offset) for each element of a tensor of `shape` with `strides`, in
/// row-major order; offsets are in elements, relative to the first element.
template <class F>
void for_each_strided(std::span<const std::int64_t> shape, std::span<const std::int64_t> strides,
                      F&& f) {
  const std::size_t nd = shape.size();
  for (auto d : shape)
    if (d == 0) return;
  if (nd == 0) {
    f(std::int64_t{0});
    return;
  }
  SmallVec<std::int64_t, 8> idx(nd, 0);
  const std::int64_t inner = shape[nd - 1], inner_stride = strides[nd - 1];
  std::int64_t base = 0;
  for (;;) {
    for (std::int64_t i = 0; i < inner; ++i) f(base + i * inner_stride);
    std::size_t ax = nd - 1;
    for (;;) {
      if (ax == 0) return;
      --ax;
      if (++idx[ax] < shape[ax]) {
        base += strides[ax];
        break;
      }
      base -= (shape[ax] - 1) * strides[ax];
      idx[ax] = 0;
    }
  }
}

/// Like for_each_strided for two tensors of the same shape: f(offset_a, offset_b).
template <class F>
void for_each_strided2(std::span<const std::int64_t> shape, std::span<const std::int64_t> sa,
                       std::span<const std::int64_t> sb, F&& f) {
  const std::size_t nd = shape.size();
  for (auto d : shape)
    if (d == 0) return;
  if (nd == 0) {
    f(std::int64_t{0}, std::int64_t{0});
    return;
  }
  SmallVec<std::int64_t, 8> idx(nd, 0);
  const std::int64_t inner = shape[nd - 1], ia = sa[nd - 1], ib = sb[nd - 1];
  std::int64_t a = 0, b = 0;
  for (;;) {
    for (std::int64_t i = 0; i < inner; ++i) f(a + i * ia, b + i * ib);
    std::size_t ax = nd - 1;
    for (;;) {
      if (ax == 0) return;
      --ax;
      if (++idx[ax] < shape[ax]) {
        a += sa[ax];
        b += sb[ax];
        break;
      }
      a -= (shape[ax] - 1) * sa[ax];
      b -= (shape[ax] - 1) * sb[ax];
      idx[ax] = 0;
    }
  }
}

}  // namespace rw::detail

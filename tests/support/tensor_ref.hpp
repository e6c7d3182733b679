// Reference helpers for runtime tests: walk indices, read broadcast elements,
// build tensors from functions — the slow, obvious way the kernels are checked
// against.
#pragma once

#include <cmath>
#include <limits>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/tensor.hpp"

namespace rw::testing {

using Index = std::vector<std::int64_t>;

/// Calls f(index) for every index of `shape` in row-major order.
inline void for_each_index(const std::vector<std::int64_t>& shape,
                           const std::function<void(const Index&)>& f) {
  for (auto d : shape)
    if (d == 0) return;
  Index idx(shape.size(), 0);
  for (;;) {
    f(idx);
    std::size_t ax = shape.size();
    for (;;) {
      if (ax == 0) return;
      --ax;
      if (++idx[ax] < shape[ax]) break;
      idx[ax] = 0;
    }
  }
}

/// The element of `t` that index `idx` of a larger broadcast shape reads.
inline double bcast_at(const Tensor& t, const Index& idx) {
  Index own(static_cast<std::size_t>(t.ndim()));
  const std::size_t lead = idx.size() - own.size();
  for (std::size_t i = 0; i < own.size(); ++i) own[i] = t.shape()[i] == 1 ? 0 : idx[lead + i];
  return t.at(own);
}

/// A float64 tensor of `shape` with element f(index).
inline Tensor make_tensor(const std::vector<std::int64_t>& shape,
                          const std::function<double(const Index&)>& f,
                          DType dtype = DType::Float64) {
  Tensor t = Tensor::zeros(shape, DType::Float64);
  double* p = t.data<double>();
  std::int64_t k = 0;
  for_each_index(shape, [&](const Index& i) { p[k++] = f(i); });
  return dtype == DType::Float64 ? t : t.astype(dtype);
}

/// Deterministic pseudo-random values in [lo, hi) (a fixed LCG: tests are
/// reproducible and independent of the library's Rng).
inline Tensor lcg_tensor(const std::vector<std::int64_t>& shape, std::uint64_t seed,
                         double lo = -1.0, double hi = 1.0, DType dtype = DType::Float64) {
  std::uint64_t s = seed * 2654435761ULL + 1;
  return make_tensor(
      shape,
      [&](const Index&) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return lo + (hi - lo) * (static_cast<double>(s >> 11) * 0x1.0p-53);
      },
      dtype);
}

/// Every element within `ulps` units in the last place of want's (NaN equal
/// to NaN; infinities, and everything when ulps is 0, exactly equal), with
/// the first difference reported. For results of the vector math kernels,
/// which are within an ulp or two of the C library's (docs/runtime.md).
inline void require_within_ulps(const Tensor& got, const Tensor& want, double ulps) {
  INFO("got " << got.to_string() << "\nwant " << want.to_string());
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  const double eps = want.dtype() == DType::Float32 ? std::numeric_limits<float>::epsilon()
                                                    : std::numeric_limits<double>::epsilon();
  bool same = true;
  std::string where;
  for_each_index(std::vector<std::int64_t>(got.shape().begin(), got.shape().end()),
                 [&](const Index& i) {
                   const double a = got.at(i), b = want.at(i);
                   if (a == b || (std::isnan(a) && std::isnan(b))) return;
                   if (std::isfinite(b) && std::abs(a - b) <= ulps * eps * std::abs(b)) return;
                   if (same) {
                     where = "first difference at index (";
                     for (auto k : i) where += std::to_string(k) + ",";
                     where += "): got " + std::to_string(a) + ", want " + std::to_string(b);
                   }
                   same = false;
                 });
  INFO(where);
  REQUIRE(same);
}

/// Every element equal (NaN equal to NaN), with the first difference reported.
inline void require_same(const Tensor& got, const Tensor& want) {
  require_within_ulps(got, want, 0);
}

}  // namespace rw::testing

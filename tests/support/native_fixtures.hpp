// Helpers of the native-code tests: options that compile into a fresh
// directory, and comparing results bit for bit.
#pragma once

#include <cmath>
#include <cstring>
#include <string>

#include "engine/compile/function_options.hpp"
#include "runtime/tensor.hpp"
#include "support/temp_dir.hpp"

namespace rw::test {

/// NativeOptions compiling into `dir` (never the user's cache).
inline NativeOptions native_in(const TempDir& dir, Native mode = Native::Sync) {
  NativeOptions o;
  o.mode = mode;
  o.compile_dir = dir.path();
  return o;
}

/// Whether the floats at `u` and `v`, whose bits differ, are both NaN;
/// else `why` says so for element `i`.
template <class T>
bool float_same(const unsigned char* u, const unsigned char* v, std::int64_t i, std::string& why) {
  T s, t;
  std::memcpy(&s, u, sizeof(T));
  std::memcpy(&t, v, sizeof(T));
  if (std::isnan(s) && std::isnan(t)) return true;
  why = "element " + std::to_string(i) + ": " + std::to_string(s) + " vs " + std::to_string(t);
  return false;
}

/// "" when `a` and `b` have the same dtype, shape and elements, bit for bit
/// (any NaN equals any NaN); else what differs, with the first position.
inline std::string bitwise_difference(const Tensor& a, const Tensor& b) {
  if (a.valid() != b.valid()) return "one is null";
  if (!a.valid()) return "";
  if (a.dtype() != b.dtype()) return "dtypes differ";
  if (a.shape() != b.shape()) return "shapes differ";
  const Tensor x = a.copy(), y = b.copy();
  const std::size_t size = itemsize(a.dtype());
  const auto* p = static_cast<const unsigned char*>(x.raw_data());
  const auto* q = static_cast<const unsigned char*>(y.raw_data());
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const unsigned char* u = p + i * static_cast<std::int64_t>(size);
    const unsigned char* v = q + i * static_cast<std::int64_t>(size);
    if (std::memcmp(u, v, size) == 0) continue;
    std::string why;
    if (a.dtype() == DType::Float64 && !float_same<double>(u, v, i, why)) return why;
    if (a.dtype() == DType::Float32 && !float_same<float>(u, v, i, why)) return why;
    if (is_float(a.dtype())) continue;
    return "element " + std::to_string(i) + " differs";
  }
  return "";
}

}  // namespace rw::test

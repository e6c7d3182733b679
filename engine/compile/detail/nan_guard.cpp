// NanGuard's reading of values.
#include "engine/compile/detail/nan_guard.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "engine/graph/type.hpp"

namespace rw::detail {

namespace {

/// Calls `f(index, value)` on each element of a float tensor, as a double,
/// in row-major order; stops early when `f` returns true.
template <class F> void for_each_value(const Tensor& t, F&& f) {
  const Tensor c = t.is_contiguous() ? t : t.contiguous();
  const std::int64_t n = c.size();
  auto scan = [&](const auto* p) {
    for (std::int64_t i = 0; i < n; ++i)
      if (f(i, static_cast<double>(p[i]))) return;
  };
  if (c.dtype() == DType::Float64) scan(c.data<double>());
  else if (c.dtype() == DType::Float32) scan(c.data<float>());
}

}  // namespace

GuardFinding guard_scan(const Tensor& t, const NanGuard& guard) {
  GuardFinding out;
  if (t.dtype() != DType::Float64 && t.dtype() != DType::Float32) return out;
  for_each_value(t, [&](std::int64_t i, double v) {
    bool hit = false;
    if (std::isnan(v)) {
      hit = guard.nan;
      out.nan += hit;
    } else if (std::isinf(v)) {
      hit = guard.inf;
      out.inf += hit;
    } else if (guard.big && std::abs(v) > guard.big_bound) {
      hit = true;
      ++out.big;
    }
    if (hit && out.first < 0) {
      out.first = i;
      out.first_value = v;
    }
    return false;
  });
  return out;
}

std::string GuardFinding::describe(const NanGuard& guard, std::int64_t size) const {
  std::string kinds;
  auto add = [&](std::int64_t n, std::string_view what) {
    if (n == 0) return;
    kinds += fmt::format("{}{} {}", kinds.empty() ? "" : " and ", n, what);
  };
  add(nan, "NaN");
  add(inf, "inf");
  add(big, fmt::format("value{} above {:g} in magnitude", big == 1 ? "" : "s", guard.big_bound));
  // A NaN prints without its sign bit (sqrt(-1) is -nan on x86).
  const std::string value = std::isnan(first_value) ? "nan" : fmt::format("{}", first_value);
  return fmt::format("{} of {} element{} (the first, {}, at index {})", kinds, size,
                     size == 1 ? "" : "s", value, first);
}

std::string guard_summary(const Tensor& t) {
  // As a type of that exact shape prints: f64[3, 4].
  std::string out = TensorType(t.dtype(), StaticShape(t.shape().begin(), t.shape().end())).to_string();
  if (t.size() == 0) return out;
  if (t.dtype() != DType::Float64 && t.dtype() != DType::Float32) {
    if (t.dtype() == DType::Bool) return out;
    const Tensor d = t.contiguous().astype(DType::Float64);
    const double* p = d.data<double>();
    const auto [lo, hi] = std::minmax_element(p, p + d.size());
    double sum = 0;
    for (std::int64_t i = 0; i < d.size(); ++i) sum += p[i];
    return out + fmt::format(" min {:g} max {:g} mean {:g}", *lo, *hi, sum / static_cast<double>(d.size()));
  }
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, sum = 0;
  std::int64_t finite = 0, nans = 0, infs = 0;
  for_each_value(t, [&](std::int64_t, double v) {
    if (std::isnan(v)) {
      ++nans;
    } else {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
      if (std::isinf(v)) {
        ++infs;
      } else {
        sum += v;
        ++finite;
      }
    }
    return false;
  });
  if (nans < t.size()) out += fmt::format(" min {:g} max {:g}", lo, hi);
  if (finite > 0)
    out += fmt::format(" mean {:g}{}", sum / static_cast<double>(finite),
                       finite < t.size() ? " (of the finite values)" : "");
  if (nans) out += fmt::format(", {} NaN", nans);
  if (infs) out += fmt::format(", {} inf", infs);
  return out;
}

}  // namespace rw::detail

// Sorting and counting: each line along the axis is sorted through an index
// permutation with std::stable_sort and a NaN-last order.
#include "runtime/kernels/sort.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/shape.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

/// a < b with NaNs after every number (NumPy's sort order).
template <class T> bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

/// Equal, with NaN equal to NaN.
template <class T> bool same_value(T a, T b) {
  if constexpr (std::is_floating_point_v<T>)
    if (std::isnan(a) && std::isnan(b)) return true;
  return a == b;
}

/// x with `axis` moved last, contiguous, and the permutation that undoes it.
struct AxisLast {
  Tensor t;
  std::vector<std::int64_t> inverse;
  std::int64_t n = 0;      // the extent of the axis
  std::int64_t lines = 0;  // the number of lines along it
};

AxisLast axis_last(const Tensor& x, std::int64_t axis, const char* name) {
  if (x.ndim() == 0) throw ValueError(fmt::format("`{}` of a 0-d tensor", name));
  const std::int64_t a = normalize_axis(axis, x.ndim());
  std::vector<std::int64_t> perm;
  for (std::int64_t d = 0; d < x.ndim(); ++d)
    if (d != a) perm.push_back(d);
  perm.push_back(a);
  std::vector<std::int64_t> inverse(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inverse[static_cast<std::size_t>(perm[k])] = static_cast<std::int64_t>(k);
  AxisLast out{x.transpose(perm).contiguous(), std::move(inverse), x.shape()[static_cast<std::size_t>(a)], 0};
  out.lines = out.n == 0 ? 0 : x.size() / out.n;
  return out;
}

/// For each line along the axis: f(l, line, idx) with the line's elements
/// and idx = 0, 1, …, n - 1, the positions to order.
template <class T, class F> void each_line(const AxisLast& al, F&& f) {
  const T* src = al.t.data<T>();
  std::vector<std::int64_t> idx(static_cast<std::size_t>(al.n));
  for (std::int64_t l = 0; l < al.lines; ++l) {
    std::iota(idx.begin(), idx.end(), std::int64_t{0});
    f(l, src + l * al.n, idx);
  }
}

/// Sorted values (when `values`) or positions of every line along the axis.
Tensor sorted(const Tensor& x, std::int64_t axis, bool values, const char* name) {
  AxisLast al = axis_last(x, axis, name);
  Tensor out = Tensor::empty(values ? x.dtype() : DType::Int64, al.t.shape());
  visit_dtype(x.dtype(), [&]<class T>() {
    each_line<T>(al, [&](std::int64_t l, const T* line, std::vector<std::int64_t>& idx) {
      std::stable_sort(idx.begin(), idx.end(),
                       [line](std::int64_t i, std::int64_t j) { return less_nan_last(line[i], line[j]); });
      if (values) {
        T* dst = out.data<T>() + l * al.n;
        for (std::int64_t k = 0; k < al.n; ++k) dst[k] = line[idx[static_cast<std::size_t>(k)]];
      } else {
        std::copy(idx.begin(), idx.end(), out.data<std::int64_t>() + l * al.n);
      }
    });
  });
  return out.transpose(al.inverse).contiguous();
}

}  // namespace

Tensor sort(const Tensor& x, std::int64_t axis) { return sorted(x, axis, true, "sort"); }

Tensor argsort(const Tensor& x, std::int64_t axis) { return sorted(x, axis, false, "argsort"); }

TopKResult topk(const Tensor& x, std::int64_t k, std::int64_t axis) {
  AxisLast al = axis_last(x, axis, "topk");
  const std::int64_t m = k < 0 ? -k : k;
  if (k == 0 || m > al.n)
    throw ValueError(fmt::format("`topk`: k = {} for an axis of extent {}; expected 1 <= |k| <= {}",
                                 k, al.n, al.n));
  Shape out_shape = al.t.shape();
  out_shape.back() = m;
  Tensor values = Tensor::empty(x.dtype(), out_shape);
  Tensor indices = Tensor::empty(DType::Int64, out_shape);
  visit_dtype(x.dtype(), [&]<class T>() {
    each_line<T>(al, [&](std::int64_t l, const T* line, std::vector<std::int64_t>& idx) {
      // The position breaks ties, so the unstable partial sort orders as a stable one would.
      const auto before = [line, k](std::int64_t i, std::int64_t j) {
        const bool lt = k > 0 ? less_nan_last(line[j], line[i]) : less_nan_last(line[i], line[j]);
        const bool gt = k > 0 ? less_nan_last(line[i], line[j]) : less_nan_last(line[j], line[i]);
        return lt || (!gt && i < j);
      };
      std::partial_sort(idx.begin(), idx.begin() + m, idx.end(), before);
      for (std::int64_t r = 0; r < m; ++r) {
        const std::int64_t i = idx[static_cast<std::size_t>(r)];
        values.data<T>()[l * m + r] = line[i];
        indices.data<std::int64_t>()[l * m + r] = i;
      }
    });
  });
  return {values.transpose(al.inverse).contiguous(), indices.transpose(al.inverse).contiguous()};
}

Tensor median_last_axis(const Tensor& x) {
  if (x.ndim() == 0) throw ValueError("`median` of a 0-d tensor");
  const DType d = float_result(x.dtype());
  const Tensor t = x.astype(DType::Float64).contiguous();
  const std::int64_t n = t.shape().back();
  Shape out_shape = t.shape();
  out_shape.pop_back();
  Tensor out = Tensor::empty(DType::Float64, out_shape);
  std::vector<double> line(static_cast<std::size_t>(n));
  for (std::int64_t l = 0; l < out.size(); ++l) {
    const double* src = t.data<double>() + l * n;
    std::copy(src, src + n, line.begin());
    const bool has_nan =
        std::any_of(line.begin(), line.end(), [](double v) { return std::isnan(v); });
    if (n == 0 || has_nan) {
      out.data<double>()[l] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    // The upper middle by nth_element; the lower one, for an even n, is the
    // largest of the part before it.
    const auto hi = line.begin() + n / 2;
    std::nth_element(line.begin(), hi, line.end());
    const double upper = *hi;
    out.data<double>()[l] = n % 2 ? upper : (*std::max_element(line.begin(), hi) + upper) / 2;
  }
  return d == DType::Float64 ? out : out.astype(d);
}

Tensor searchsorted(const Tensor& a, const Tensor& v, bool right) {
  if (a.ndim() != 1)
    throw ValueError(
        fmt::format("`searchsorted`: the sorted array has {} dimensions, expected 1", a.ndim()));
  const DType common = promote(a.dtype(), v.dtype());
  const Tensor sa = a.astype(common);
  const Tensor sv = v.astype(common);
  Tensor out = Tensor::empty(DType::Int64, v.shape());
  visit_dtype(common, [&]<class T>() {
    const T* begin = sa.data<T>();
    const T* end = begin + sa.size();
    const T* values = sv.data<T>();
    std::int64_t* dst = out.data<std::int64_t>();
    for (std::int64_t i = 0; i < sv.size(); ++i) {
      const T* at = right ? std::upper_bound(begin, end, values[i], less_nan_last<T>)
                          : std::lower_bound(begin, end, values[i], less_nan_last<T>);
      dst[i] = at - begin;
    }
  });
  return out;
}

Tensor bincount(const Tensor& x, const Tensor* weights, std::int64_t minlength) {
  if (x.ndim() != 1 || !is_integer(x.dtype()))
    throw ValueError(fmt::format("`bincount`: x is {}[{}-d], expected a vector of integers",
                                 dtype_name(x.dtype()), x.ndim()));
  if (minlength < 0) throw ValueError("`bincount`: minlength is negative");
  if (weights && (weights->ndim() != 1 || weights->size() != x.size()))
    throw ValueError(
        fmt::format("`bincount`: {} weights for {} values", weights->size(), x.size()));
  const Tensor xi = x.astype(DType::Int64);
  const std::int64_t* p = xi.data<std::int64_t>();
  std::int64_t bins = minlength;
  for (std::int64_t i = 0; i < xi.size(); ++i) {
    if (p[i] < 0)
      throw ValueError(fmt::format("`bincount`: value {} at position {} is negative", p[i], i));
    bins = std::max(bins, p[i] + 1);
  }
  check_shape_size(std::span(&bins, 1));
  if (!weights) {
    Tensor out = Tensor::zeros({bins}, DType::Int64);
    for (std::int64_t i = 0; i < xi.size(); ++i) ++out.data<std::int64_t>()[p[i]];
    return out;
  }
  const DType d = is_float(weights->dtype()) ? weights->dtype() : DType::Float64;
  const Tensor w = weights->astype(DType::Float64);
  Tensor acc = Tensor::zeros({bins}, DType::Float64);
  for (std::int64_t i = 0; i < xi.size(); ++i) acc.data<double>()[p[i]] += w.data<double>()[i];
  return d == DType::Float64 ? acc : acc.astype(d);
}

std::pair<Tensor, Tensor> unique(const Tensor& x) {
  const Tensor flat = sort(x.contiguous().reshape(std::vector<std::int64_t>{-1}), 0);
  std::vector<std::int64_t> starts;
  visit_dtype(x.dtype(), [&]<class T>() {
    const T* p = flat.data<T>();
    for (std::int64_t i = 0; i < flat.size(); ++i)
      if (i == 0 || !same_value(p[i], p[i - 1])) starts.push_back(i);
  });
  const auto m = static_cast<std::int64_t>(starts.size());
  Tensor values = Tensor::empty(x.dtype(), {m});
  Tensor counts = Tensor::empty(DType::Int64, {m});
  visit_dtype(x.dtype(), [&]<class T>() {
    for (std::int64_t k = 0; k < m; ++k) {
      const std::int64_t s = starts[static_cast<std::size_t>(k)];
      const std::int64_t e = k + 1 < m ? starts[static_cast<std::size_t>(k + 1)] : flat.size();
      values.data<T>()[k] = flat.data<T>()[s];
      counts.data<std::int64_t>()[k] = e - s;
    }
  });
  return {values, counts};
}

Tensor diff(const Tensor& x, std::int64_t n, std::int64_t axis) {
  if (x.ndim() == 0) throw ValueError("`diff` of a 0-d tensor");
  if (x.dtype() == DType::Bool) throw ValueError("`diff` of bools");
  if (n < 0) throw ValueError(fmt::format("`diff`: order {} is negative", n));
  const std::int64_t a = normalize_axis(axis, x.ndim());
  Tensor cur = x.copy();
  for (std::int64_t k = 0; k < n; ++k) {
    const std::int64_t len = cur.shape()[static_cast<std::size_t>(a)];
    if (len == 0) break;
    cur = elemwise(ScalarOp::Sub, cur.slice(a, 1, len), cur.slice(a, 0, len - 1));
  }
  return cur;
}

}  // namespace rw

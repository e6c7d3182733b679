// Sorting and counting kernels: sort and argsort along an axis (stable, NaN
// last), partial sorts (topk, median), searchsorted, bincount, unique, and
// diff along an axis.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

#include "runtime/tensor.hpp"

namespace rw {

/// The values of x along `axis` in ascending order (NumPy's sort): stable,
/// NaNs last. Throws IndexError for a bad axis, ValueError
/// for a 0-d x.
Tensor sort(const Tensor& x, std::int64_t axis = -1);
/// The int64 positions that sort x along `axis`, as sort orders them
/// (NumPy's argsort with kind="stable").
Tensor argsort(const Tensor& x, std::int64_t axis = -1);
/// The |k| largest values of x along `axis` in descending order (k > 0), or
/// the |k| smallest in ascending order (k < 0), and their int64 positions;
/// equal values keep their order along the axis and NaNs count as larger
/// than every number, as in sort. A partial sort of each line. Throws
/// ValueError for k = 0, |k| above the axis' extent, or a 0-d x.
struct TopKResult {
  Tensor values, indices;
};
TopKResult topk(const Tensor& x, std::int64_t k, std::int64_t axis = -1);
/// The median of each line of x along its last axis, which is removed
/// (NumPy's median): the middle value, or the mean of the two middle ones
/// for an even extent, of dtype float_result(x.dtype()); NaN for a line that
/// holds a NaN or is empty. Throws ValueError for a 0-d x.
Tensor median_last_axis(const Tensor& x);
/// For each element of v, the int64 position in the ascending vector `a` at
/// which it would be inserted to keep `a` sorted: before equal values, or
/// after them when `right` (NumPy's searchsorted; NaNs sort last). Throws
/// ValueError when `a` is not a vector.
Tensor searchsorted(const Tensor& a, const Tensor& v, bool right = false);
/// The number of occurrences of each value 0, 1, … of the non-negative
/// integer vector x (int64), or the sum of the weights at those positions
/// (float64, or the weights' float dtype), over max(max(x) + 1, minlength)
/// bins (NumPy's bincount). Throws ValueError for a negative
/// value, non-integers, or weights of another length.
Tensor bincount(const Tensor& x, const Tensor* weights = nullptr, std::int64_t minlength = 0);
/// The sorted distinct values of x flattened (all NaNs count as one, last)
/// and the int64 number of times each occurs (NumPy's unique).
std::pair<Tensor, Tensor> unique(const Tensor& x);
/// The n-th discrete difference along `axis`: x[1:] - x[:-1] applied n times
/// (NumPy's diff); the axis shrinks by n (to at least 0). Throws
/// ValueError for bools or a 0-d x.
Tensor diff(const Tensor& x, std::int64_t n = 1, std::int64_t axis = -1);

}  // namespace rw

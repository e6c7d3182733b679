// Joining, splitting and indexing kernels: concatenate, stack, split, gather
// (take), scatter-add/set, set/inc of views, alloc and fill.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <vector>

#include "runtime/tensor.hpp"

namespace rw {

/// Tensors joined along an existing `axis` (NumPy's concatenate); the result
/// dtype is the promotion of theirs. Throws ValueError for no
/// tensors, 0-d tensors, or naming the first tensor whose rank or shape off
/// the axis differs from tensor 0's.
Tensor concatenate(std::span<const Tensor> tensors, std::int64_t axis = 0);
/// Tensors of one shape joined along a new `axis` (NumPy's stack).
Tensor stack(std::span<const Tensor> tensors, std::int64_t axis = 0);
/// Consecutive pieces of `x` along `axis` with the given extents, which must
/// sum to the axis' extent (Aesara's Split). The pieces are views of `x`.
std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes,
                          std::int64_t axis = 0);

/// Gather (NumPy's take, `x[..., indices, ...]`): the slices of `x` at the
/// integer `indices` along `axis`, negative indices counting from the end.
/// The result has shape x.shape[:axis] + indices.shape + x.shape[axis+1:].
/// Throws IndexError "index 5 is out of bounds for axis 0 with size
/// 3" for an index outside [-size, size), ValueError for
/// non-integer indices.
Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis = 0);
/// Scatter-add, in place (NumPy's add.at; Aesara's inc of an advanced
/// subtensor): target[..., indices[j], ...] += values[..., j, ...], a
/// repeated index adding every time. `values` broadcasts to the shape
/// take(target, indices, axis) has and is converted to target's dtype.
/// Errors as take; on error target is unchanged.
void scatter_add(Tensor& target, const Tensor& indices, const Tensor& values,
                 std::int64_t axis = 0);
/// As scatter_add, assigning; for a repeated index the last value stays.
void scatter_set(Tensor& target, const Tensor& indices, const Tensor& values,
                 std::int64_t axis = 0);

/// dst ← src, with src broadcast to dst's shape and converted to its dtype:
/// Aesara's set_subtensor when dst is a view (`x.slice(0, 1, 3)`).
void copy_into(Tensor& dst, const Tensor& src);
/// dst ← dst + src, src broadcast and converted to dst's dtype: inc_subtensor.
void add_into(Tensor& dst, const Tensor& src);

/// A new contiguous tensor of `shape` holding `value` broadcast to it (Aesara's
/// Alloc). Throws ValueError when value does not broadcast.
Tensor alloc(const Tensor& value, std::span<const std::int64_t> shape);
inline Tensor alloc(const Tensor& value, std::initializer_list<std::int64_t> shape) {
  return alloc(value, std::span<const std::int64_t>(shape.begin(), shape.size()));
}
/// Every element of `dst` set to `value` converted to its dtype.
void fill(Tensor& dst, double value);

}  // namespace rw

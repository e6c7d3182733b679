// Gradients of the scans: cumsum's adjoint is the reversed cumsum, cumprod's
// that of fx * g divided by x, diff's the negated forward difference.
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/reduce/cumulative.hpp"

namespace rw {
namespace {

using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::var_dtype;
using ops_detail::var_rank;

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

/// `v` reversed along `axis`.
Var reversed(const Var& v, std::int64_t axis) {
  std::vector<Index> index(static_cast<std::size_t>(axis), Index(slice()));
  index.emplace_back(slice(std::nullopt, std::nullopt, -1));
  return subtensor(v, index);
}

/// `v[..., s, ...]` with the slice s on `axis`.
std::vector<Index> on_axis(std::int64_t axis, Slice s) {
  std::vector<Index> index(static_cast<std::size_t>(axis), Index(slice()));
  index.emplace_back(std::move(s));
  return index;
}

}  // namespace

std::vector<Var> CumOp::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  const Var xe = axis_ ? x : flatten(x);
  const std::int64_t a = axis_ ? norm_axis(*axis_, var_rank(x)) : 0;
  Var g = output_grads[0];
  if (mul_) g = g * node.output(0);
  g = reversed(cumsum(reversed(g, a), a), a);
  if (mul_) g = g / xe;
  if (!axis_) g = reshape(g, shape(x));
  return {for_input(g, x)};
}

std::vector<Var> CumOp::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] || !is_float(var_dtype(node.input(0)))) return {Var()};
  if (!mul_) return {cumsum(ev[0], axis_)};
  const Var& x = node.input(0);
  const Var ratio = axis_ ? ev[0] / x : flatten(ev[0] / x);
  return {node.output(0) * cumsum(ratio, axis_ ? axis_ : std::optional<std::int64_t>(0))};
}

std::vector<Var> Diff::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  const std::size_t rank = var_rank(x);
  const std::int64_t a = norm_axis(axis_, rank);
  // Each difference y = z[1:] - z[:-1] sends g to z[1:] and -g to z[:-1].
  Var g = for_input(output_grads[0], x);
  for (std::int64_t k = 0; k < n_; ++k) {
    std::vector<Operand> extents;
    for (std::size_t d = 0; d < rank; ++d) {
      const Var e = shape_i(g, static_cast<std::int64_t>(d));
      extents.emplace_back(static_cast<std::int64_t>(d) == a ? e + 1 : e);
    }
    Var z = alloc(constant(0.0, var_dtype(x)), extents);
    z = inc_subtensor(z, on_axis(a, slice(1, std::nullopt)), g);
    g = inc_subtensor(z, on_axis(a, slice(std::nullopt, -1)), -g);
  }
  // When n exceeds the extent the result was empty: keep x's extent (zeros).
  return {subtensor(g, on_axis(a, slice(std::nullopt, shape_i(x, a))))};
}

std::vector<Var> Diff::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {diff(ev[0], n_, axis_)};
}

}  // namespace rw

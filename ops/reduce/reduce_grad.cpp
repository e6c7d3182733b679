// Gradients of the reductions: the output gradient broadcast back over the
// reduced axes, times each reduction's elementwise derivative factor.
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/reduce/reduce.hpp"

namespace rw {
namespace {

using ops_detail::float_zeros_like;
using ops_detail::var_dtype;

/// The reduced axes of `node` as a list.
std::vector<std::int64_t> axes_list(const std::vector<bool>& reduced) {
  std::vector<std::int64_t> out;
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (reduced[a]) out.push_back(static_cast<std::int64_t>(a));
  return out;
}

/// `v` (shaped like the reduction's output) with the reduced axes put back as
/// extent 1, so that it broadcasts against the input.
Var keep_dims(const Var& v, const std::vector<bool>& reduced) {
  std::vector<std::int64_t> order;
  std::int64_t next = 0;
  for (bool r : reduced) order.push_back(r ? kNewAxis : next++);
  return dimshuffle(v, std::move(order));
}

/// The number of elements each output element reduces, as a 0-d of `dtype`.
Var group_size(const Var& x, const std::vector<bool>& reduced, DType dtype) {
  Var n = constant(1.0, dtype);
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (reduced[a]) n = n * cast(shape_i(x, static_cast<std::int64_t>(a)), dtype);
  return n;
}

/// ∂z/∂x elementwise (x's shape) for prod, max and min, with z kept as `zk`.
Var derivative_factor(ReduceOp op, const Var& x, const Var& zk, const std::vector<bool>& reduced) {
  const DType d = var_dtype(x);
  if (op == ReduceOp::Max || op == ReduceOp::Min) return cast(eq(x, zk), d);
  // prod: z / x where the group has no zero; at the only zero of a group the
  // product of the others; zero otherwise (as Aesara, without dividing by 0).
  const std::vector<std::int64_t> axes = axes_list(reduced);
  const Axes ax{std::span<const std::int64_t>(axes)};
  const Var is_zero = eq(x, 0);
  const Var zeros_in_group = sum(cast(is_zero, DType::Int64), ax, true);
  const Var x_safe = where(is_zero, 1, x);
  const Var prod_nonzero = prod(x_safe, ax, true);
  const Var no_zero = prod_nonzero / x_safe;
  const Var one_zero = where(is_zero, prod_nonzero, 0);
  return where(eq(zeros_in_group, 0), no_zero, where(eq(zeros_in_group, 1), one_zero, 0));
}

}  // namespace

std::vector<Var> Reduce::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  const DType d = var_dtype(x);
  if (!is_float(d) || !is_float(var_dtype(node.output(0)))) return {float_zeros_like(x)};
  const std::vector<bool> reduced = reduced_axes(node);
  const Var gk = keep_dims(cast(output_grads[0], d), reduced);
  switch (op_) {
    case ReduceOp::Sum: return {fill(x, gk)};
    case ReduceOp::Mean: return {fill(x, gk / group_size(x, reduced, d))};
    default: {
      const Var zk = keep_dims(node.output(0), reduced);
      return {gk * derivative_factor(op_, x, zk, reduced)};
    }
  }
}

std::vector<Var> Reduce::R_op(const Apply& node, std::span<const Var> eval_points) const {
  const Var& x = node.input(0);
  const Var& v = eval_points[0];
  if (!v || !is_float(var_dtype(x)) || !is_float(var_dtype(node.output(0)))) return {Var()};
  const std::vector<bool> reduced = reduced_axes(node);
  const std::vector<std::int64_t> axes = axes_list(reduced);
  const Axes ax{std::span<const std::int64_t>(axes)};
  switch (op_) {
    case ReduceOp::Sum: return {sum(v, ax)};
    case ReduceOp::Mean: return {mean(v, ax)};
    default: {
      const Var zk = keep_dims(node.output(0), reduced);
      return {sum(derivative_factor(op_, x, zk, reduced) * v, ax)};
    }
  }
}

std::vector<Var> LogSumExpReduce::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // ∂z/∂x = exp(x - z): the softmax over each group, finite wherever z is.
  const Var& x = node.input(0);
  const std::vector<bool> reduced = reduced_axes(node);
  const Var gk = keep_dims(output_grads[0], reduced);
  return {gk * exp(x - keep_dims(node.output(0), reduced))};
}

std::vector<Var> LogSumExpReduce::R_op(const Apply& node, std::span<const Var> eval_points) const {
  const Var& v = eval_points[0];
  if (!v) return {Var()};
  const std::vector<bool> reduced = reduced_axes(node);
  const std::vector<std::int64_t> axes = axes_list(reduced);
  const Var softmax = exp(node.input(0) - keep_dims(node.output(0), reduced));
  return {sum(softmax * v, Axes{std::span<const std::int64_t>(axes)})};
}

namespace {

/// The weight of each element of x in its group's median (x's shape, `dtype`):
/// 1 for the middle one of an odd count, 1/2 for each of the two middle ones
/// of an even count, 0 elsewhere. Ranks come from a stable argsort of each
/// group, so that tied values still give exactly one element each rank.
Var median_weights(const Var& x, const std::vector<bool>& reduced, DType dtype) {
  std::vector<std::int64_t> perm, inverse(reduced.size());
  std::vector<Operand> lines;
  Var group = constant(std::int64_t{1});
  for (bool want_reduced : {false, true})
    for (std::size_t a = 0; a < reduced.size(); ++a) {
      if (reduced[a] != want_reduced) continue;
      inverse[a] = static_cast<std::int64_t>(perm.size());
      perm.push_back(static_cast<std::int64_t>(a));
      const Var extent = shape_i(x, static_cast<std::int64_t>(a));
      if (want_reduced) group = group * extent;
      else lines.push_back(extent);
    }
  lines.push_back(group);
  const Var moved = transpose(x, perm);
  const Var ranks = argsort(argsort(reshape(moved, lines), -1), -1);
  const Var middle = cast(eq(ranks, int_div(group - 1, 2)), dtype) +
                     cast(eq(ranks, int_div(group, 2)), dtype);
  return transpose(reshape(middle * 0.5, shape(moved)), inverse);
}

}  // namespace

std::vector<Var> MedianReduce::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  const std::vector<bool> reduced = reduced_axes(node);
  return {keep_dims(output_grads[0], reduced) * median_weights(x, reduced, var_dtype(x))};
}

std::vector<Var> MedianReduce::R_op(const Apply& node, std::span<const Var> eval_points) const {
  const Var& v = eval_points[0];
  if (!v) return {Var()};
  const std::vector<bool> reduced = reduced_axes(node);
  const std::vector<std::int64_t> axes = axes_list(reduced);
  const Var w = median_weights(node.input(0), reduced, var_dtype(node.output(0)));
  return {sum(w * v, Axes{std::span<const std::int64_t>(axes)})};
}

std::vector<Var> ArgReduce::L_op(const Apply& node, std::span<const Var>) const {
  return {float_zeros_like(node.input(0))};
}

std::vector<Var> ArgReduce::R_op(const Apply&, std::span<const Var>) const { return {Var()}; }

}  // namespace rw

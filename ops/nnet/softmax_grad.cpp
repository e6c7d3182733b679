// Gradients of softmax and log_softmax along their axis.
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/nnet/softmax.hpp"

namespace rw {
namespace {

/// The softmax axis of `x`, counted from the front.
std::int64_t norm_axis(std::int64_t axis, const Var& x) {
  return axis < 0 ? axis + static_cast<std::int64_t>(ops_detail::var_rank(x)) : axis;
}

/// J^T g, which is also J g: the Jacobians of softmax (diag(y) - y y^T) and
/// of log_softmax (I - 1 softmax^T, transposed for L_op) along the axis.
Var softmax_vjp(bool log, std::int64_t axis, const Var& y, const Var& g, bool transpose_jac) {
  const Axes ax{axis};
  if (!log) return (g - sum(g * y, ax, true)) * y;
  const Var p = exp(y);
  if (transpose_jac) return g - p * sum(g, ax, true);
  return g - sum(p * g, ax, true);
}

}  // namespace

std::vector<Var> Softmax::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  Var g = output_grads[0];
  Var r = softmax_vjp(log_, norm_axis(axis_, x), node.output(0), g, true);
  if (ops_detail::var_dtype(r) != ops_detail::var_dtype(x)) r = cast(r, ops_detail::var_dtype(x));
  return {r};
}

std::vector<Var> Softmax::R_op(const Apply& node, std::span<const Var> eval_points) const {
  if (!eval_points[0]) return {Var()};
  const Var& y = node.output(0);
  Var v = eval_points[0];
  if (ops_detail::var_dtype(v) != ops_detail::var_dtype(y)) v = cast(v, ops_detail::var_dtype(y));
  return {softmax_vjp(log_, norm_axis(axis_, node.input(0)), y, v, false)};
}

}  // namespace rw

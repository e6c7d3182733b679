// Gradients of the creation Ops: arange and linspace are affine in their
// bounds; a triangle mask is its own adjoint; alloc_diag and extract_diag are
// each other's adjoints.
#include "ops/api.hpp"
#include "ops/creation/creation.hpp"
#include "ops/detail/grad_util.hpp"

namespace rw {
namespace {

using ops_detail::disconnected_grad_var;
using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::var_dtype;

/// 0, 1, …, n - 1 in the dtype of `like`, n the extent of the vector `like`.
Var index_ramp(const Var& like) {
  return arange(0, shape_i(like, 0), 1, var_dtype(like));
}

/// The weights t of linspace's stop (1 - t is start's): linspace(0, 1, num).
Var linspace_weights(const Apply& node, bool endpoint) {
  const DType d = var_dtype(node.output(0));
  return linspace(constant(0.0, d), constant(1.0, d), node.input(2), endpoint, d);
}

}  // namespace

std::vector<Var> ARange::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& g = output_grads[0];
  const Var &start = node.input(0), &step = node.input(2);
  if (!is_float(var_dtype(g)))
    return {float_zeros_like(start), disconnected_grad_var(), float_zeros_like(step)};
  return {for_input(sum(g), start), disconnected_grad_var(),
          for_input(sum(g * index_ramp(node.output(0))), step)};
}

std::vector<Var> ARange::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var out = node.output(0);
  if ((!ev[0] && !ev[2]) || !is_float(var_dtype(out))) return {Var()};
  Var r = zeros_like(out);
  if (ev[0]) r = r + cast(ev[0], var_dtype(out));
  if (ev[2]) r = r + index_ramp(out) * cast(ev[2], var_dtype(out));
  return {r};
}

std::vector<Var> Linspace::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& g = output_grads[0];
  const Var t = linspace_weights(node, endpoint_);
  return {for_input(sum(g * (1 - t)), node.input(0)), for_input(sum(g * t), node.input(1)),
          disconnected_grad_var()};
}

std::vector<Var> Linspace::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] && !ev[1]) return {Var()};
  const Var out = node.output(0);
  const Var t = linspace_weights(node, endpoint_);
  Var r = zeros_like(out);
  if (ev[0]) r = r + cast(ev[0], var_dtype(out)) * (1 - t);
  if (ev[1]) r = r + cast(ev[1], var_dtype(out)) * t;
  return {r};
}

std::vector<Var> TriMask::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  const Var g = for_input(output_grads[0], x);
  return {upper_ ? triu(g, k_) : tril(g, k_)};
}

std::vector<Var> TriMask::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {upper_ ? triu(ev[0], k_) : tril(ev[0], k_)};
}

std::vector<Var> AllocDiag::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& v = node.input(0);
  if (!is_float(var_dtype(v))) return {float_zeros_like(v)};
  return {extract_diag(for_input(output_grads[0], v), offset_)};
}

std::vector<Var> AllocDiag::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {alloc_diag(ev[0], offset_)};
}

std::vector<Var> ExtractDiag::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  const DType d = var_dtype(x);
  const Var g = for_input(output_grads[0], x);
  // Diagonal k >= 0 holds (i, i + k): row i of eye(n, m, k) times g padded to
  // n rows; k < 0 holds (i - k, i): column i times g padded to m columns.
  const std::int64_t axis = offset_ >= 0 ? 0 : 1;
  const Var extent = shape_i(x, axis);
  const Var padded =
      concatenate({g, alloc(constant(0.0, d), {extent - shape_i(g, 0)})}, 0);
  const Var spread = axis == 0 ? dimshuffle(padded, {0, kNewAxis})
                               : dimshuffle(padded, {kNewAxis, 0});
  return {eye(shape_i(x, 0), shape_i(x, 1), offset_, d) * spread};
}

std::vector<Var> ExtractDiag::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {extract_diag(ev[0], offset_)};
}

}  // namespace rw

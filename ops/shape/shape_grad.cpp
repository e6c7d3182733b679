// Gradients of the shape and structure Ops: each gradient undoes the
// structural change (dimshuffle back, reshape back, split what was joined).
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/shape/alloc.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "ops/shape/gather_shape.hpp"
#include "ops/shape/join.hpp"
#include "ops/shape/reshape.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw {
namespace {

using ops_detail::disconnected_grad_var;
using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::sum_to;
using ops_detail::var_dtype;
using ops_detail::var_rank;

/// The eval point, or zeros like `x` when it is not given.
Var point_or_zeros(const Var& v, const Var& x) { return v ? v : zeros_like(x); }

std::int64_t norm_axis(std::int64_t axis, std::size_t rank) {
  return axis < 0 ? axis + static_cast<std::int64_t>(rank) : axis;
}

}  // namespace

std::vector<Var> DimShuffle::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  // Added axes are summed away (they have extent 1), then the kept axes are
  // put back in input order, with the dropped ones as new axes of extent 1.
  std::vector<std::int64_t> added, kept;
  for (std::size_t i = 0; i < order().size(); ++i) {
    if (order()[i] == kNewAxis)
      added.push_back(static_cast<std::int64_t>(i));
    else
      kept.push_back(order()[i]);
  }
  Var g = output_grads[0];
  if (!added.empty()) g = sum(g, Axes(std::span<const std::int64_t>(added)));
  std::vector<std::int64_t> back;
  for (std::size_t a = 0; a < var_rank(x); ++a) {
    const auto it = std::find(kept.begin(), kept.end(), static_cast<std::int64_t>(a));
    back.push_back(it == kept.end() ? kNewAxis : static_cast<std::int64_t>(it - kept.begin()));
  }
  return {for_input(dimshuffle(g, std::move(back)), x)};
}

std::vector<Var> DimShuffle::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {dimshuffle(ev[0], order())};
}

std::vector<Var> SpecifyShape::L_op(const Apply& node, std::span<const Var> output_grads) const {
  return {for_input(output_grads[0], node.input(0))};
}

std::vector<Var> SpecifyShape::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {specify_shape(ev[0], shape_)};
}

std::vector<Var> MakeVector::L_op(const Apply& node, std::span<const Var> output_grads) const {
  std::vector<Var> out;
  for (std::size_t k = 0; k < node.num_inputs(); ++k) {
    const Var& x = node.input(k);
    if (!is_float(dtype_) || !is_float(var_dtype(x)))
      out.push_back(float_zeros_like(x));
    else
      out.push_back(for_input(subtensor(output_grads[0], {static_cast<std::int64_t>(k)}), x));
  }
  return out;
}

std::vector<Var> MakeVector::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!is_float(dtype_)) return {Var()};
  std::vector<Operand> elems;
  for (std::size_t k = 0; k < node.num_inputs(); ++k)
    elems.emplace_back(point_or_zeros(ev[k], node.input(k)));
  return {make_vector(elems, dtype_)};
}

std::vector<Var> Reshape::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  return {for_input(reshape(output_grads[0], shape(x)), x), disconnected_grad_var()};
}

std::vector<Var> Reshape::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {reshape(ev[0], node.input(1))};
}

std::vector<Var> Flatten::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  return {for_input(reshape(output_grads[0], shape(x)), x)};
}

std::vector<Var> Flatten::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {flatten(ev[0], ndim_)};
}

std::vector<Var> Alloc::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& value = node.input(0);
  std::vector<Var> out{is_float(var_dtype(value)) ? sum_to(output_grads[0], value)
                                                  : float_zeros_like(value)};
  for (std::size_t i = 1; i < node.num_inputs(); ++i) out.push_back(disconnected_grad_var());
  return out;
}

/// Extents have no gradient.
std::vector<Var> AllocEmpty::L_op(const Apply& node, std::span<const Var>) const {
  return std::vector<Var>(node.num_inputs(), disconnected_grad_var());
}

std::vector<Var> Alloc::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  std::vector<Var> in(node.inputs().begin(), node.inputs().end());
  in[0] = ev[0];
  return {make_node(in)->output(0)};
}

std::vector<Var> Join::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const std::int64_t axis = norm_axis(axis_, var_rank(node.output(0)));
  std::vector<Operand> sizes;
  for (const Var& x : node.inputs()) sizes.emplace_back(shape_i(x, axis));
  const std::vector<Var> pieces = split(output_grads[0], sizes, axis);
  std::vector<Var> out;
  for (std::size_t k = 0; k < node.num_inputs(); ++k)
    out.push_back(for_input(pieces[k], node.input(k)));
  return out;
}

std::vector<Var> Join::R_op(const Apply& node, std::span<const Var> ev) const {
  std::vector<Var> pts;
  for (std::size_t k = 0; k < node.num_inputs(); ++k)
    pts.push_back(point_or_zeros(ev[k], node.input(k)));
  return {make_node(pts)->output(0)};
}

std::vector<Var> Split::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  // Outputs without a gradient contribute zeros of their shape.
  std::vector<Var> parts;
  for (std::size_t k = 0; k < node.num_outputs(); ++k)
    parts.push_back(ops_detail::is_disconnected(output_grads[k]) ? zeros_like(node.output(k))
                                                                 : output_grads[k]);
  return {for_input(concatenate(parts, axis_), x), disconnected_grad_var()};
}

std::vector<Var> Split::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return std::vector<Var>(node.num_outputs());
  const Var in[] = {ev[0], node.input(1)};
  return make_node(in)->outputs();
}

std::vector<Var> Stack::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const std::int64_t axis = norm_axis(axis_, var_rank(node.output(0)));
  std::vector<Var> out;
  for (std::size_t k = 0; k < node.num_inputs(); ++k) {
    std::vector<Index> index(static_cast<std::size_t>(axis), Index(slice()));
    index.emplace_back(static_cast<std::int64_t>(k));
    out.push_back(for_input(subtensor(output_grads[0], index), node.input(k)));
  }
  return out;
}

std::vector<Var> Stack::R_op(const Apply& node, std::span<const Var> ev) const {
  std::vector<Var> pts;
  for (std::size_t k = 0; k < node.num_inputs(); ++k)
    pts.push_back(point_or_zeros(ev[k], node.input(k)));
  return {make_node(pts)->output(0)};
}

std::vector<Var> Repeat::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x), disconnected_grad_var()};
  // Slice i of the result came from slice index[i] of x: scatter-add back.
  const Var xe = axis_ ? x : flatten(x);
  const std::int64_t a = axis_ ? norm_axis(*axis_, var_rank(x)) : 0;
  const Var index = repeat(arange(shape_i(xe, a)), node.input(1), 0);
  Var g = advanced_inc_subtensor(zeros_like(xe), index, for_input(output_grads[0], x), a);
  if (!axis_) g = reshape(g, shape(x));
  return {g, disconnected_grad_var()};
}

std::vector<Var> Repeat::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {repeat(ev[0], node.input(1), axis_)};
}

std::vector<Var> Tile::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x)};
  // Result axis a is (reps[a], n[a]) in row-major order: split each, sum the reps.
  const std::size_t rank = var_rank(x), d = std::max(rank, reps_.size());
  std::vector<Operand> split_shape;
  std::vector<std::int64_t> rep_axes;
  for (std::size_t a = 0; a < d; ++a) {
    const std::int64_t r = a + reps_.size() >= d ? reps_[a + reps_.size() - d] : 1;
    rep_axes.push_back(static_cast<std::int64_t>(2 * a));
    split_shape.emplace_back(r);
    if (a + rank >= d) split_shape.emplace_back(shape_i(x, static_cast<std::int64_t>(a + rank - d)));
    else split_shape.emplace_back(1);
  }
  Var g = sum(reshape(output_grads[0], split_shape), Axes(std::span<const std::int64_t>(rep_axes)));
  if (d > rank) g = reshape(g, shape(x));
  return {for_input(g, x)};
}

std::vector<Var> Tile::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {tile(ev[0], reps_)};
}

std::vector<Var> Roll::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x), disconnected_grad_var()};
  return {for_input(roll(output_grads[0], -node.input(1), axis_), x), disconnected_grad_var()};
}

std::vector<Var> Roll::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {roll(ev[0], node.input(1), axis_)};
}

}  // namespace rw

// Gradients of sort and topk (through the positions argsort and argtopk
// give) and of bincount in its weights (the output gradient gathered at x).
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/sort/sort.hpp"

namespace rw {
namespace {

using ops_detail::disconnected_grad_var;
using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::var_dtype;
using ops_detail::var_rank;

/// The positions sort or topk took its result from, into x (flattened when
/// sort had no axis) with the axis moved last, then flattened: result
/// element k came from element `flat[k]` of flatten(moved).
struct SortedPositions {
  Var moved;  // x (flattened when no axis) with the axis last
  Var flat;   // int64 positions into flatten(moved)
  std::int64_t axis = 0;
};

/// `pick(moved)` gives, for each line along the last axis of `moved`, the
/// positions in that line (argsort, argtopk).
template <class Pick>
SortedPositions line_positions(const Var& x, std::optional<std::int64_t> axis, Pick pick) {
  const Var xe = axis ? x : flatten(x);
  const auto rank = static_cast<std::int64_t>(var_rank(xe));
  const std::int64_t a = axis ? (*axis < 0 ? *axis + rank : *axis) : 0;
  const Var moved = moveaxis(xe, a, -1);
  // Lines of n along the last axis, b of them: line l starts at l * n.
  const Var n = shape_i(moved, rank - 1);
  Var b = constant(std::int64_t{1});
  for (std::int64_t d = 0; d + 1 < rank; ++d) b = b * shape_i(moved, d);
  const Var picked = pick(moved);
  const Var lines = reshape(picked, {b, shape_i(picked, rank - 1)});
  const Var starts = dimshuffle(arange(b) * n, {0, kNewAxis});
  return {moved, flatten(lines + starts), a};
}

SortedPositions sorted_positions(const Var& x, std::optional<std::int64_t> axis) {
  return line_positions(x, axis, [](const Var& moved) { return argsort(moved, -1); });
}

SortedPositions topk_positions(const Var& x, std::int64_t k, std::int64_t axis) {
  return line_positions(x, axis, [k](const Var& moved) { return argtopk(moved, k, -1); });
}

/// The gradient g of the picked elements, scattered back into zeros shaped
/// like `p.moved`, flattened.
Var scattered(const Var& g, const SortedPositions& p) {
  return advanced_inc_subtensor(zeros_like(flatten(p.moved)), p.flat,
                                flatten(moveaxis(g, p.axis, -1)));
}

/// `v` shaped like `positions.moved`, put back in the layout of x.
Var unmoved(const Var& v, const SortedPositions& p, const Var& x, bool flattened) {
  const Var back = moveaxis(reshape(v, shape(p.moved)), -1, p.axis);
  return flattened ? reshape(back, shape(x)) : back;
}

}  // namespace

std::vector<Var> Sort::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (arg_ || !is_float(var_dtype(x))) return {float_zeros_like(x)};
  const SortedPositions p = sorted_positions(x, axis_);
  // The gradient of result element k goes to the element it came from.
  return {for_input(unmoved(scattered(output_grads[0], p), p, x, !axis_), x)};
}

std::vector<Var> Sort::R_op(const Apply& node, std::span<const Var> ev) const {
  if (arg_ || !ev[0]) return {Var()};
  const SortedPositions p = sorted_positions(node.input(0), axis_);
  const Var ev_moved = flatten(moveaxis(axis_ ? ev[0] : flatten(ev[0]), p.axis, -1));
  const Var sorted_ev = moveaxis(reshape(take(ev_moved, p.flat), shape(p.moved)), -1, p.axis);
  return {sorted_ev};
}

std::vector<Var> TopK::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  if (arg_ || !is_float(var_dtype(x))) return {float_zeros_like(x)};
  const SortedPositions p = topk_positions(x, k_, axis_);
  return {for_input(unmoved(scattered(output_grads[0], p), p, x, false), x)};
}

std::vector<Var> TopK::R_op(const Apply& node, std::span<const Var> ev) const {
  if (arg_ || !ev[0]) return {Var()};
  const SortedPositions p = topk_positions(node.input(0), k_, axis_);
  const Var picked = take(flatten(moveaxis(ev[0], p.axis, -1)), p.flat);
  const Var out_moved = moveaxis(node.output(0), p.axis, -1);
  return {moveaxis(reshape(picked, shape(out_moved)), -1, p.axis)};
}

std::vector<Var> BinCount::L_op(const Apply& node, std::span<const Var> output_grads) const {
  if (node.num_inputs() == 1) return {disconnected_grad_var()};
  const Var& w = node.input(1);
  if (!is_float(var_dtype(w))) return {disconnected_grad_var(), float_zeros_like(w)};
  return {disconnected_grad_var(), for_input(take(output_grads[0], node.input(0)), w)};
}

std::vector<Var> BinCount::R_op(const Apply& node, std::span<const Var> ev) const {
  if (node.num_inputs() == 1 || !ev[1]) return {Var()};
  return {bincount(node.input(0), ev[1], minlength_)};
}

}  // namespace rw

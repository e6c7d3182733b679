// Gradients of basic and advanced indexing: what was read is scattered back
// (inc_subtensor into zeros), what was written is read back.
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/indexing/advanced.hpp"
#include "ops/indexing/subtensor.hpp"

namespace rw {
namespace {

using ops_detail::disconnected_grad_var;
using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::sum_to;
using ops_detail::var_dtype;

Var point_or_zeros(const Var& v, const Var& x) { return v ? v : zeros_like(x); }

/// `op(first…, rest of node's inputs from `from`)`.
Var apply_with(const Op& op, std::vector<Var> first, const Apply& node, std::size_t from) {
  for (std::size_t i = from; i < node.num_inputs(); ++i) first.push_back(node.input(i));
  return op.make_node(first)->output(0);
}

}  // namespace

std::vector<Var> Subtensor::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  std::vector<Var> out;
  if (!is_float(var_dtype(x))) {
    out.push_back(float_zeros_like(x));
  } else {
    const auto inc = std::make_shared<IncSubtensor>(index_.codes(), /*set=*/false);
    out.push_back(apply_with(*inc, {zeros_like(x), for_input(output_grads[0], x)}, node, 1));
  }
  for (std::size_t i = 1; i < node.num_inputs(); ++i) out.push_back(disconnected_grad_var());
  return out;
}

std::vector<Var> Subtensor::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {apply_with(*this, {ev[0]}, node, 1)};
}

std::vector<Var> IncSubtensor::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var &x = node.input(0), &y = node.input(1);
  const Var& g = output_grads[0];
  std::vector<Var> out;
  if (!set_) {
    out.push_back(for_input(g, x));
  } else {
    const auto setter = std::make_shared<IncSubtensor>(index_.codes(), /*set=*/true);
    out.push_back(for_input(apply_with(*setter, {g, constant(0.0, var_dtype(g))}, node, 2), x));
  }
  if (!is_float(var_dtype(y))) {
    out.push_back(float_zeros_like(y));
  } else {
    const auto read = std::make_shared<Subtensor>(index_.codes());
    out.push_back(sum_to(apply_with(*read, {g}, node, 2), y));
  }
  for (std::size_t i = 2; i < node.num_inputs(); ++i) out.push_back(disconnected_grad_var());
  return out;
}

std::vector<Var> IncSubtensor::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] && !ev[1]) return {Var()};
  const auto op = std::make_shared<IncSubtensor>(index_.codes(), set_);
  return {apply_with(*op, {point_or_zeros(ev[0], node.input(0)), point_or_zeros(ev[1], node.input(1))},
                     node, 2)};
}

std::vector<Var> AdvancedSubtensor::L_op(const Apply& node,
                                         std::span<const Var> output_grads) const {
  const Var &x = node.input(0), &idx = node.input(1);
  if (!is_float(var_dtype(x))) return {float_zeros_like(x), disconnected_grad_var()};
  return {advanced_inc_subtensor(zeros_like(x), idx, for_input(output_grads[0], x), axis_),
          disconnected_grad_var()};
}

std::vector<Var> AdvancedSubtensor::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {take(ev[0], node.input(1), axis_)};
}

std::vector<Var> AdvancedIncSubtensor::L_op(const Apply& node,
                                            std::span<const Var> output_grads) const {
  const Var &x = node.input(0), &y = node.input(1), &idx = node.input(2);
  const Var& g = output_grads[0];
  Var gx = set_ ? advanced_set_subtensor(g, idx, 0, axis_) : g;
  Var gy = is_float(var_dtype(y)) ? sum_to(take(g, idx, axis_), y) : float_zeros_like(y);
  return {for_input(gx, x), gy, disconnected_grad_var()};
}

std::vector<Var> AdvancedIncSubtensor::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] && !ev[1]) return {Var()};
  const auto op = std::make_shared<AdvancedIncSubtensor>(axis_, set_);
  return {op->make_node(std::vector<Var>{point_or_zeros(ev[0], node.input(0)),
                                        point_or_zeros(ev[1], node.input(1)), node.input(2)})
              ->output(0)};
}

}  // namespace rw

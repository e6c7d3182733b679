// Ops that change only the gradient: zero_grad, disconnected_grad (stop
// gradient), grad_clip and grad_scale; each computes its input unchanged.
#pragma once

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// What the gradient of a GradientOp's input is.
enum class GradientRule : std::uint8_t {
  Zero,          ///< zeros (Aesara's zero_grad): connected, but nothing flows
  Disconnected,  ///< not connected at all (Aesara's disconnected_grad)
  Clip,          ///< the output gradient clipped to [lo, hi] (Aesara's grad_clip)
  Scale,         ///< the output gradient times a factor (Aesara's grad_scale)
};

/// The identity in the forward pass (the output is a view of the input) with
/// a gradient changed as `rule` says. R_op: zero for Zero and Disconnected,
/// the eval point for Clip, times the factor for Scale.
class GradientOp final : public Op {
 public:
  /// `a`, `b`: the clip bounds (lo, hi) or the scale factor (a).
  explicit GradientOp(GradientRule rule, double a = 0, double b = 0);
  GradientRule rule() const { return rule_; }

  std::string_view name() const override;
  /// `lo`, `hi` for grad_clip, `multiplier` for grad_scale.
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  /// Disconnected for disconnected_grad.
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap view_map() const override { return {{0, 0}}; }

 private:
  GradientRule rule_;
  double a_, b_;
};

/// x, with a zero gradient (Aesara's zero_grad).
Var zero_grad(const Var& x);
/// x, with no gradient: the cost does not depend on x through it (Aesara's
/// disconnected_grad, TensorFlow's stop_gradient).
Var disconnected_grad(const Var& x);
/// Another name for disconnected_grad.
Var stop_gradient(const Var& x);
/// x, whose gradient is clipped to [lo, hi]. Throws Error when lo > hi.
Var grad_clip(const Var& x, double lo, double hi);
/// x, whose gradient is multiplied by `multiplier`.
Var grad_scale(const Var& x, double multiplier);

/// Registers zero_grad, disconnected_grad, grad_clip (`lo`, `hi`) and
/// grad_scale (`multiplier`).
void register_gradient_ops(OpRegistry& registry);

}  // namespace rw

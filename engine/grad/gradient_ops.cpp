// zero_grad, disconnected_grad, grad_clip and grad_scale.
#include "engine/grad/gradient_ops.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"

namespace rw {

GradientOp::GradientOp(GradientRule rule, double a, double b) : rule_(rule), a_(a), b_(b) {}

std::string_view GradientOp::name() const {
  switch (rule_) {
    case GradientRule::Zero: return "zero_grad";
    case GradientRule::Disconnected: return "disconnected_grad";
    case GradientRule::Clip: return "grad_clip";
    case GradientRule::Scale: return "grad_scale";
  }
  return "zero_grad";
}

Props GradientOp::props() const {
  if (rule_ == GradientRule::Clip) return {{"lo", a_}, {"hi", b_}};
  if (rule_ == GradientRule::Scale) return {{"multiplier", a_}};
  return {};
}

ApplyRef GradientOp::make_node(std::span<const Var> inputs) const {
  if (inputs.size() != 1)
    throw TypeError(fmt::format("`{}` takes 1 input, got {}", name(), inputs.size()));
  if (!inputs[0] || !inputs[0]->tensor_type())
    throw TypeError(fmt::format("`{}`: input 0 must be a tensor", name()));
  const TypePtr type = inputs[0]->type();
  return Apply::create(ptr(), inputs, std::span(&type, 1));
}

void GradientOp::perform(const Apply&, std::span<const Tensor> inputs,
                         std::span<Tensor> outputs) const {
  outputs[0] = inputs[0];
}

std::vector<ShapeVars> GradientOp::infer_shape(const Apply&,
                                               std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> GradientOp::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& x = node.input(0);
  const Var& g = output_grads[0];
  switch (rule_) {
    case GradientRule::Zero: return {zeros_like(x, is_float(x->tensor_type()->dtype())
                                                       ? x->tensor_type()->dtype()
                                                       : DType::Float64)};
    case GradientRule::Disconnected: return {Variable::make(DisconnectedType::make())};
    case GradientRule::Clip: return {clip(g, a_, b_)};
    case GradientRule::Scale: return {g * a_};
  }
  return {g};
}

std::vector<Var> GradientOp::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  switch (rule_) {
    case GradientRule::Zero:
    case GradientRule::Disconnected: return {Var()};
    case GradientRule::Clip: return {ev[0]};
    case GradientRule::Scale: return {ev[0] * a_};
  }
  return {ev[0]};
}

std::vector<std::vector<bool>> GradientOp::connection_pattern(const Apply&) const {
  return {{rule_ != GradientRule::Disconnected}};
}

Var zero_grad(const Var& x) {
  static const OpPtr op = std::make_shared<GradientOp>(GradientRule::Zero);
  return (*op)({x});
}

Var disconnected_grad(const Var& x) {
  static const OpPtr op = std::make_shared<GradientOp>(GradientRule::Disconnected);
  return (*op)({x});
}

Var stop_gradient(const Var& x) { return disconnected_grad(x); }

Var grad_clip(const Var& x, double lo, double hi) {
  if (!(lo <= hi))
    throw Error(fmt::format("`grad_clip`: the lower bound {} is above the upper bound {}", lo, hi));
  return (*std::make_shared<GradientOp>(GradientRule::Clip, lo, hi))({x});
}

Var grad_scale(const Var& x, double multiplier) {
  return (*std::make_shared<GradientOp>(GradientRule::Scale, multiplier))({x});
}

void register_gradient_ops(OpRegistry& registry) {
  registry.add({.name = "zero_grad",
                .doc = "the input, with a zero gradient",
                .params = {},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props&) -> OpPtr {
                  return std::make_shared<GradientOp>(GradientRule::Zero);
                }});
  registry.add({.name = "disconnected_grad",
                .doc = "the input, with no gradient (stop_gradient)",
                .params = {},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props&) -> OpPtr {
                  return std::make_shared<GradientOp>(GradientRule::Disconnected);
                }});
  registry.add({.name = "grad_clip",
                .doc = "the input, with its gradient clipped to [lo, hi]",
                .params = {{"lo", ParamKind::Float, std::nullopt, false, "lower bound"},
                           {"hi", ParamKind::Float, std::nullopt, false, "upper bound"}},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props& p) -> OpPtr {
                  const double lo = std::get<double>(*find_prop(p, "lo"));
                  const double hi = std::get<double>(*find_prop(p, "hi"));
                  if (!(lo <= hi))
                    throw Error(fmt::format(
                        "`grad_clip`: the lower bound {} is above the upper bound {}", lo, hi));
                  return std::make_shared<GradientOp>(GradientRule::Clip, lo, hi);
                }});
  registry.add({.name = "grad_scale",
                .doc = "the input, with its gradient multiplied by `multiplier`",
                .params = {{"multiplier", ParamKind::Float, std::nullopt, false, "the factor"}},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props& p) -> OpPtr {
                  return std::make_shared<GradientOp>(GradientRule::Scale,
                                                      std::get<double>(*find_prop(p, "multiplier")));
                }});
}

}  // namespace rw

// deep_copy and view.
#include "engine/compile/compile_ops.hpp"

#include <cstring>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"

namespace rw {

namespace {

ApplyRef make_unary_same_type(const Op& op, std::span<const Var> inputs) {
  if (inputs.size() != 1)
    throw TypeError(fmt::format("`{}` takes 1 input, got {}", op.name(), inputs.size()));
  const TypePtr type = inputs[0]->type();
  return Apply::create(op.ptr(), inputs, std::span(&type, 1));
}

}  // namespace

ApplyRef DeepCopyOp::make_node(std::span<const Var> inputs) const {
  return make_unary_same_type(*this, inputs);
}

void DeepCopyOp::perform(const Apply&, std::span<const Tensor> inputs,
                         std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  Tensor& z = outputs[0];
  const bool fits = z.valid() && z.dtype() == x.dtype() && z.shape() == x.shape() &&
                    z.is_contiguous();
  if (!fits) {
    z = x.copy();
    return;
  }
  if (x.is_contiguous()) std::memcpy(z.raw_data(), x.raw_data(), x.nbytes());
  else z.assign(x);
}

std::vector<ShapeVars> DeepCopyOp::infer_shape(const Apply&,
                                               std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

ApplyRef ViewOp::make_node(std::span<const Var> inputs) const {
  return make_unary_same_type(*this, inputs);
}

void ViewOp::perform(const Apply&, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  outputs[0] = inputs[0];
}

std::vector<ShapeVars> ViewOp::infer_shape(const Apply&,
                                           std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<Var> ViewOp::grad(const Apply&, std::span<const Var> output_grads) const {
  return {output_grads[0]};
}

const OpPtr& deep_copy_op() {
  static const OpPtr op = std::make_shared<DeepCopyOp>();
  return op;
}

const OpPtr& view_op() {
  static const OpPtr op = std::make_shared<ViewOp>();
  return op;
}

Var deep_copy(const Var& x) { return (*deep_copy_op())({x}); }
Var view(const Var& x) { return (*view_op())({x}); }

void register_compile_ops(OpRegistry& registry) {
  registry.add({.name = "deep_copy",
                .doc = "an independent copy of the input",
                .params = {},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props&) { return deep_copy_op(); }});
  registry.add({.name = "view",
                .doc = "the input itself, as a view",
                .params = {},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props&) { return view_op(); }});
}

}  // namespace rw

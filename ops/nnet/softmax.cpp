// Softmax, LogSoftmax and their registration.
#include "ops/nnet/softmax.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/softmax.hpp"

namespace rw {

ApplyRef Softmax::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const auto n = static_cast<std::int64_t>(t.ndim());
  if (axis_ < -n || axis_ >= n)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", to_string(),
                                axis_, ops_detail::input_label(0, inputs[0]), n));
  if (t.dtype() == DType::Bool)
    throw TypeError(fmt::format("`{}`: {} is {}, expected numbers", to_string(),
                                ops_detail::input_label(0, inputs[0]), t.to_string()));
  return ops_detail::make_apply(*this, inputs, float_result(t.dtype()), t.shape());
}

void Softmax::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return log_ ? log_softmax(inputs[0], axis_) : softmax(inputs[0], axis_);
  });
}

std::vector<ShapeVars> Softmax::infer_shape(const Apply&,
                                            std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

void register_nnet(OpRegistry& r) {
  for (bool log : {false, true}) {
    r.add({.name = log ? "log_softmax" : "softmax",
           .doc = log ? "x - max - log(sum(exp(x - max))) along `axis`"
                      : "exp(x - max) / sum(exp(x - max)) along `axis`",
           .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{-1}}, false,
                       "the axis (negative: from the end)"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [log](const Props& p) -> OpPtr {
             return std::make_shared<Softmax>(std::get<std::int64_t>(p[0].value), log);
           }});
  }
}

}  // namespace rw

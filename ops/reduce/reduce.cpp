// Reduce, AxesReduction (logsumexp, median) and ArgReduce.
#include "ops/reduce/reduce.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/sort.hpp"

namespace rw {

using ops_detail::input_label;

namespace {

/// The `axis` property as the Ops take it: none, or the tuple.
std::optional<std::vector<std::int64_t>> axis_param(const PropValue& value) {
  if (const auto* v = std::get_if<std::vector<std::int64_t>>(&value)) return *v;
  return std::nullopt;
}

std::vector<std::int64_t> reduced_list(const std::vector<bool>& reduced) {
  std::vector<std::int64_t> out;
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (reduced[a]) out.push_back(static_cast<std::int64_t>(a));
  return out;
}

}  // namespace

Reduce::Reduce(ReduceOp op, std::optional<std::vector<std::int64_t>> axis)
    : ParamsOp(ReduceParams{std::move(axis)}), op_(op) {}

std::string_view Reduce::name() const { return reduce_op_name(op_); }

std::vector<bool> Reduce::check_axes(std::span<const Var> inputs, const Op* named) const {
  const Op& op = named ? *named : *this;
  const TensorType& t = ops_detail::tensor_input(op, inputs, 0);
  const auto n = static_cast<std::int64_t>(t.ndim());
  std::vector<bool> reduced(t.ndim(), !axis().has_value());
  if (axis()) {
    for (std::int64_t a : *axis()) {
      const std::int64_t k = a < 0 ? a + n : a;
      if (k < 0 || k >= n)
        throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}",
                                    op.to_string(), a, input_label(0, inputs[0]), n));
      if (reduced[static_cast<std::size_t>(k)])
        throw TypeError(fmt::format("`{}`: axis {} is given twice", op.to_string(), k));
      reduced[static_cast<std::size_t>(k)] = true;
    }
  }
  return reduced;
}

std::vector<bool> Reduce::reduced_axes(const Apply& node) const {
  return check_axes(node.inputs());
}

StaticShape Reduce::kept_shape(const TensorType& t, const std::vector<bool>& reduced) {
  StaticShape shape;
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (!reduced[a]) shape.push_back(t.shape()[a]);
  return shape;
}

ApplyRef Reduce::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const std::vector<bool> reduced = check_axes(inputs);
  const TensorType& t = *inputs[0]->tensor_type();
  return ops_detail::make_apply(*this, inputs, reduce_result_dtype(op_, t.dtype()),
                                kept_shape(t, reduced));
}

void Reduce::perform_with(const ReduceParams&, const Apply& node, std::span<const Tensor> inputs,
                          std::span<Tensor> outputs) const {
  const auto list = reduced_list(reduced_axes(node));
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return reduce(op_, inputs[0], Axes(std::span<const std::int64_t>(list)));
  });
}

std::optional<NativeCode> Reduce::native_code(const Apply& node, const NativeNames& names) const {
  const TensorType& t = *node.input(0)->tensor_type();
  const StaticShape& st = t.shape();
  ElemwiseLayout layout;
  layout.rank = st.size();
  const bool one = std::all_of(st.begin(), st.end(), [](std::int64_t e) { return e == 1; });
  layout.inputs.push_back(one ? NativeOperand::Scalar : NativeOperand::Dense);
  ScalarProgram identity;
  identity.output(identity.input(t.dtype()));
  return native_code_of(
      reduce_native_source(op_, identity, layout, reduced_axes(node), names.prefix));
}

std::vector<ShapeVars> Reduce::infer_shape(const Apply& node,
                                           std::span<const ShapeVars> input_shapes) const {
  const std::vector<bool> reduced = reduced_axes(node);
  ShapeVars out;
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (!reduced[a]) out.push_back(input_shapes[0][a]);
  return {out};
}

// ---------------------------------------------------------------------------

ArgReduce::ArgReduce(bool is_max, std::optional<std::int64_t> axis)
    : is_max_(is_max), axis_(axis) {}

Props ArgReduce::props() const {
  if (!axis_) return {{"axis", std::monostate{}}};
  return {{"axis", *axis_}};
}

std::int64_t ArgReduce::normalized_axis(std::span<const Var> inputs) const {
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const auto n = static_cast<std::int64_t>(t.ndim());
  const std::int64_t k = *axis_ < 0 ? *axis_ + n : *axis_;
  if (k < 0 || k >= n)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", to_string(),
                                *axis_, input_label(0, inputs[0]), n));
  return k;
}

ApplyRef ArgReduce::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  StaticShape shape;
  if (axis_) {
    const std::int64_t k = normalized_axis(inputs);
    for (std::size_t a = 0; a < t.ndim(); ++a)
      if (static_cast<std::int64_t>(a) != k) shape.push_back(t.shape()[a]);
  }
  return ops_detail::make_apply(*this, inputs, DType::Int64, std::move(shape));
}

void ArgReduce::perform(const Apply& node, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  std::optional<std::int64_t> axis;
  if (axis_) axis = normalized_axis(node.inputs());
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return is_max_ ? argmax(inputs[0], axis) : argmin(inputs[0], axis);
  });
}

std::vector<ShapeVars> ArgReduce::infer_shape(const Apply& node,
                                              std::span<const ShapeVars> input_shapes) const {
  if (!axis_) return {ShapeVars{}};
  const std::int64_t k = normalized_axis(node.inputs());
  ShapeVars out;
  for (std::size_t a = 0; a < input_shapes[0].size(); ++a)
    if (static_cast<std::int64_t>(a) != k) out.push_back(input_shapes[0][a]);
  return {out};
}

// ---------------------------------------------------------------------------

AxesReduction::AxesReduction(std::optional<std::vector<std::int64_t>> axis)
    : sum_(std::make_shared<Reduce>(ReduceOp::Sum, std::move(axis))) {}

ApplyRef AxesReduction::make_reduced(std::span<const Var> inputs, DType dtype) const {
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, dtype,
                                Reduce::kept_shape(t, sum_->check_axes(inputs, this)));
}

std::vector<ShapeVars> AxesReduction::infer_shape(const Apply& node,
                                                  std::span<const ShapeVars> input_shapes) const {
  return sum_->infer_shape(node, input_shapes);
}

ApplyRef LogSumExpReduce::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (!is_float(t.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected float32 or float64", to_string(),
                                input_label(0, inputs[0]), t.to_string()));
  return make_reduced(inputs, t.dtype());
}

void LogSumExpReduce::perform(const Apply& node, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  const std::vector<bool> reduced = reduced_axes(node);
  const auto list = reduced_list(reduced);
  const Axes axes{std::span<const std::int64_t>(list)};
  Shape out_shape;
  bool empty_group = false;
  for (std::size_t a = 0; a < reduced.size(); ++a) {
    if (!reduced[a]) out_shape.push_back(x.shape()[a]);
    else if (x.shape()[a] == 0) empty_group = true;
  }
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    if (empty_group)
      return Tensor::full(out_shape, -std::numeric_limits<double>::infinity(), x.dtype());
    // The shift: the maximum, or 0 where it is not finite (inf - inf would be NaN).
    const Tensor m = max(x, axes, /*keepdims=*/true);
    const Tensor zero = Tensor::full({}, 0.0, x.dtype());
    const Tensor finite = elemwise(ScalarOp::Eq, elemwise(ScalarOp::Sub, m, m), zero);
    const Tensor shift = elemwise(ScalarOp::Switch, finite, m, zero);
    const Tensor s = sum(elemwise(ScalarOp::Exp, elemwise(ScalarOp::Sub, x, shift)), axes, true);
    const Tensor out = elemwise(ScalarOp::Add, elemwise(ScalarOp::Log, s), shift);
    return out.contiguous().reshape(out_shape);
  });
}

// ---------------------------------------------------------------------------

ApplyRef MedianReduce::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  return make_reduced(inputs, float_result(ops_detail::tensor_input(*this, inputs, 0).dtype()));
}

void MedianReduce::perform(const Apply& node, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  // The kept axes first, then the reduced ones flattened into one last axis.
  const Tensor& x = inputs[0];
  const std::vector<bool> reduced = reduced_axes(node);
  std::vector<std::int64_t> perm;
  Shape lines;
  std::int64_t group = 1;
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (!reduced[a]) {
      perm.push_back(static_cast<std::int64_t>(a));
      lines.push_back(x.shape()[a]);
    }
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (reduced[a]) {
      perm.push_back(static_cast<std::int64_t>(a));
      group *= x.shape()[a];
    }
  lines.push_back(group);
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return median_last_axis(x.transpose(perm).contiguous().reshape(lines));
  });
}

// ---------------------------------------------------------------------------

void register_reduce(OpRegistry& registry) {
  static constexpr std::pair<ReduceOp, const char*> kReductions[] = {
      {ReduceOp::Sum, "sum of the elements over `axis`"},
      {ReduceOp::Prod, "product of the elements over `axis`"},
      {ReduceOp::Max, "largest element over `axis` (NaN wins)"},
      {ReduceOp::Min, "smallest element over `axis` (NaN wins)"},
      {ReduceOp::Mean, "mean of the elements over `axis`, as a float"},
      {ReduceOp::Any, "whether any element over `axis` is nonzero"},
      {ReduceOp::All, "whether every element over `axis` is nonzero"},
  };
  for (const auto& entry : kReductions) {
    // Not a structured binding: clang 14 (the fuzz build's) cannot capture one.
    const ReduceOp op = entry.first;
    registry.add({.name = std::string(reduce_op_name(op)),
                  .doc = entry.second,
                  .params = {{"axis", ParamKind::Ints, PropValue{std::monostate{}}, true,
                              "the axes to reduce (none: all)"}},
                  .min_inputs = 1,
                  .max_inputs = 1,
                  .factory = [op](const Props& p) -> OpPtr {
                    return std::make_shared<Reduce>(op, axis_param(p[0].value));
                  }});
  }
  registry.add({.name = "logsumexp",
                .doc = "log(sum(exp(x))) over `axis` of a float x, shifted by the maximum",
                .params = {{"axis", ParamKind::Ints, PropValue{std::monostate{}}, true,
                            "the axes to reduce (none: all)"}},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props& p) -> OpPtr {
                  return std::make_shared<LogSumExpReduce>(axis_param(p[0].value));
                }});
  registry.add({.name = "median",
                .doc = "the median over `axis`: the middle value, or the mean of the middle two",
                .params = {{"axis", ParamKind::Ints, PropValue{std::monostate{}}, true,
                            "the axes to reduce (none: all)"}},
                .min_inputs = 1,
                .max_inputs = 1,
                .factory = [](const Props& p) -> OpPtr {
                  return std::make_shared<MedianReduce>(axis_param(p[0].value));
                }});
  for (bool is_max : {true, false}) {
    registry.add({.name = is_max ? "argmax" : "argmin",
                  .doc = is_max ? "index of the first maximum along `axis` (none: flattened)"
                                : "index of the first minimum along `axis` (none: flattened)",
                  .params = {{"axis", ParamKind::Int, PropValue{std::monostate{}}, true,
                              "the axis (none: the flattened tensor)"}},
                  .min_inputs = 1,
                  .max_inputs = 1,
                  .factory = [is_max](const Props& p) -> OpPtr {
                    std::optional<std::int64_t> axis;
                    if (const auto* v = std::get_if<std::int64_t>(&p[0].value)) axis = *v;
                    return std::make_shared<ArgReduce>(is_max, axis);
                  }});
  }
}

}  // namespace rw

// AdvancedSubtensor and AdvancedIncSubtensor.
#include "ops/indexing/advanced.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/indexing.hpp"

namespace rw {

using ops_detail::input_label;

namespace {

// The normalised axis, and the static shape of the gather of x at indices.
std::pair<std::size_t, StaticShape> gather_shape(const Op& op, std::span<const Var> inputs,
                                                 std::size_t x_index, std::size_t indices_index,
                                                 std::int64_t axis) {
  const TensorType& x = ops_detail::tensor_input(op, inputs, x_index);
  const TensorType& idx = ops_detail::tensor_input(op, inputs, indices_index);
  if (!is_integer(idx.dtype()))
    throw TypeError(fmt::format("`{}`: {} (the indices) is {}, expected integers", op.to_string(),
                                input_label(indices_index, inputs[indices_index]),
                                idx.to_string()));
  const auto n = static_cast<std::int64_t>(x.ndim());
  const std::int64_t k = axis < 0 ? axis + n : axis;
  if (k < 0 || k >= n)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", op.to_string(),
                                axis, input_label(x_index, inputs[x_index]), n));
  StaticShape shape(x.shape().begin(), x.shape().begin() + k);
  shape.insert(shape.end(), idx.shape().begin(), idx.shape().end());
  shape.insert(shape.end(), x.shape().begin() + k + 1, x.shape().end());
  return {static_cast<std::size_t>(k), std::move(shape)};
}

ShapeVars gather_dims(const ShapeVars& x, const ShapeVars& idx, std::size_t k) {
  ShapeVars out(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k));
  out.insert(out.end(), idx.begin(), idx.end());
  out.insert(out.end(), x.begin() + static_cast<std::ptrdiff_t>(k) + 1, x.end());
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// AdvancedSubtensor

ApplyRef AdvancedSubtensor::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  auto [k, shape] = gather_shape(*this, inputs, 0, 1, axis_);
  return ops_detail::make_apply(*this, inputs, inputs[0]->tensor_type()->dtype(),
                                std::move(shape));
}

void AdvancedSubtensor::perform(const Apply&, std::span<const Tensor> inputs,
                                std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return take(inputs[0], inputs[1], axis_); });
}

std::vector<ShapeVars> AdvancedSubtensor::infer_shape(
    const Apply& node, std::span<const ShapeVars> input_shapes) const {
  const auto k = gather_shape(*this, node.inputs(), 0, 1, axis_).first;
  return {gather_dims(input_shapes[0], input_shapes[1], k)};
}

std::vector<std::vector<bool>> AdvancedSubtensor::connection_pattern(const Apply&) const {
  return {{true}, {false}};
}

// ---------------------------------------------------------------------------
// AdvancedIncSubtensor

Props AdvancedIncSubtensor::props() const { return {{"axis", axis_}, {"inplace", inplace_}}; }

ApplyRef AdvancedIncSubtensor::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  auto [k, part] = gather_shape(*this, inputs, 0, 2, axis_);
  const TensorType& x = *inputs[0]->tensor_type();
  ops_detail::check_written_value(*this, inputs, part);
  return ops_detail::make_apply(*this, inputs, x.dtype(), x.shape());
}

void AdvancedIncSubtensor::perform(const Apply& node, std::span<const Tensor> inputs,
                                   std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  const Tensor& idx = inputs[2];
  const std::int64_t k = axis_ < 0 ? axis_ + x.ndim() : axis_;
  std::vector<std::int64_t> part(x.shape().begin(), x.shape().begin() + k);
  part.insert(part.end(), idx.shape().begin(), idx.shape().end());
  part.insert(part.end(), x.shape().begin() + k + 1, x.shape().end());
  ops_detail::check_value_broadcast(*this, 1, node.input(1), inputs[1], part);
  Tensor out = inplace_ ? x : x.copy();
  ops_detail::run_kernel(*this, [&] {
    if (set_) scatter_set(out, idx, inputs[1], axis_);
    else scatter_add(out, idx, inputs[1], axis_);
  });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> AdvancedIncSubtensor::infer_shape(
    const Apply&, std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<std::vector<bool>> AdvancedIncSubtensor::connection_pattern(const Apply&) const {
  return {{true}, {true}, {false}};
}

IoMap AdvancedIncSubtensor::destroy_map() const {
  if (!inplace_) return {};
  return {{0, 0}};
}

}  // namespace rw

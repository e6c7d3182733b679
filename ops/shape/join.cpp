// join, split and stack.
#include "ops/shape/join.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/indexing.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;
using ops_detail::shape_str;

namespace {

// Normalises `axis` for a rank, or throws TypeError naming the op.
std::int64_t checked_axis(const Op& op, std::int64_t axis, std::int64_t rank, const Var& input) {
  const std::int64_t k = axis < 0 ? axis + rank : axis;
  if (k < 0 || k >= rank)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", op.to_string(),
                                axis, input_label(0, input), rank));
  return k;
}

// Static shapes of inputs that must agree on every axis but `skip` (none: -1).
StaticShape agree(const Op& op, std::span<const Var> inputs, std::int64_t skip) {
  StaticShape out = inputs[0]->tensor_type()->shape();
  for (std::size_t i = 1; i < inputs.size(); ++i) {
    const TensorType& t = *inputs[i]->tensor_type();
    if (t.ndim() != out.size())
      throw TypeError(fmt::format("`{}`: {} has rank {} where {} has {}", op.to_string(),
                                  input_label(i, inputs[i]), t.ndim(), input_label(0, inputs[0]),
                                  out.size()));
    for (std::size_t a = 0; a < out.size(); ++a) {
      if (static_cast<std::int64_t>(a) == skip) continue;
      const std::int64_t e = t.shape()[a];
      if (e == kUnknownDim) continue;
      if (out[a] != kUnknownDim && out[a] != e)
        throw TypeError(fmt::format("`{}`: {} of shape {} does not fit {} of shape {} on axis {}",
                                    op.to_string(), input_label(i, inputs[i]), shape_str(t.shape()),
                                    input_label(0, inputs[0]),
                                    shape_str(inputs[0]->tensor_type()->shape()), a));
      out[a] = e;
    }
  }
  return out;
}

DType promoted(const Op& op, std::span<const Var> inputs) {
  DType d = ops_detail::tensor_input(op, inputs, 0).dtype();
  for (std::size_t i = 1; i < inputs.size(); ++i)
    d = promote(d, ops_detail::tensor_input(op, inputs, i).dtype());
  return d;
}


// Prefer a constant extent among the inputs for an axis.
Var pick_dim(std::span<const ShapeVars> shapes, std::size_t a) {
  for (const ShapeVars& s : shapes)
    if (s[a]->is_constant()) return s[a];
  return shapes[0][a];
}

}  // namespace

// ---------------------------------------------------------------------------
// join

ApplyRef Join::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, -1);
  const DType dtype = promoted(*this, inputs);
  const auto rank = static_cast<std::int64_t>(inputs[0]->tensor_type()->ndim());
  const std::int64_t k = checked_axis(*this, axis_, rank, inputs[0]);
  StaticShape out = agree(*this, inputs, k);
  std::int64_t total = 0;
  for (const Var& v : inputs) {
    const std::int64_t e = v->tensor_type()->shape()[static_cast<std::size_t>(k)];
    total = (total == kUnknownDim || e == kUnknownDim) ? kUnknownDim : total + e;
  }
  out[static_cast<std::size_t>(k)] = total;
  return ops_detail::make_apply(*this, inputs, dtype, std::move(out));
}

void Join::perform(const Apply&, std::span<const Tensor> inputs,
                   std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return concatenate(inputs, axis_); });
}

std::vector<ShapeVars> Join::infer_shape(const Apply& node,
                                         std::span<const ShapeVars> input_shapes) const {
  const std::int64_t rank = static_cast<std::int64_t>(input_shapes[0].size());
  const auto k = static_cast<std::size_t>(checked_axis(*this, axis_, rank, node.input(0)));
  ShapeVars out;
  for (std::size_t a = 0; a < input_shapes[0].size(); ++a) {
    if (a != k) {
      out.push_back(pick_dim(input_shapes, a));
      continue;
    }
    Var total = input_shapes[0][a];
    for (std::size_t i = 1; i < input_shapes.size(); ++i) total = total + input_shapes[i][a];
    out.push_back(total);
  }
  return {out};
}

// ---------------------------------------------------------------------------
// split

ApplyRef Split::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const TensorType& s = ops_detail::tensor_input(*this, inputs, 1);
  if (n_ < 1) throw TypeError(fmt::format("`{}`: n must be at least 1", to_string()));
  const std::int64_t k = checked_axis(*this, axis_, static_cast<std::int64_t>(t.ndim()), inputs[0]);
  if (s.ndim() != 1 || !is_integer(s.dtype()) ||
      (s.shape()[0] != kUnknownDim && s.shape()[0] != n_))
    throw TypeError(fmt::format("`{}`: {} (the sizes) is {}, expected a vector of {} integers",
                                to_string(), input_label(1, inputs[1]), s.to_string(), n_));
  const auto sizes = ops_detail::constant_ints(inputs[1]);
  std::vector<TypePtr> types;
  for (std::int64_t i = 0; i < n_; ++i) {
    StaticShape shape = t.shape();
    shape[static_cast<std::size_t>(k)] = sizes ? (*sizes)[static_cast<std::size_t>(i)] : kUnknownDim;
    types.push_back(TensorType::make(t.dtype(), std::move(shape)));
  }
  if (sizes && t.shape()[static_cast<std::size_t>(k)] != kUnknownDim) {
    std::int64_t total = 0;
    for (std::int64_t e : *sizes) total += e;
    if (total != t.shape()[static_cast<std::size_t>(k)])
      throw TypeError(fmt::format("`{}`: the sizes add up to {}, but axis {} of {} has extent {}",
                                  to_string(), total, k, input_label(0, inputs[0]),
                                  t.shape()[static_cast<std::size_t>(k)]));
  }
  return Apply::create(ptr(), inputs, types);
}

void Split::perform(const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  const Tensor& s = inputs[1];
  std::vector<std::int64_t> sizes;
  for (std::int64_t i = 0; i < s.size(); ++i) sizes.push_back(static_cast<std::int64_t>(s.at({i})));
  if (static_cast<std::int64_t>(sizes.size()) != n_)
    throw ValueError(fmt::format("`{}`: {} (the sizes) has {} entries, expected {}", to_string(),
                                 input_label(1, node.input(1)), sizes.size(), n_));
  std::int64_t total = 0;
  for (std::int64_t e : sizes) {
    if (e < 0)
      throw ValueError(fmt::format("`{}`: the sizes {} have a negative entry", to_string(),
                                   shape_to_string(sizes)));
    total += e;
  }
  const Tensor& x = inputs[0];
  const std::int64_t extent = x.dim(axis_);
  if (total != extent)
    throw ValueError(fmt::format("`{}`: the sizes {} add up to {}, but axis {} of {} has extent {}",
                                 to_string(), shape_to_string(sizes), total, axis_,
                                 input_label(0, node.input(0)), extent));
  std::vector<Tensor> pieces = ops_detail::run_kernel(*this, [&] { return split(x, sizes, axis_); });
  for (std::size_t i = 0; i < pieces.size(); ++i) outputs[i] = std::move(pieces[i]);
}

std::vector<ShapeVars> Split::infer_shape(const Apply& node,
                                          std::span<const ShapeVars> input_shapes) const {
  const auto k = static_cast<std::size_t>(
      checked_axis(*this, axis_, static_cast<std::int64_t>(input_shapes[0].size()), node.input(0)));
  std::vector<ShapeVars> out;
  for (std::int64_t i = 0; i < n_; ++i) {
    ShapeVars s = input_shapes[0];
    s[k] = ops_detail::vector_element(node.input(1), i);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<std::vector<bool>> Split::connection_pattern(const Apply& node) const {
  return {std::vector<bool>(node.num_outputs(), true), std::vector<bool>(node.num_outputs(), false)};
}

IoMap Split::view_map() const {
  IoMap m;
  for (std::int64_t i = 0; i < n_; ++i) m.emplace_back(static_cast<std::size_t>(i), 0);
  return m;
}

// ---------------------------------------------------------------------------
// stack

ApplyRef Stack::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, -1);
  const DType dtype = promoted(*this, inputs);
  StaticShape shape = agree(*this, inputs, -1);
  const std::int64_t k =
      checked_axis(*this, axis_, static_cast<std::int64_t>(shape.size()) + 1, inputs[0]);
  shape.insert(shape.begin() + k, static_cast<std::int64_t>(inputs.size()));
  return ops_detail::make_apply(*this, inputs, dtype, std::move(shape));
}

void Stack::perform(const Apply&, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return stack(inputs, axis_); });
}

std::vector<ShapeVars> Stack::infer_shape(const Apply& node,
                                          std::span<const ShapeVars> input_shapes) const {
  const std::int64_t rank = static_cast<std::int64_t>(input_shapes[0].size()) + 1;
  const std::int64_t k = checked_axis(*this, axis_, rank, node.input(0));
  ShapeVars out;
  for (std::size_t a = 0; a < input_shapes[0].size(); ++a) out.push_back(pick_dim(input_shapes, a));
  out.insert(out.begin() + k, int64_constant(static_cast<std::int64_t>(node.num_inputs())));
  return {out};
}

}  // namespace rw

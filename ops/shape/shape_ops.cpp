// shape, shape_i, make_vector, specify_shape, reshape, flatten, alloc,
// zeros_like and ones_like.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "ops/shape/alloc.hpp"
#include "ops/shape/reshape.hpp"
#include "ops/shape/shape_ops.hpp"
#include "runtime/kernels/indexing.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;
using ops_detail::shape_str;

namespace {

Tensor int64_vector(std::span<const std::int64_t> values) {
  const auto n = static_cast<std::int64_t>(values.size());
  Tensor t = Tensor::empty(DType::Int64, std::span(&n, 1));
  std::copy(values.begin(), values.end(), t.data<std::int64_t>());
  return t;
}

// Integer entries of a 1-d integer tensor.
std::vector<std::int64_t> int_values(const Tensor& t) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(t.size()));
  for (std::int64_t i = 0; i < t.size(); ++i)
    out[static_cast<std::size_t>(i)] = visit_dtype(t.dtype(), [&]<class T>() -> std::int64_t {
      const T* p = t.data<T>();
      return static_cast<std::int64_t>(p[i * t.strides()[0]]);
    });
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// shape, shape_i

ApplyRef ShapeOp::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, DType::Int64, {static_cast<std::int64_t>(t.ndim())});
}

void ShapeOp::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  outputs[0] = int64_vector(inputs[0].shape());
}

std::vector<ShapeVars> ShapeOp::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  return {{int64_constant(static_cast<std::int64_t>(node.input(0)->tensor_type()->ndim()))}};
}

std::vector<std::vector<bool>> ShapeOp::connection_pattern(const Apply&) const {
  return {{false}};
}

ApplyRef ShapeI::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (i_ < 0 || i_ >= static_cast<std::int64_t>(t.ndim()))
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", to_string(), i_,
                                input_label(0, inputs[0]), t.ndim()));
  return ops_detail::make_apply(*this, inputs, DType::Int64, {});
}

void ShapeI::perform(const Apply&, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  outputs[0] = Tensor::scalar<std::int64_t>(inputs[0].shape()[static_cast<std::size_t>(i_)]);
}

std::vector<ShapeVars> ShapeI::infer_shape(const Apply&, std::span<const ShapeVars>) const {
  return {ShapeVars{}};
}

std::vector<std::vector<bool>> ShapeI::connection_pattern(const Apply&) const { return {{false}}; }

// ---------------------------------------------------------------------------
// make_vector

ApplyRef MakeVector::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 0, -1);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, i);
    if (t.ndim() != 0)
      throw TypeError(fmt::format("`{}`: {} is {}, expected a 0-d tensor", to_string(),
                                  input_label(i, inputs[i]), t.to_string()));
    if (promote(t.dtype(), dtype_) != dtype_)
      throw TypeError(fmt::format("`{}`: {} is {}, which does not convert to {} without loss",
                                  to_string(), input_label(i, inputs[i]), dtype_name(t.dtype()),
                                  dtype_name(dtype_)));
  }
  return ops_detail::make_apply(*this, inputs, dtype_, {static_cast<std::int64_t>(inputs.size())});
}

void MakeVector::perform(const Apply&, std::span<const Tensor> inputs,
                         std::span<Tensor> outputs) const {
  const auto n = static_cast<std::int64_t>(inputs.size());
  Tensor out = Tensor::empty(dtype_, std::span(&n, 1));
  for (std::int64_t i = 0; i < n; ++i)
    out.select(0, i).assign(inputs[static_cast<std::size_t>(i)]);
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> MakeVector::infer_shape(const Apply& node,
                                               std::span<const ShapeVars>) const {
  return {{int64_constant(static_cast<std::int64_t>(node.num_inputs()))}};
}

// ---------------------------------------------------------------------------
// specify_shape

ApplyRef SpecifyShape::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (t.ndim() != shape_.size())
    throw TypeError(fmt::format("`{}`: {} has rank {}, the shape has {} entries", to_string(),
                                input_label(0, inputs[0]), t.ndim(), shape_.size()));
  StaticShape out = t.shape();
  for (std::size_t a = 0; a < shape_.size(); ++a) {
    if (shape_[a] == kUnknownDim) continue;
    if (shape_[a] < 0)
      throw TypeError(fmt::format("`{}`: extent {} is negative", to_string(), shape_[a]));
    if (out[a] != kUnknownDim && out[a] != shape_[a])
      throw TypeError(fmt::format("`{}`: {} has static shape {}, which is not {}", to_string(),
                                  input_label(0, inputs[0]), shape_str(t.shape()),
                                  shape_str(shape_)));
    out[a] = shape_[a];
  }
  return ops_detail::make_apply(*this, inputs, t.dtype(), std::move(out));
}

void SpecifyShape::perform(const Apply& node, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  const Shape& s = inputs[0].shape();
  for (std::size_t a = 0; a < shape_.size(); ++a)
    if (shape_[a] != kUnknownDim && s[a] != shape_[a])
      throw ValueError(fmt::format("`{}`: {} has shape {}, expected {}", to_string(),
                                   input_label(0, node.input(0)), shape_to_string(s),
                                   shape_str(shape_)));
  outputs[0] = inputs[0];
}

std::vector<ShapeVars> SpecifyShape::infer_shape(const Apply&,
                                                 std::span<const ShapeVars> input_shapes) const {
  ShapeVars out = input_shapes[0];
  for (std::size_t a = 0; a < shape_.size(); ++a)
    if (shape_[a] != kUnknownDim) out[a] = int64_constant(shape_[a]);
  return {out};
}

// ---------------------------------------------------------------------------
// reshape, flatten

ApplyRef Reshape::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const TensorType& s = ops_detail::tensor_input(*this, inputs, 1);
  if (ndim_ < 0) throw TypeError(fmt::format("`{}`: ndim must not be negative", to_string()));
  if (s.ndim() != 1 || !is_integer(s.dtype()) ||
      (s.shape()[0] != kUnknownDim && s.shape()[0] != ndim_))
    throw TypeError(fmt::format("`{}`: {} (the shape) is {}, expected a vector of {} integers",
                                to_string(), input_label(1, inputs[1]), s.to_string(), ndim_));
  StaticShape out(static_cast<std::size_t>(ndim_), kUnknownDim);
  std::optional<std::size_t> inferred;
  std::int64_t known_product = 1;
  bool all_known = true;
  const Apply* mv = inputs[1]->owner();
  const bool from_make_vector = mv && dynamic_cast<const MakeVector*>(&mv->op());
  const auto values = ops_detail::constant_ints(inputs[1]);
  std::vector<std::int64_t> requested;
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::optional<std::int64_t> e;
    if (values) e = (*values)[k];
    else if (from_make_vector) e = ops_detail::constant_int(mv->input(k));
    if (!e) {
      all_known = false;
      continue;
    }
    requested.push_back(*e);
    if (*e == -1) {
      if (inferred)
        throw TypeError(fmt::format("`{}`: the shape has more than one -1", to_string()));
      inferred = k;
      continue;
    }
    if (*e < 0)
      throw TypeError(fmt::format("`{}`: the shape has a negative extent {}", to_string(), *e));
    out[k] = *e;
    if (__builtin_mul_overflow(known_product, *e, &known_product))
      throw TypeError(fmt::format("`{}`: the shape {} has too many elements: its extents "
                                  "multiply beyond 2^63 - 1",
                                  to_string(), input_label(1, inputs[1])));
  }
  if (all_known && t.shape_known()) {
    std::int64_t size = 1;
    for (std::int64_t d : t.shape()) size *= d;
    const bool fits = inferred ? (known_product != 0 && size % known_product == 0)
                               : size == known_product;
    if (!fits)
      throw TypeError(fmt::format("`{}`: cannot reshape {} of shape {} ({} elements) to {}",
                                  to_string(), input_label(0, inputs[0]), shape_str(t.shape()),
                                  size, shape_to_string(requested)));
    if (inferred) out[*inferred] = size / known_product;
  }
  return ops_detail::make_apply(*this, inputs, t.dtype(), std::move(out));
}

void Reshape::perform(const Apply& node, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  const std::vector<std::int64_t> shape = int_values(inputs[1]);
  if (static_cast<std::int64_t>(shape.size()) != ndim_)
    throw ValueError(fmt::format("`{}`: {} (the shape) has {} entries, expected {}", to_string(),
                                 input_label(1, node.input(1)), shape.size(), ndim_));
  // -1 counts as 1 here: past this check the product below cannot overflow.
  ops_detail::run_kernel(*this, [&] { check_shape_size(shape); });
  std::int64_t product = 1;
  int unknown = 0;
  bool bad = false;
  for (std::int64_t e : shape) {
    if (e == -1) ++unknown;
    else if (e < 0) bad = true;
    else product *= e;
  }
  const bool fits = !bad && unknown <= 1 &&
                    (unknown ? (product != 0 && x.size() % product == 0) : product == x.size());
  if (!fits)
    throw ValueError(fmt::format("`{}`: cannot reshape {} of shape {} ({} elements) to {}",
                                 to_string(), input_label(0, node.input(0)),
                                 shape_to_string(x.shape()), x.size(), shape_to_string(shape)));
  outputs[0] = ops_detail::run_kernel(*this, [&] { return x.reshape(shape); });
}

std::vector<ShapeVars> Reshape::infer_shape(const Apply& node,
                                            std::span<const ShapeVars> input_shapes) const {
  const Var& s = node.input(1);
  ShapeVars requested;
  for (std::int64_t k = 0; k < ndim_; ++k) requested.push_back(ops_detail::vector_element(s, k));
  Var size = int64_constant(1);
  for (const Var& d : input_shapes[0]) size = size * d;
  ShapeVars out;
  for (std::size_t k = 0; k < requested.size(); ++k) {
    const auto c = ops_detail::constant_int(requested[k]);
    if (c && *c >= 0) {
      out.push_back(requested[k]);
      continue;
    }
    Var others = int64_constant(1);
    for (std::size_t j = 0; j < requested.size(); ++j)
      if (j != k) others = others * requested[j];
    const Var missing = int_div(size, others);
    out.push_back(c ? missing : where(eq(requested[k], -1), missing, requested[k]));
  }
  return {out};
}

std::vector<std::vector<bool>> Reshape::connection_pattern(const Apply&) const {
  return {{true}, {false}};
}

ApplyRef Flatten::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const auto n = static_cast<std::int64_t>(t.ndim());
  if (ndim_ < 1 || ndim_ > std::max<std::int64_t>(n, 1))
    throw TypeError(fmt::format("`{}`: ndim must be between 1 and the rank of {} ({})",
                                to_string(), input_label(0, inputs[0]), n));
  StaticShape out(t.shape().begin(), t.shape().begin() + (ndim_ - 1));
  std::int64_t rest = 1;
  for (std::int64_t a = ndim_ - 1; a < n; ++a) {
    const std::int64_t d = t.shape()[static_cast<std::size_t>(a)];
    rest = (rest == kUnknownDim || d == kUnknownDim) ? kUnknownDim : rest * d;
  }
  out.push_back(rest);
  return ops_detail::make_apply(*this, inputs, t.dtype(), std::move(out));
}

void Flatten::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  std::vector<std::int64_t> shape(x.shape().begin(), x.shape().begin() + (ndim_ - 1));
  std::int64_t rest = 1;
  for (std::int64_t a = ndim_ - 1; a < x.ndim(); ++a) rest *= x.shape()[static_cast<std::size_t>(a)];
  shape.push_back(rest);
  outputs[0] = x.reshape(shape);
}

std::vector<ShapeVars> Flatten::infer_shape(const Apply&,
                                            std::span<const ShapeVars> input_shapes) const {
  const ShapeVars& in = input_shapes[0];
  ShapeVars out(in.begin(), in.begin() + (ndim_ - 1));
  Var rest = int64_constant(1);
  for (std::size_t a = static_cast<std::size_t>(ndim_ - 1); a < in.size(); ++a) rest = rest * in[a];
  out.push_back(rest);
  return {out};
}

// ---------------------------------------------------------------------------
// alloc

ApplyRef Alloc::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, -1);
  const TensorType& v = ops_detail::tensor_input(*this, inputs, 0);
  const std::size_t rank = inputs.size() - 1;
  if (v.ndim() > rank)
    throw TypeError(fmt::format("`{}`: {} has rank {}, more than the {} extents given",
                                to_string(), input_label(0, inputs[0]), v.ndim(), rank));
  StaticShape out(rank, kUnknownDim);
  const std::size_t lead = rank - v.ndim();
  for (std::size_t a = 0; a < rank; ++a) {
    ops_detail::int_scalar_input(*this, inputs, a + 1, "an extent");
    if (auto c = ops_detail::constant_int(inputs[a + 1])) {
      if (*c < 0)
        throw TypeError(fmt::format("`{}`: extent {} is negative", to_string(), *c));
      out[a] = *c;
    }
    if (a < lead) continue;
    const std::int64_t e = v.shape()[a - lead];
    if (e == 1 || e == kUnknownDim) continue;
    if (out[a] != kUnknownDim && out[a] != e)
      throw TypeError(fmt::format("`{}`: {} has extent {} on axis {}, which does not broadcast to {}",
                                  to_string(), input_label(0, inputs[0]), e, a - lead, out[a]));
    out[a] = e;
  }
  return ops_detail::make_apply(*this, inputs, v.dtype(), std::move(out));
}

void Alloc::perform(const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  std::vector<std::int64_t> shape;
  for (std::size_t a = 1; a < inputs.size(); ++a) {
    const auto e = inputs[a].item<std::int64_t>();
    if (e < 0)
      throw ValueError(fmt::format("`{}`: extent {} ({}) is negative", to_string(), e,
                                   input_label(a, node.input(a))));
    shape.push_back(e);
  }
  ops_detail::check_value_broadcast(*this, 0, node.input(0), inputs[0], shape);
  Tensor& out = outputs[0];
  if (out.valid() && out.dtype() == inputs[0].dtype() &&
      std::equal(out.shape().begin(), out.shape().end(), shape.begin(), shape.end()) &&
      out.is_contiguous()) {
    copy_into(out, inputs[0]);
    return;
  }
  out = ops_detail::run_kernel(*this, [&] { return alloc(inputs[0], shape); });
}

std::vector<ShapeVars> Alloc::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  ShapeVars out;
  for (std::size_t a = 1; a < node.num_inputs(); ++a) {
    const Var& e = node.input(a);
    out.push_back(e->tensor_type()->dtype() == DType::Int64 ? e : cast(e, DType::Int64));
  }
  return {out};
}

std::vector<std::vector<bool>> Alloc::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> out(node.num_inputs(), {false});
  out[0] = {true};
  return out;
}

bool Alloc::do_constant_folding(const Apply&) const { return false; }

// ---------------------------------------------------------------------------
// alloc_empty

ApplyRef AllocEmpty::make_node(std::span<const Var> inputs) const {
  StaticShape out(inputs.size(), kUnknownDim);
  for (std::size_t a = 0; a < inputs.size(); ++a) {
    ops_detail::int_scalar_input(*this, inputs, a, "an extent");
    if (auto c = ops_detail::constant_int(inputs[a])) {
      if (*c < 0) throw TypeError(fmt::format("`{}`: extent {} is negative", to_string(), *c));
      out[a] = *c;
    }
  }
  return ops_detail::make_apply(*this, inputs, dtype_, std::move(out));
}

void AllocEmpty::perform(const Apply& node, std::span<const Tensor> inputs,
                         std::span<Tensor> outputs) const {
  Shape shape;
  for (std::size_t a = 0; a < inputs.size(); ++a) {
    const auto e = inputs[a].item<std::int64_t>();
    if (e < 0)
      throw ValueError(fmt::format("`{}`: extent {} ({}) is negative", to_string(), e,
                                   input_label(a, node.input(a))));
    shape.push_back(e);
  }
  Tensor& out = outputs[0];
  if (out.valid() && out.dtype() == dtype_ && out.shape() == shape && out.is_contiguous()) return;
  out = ops_detail::run_kernel(*this, [&] { return Tensor::empty(dtype_, shape); });
}

void AllocEmpty::debug_perform(const Apply& node, std::span<const Tensor> inputs,
                               std::span<Tensor> outputs) const {
  perform(node, inputs, outputs);
  double poison = std::numeric_limits<double>::quiet_NaN();
  switch (dtype_) {
    case DType::Bool: poison = 1; break;
    case DType::Int8: poison = std::numeric_limits<std::int8_t>::max(); break;
    case DType::Int16: poison = std::numeric_limits<std::int16_t>::max(); break;
    case DType::Int32: poison = std::numeric_limits<std::int32_t>::max(); break;
    case DType::Int64: poison = 9.0e18; break;  // near int64's largest, exactly representable
    case DType::UInt8: poison = std::numeric_limits<std::uint8_t>::max(); break;
    case DType::Float32:
    case DType::Float64: break;
  }
  fill(outputs[0], poison);
}

std::vector<ShapeVars> AllocEmpty::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  ShapeVars out;
  for (const Var& e : node.inputs())
    out.push_back(e->tensor_type()->dtype() == DType::Int64 ? e : cast(e, DType::Int64));
  return {out};
}

std::vector<std::vector<bool>> AllocEmpty::connection_pattern(const Apply& node) const {
  return std::vector<std::vector<bool>>(node.num_inputs(), {false});
}

bool AllocEmpty::do_constant_folding(const Apply&) const { return false; }

// ---------------------------------------------------------------------------
// zeros_like, ones_like

Props FullLike::props() const {
  if (!dtype_) return {{"dtype", std::monostate{}}};
  return {{"dtype", *dtype_}};
}

ApplyRef FullLike::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, dtype_.value_or(t.dtype()), t.shape());
}

void FullLike::perform(const Apply& node, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  const DType d = node.output_var(0).tensor_type()->dtype();
  Tensor& out = outputs[0];
  if (out.valid() && out.dtype() == d && out.shape() == inputs[0].shape() && out.is_contiguous())
    fill(out, ones_ ? 1.0 : 0.0);
  else
    out = Tensor::full(inputs[0].shape(), ones_ ? 1.0 : 0.0, d);
}

std::vector<ShapeVars> FullLike::infer_shape(const Apply&,
                                             std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<std::vector<bool>> FullLike::connection_pattern(const Apply&) const {
  return {{false}};
}

}  // namespace rw

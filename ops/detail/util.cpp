// Helpers the Op families share.
#include "ops/detail/util.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/errors.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw::ops_detail {

std::string shape_str(std::span<const std::int64_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += shape[i] == kUnknownDim ? "?" : std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ',';
  return out + ")";
}

std::string input_label(std::size_t index, const Var& var) {
  if (var && !var->name().empty()) return fmt::format("input {} (`{}`)", index, var->name());
  return fmt::format("input {}", index);
}

void check_arity(const Op& op, std::span<const Var> inputs, std::size_t min, long max) {
  const std::size_t n = inputs.size();
  if (n >= min && (max < 0 || n <= static_cast<std::size_t>(max))) {
    for (std::size_t i = 0; i < n; ++i)
      if (!inputs[i]) throw TypeError(fmt::format("`{}`: input {} is null", op.to_string(), i));
    return;
  }
  std::string want;
  if (max < 0) want = fmt::format("at least {} inputs", min);
  else if (static_cast<std::size_t>(max) == min) want = fmt::format("{} input{}", min, min == 1 ? "" : "s");
  else want = fmt::format("{} to {} inputs", min, max);
  throw TypeError(fmt::format("`{}` takes {}, got {}", op.to_string(), want, n));
}

const TensorType& tensor_input(const Op& op, std::span<const Var> inputs, std::size_t i) {
  const TensorType* t = inputs[i]->tensor_type();
  if (!t)
    throw TypeError(fmt::format("`{}`: {} is of type {}, expected a tensor", op.to_string(),
                                input_label(i, inputs[i]), inputs[i]->type()->to_string()));
  return *t;
}

const TensorType& int_scalar_input(const Op& op, std::span<const Var> inputs, std::size_t i,
                                   std::string_view role) {
  const TensorType& t = tensor_input(op, inputs, i);
  if (t.ndim() != 0 || !is_integer(t.dtype()))
    throw TypeError(fmt::format("`{}`: {} ({}) is {}, expected a 0-d integer", op.to_string(),
                                input_label(i, inputs[i]), role, t.to_string()));
  return t;
}

std::int64_t checked_axis(const Op& op, std::span<const Var> inputs, std::int64_t axis,
                          std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + r : axis;
  if (a < 0 || a >= r)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", op.to_string(),
                                axis, input_label(0, inputs[0]), rank));
  return a;
}

std::int64_t static_size(const StaticShape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) {
    if (d == kUnknownDim) return kUnknownDim;
    n *= d;
  }
  return n;
}

ApplyRef make_apply(const Op& op, std::span<const Var> inputs, DType dtype, StaticShape shape) {
  const TypePtr out = TensorType::make(dtype, std::move(shape));
  return Apply::create(op.ptr(), inputs, std::span(&out, 1));
}

Var int64_constant(std::int64_t value) { return Constant::make(Tensor::scalar(value)); }

Var int64_vector_constant(std::span<const std::int64_t> values) {
  std::vector<std::int64_t> v(values.begin(), values.end());
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  return Constant::make(Tensor::from_vector(v, std::span(&n, 1)));
}

Var scalar_constant(double value, DType dtype) { return Constant::make(Tensor::scalar(value, dtype)); }

std::optional<std::int64_t> constant_int(const Var& v) {
  const Constant* c = v->as_constant();
  if (!c || c->value().size() != 1 || is_float(c->value().dtype())) return std::nullopt;
  return c->value().item<std::int64_t>();
}

std::optional<std::vector<std::int64_t>> constant_ints(const Var& v) {
  if (const Constant* c = v->as_constant()) {
    const Tensor& t = c->value();
    if (t.ndim() != 1 || is_float(t.dtype())) return std::nullopt;
    std::vector<std::int64_t> out(static_cast<std::size_t>(t.size()));
    for (std::int64_t i = 0; i < t.size(); ++i)
      out[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(t.at({i}));
    return out;
  }
  const Apply* owner = v->owner();
  if (!owner || !dynamic_cast<const MakeVector*>(&owner->op())) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const Var& in : owner->inputs()) {
    auto k = constant_int(in);
    if (!k) return std::nullopt;
    out.push_back(*k);
  }
  return out;
}

Var vector_element(const Var& v, std::int64_t k) {
  if (const Apply* owner = v->owner(); owner && dynamic_cast<const MakeVector*>(&owner->op())) {
    const Var& e = owner->input(static_cast<std::size_t>(k));
    return e->tensor_type()->dtype() == DType::Int64 ? e : cast(e, DType::Int64);
  }
  if (auto values = constant_ints(v)) return int64_constant((*values)[static_cast<std::size_t>(k)]);
  Var e = subtensor(v, {k});
  return e->tensor_type()->dtype() == DType::Int64 ? e : cast(e, DType::Int64);
}

void check_written_value(const Op& op, std::span<const Var> inputs,
                         std::span<const std::int64_t> part) {
  const TensorType& x = *inputs[0]->tensor_type();
  const TensorType& y = tensor_input(op, inputs, 1);
  if (promote(x.dtype(), y.dtype()) != x.dtype())
    throw TypeError(fmt::format("`{}`: {} is {}, which does not convert to {} ({}) without loss",
                                op.to_string(), input_label(1, inputs[1]), dtype_name(y.dtype()),
                                dtype_name(x.dtype()), input_label(0, inputs[0])));
  if (y.ndim() > part.size())
    throw TypeError(fmt::format("`{}`: {} has rank {}, more than the {} of the indexed part",
                                op.to_string(), input_label(1, inputs[1]), y.ndim(), part.size()));
  const std::size_t lead = part.size() - y.ndim();
  for (std::size_t j = 0; j < y.ndim(); ++j) {
    const std::int64_t e = y.shape()[j], p = part[lead + j];
    if (e != 1 && e != kUnknownDim && p != kUnknownDim && e != p)
      throw TypeError(fmt::format(
          "`{}`: {} of shape {} does not broadcast to the indexed part of shape {}",
          op.to_string(), input_label(1, inputs[1]), shape_str(y.shape()), shape_str(part)));
  }
}

void check_value_broadcast(const Op& op, std::size_t index, const Var& var, const Tensor& value,
                           std::span<const std::int64_t> target) {
  const Shape& s = value.shape();
  if (s.size() > target.size())
    throw ValueError(fmt::format("`{}`: {} has {} dimensions, more than the {} of its target",
                                 op.to_string(), input_label(index, var), s.size(),
                                 target.size()));
  const std::size_t lead = target.size() - s.size();
  const StaticShape& st = var->tensor_type()->shape();
  for (std::size_t j = 0; j < s.size(); ++j) {
    const std::int64_t t = target[lead + j];
    if (s[j] == t) continue;
    if (s[j] != 1)
      throw ValueError(fmt::format("`{}`: {} has extent {} on axis {} where the target has {}",
                                   op.to_string(), input_label(index, var), s[j], j, t));
    if (st[j] != 1)
      throw ValueError(fmt::format(
          "`{}`: {} has extent 1 on axis {} where the target has {}, but its type {} does not "
          "say the axis broadcasts (only axes of static extent 1 do; see specify_shape)",
          op.to_string(), input_label(index, var), j, t, var->type()->to_string()));
  }
}

namespace {

// The message with "`op`: " in front, unless it starts with it already (the
// Op's own code, run inside run_kernel, names itself).
std::string prefixed(const Op& op, const char* what) {
  const std::string head = fmt::format("`{}`", op.to_string());
  if (std::string_view(what).starts_with(head)) return what;
  return fmt::format("{}: {}", head, what);
}

}  // namespace

void rethrow_kernel_error(const Op& op) {
  try {
    throw;
  } catch (const IndexError& e) {
    throw IndexError(prefixed(op, e.what()));
  } catch (const ValueError& e) {
    throw ValueError(prefixed(op, e.what()));
  }
}

}  // namespace rw::ops_detail

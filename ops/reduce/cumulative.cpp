// CumOp (cumsum, cumprod) and Diff on the runtime's scan kernels, and their
// registration.
#include "ops/reduce/cumulative.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/cumulative.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/kernels/sort.hpp"

namespace rw {

using ops_detail::checked_axis;
using ops_detail::input_label;

namespace {

std::optional<std::int64_t> optional_int(const PropValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------
// cumsum, cumprod

Props CumOp::props() const {
  if (!axis_) return {{"axis", std::monostate{}}};
  return {{"axis", *axis_}};
}

ApplyRef CumOp::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const DType d = reduce_result_dtype(mul_ ? ReduceOp::Prod : ReduceOp::Sum, t.dtype());
  if (!axis_) {
    return ops_detail::make_apply(*this, inputs, d, {ops_detail::static_size(t.shape())});
  }
  checked_axis(*this, inputs, *axis_, t.ndim());
  return ops_detail::make_apply(*this, inputs, d, t.shape());
}

void CumOp::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return mul_ ? cumprod(inputs[0], axis_) : cumsum(inputs[0], axis_); });
}

std::vector<ShapeVars> CumOp::infer_shape(const Apply&,
                                          std::span<const ShapeVars> input_shapes) const {
  if (axis_) return {input_shapes[0]};
  Var n = ops_detail::int64_constant(1);
  for (const Var& d : input_shapes[0]) n = n * d;
  return {{n}};
}

// ---------------------------------------------------------------------------
// diff

ApplyRef Diff::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (t.dtype() == DType::Bool)
    throw TypeError(fmt::format("`{}`: {} is {}, expected numbers", to_string(),
                                input_label(0, inputs[0]), t.to_string()));
  if (n_ < 0) throw TypeError(fmt::format("`{}`: the order n is negative", to_string()));
  const auto a = static_cast<std::size_t>(checked_axis(*this, inputs, axis_, t.ndim()));
  StaticShape out = t.shape();
  if (out[a] != kUnknownDim) out[a] = std::max<std::int64_t>(out[a] - n_, 0);
  return ops_detail::make_apply(*this, inputs, t.dtype(), std::move(out));
}

void Diff::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return diff(inputs[0], n_, axis_); });
}

std::vector<ShapeVars> Diff::infer_shape(const Apply&,
                                         std::span<const ShapeVars> input_shapes) const {
  ShapeVars out = input_shapes[0];
  const auto r = static_cast<std::int64_t>(out.size());
  const auto a = static_cast<std::size_t>(axis_ < 0 ? axis_ + r : axis_);
  out[a] = maximum(out[a] - n_, 0);
  return {out};
}

// ---------------------------------------------------------------------------

void register_cumulative(OpRegistry& r) {
  for (bool mul : {false, true})
    r.add({.name = mul ? "cumprod" : "cumsum",
           .doc = mul ? "running products along `axis` (none: x flattened)"
                      : "running sums along `axis` (none: x flattened)",
           .params = {{"axis", ParamKind::Int, PropValue{std::monostate{}}, true,
                       "the axis (none: x flattened)"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [mul](const Props& p) -> OpPtr {
             return std::make_shared<CumOp>(mul, optional_int(p[0].value));
           }});
  r.add({.name = "diff",
         .doc = "the n-th discrete difference along `axis`",
         .params = {{"n", ParamKind::Int, PropValue{std::int64_t{1}}, false, "the order"},
                    {"axis", ParamKind::Int, PropValue{std::int64_t{-1}}, false, "the axis"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Diff>(std::get<std::int64_t>(p[0].value),
                                         std::get<std::int64_t>(p[1].value));
         }});
}

}  // namespace rw

// Sort (sort, argsort), TopK (topk, argtopk), SearchSorted, BinCount and Unique on the runtime's
// sort kernels, and their registration.
#include "ops/sort/sort.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/sort.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;

namespace {

std::optional<std::int64_t> optional_int(const PropValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  return std::nullopt;
}

Tensor flattened(const Tensor& x) { return x.contiguous().reshape(std::vector<std::int64_t>{-1}); }

}  // namespace

// ---------------------------------------------------------------------------
// sort, argsort

Props Sort::props() const {
  if (!axis_) return {{"axis", std::monostate{}}};
  return {{"axis", *axis_}};
}

ApplyRef Sort::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const DType d = arg_ ? DType::Int64 : t.dtype();
  if (!axis_) {
    return ops_detail::make_apply(*this, inputs, d, {ops_detail::static_size(t.shape())});
  }
  ops_detail::checked_axis(*this, inputs, *axis_, t.ndim());
  return ops_detail::make_apply(*this, inputs, d, t.shape());
}

void Sort::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor x = axis_ ? inputs[0] : flattened(inputs[0]);
  const std::int64_t a = axis_.value_or(0);
  outputs[0] = ops_detail::run_kernel(*this, [&] { return arg_ ? argsort(x, a) : sort(x, a); });
}

std::vector<ShapeVars> Sort::infer_shape(const Apply&,
                                         std::span<const ShapeVars> input_shapes) const {
  if (axis_) return {input_shapes[0]};
  Var n = int64_constant(1);
  for (const Var& d : input_shapes[0]) n = n * d;
  return {{n}};
}

std::vector<std::vector<bool>> Sort::connection_pattern(const Apply&) const { return {{!arg_}}; }

// ---------------------------------------------------------------------------
// topk, argtopk

ApplyRef TopK::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const auto a = static_cast<std::size_t>(ops_detail::checked_axis(*this, inputs, axis_, t.ndim()));
  const std::int64_t m = k_ < 0 ? -k_ : k_;
  if (k_ == 0) throw TypeError(fmt::format("`{}`: k is 0, expected a nonzero count", to_string()));
  StaticShape shape = t.shape();
  if (shape[a] != kUnknownDim && shape[a] < m)
    throw TypeError(fmt::format("`{}`: {} has extent {} on axis {}, fewer than |k| = {}",
                                to_string(), input_label(0, inputs[0]), shape[a], axis_, m));
  shape[a] = m;
  return ops_detail::make_apply(*this, inputs, arg_ ? DType::Int64 : t.dtype(), shape);
}

void TopK::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  TopKResult r = ops_detail::run_kernel(*this, [&] { return topk(inputs[0], k_, axis_); });
  outputs[0] = arg_ ? std::move(r.indices) : std::move(r.values);
}

std::vector<ShapeVars> TopK::infer_shape(const Apply&,
                                         std::span<const ShapeVars> input_shapes) const {
  ShapeVars s = input_shapes[0];
  const auto rank = static_cast<std::int64_t>(s.size());
  s[static_cast<std::size_t>(axis_ < 0 ? axis_ + rank : axis_)] = int64_constant(k_ < 0 ? -k_ : k_);
  return {s};
}

std::vector<std::vector<bool>> TopK::connection_pattern(const Apply&) const { return {{!arg_}}; }

// ---------------------------------------------------------------------------
// searchsorted

ApplyRef SearchSorted::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& a = ops_detail::tensor_input(*this, inputs, 0);
  const TensorType& v = ops_detail::tensor_input(*this, inputs, 1);
  if (a.ndim() != 1)
    throw TypeError(fmt::format("`{}`: {} (the sorted values) is {}, expected a vector",
                                to_string(), input_label(0, inputs[0]), a.to_string()));
  return ops_detail::make_apply(*this, inputs, DType::Int64, v.shape());
}

void SearchSorted::perform(const Apply&, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return searchsorted(inputs[0], inputs[1], right_); });
}

std::vector<ShapeVars> SearchSorted::infer_shape(const Apply&,
                                                 std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[1]};
}

std::vector<std::vector<bool>> SearchSorted::connection_pattern(const Apply&) const {
  return {{false}, {false}};
}

// ---------------------------------------------------------------------------
// bincount

ApplyRef BinCount::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 2);
  const TensorType& x = ops_detail::tensor_input(*this, inputs, 0);
  if (x.ndim() != 1 || !is_integer(x.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected a vector of integers", to_string(),
                                input_label(0, inputs[0]), x.to_string()));
  if (minlength_ < 0) throw TypeError(fmt::format("`{}`: minlength is negative", to_string()));
  DType d = DType::Int64;
  if (inputs.size() == 2) {
    const TensorType& w = ops_detail::tensor_input(*this, inputs, 1);
    const std::int64_t n = x.shape()[0], m = w.ndim() == 1 ? w.shape()[0] : kUnknownDim;
    if (w.ndim() != 1 || w.dtype() == DType::Bool ||
        (n != kUnknownDim && m != kUnknownDim && n != m))
      throw TypeError(fmt::format("`{}`: {} (weights) is {}, expected a vector of numbers as long as {}",
                                  to_string(), input_label(1, inputs[1]), w.to_string(),
                                  input_label(0, inputs[0])));
    d = is_float(w.dtype()) ? w.dtype() : DType::Float64;
  }
  return ops_detail::make_apply(*this, inputs, d, {kUnknownDim});
}

void BinCount::perform(const Apply&, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  const Tensor* w = inputs.size() == 2 ? &inputs[1] : nullptr;
  outputs[0] = ops_detail::run_kernel(*this, [&] { return bincount(inputs[0], w, minlength_); });
}

std::vector<ShapeVars> BinCount::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  // max(x) + 1, with a -1 appended so that an empty x has a maximum.
  const Var x = cast(node.input(0), DType::Int64);
  const Var top = max(concatenate({x, ops_detail::int64_vector_constant(std::vector<std::int64_t>{-1})}));
  return {{maximum(top + 1, minlength_)}};
}

std::vector<std::vector<bool>> BinCount::connection_pattern(const Apply& node) const {
  if (node.num_inputs() == 1) return {{false}};
  return {{false}, {true}};
}

// ---------------------------------------------------------------------------
// unique

ApplyRef Unique::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& x = ops_detail::tensor_input(*this, inputs, 0);
  std::vector<TypePtr> outs{TensorType::make(x.dtype(), {kUnknownDim})};
  if (return_counts_) outs.push_back(TensorType::make(DType::Int64, {kUnknownDim}));
  return Apply::create(ptr(), inputs, outs);
}

void Unique::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  auto [values, counts] = ops_detail::run_kernel(*this, [&] { return unique(inputs[0]); });
  outputs[0] = std::move(values);
  if (return_counts_) outputs[1] = std::move(counts);
}

std::vector<ShapeVars> Unique::infer_shape(const Apply& node,
                                           std::span<const ShapeVars> input_shapes) const {
  // One value per position where the sorted x changes (NaN next to NaN is no
  // change), plus the first when x is not empty.
  const Var s = sort(flatten(node.input(0)), 0);
  const Var a = subtensor(s, {slice(1, std::nullopt)});
  const Var b = subtensor(s, {slice(std::nullopt, -1)});
  const Var changes = and_(neq(a, b), or_(eq(a, a), eq(b, b)));
  Var size = int64_constant(1);
  for (const Var& d : input_shapes[0]) size = size * d;
  const Var n = sum(cast(changes, DType::Int64)) + cast(gt(size, 0), DType::Int64);
  return std::vector<ShapeVars>(node.num_outputs(), ShapeVars{n});
}

std::vector<std::vector<bool>> Unique::connection_pattern(const Apply& node) const {
  return {std::vector<bool>(node.num_outputs(), false)};
}

// ---------------------------------------------------------------------------

void register_sort(OpRegistry& r) {
  for (bool arg : {false, true})
    r.add({.name = arg ? "argsort" : "sort",
           .doc = arg ? "the int64 positions that sort x along `axis` (stable, NaNs last)"
                      : "x sorted along `axis` (stable, NaNs last)",
           .params = {{"axis", ParamKind::Int, PropValue{std::int64_t{-1}}, true,
                       "the axis (none: x flattened)"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [arg](const Props& p) -> OpPtr {
             return std::make_shared<Sort>(arg, optional_int(p[0].value));
           }});
  for (bool arg : {false, true})
    r.add({.name = arg ? "argtopk" : "topk",
           .doc = arg ? "int64 positions of the |k| largest (k > 0) or smallest values along `axis`"
                      : "the |k| largest (k > 0, descending) or smallest (ascending) along `axis`",
           .params = {{"k", ParamKind::Int, PropValue{std::int64_t{1}}, false,
                       "how many: the largest when positive, the smallest when negative"},
                      {"axis", ParamKind::Int, PropValue{std::int64_t{-1}}, false, "the axis"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [arg](const Props& p) -> OpPtr {
             return std::make_shared<TopK>(arg, std::get<std::int64_t>(p[0].value),
                                           std::get<std::int64_t>(p[1].value));
           }});
  r.add({.name = "searchsorted",
         .doc = "searchsorted(a, v): where each v goes in the ascending vector a",
         .params = {{"side", ParamKind::String, PropValue{std::string("left")}, false,
                     "`left`: before equal values; `right`: after them"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr {
           const auto& side = std::get<std::string>(p[0].value);
           if (side != "left" && side != "right")
             throw TypeError(fmt::format("`searchsorted`: side `{}` is not `left` or `right`", side));
           return std::make_shared<SearchSorted>(side == "right");
         }});
  r.add({.name = "bincount",
         .doc = "bincount(x[, weights]): occurrences (or summed weights) of each value of x",
         .params = {{"minlength", ParamKind::Int, PropValue{std::int64_t{0}}, false,
                     "the least number of bins"}},
         .min_inputs = 1,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<BinCount>(std::get<std::int64_t>(p[0].value));
         }});
  r.add({.name = "unique",
         .doc = "the sorted distinct values of x flattened, and optionally their counts",
         .params = {{"return_counts", ParamKind::Bool, PropValue{false}, false,
                     "a second output: how often each value occurs"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Unique>(std::get<bool>(p[0].value));
         }});
}

}  // namespace rw

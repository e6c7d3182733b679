// Eye, Tri, TriIndices, ARange, Linspace, TriMask (tril/triu), AllocDiag, ExtractDiag
// and their registration.
#include "ops/creation/creation.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/variable.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;

namespace {

/// Input `i` as a 0-d number (not a bool), or TypeError naming its role.
const TensorType& number_scalar_input(const Op& op, std::span<const Var> inputs, std::size_t i,
                                      std::string_view role) {
  const TensorType& t = ops_detail::tensor_input(op, inputs, i);
  if (t.ndim() != 0 || t.dtype() == DType::Bool)
    throw TypeError(fmt::format("`{}`: {} ({}) is {}, expected a 0-d number", op.to_string(),
                                input_label(i, inputs[i]), role, t.to_string()));
  return t;
}

/// The static extent a size input gives: its value when it is a constant
/// (refused when negative), else unknown.
std::int64_t size_input_extent(const Op& op, std::span<const Var> inputs, std::size_t i) {
  const auto c = ops_detail::constant_int(inputs[i]);
  if (!c) return kUnknownDim;
  if (*c < 0)
    throw TypeError(fmt::format("`{}`: {} is {}, expected a size >= 0", op.to_string(),
                                input_label(i, inputs[i]), *c));
  return *c;
}

/// A size input's run-time value, refused (ValueError) when negative.
std::int64_t run_size(const Op& op, const Apply& node, std::span<const Tensor> inputs,
                      std::size_t i) {
  const auto v = inputs[i].item<std::int64_t>();
  if (v < 0)
    throw ValueError(fmt::format("`{}`: {} is {}, expected a size >= 0", op.to_string(),
                                 input_label(i, node.input(i)), v));
  return v;
}

Var as_int64(const Var& v) {
  return v->tensor_type()->dtype() == DType::Int64 ? v : cast(v, DType::Int64);
}

void check_not_bool_dtype(const Op& op, DType d) {
  if (d == DType::Bool)
    throw TypeError(fmt::format("`{}`: dtype bool is not a number type", op.to_string()));
}

/// eye, tri and the index Ops: inputs n, m, k, each a 0-d integer.
void check_size_inputs(const Op& op, std::span<const Var> inputs) {
  ops_detail::check_arity(op, inputs, 3, 3);
  ops_detail::int_scalar_input(op, inputs, 0, "rows");
  ops_detail::int_scalar_input(op, inputs, 1, "columns");
  ops_detail::int_scalar_input(op, inputs, 2, "the diagonal");
}

/// eye and tri: inputs n, m, k; the static shape (n, m).
ApplyRef make_size_matrix(const Op& op, std::span<const Var> inputs, DType dtype) {
  check_size_inputs(op, inputs);
  return ops_detail::make_apply(op, inputs, dtype,
                                {size_input_extent(op, inputs, 0), size_input_extent(op, inputs, 1)});
}

/// A matrix of `dtype` that is 1 where `keep(i, j)` and 0 elsewhere.
template <class Keep>
Tensor mask_matrix(std::int64_t n, std::int64_t m, DType dtype, Keep keep) {
  Tensor t = Tensor::zeros({n, m}, dtype);
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = 0; j < m; ++j)
        if (keep(i, j)) p[i * m + j] = T(1);
  });
  return t;
}

/// The number of values of arange(start, stop, step), exact for integer
/// bounds; ValueError for a zero step, non-finite bounds or a
/// count that no tensor can hold.
std::int64_t arange_count(const Tensor& start, const Tensor& stop, const Tensor& step,
                          bool integral) {
  if (integral) {
    const auto a = start.item<std::int64_t>(), b = stop.item<std::int64_t>(),
               s = step.item<std::int64_t>();
    if (s == 0) throw ValueError("the step must not be zero");
    std::int64_t diff = 0;
    if (__builtin_sub_overflow(b, a, &diff))
      throw ValueError(fmt::format("the range from {} to {} is too long", a, b));
    std::int64_t q = diff / s;
    const std::int64_t r = diff % s;
    if (r != 0 && ((r > 0) == (s > 0))) ++q;  // round the quotient up
    return std::max<std::int64_t>(q, 0);
  }
  const double a = start.item<double>(), b = stop.item<double>(), s = step.item<double>();
  if (s == 0) throw ValueError("the step must not be zero");
  if (!std::isfinite(a) || !std::isfinite(b) || !std::isfinite(s))
    throw ValueError(
        fmt::format("the bounds must be finite, got start {} stop {} step {}", a, b, s));
  const double count = std::ceil((b - a) / s);
  if (!(count > 0)) return 0;
  if (count > 0x1p62)
    throw ValueError(fmt::format("arange({}, {}, {}) has too many values", a, b, s));
  return static_cast<std::int64_t>(count);
}

bool integral_bounds(std::span<const Var> inputs) {
  return std::all_of(inputs.begin(), inputs.end(),
                     [](const Var& v) { return !is_float(v->tensor_type()->dtype()); });
}

/// The dtype of linspace: `dtype`, else the float of the bounds' promotion.
DType linspace_dtype(std::optional<DType> dtype, std::span<const Var> inputs) {
  if (dtype) return *dtype;
  const DType p = promote(inputs[0]->tensor_type()->dtype(), inputs[1]->tensor_type()->dtype());
  return is_float(p) ? p : DType::Float64;
}

/// An offset clamped to [-lo, hi], where every larger one acts the same; keeps
/// index arithmetic from overflowing.
std::int64_t clamp_offset(std::int64_t k, std::int64_t lo, std::int64_t hi) {
  return std::clamp(k, -lo, hi);
}

/// The length of diagonal k of an n × m matrix.
std::int64_t diag_length(std::int64_t n, std::int64_t m, std::int64_t k) {
  k = clamp_offset(k, n, m);
  return std::max<std::int64_t>(0, k >= 0 ? std::min(n, m - k) : std::min(n + k, m));
}

/// The offset, refused when its magnitude does not fit an int64.
void check_offset(const Op& op, std::int64_t k) {
  if (k == std::numeric_limits<std::int64_t>::min())
    throw TypeError(fmt::format("`{}`: the offset is out of range", op.to_string()));
}

}  // namespace

// ---------------------------------------------------------------------------
// eye, tri

ApplyRef Eye::make_node(std::span<const Var> inputs) const {
  check_not_bool_dtype(*this, dtype_);
  return make_size_matrix(*this, inputs, dtype_);
}

void Eye::perform(const Apply& node, std::span<const Tensor> inputs,
                  std::span<Tensor> outputs) const {
  const std::int64_t n = run_size(*this, node, inputs, 0), m = run_size(*this, node, inputs, 1);
  const std::int64_t k = clamp_offset(inputs[2].item<std::int64_t>(), n, m);
  outputs[0] = ops_detail::run_kernel(*this, [&] { return Tensor::eye(n, m, k, dtype_); });
}

std::vector<ShapeVars> Eye::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  return {{as_int64(node.input(0)), as_int64(node.input(1))}};
}

std::vector<std::vector<bool>> Eye::connection_pattern(const Apply&) const {
  return {{false}, {false}, {false}};
}

ApplyRef Tri::make_node(std::span<const Var> inputs) const {
  check_not_bool_dtype(*this, dtype_);
  return make_size_matrix(*this, inputs, dtype_);
}

void Tri::perform(const Apply& node, std::span<const Tensor> inputs,
                  std::span<Tensor> outputs) const {
  const std::int64_t n = run_size(*this, node, inputs, 0), m = run_size(*this, node, inputs, 1);
  const std::int64_t k = clamp_offset(inputs[2].item<std::int64_t>(), n, m);
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return mask_matrix(n, m, dtype_, [k](auto i, auto j) { return j <= i + k; }); });
}

std::vector<ShapeVars> Tri::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  return {{as_int64(node.input(0)), as_int64(node.input(1))}};
}

std::vector<std::vector<bool>> Tri::connection_pattern(const Apply&) const {
  return {{false}, {false}, {false}};
}

// ---------------------------------------------------------------------------
// tril_indices, triu_indices

namespace {

/// How many positions of row i of an n × m matrix lie at and below diagonal
/// k (or at and above it, `upper`); k clamped to [-n, m].
std::int64_t row_count(std::int64_t i, std::int64_t m, std::int64_t k, bool upper) {
  return upper ? m - std::clamp<std::int64_t>(i + k, 0, m)
               : std::clamp<std::int64_t>(i + k + 1, 0, m);
}

}  // namespace

ApplyRef TriIndices::make_node(std::span<const Var> inputs) const {
  check_size_inputs(*this, inputs);
  const std::int64_t n = size_input_extent(*this, inputs, 0);
  const std::int64_t m = size_input_extent(*this, inputs, 1);
  const auto k = ops_detail::constant_int(inputs[2]);
  std::int64_t count = kUnknownDim;
  if (n != kUnknownDim && m != kUnknownDim && k) {
    check_offset(*this, *k);
    count = 0;
    const std::int64_t kc = clamp_offset(*k, n, m);
    for (std::int64_t i = 0; i < n; ++i) count += row_count(i, m, kc, upper_);
  }
  const TypePtr t = TensorType::make(DType::Int64, {count});
  return Apply::create(ptr(), inputs, std::vector<TypePtr>{t, t});
}

void TriIndices::perform(const Apply& node, std::span<const Tensor> inputs,
                         std::span<Tensor> outputs) const {
  const std::int64_t n = run_size(*this, node, inputs, 0), m = run_size(*this, node, inputs, 1);
  const std::int64_t k = clamp_offset(inputs[2].item<std::int64_t>(), n, m);
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) count += row_count(i, m, k, upper_);
  Tensor rows = Tensor::empty(DType::Int64, {count});
  Tensor cols = Tensor::empty(DType::Int64, {count});
  std::int64_t at = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t c = row_count(i, m, k, upper_);
    const std::int64_t first = upper_ ? m - c : 0;
    for (std::int64_t j = first; j < first + c; ++j, ++at) {
      rows.data<std::int64_t>()[at] = i;
      cols.data<std::int64_t>()[at] = j;
    }
  }
  outputs[0] = std::move(rows);
  outputs[1] = std::move(cols);
}

std::vector<ShapeVars> TriIndices::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  // Σ over rows i of the row's count: clip(i + k + 1, 0, m) below, m - clip(i + k, 0, m) above.
  const Var n = as_int64(node.input(0)), m = as_int64(node.input(1)), k = as_int64(node.input(2));
  const Var i = arange(n);
  const Var per_row = upper_ ? m - clip(i + k, 0, m) : clip(i + k + 1, 0, m);
  const Var count = sum(per_row);
  return {ShapeVars{count}, ShapeVars{count}};
}

std::vector<std::vector<bool>> TriIndices::connection_pattern(const Apply&) const {
  return {{false, false}, {false, false}, {false, false}};
}

// ---------------------------------------------------------------------------
// arange

Props ARange::props() const {
  if (!dtype_) return {{"dtype", std::monostate{}}};
  return {{"dtype", *dtype_}};
}

ApplyRef ARange::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  const DType a = number_scalar_input(*this, inputs, 0, "start").dtype();
  const DType b = number_scalar_input(*this, inputs, 1, "stop").dtype();
  const DType c = number_scalar_input(*this, inputs, 2, "step").dtype();
  const DType out = dtype_.value_or(promote(promote(a, b), c));
  check_not_bool_dtype(*this, out);
  std::int64_t n = kUnknownDim;
  const Constant* k0 = inputs[0]->as_constant();
  const Constant* k1 = inputs[1]->as_constant();
  const Constant* k2 = inputs[2]->as_constant();
  if (k2 && k2->value().item<double>() == 0)
    throw TypeError(fmt::format("`{}`: {} (step) is zero", to_string(), input_label(2, inputs[2])));
  if (k0 && k1 && k2) {
    try {
      n = arange_count(k0->value(), k1->value(), k2->value(), integral_bounds(inputs));
    } catch (const ValueError& e) {
      throw TypeError(fmt::format("`{}`: {}", to_string(), e.what()));
    }
  }
  return ops_detail::make_apply(*this, inputs, out, {n});
}

void ARange::perform(const Apply& node, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  const bool integral = integral_bounds(node.inputs());
  const std::int64_t n = ops_detail::run_kernel(
      *this, [&] { return arange_count(inputs[0], inputs[1], inputs[2], integral); });
  const DType d = node.output_var(0).tensor_type()->dtype();
  Tensor out = ops_detail::run_kernel(*this, [&] { return Tensor::empty(d, {n}); });
  visit_dtype(d, [&]<class T>() {
    T* p = out.data<T>();
    if (integral) {
      // Exact: every value lies between start and stop, so none overflows.
      const auto a = inputs[0].item<std::int64_t>(), s = inputs[2].item<std::int64_t>();
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(a + i * s);
    } else {
      const double a = inputs[0].item<double>(), s = inputs[2].item<double>();
      for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(a + static_cast<double>(i) * s);
    }
  });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> ARange::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  const Var a = cast(node.input(0), DType::Float64);
  const Var b = cast(node.input(1), DType::Float64);
  const Var s = cast(node.input(2), DType::Float64);
  return {{cast(maximum(ceil((b - a) / s), 0.0), DType::Int64)}};
}

std::vector<std::vector<bool>> ARange::connection_pattern(const Apply&) const {
  return {{true}, {false}, {true}};
}

// ---------------------------------------------------------------------------
// linspace

Props Linspace::props() const {
  if (!dtype_) return {{"endpoint", endpoint_}, {"dtype", std::monostate{}}};
  return {{"endpoint", endpoint_}, {"dtype", *dtype_}};
}

ApplyRef Linspace::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  number_scalar_input(*this, inputs, 0, "start");
  number_scalar_input(*this, inputs, 1, "stop");
  ops_detail::int_scalar_input(*this, inputs, 2, "the number of values");
  if (dtype_ && !is_float(*dtype_))
    throw TypeError(fmt::format("`{}`: dtype {} is not float32 or float64", to_string(),
                                dtype_name(*dtype_)));
  return ops_detail::make_apply(*this, inputs, linspace_dtype(dtype_, inputs),
                                {size_input_extent(*this, inputs, 2)});
}

void Linspace::perform(const Apply& node, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  const std::int64_t n = run_size(*this, node, inputs, 2);
  const double a = inputs[0].item<double>(), b = inputs[1].item<double>();
  const std::int64_t div = endpoint_ ? n - 1 : n;
  const double step = div > 0 ? (b - a) / static_cast<double>(div) : 0.0;
  const DType d = node.output_var(0).tensor_type()->dtype();
  Tensor out = ops_detail::run_kernel(*this, [&] { return Tensor::empty(d, {n}); });
  visit_dtype(d, [&]<class T>() {
    T* p = out.data<T>();
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<T>(a + static_cast<double>(i) * step);
    if (endpoint_ && n > 1) p[n - 1] = static_cast<T>(b);
  });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> Linspace::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  return {{as_int64(node.input(2))}};
}

std::vector<std::vector<bool>> Linspace::connection_pattern(const Apply&) const {
  return {{true}, {true}, {false}};
}

// ---------------------------------------------------------------------------
// tril, triu

ApplyRef TriMask::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (t.ndim() < 2)
    throw TypeError(fmt::format("`{}`: {} is {}, expected at least a matrix", to_string(),
                                input_label(0, inputs[0]), t.to_string()));
  return ops_detail::make_apply(*this, inputs, t.dtype(), t.shape());
}

void TriMask::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  Tensor out = inputs[0].contiguous();
  if (out.shares_storage(inputs[0])) out = inputs[0].copy();
  const auto rank = static_cast<std::size_t>(out.ndim());
  const std::int64_t n = out.shape()[rank - 2], m = out.shape()[rank - 1];
  const std::int64_t k = clamp_offset(k_, n + 1, m + 1);
  const std::size_t item = itemsize(out.dtype());
  auto* base = static_cast<std::byte*>(out.raw_data());
  const std::int64_t batches = n * m == 0 ? 0 : out.size() / (n * m);
  for (std::int64_t b = 0; b < batches; ++b)
    for (std::int64_t i = 0; i < n; ++i) {
      // Zero bytes are 0 in every dtype: each row's zeroed run is one memset.
      const std::int64_t lo = upper_ ? 0 : std::clamp<std::int64_t>(i + k + 1, 0, m);
      const std::int64_t hi = upper_ ? std::clamp<std::int64_t>(i + k, 0, m) : m;
      if (hi > lo)
        std::memset(base + static_cast<std::size_t>((b * n + i) * m + lo) * item, 0,
                    static_cast<std::size_t>(hi - lo) * item);
    }
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> TriMask::infer_shape(const Apply&,
                                            std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

// ---------------------------------------------------------------------------
// alloc_diag, extract_diag

ApplyRef AllocDiag::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  check_offset(*this, offset_);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (t.ndim() != 1)
    throw TypeError(fmt::format("`{}`: {} is {}, expected a vector", to_string(),
                                input_label(0, inputs[0]), t.to_string()));
  const std::int64_t n = t.shape()[0];
  const std::int64_t s = n == kUnknownDim ? kUnknownDim : n + std::abs(offset_);
  return ops_detail::make_apply(*this, inputs, t.dtype(), {s, s});
}

void AllocDiag::perform(const Apply&, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  const Tensor v = inputs[0].contiguous();
  const std::int64_t n = v.shape()[0];
  const std::int64_t s = n + std::abs(offset_);
  Tensor out = ops_detail::run_kernel(*this, [&] { return Tensor::zeros({s, s}, v.dtype()); });
  const std::size_t item = itemsize(v.dtype());
  const auto* src = static_cast<const std::byte*>(v.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t row = offset_ >= 0 ? i : i - offset_;
    const std::int64_t col = offset_ >= 0 ? i + offset_ : i;
    std::memcpy(dst + static_cast<std::size_t>(row * s + col) * item,
                src + static_cast<std::size_t>(i) * item, item);
  }
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> AllocDiag::infer_shape(const Apply&,
                                              std::span<const ShapeVars> input_shapes) const {
  const Var s = input_shapes[0][0] + int64_constant(std::abs(offset_));
  return {{s, s}};
}

ApplyRef ExtractDiag::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  check_offset(*this, offset_);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  if (t.ndim() != 2)
    throw TypeError(fmt::format("`{}`: {} is {}, expected a matrix", to_string(),
                                input_label(0, inputs[0]), t.to_string()));
  const std::int64_t n = t.shape()[0], m = t.shape()[1];
  const bool known = n != kUnknownDim && m != kUnknownDim;
  return ops_detail::make_apply(*this, inputs, t.dtype(),
                                {known ? diag_length(n, m, offset_) : kUnknownDim});
}

void ExtractDiag::perform(const Apply&, std::span<const Tensor> inputs,
                          std::span<Tensor> outputs) const {
  const Tensor x = inputs[0].contiguous();
  const std::int64_t n = x.shape()[0], m = x.shape()[1];
  const std::int64_t len = diag_length(n, m, offset_);
  Tensor out = Tensor::empty(x.dtype(), {len});
  const std::size_t item = itemsize(x.dtype());
  const auto* src = static_cast<const std::byte*>(x.raw_data());
  auto* dst = static_cast<std::byte*>(out.raw_data());
  for (std::int64_t i = 0; i < len; ++i) {
    const std::int64_t row = offset_ >= 0 ? i : i - offset_;
    const std::int64_t col = offset_ >= 0 ? i + offset_ : i;
    std::memcpy(dst + static_cast<std::size_t>(i) * item,
                src + static_cast<std::size_t>(row * m + col) * item, item);
  }
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> ExtractDiag::infer_shape(const Apply&,
                                                std::span<const ShapeVars> input_shapes) const {
  const Var& n = input_shapes[0][0];
  const Var& m = input_shapes[0][1];
  const Var len = offset_ >= 0 ? minimum(n, m - offset_) : minimum(n + offset_, m);
  return {{maximum(len, 0)}};
}

// ---------------------------------------------------------------------------

namespace {

std::optional<DType> optional_dtype(const PropValue& v) {
  if (const auto* d = std::get_if<DType>(&v)) return *d;
  return std::nullopt;
}

}  // namespace

void register_creation(OpRegistry& r) {
  r.add({.name = "eye",
         .doc = "eye(n, m, k): an n x m matrix with ones on diagonal k, zeros elsewhere",
         .params = {{"dtype", ParamKind::DType, PropValue{DType::Float64}, false, "the dtype"}},
         .min_inputs = 3,
         .max_inputs = 3,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Eye>(std::get<DType>(p[0].value));
         }});
  r.add({.name = "tri",
         .doc = "tri(n, m, k): an n x m matrix with ones at and below diagonal k",
         .params = {{"dtype", ParamKind::DType, PropValue{DType::Float64}, false, "the dtype"}},
         .min_inputs = 3,
         .max_inputs = 3,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Tri>(std::get<DType>(p[0].value));
         }});
  for (bool upper : {false, true})
    r.add({.name = upper ? "triu_indices" : "tril_indices",
           .doc = upper ? "triu_indices(n, m, k): rows and columns at and above diagonal k of n x m"
                        : "tril_indices(n, m, k): rows and columns at and below diagonal k of n x m",
           .params = {},
           .min_inputs = 3,
           .max_inputs = 3,
           .factory = [upper](const Props&) -> OpPtr {
             static const OpPtr lower_op = std::make_shared<TriIndices>(false);
             static const OpPtr upper_op = std::make_shared<TriIndices>(true);
             return upper ? upper_op : lower_op;
           }});
  r.add({.name = "arange",
         .doc = "arange(start, stop, step): start, start + step, ... up to but excluding stop",
         .params = {{"dtype", ParamKind::DType, PropValue{std::monostate{}}, true,
                     "the dtype (none: the bounds' promotion)"}},
         .min_inputs = 3,
         .max_inputs = 3,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<ARange>(optional_dtype(p[0].value));
         }});
  r.add({.name = "linspace",
         .doc = "linspace(start, stop, num): num evenly spaced values from start to stop",
         .params = {{"endpoint", ParamKind::Bool, PropValue{true}, false, "include stop"},
                    {"dtype", ParamKind::DType, PropValue{std::monostate{}}, true,
                     "a float dtype (none: the float of the bounds' promotion)"}},
         .min_inputs = 3,
         .max_inputs = 3,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Linspace>(std::get<bool>(p[0].value),
                                             optional_dtype(p[1].value));
         }});
  for (bool upper : {false, true})
    r.add({.name = upper ? "triu" : "tril",
           .doc = upper ? "x with the elements below diagonal k of its last two axes zeroed"
                        : "x with the elements above diagonal k of its last two axes zeroed",
           .params = {{"k", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the diagonal"}},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [upper](const Props& p) -> OpPtr {
             return std::make_shared<TriMask>(upper, std::get<std::int64_t>(p[0].value));
           }});
  r.add({.name = "alloc_diag",
         .doc = "a square matrix with the vector on diagonal `offset`, zeros elsewhere",
         .params = {{"offset", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the diagonal"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<AllocDiag>(std::get<std::int64_t>(p[0].value));
         }});
  r.add({.name = "extract_diag",
         .doc = "diagonal `offset` of a matrix, as a vector",
         .params = {{"offset", ParamKind::Int, PropValue{std::int64_t{0}}, false, "the diagonal"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<ExtractDiag>(std::get<std::int64_t>(p[0].value));
         }});
}

}  // namespace rw

// The C++ API: constructors of graph variables and a function per standard Op.
#include "ops/api.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/detail/util.hpp"
#include "ops/creation/creation.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/indexing/advanced.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/linalg/decomp.hpp"
#include "ops/linalg/linalg.hpp"
#include "ops/nnet/softmax.hpp"
#include "ops/reduce/cumulative.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/sort/sort.hpp"
#include "ops/shape/alloc.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "ops/shape/gather_shape.hpp"
#include "ops/shape/join.hpp"
#include "ops/shape/reshape.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw::api {

// ---------------------------------------------------------------------------
// Variables and constants

Var tensor(std::string name, DType dtype, StaticShape shape) {
  for (std::int64_t e : shape)
    if (e < 0 && e != kUnknownDim)
      throw TypeError(fmt::format("`{}`: extent {} is neither known (>= 0) nor unknown (-1)",
                                  name, e));
  return Variable::make(TensorType::make(dtype, std::move(shape)), std::move(name));
}

Var scalar(std::string name, DType dtype) { return tensor(std::move(name), dtype, {}); }

Var vector(std::string name, DType dtype, std::int64_t n) {
  return tensor(std::move(name), dtype, {n});
}

Var matrix(std::string name, DType dtype, std::int64_t rows, std::int64_t cols) {
  return tensor(std::move(name), dtype, {rows, cols});
}

Var constant(const Tensor& value, std::string name) {
  return Constant::make(value.copy(), nullptr, std::move(name));
}

Var constant(double value, DType dtype) { return Constant::make(Tensor::scalar(value, dtype)); }

Var integer_constant(std::int64_t value, DType dtype) {
  const Tensor exact = Tensor::scalar(value);  // int64, then converted element to element
  return Constant::make(dtype == DType::Int64 ? exact : exact.astype(dtype));
}

namespace {

// Whether the integer `value` is exactly representable in the integer dtype `t`.
bool int_fits(double value, DType t) {
  switch (t) {
    case DType::Int8: return value >= -128 && value <= 127;
    case DType::UInt8: return value >= 0 && value <= 255;
    case DType::Int16: return value >= -32768 && value <= 32767;
    case DType::Int32: return value >= -2147483648.0 && value <= 2147483647.0;
    case DType::Int64: return true;
    default: return false;
  }
}

}  // namespace

DType integer_dtype(std::int64_t value, DType other) {
  if (is_float(other)) return other;
  if (other == DType::Bool) return DType::Int64;
  // Every int64 but the largest few converts to a double that int_fits judges
  // rightly; those do not fit any type narrower than int64 either.
  return number_dtype(true, static_cast<double>(value), other);
}

DType number_dtype(bool is_integer, double value, DType other) {
  if (is_float(other)) return other;
  if (!is_integer) return DType::Float64;
  if (other == DType::Bool) return DType::Int64;
  if (int_fits(value, other)) return other;
  for (DType t : {DType::Int8, DType::Int16, DType::Int32, DType::Int64})
    if (int_fits(value, t)) return promote(other, t);
  return DType::Int64;
}

Var Operand::resolve(DType other) const {
  if (var_) return var_;
  if (is_integer_) return integer_constant(int_value_, integer_dtype(int_value_, other));
  return constant(value_, number_dtype(is_integer_, value_, other));
}

Var Operand::resolve() const {
  if (var_) return var_;
  if (is_integer_) return integer_constant(int_value_, native_);
  return constant(value_, native_);
}

namespace {

DType dtype_of_var(const Var& v) {
  if (!v) throw TypeError("a null variable was passed as an operand");
  const TensorType* t = v->tensor_type();
  if (!t)
    throw TypeError(fmt::format("operand of type {} is not a tensor", v->type()->to_string()));
  return t->dtype();
}

// The operands as variables: numbers take the dtype of the first variable
// among them (number_dtype), or their own C++ dtype when all are numbers.
std::vector<Var> resolve_all(std::initializer_list<const Operand*> ops) {
  std::optional<DType> other;
  for (const Operand* o : ops)
    if (!o->is_number()) {
      other = dtype_of_var(o->var());
      break;
    }
  std::vector<Var> out;
  for (const Operand* o : ops) out.push_back(other ? o->resolve(*other) : o->resolve());
  return out;
}

Var apply_scalar(ScalarOp op, std::span<const Var> inputs) {
  return (*elemwise_op(op))(inputs);
}

Var binary(ScalarOp op, const Operand& a, const Operand& b) {
  const auto in = resolve_all({&a, &b});
  return apply_scalar(op, in);
}

Var unary(ScalarOp op, const Var& x) { return (*elemwise_op(op))({x}); }

}  // namespace

// ---------------------------------------------------------------------------
// Elementwise

Var add(const Operand& a, const Operand& b) { return binary(ScalarOp::Add, a, b); }
Var sub(const Operand& a, const Operand& b) { return binary(ScalarOp::Sub, a, b); }
Var mul(const Operand& a, const Operand& b) { return binary(ScalarOp::Mul, a, b); }
Var true_div(const Operand& a, const Operand& b) { return binary(ScalarOp::TrueDiv, a, b); }
Var int_div(const Operand& a, const Operand& b) { return binary(ScalarOp::IntDiv, a, b); }
Var mod(const Operand& a, const Operand& b) { return binary(ScalarOp::Mod, a, b); }
Var pow(const Operand& a, const Operand& b) { return binary(ScalarOp::Pow, a, b); }
Var maximum(const Operand& a, const Operand& b) { return binary(ScalarOp::Maximum, a, b); }
Var minimum(const Operand& a, const Operand& b) { return binary(ScalarOp::Minimum, a, b); }
Var add(const std::vector<Var>& terms) { return apply_scalar(ScalarOp::Add, terms); }
Var mul(const std::vector<Var>& factors) { return apply_scalar(ScalarOp::Mul, factors); }

Var neg(const Var& x) { return unary(ScalarOp::Neg, x); }
Var abs(const Var& x) { return unary(ScalarOp::Abs, x); }
Var sign(const Var& x) { return unary(ScalarOp::Sign, x); }
Var sqr(const Var& x) { return unary(ScalarOp::Sqr, x); }
Var reciprocal(const Var& x) { return unary(ScalarOp::Reciprocal, x); }
Var exp(const Var& x) { return unary(ScalarOp::Exp, x); }
Var exp2(const Var& x) { return unary(ScalarOp::Exp2, x); }
Var expm1(const Var& x) { return unary(ScalarOp::Expm1, x); }
Var log(const Var& x) { return unary(ScalarOp::Log, x); }
Var log2(const Var& x) { return unary(ScalarOp::Log2, x); }
Var log10(const Var& x) { return unary(ScalarOp::Log10, x); }
Var log1p(const Var& x) { return unary(ScalarOp::Log1p, x); }
Var sqrt(const Var& x) { return unary(ScalarOp::Sqrt, x); }
Var sin(const Var& x) { return unary(ScalarOp::Sin, x); }
Var cos(const Var& x) { return unary(ScalarOp::Cos, x); }
Var tan(const Var& x) { return unary(ScalarOp::Tan, x); }
Var sinh(const Var& x) { return unary(ScalarOp::Sinh, x); }
Var cosh(const Var& x) { return unary(ScalarOp::Cosh, x); }
Var tanh(const Var& x) { return unary(ScalarOp::Tanh, x); }
Var arcsin(const Var& x) { return unary(ScalarOp::ArcSin, x); }
Var arccos(const Var& x) { return unary(ScalarOp::ArcCos, x); }
Var arctan(const Var& x) { return unary(ScalarOp::ArcTan, x); }
Var sigmoid(const Var& x) { return unary(ScalarOp::Sigmoid, x); }
Var softplus(const Var& x) { return unary(ScalarOp::Softplus, x); }
Var erf(const Var& x) { return unary(ScalarOp::Erf, x); }
Var erfc(const Var& x) { return unary(ScalarOp::Erfc, x); }
Var erfinv(const Var& x) { return unary(ScalarOp::Erfinv, x); }
Var erfcinv(const Var& x) { return unary(ScalarOp::Erfcinv, x); }
Var erfcx(const Var& x) { return unary(ScalarOp::Erfcx, x); }
Var gammaln(const Var& x) { return unary(ScalarOp::Gammaln, x); }
Var digamma(const Var& x) { return unary(ScalarOp::Digamma, x); }
Var psi(const Var& x) { return digamma(x); }
Var trigamma(const Var& x) { return unary(ScalarOp::Trigamma, x); }
Var betaln(const Operand& a, const Operand& b) { return binary(ScalarOp::Betaln, a, b); }
Var log1mexp(const Var& x) { return unary(ScalarOp::Log1mexp, x); }
Var logit(const Var& x) { return unary(ScalarOp::Logit, x); }
Var expit(const Var& x) { return sigmoid(x); }
Var xlogy(const Operand& x, const Operand& y) { return binary(ScalarOp::Xlogy, x, y); }
Var xlog1py(const Operand& x, const Operand& y) { return binary(ScalarOp::Xlog1py, x, y); }
Var softsign(const Var& x) { return unary(ScalarOp::Softsign, x); }
Var gelu(const Var& x) { return unary(ScalarOp::Gelu, x); }
Var i0(const Var& x) { return unary(ScalarOp::I0, x); }
Var i1(const Var& x) { return unary(ScalarOp::I1, x); }
Var relu(const Var& x) { return unary(ScalarOp::Relu, x); }
Var floor(const Var& x) { return unary(ScalarOp::Floor, x); }
Var ceil(const Var& x) { return unary(ScalarOp::Ceil, x); }
Var round(const Var& x) { return unary(ScalarOp::Round, x); }

Var lt(const Operand& a, const Operand& b) { return binary(ScalarOp::Lt, a, b); }
Var gt(const Operand& a, const Operand& b) { return binary(ScalarOp::Gt, a, b); }
Var le(const Operand& a, const Operand& b) { return binary(ScalarOp::Le, a, b); }
Var ge(const Operand& a, const Operand& b) { return binary(ScalarOp::Ge, a, b); }
Var eq(const Operand& a, const Operand& b) { return binary(ScalarOp::Eq, a, b); }
Var neq(const Operand& a, const Operand& b) { return binary(ScalarOp::Neq, a, b); }
Var and_(const Operand& a, const Operand& b) { return binary(ScalarOp::And, a, b); }
Var or_(const Operand& a, const Operand& b) { return binary(ScalarOp::Or, a, b); }
Var xor_(const Operand& a, const Operand& b) { return binary(ScalarOp::Xor, a, b); }
Var not_(const Var& x) { return unary(ScalarOp::Not, x); }

Var where(const Operand& cond, const Operand& a, const Operand& b) {
  // The condition is a bool; numbers among a and b follow each other's dtype.
  const auto ab = resolve_all({&a, &b});
  const Var c = cond.is_number() ? cond.resolve(DType::Bool) : cond.var();
  const Var in[] = {c, ab[0], ab[1]};
  return apply_scalar(ScalarOp::Switch, in);
}

Var clip(const Operand& x, const Operand& lo, const Operand& hi) {
  const auto in = resolve_all({&x, &lo, &hi});
  return apply_scalar(ScalarOp::Clip, in);
}

Var cast(const Var& x, DType dtype) { return (*cast_op(dtype))({x}); }
Var identity(const Var& x) { return unary(ScalarOp::Identity, x); }

}  // namespace rw::api

namespace rw {

// ---------------------------------------------------------------------------
// Operators

Var operator+(const Var& a, const Var& b) { return add(a, b); }
Var operator-(const Var& a, const Var& b) { return sub(a, b); }
Var operator*(const Var& a, const Var& b) { return mul(a, b); }
Var operator/(const Var& a, const Var& b) { return true_div(a, b); }
Var operator-(const Var& x) { return neg(x); }
Var operator<(const Var& a, const Var& b) { return lt(a, b); }
Var operator>(const Var& a, const Var& b) { return gt(a, b); }
Var operator<=(const Var& a, const Var& b) { return le(a, b); }
Var operator>=(const Var& a, const Var& b) { return ge(a, b); }
Var operator&(const Var& a, const Var& b) { return and_(a, b); }
Var operator|(const Var& a, const Var& b) { return or_(a, b); }
Var operator^(const Var& a, const Var& b) { return xor_(a, b); }
Var operator~(const Var& x) { return not_(x); }

}  // namespace rw

namespace rw::api {

// ---------------------------------------------------------------------------
// Reductions

namespace {

std::size_t rank_of(const Var& x) {
  dtype_of_var(x);
  return x->tensor_type()->ndim();
}

// The axes of `axes` normalised against x's rank; out-of-range axes are left
// for the Op to refuse with its message.
std::vector<bool> reduced_mask(const Var& x, const Axes& axes) {
  const std::size_t n = rank_of(x);
  std::vector<bool> mask(n, axes.is_all());
  if (!axes.is_all())
    for (std::int64_t a : axes.list()) {
      const std::int64_t k = a < 0 ? a + static_cast<std::int64_t>(n) : a;
      if (k >= 0 && k < static_cast<std::int64_t>(n)) mask[static_cast<std::size_t>(k)] = true;
    }
  return mask;
}

// The dimshuffle order that puts back reduced axes with extent 1.
std::vector<std::int64_t> keepdims_order(const std::vector<bool>& mask) {
  std::vector<std::int64_t> order;
  std::int64_t k = 0;
  for (bool r : mask) order.push_back(r ? kNewAxis : k++);
  return order;
}

/// x reduced by the Op `make(axis)` builds (axis none: all), keepdims as a
/// dimshuffle after it.
template <class Make> Var reduce_by(const Var& x, const Axes& axes, bool keepdims, Make&& make) {
  std::optional<std::vector<std::int64_t>> axis;
  if (!axes.is_all()) axis.emplace(axes.list().begin(), axes.list().end());
  Var out = (*make(std::move(axis)))({x});
  if (!keepdims) return out;
  return dimshuffle(out, keepdims_order(reduced_mask(x, axes)));
}

Var reduce_var(ReduceOp op, const Var& x, const Axes& axes, bool keepdims) {
  return reduce_by(x, axes, keepdims, [op](std::optional<std::vector<std::int64_t>> axis) {
    return std::make_shared<Reduce>(op, std::move(axis));
  });
}

Var arg_reduce(bool is_max, const Var& x, std::optional<std::int64_t> axis, bool keepdims) {
  Var out = (*std::make_shared<ArgReduce>(is_max, axis))({x});
  if (!keepdims) return out;
  return dimshuffle(out, keepdims_order(axis ? reduced_mask(x, Axes{*axis})
                                             : reduced_mask(x, Axes::all())));
}

}  // namespace

Var sum(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Sum, x, axes, keepdims);
}
Var prod(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Prod, x, axes, keepdims);
}
Var max(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Max, x, axes, keepdims);
}
Var min(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Min, x, axes, keepdims);
}
Var mean(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Mean, x, axes, keepdims);
}
Var any(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::Any, x, axes, keepdims);
}
Var all(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_var(ReduceOp::All, x, axes, keepdims);
}
Var logsumexp(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_by(x, axes, keepdims, [](std::optional<std::vector<std::int64_t>> axis) {
    return std::make_shared<LogSumExpReduce>(std::move(axis));
  });
}
Var median(const Var& x, const Axes& axes, bool keepdims) {
  return reduce_by(x, axes, keepdims, [](std::optional<std::vector<std::int64_t>> axis) {
    return std::make_shared<MedianReduce>(std::move(axis));
  });
}
Var var(const Var& x, const Axes& axes, std::int64_t ddof, bool keepdims) {
  const Var squares = sum(sqr(x - mean(x, axes, /*keepdims=*/true)), axes, keepdims);
  // The group size as a 0-d of the result's dtype: the product of the reduced extents.
  const std::vector<bool> reduced = reduced_mask(x, axes);
  Var n = integer_constant(1, DType::Int64);
  for (std::size_t a = 0; a < reduced.size(); ++a)
    if (reduced[a]) n = n * shape_i(x, static_cast<std::int64_t>(a));
  return squares / cast(n - ddof, dtype_of_var(squares));
}

Var std(const Var& x, const Axes& axes, std::int64_t ddof, bool keepdims) {
  return sqrt(var(x, axes, ddof, keepdims));
}

Var argmax(const Var& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_reduce(true, x, axis, keepdims);
}
Var argmin(const Var& x, std::optional<std::int64_t> axis, bool keepdims) {
  return arg_reduce(false, x, axis, keepdims);
}

// ---------------------------------------------------------------------------
// Shape and structure

Var dimshuffle(const Var& x, std::vector<std::int64_t> order) {
  return (*std::make_shared<DimShuffle>(std::move(order)))({x});
}

Var transpose(const Var& x) {
  std::vector<std::int64_t> perm;
  for (std::size_t a = rank_of(x); a-- > 0;) perm.push_back(static_cast<std::int64_t>(a));
  return dimshuffle(x, std::move(perm));
}

Var transpose(const Var& x, std::vector<std::int64_t> perm) {
  const auto n = static_cast<std::int64_t>(rank_of(x));
  for (std::int64_t& p : perm)
    if (p < 0) p += n;
  return dimshuffle(x, std::move(perm));
}

Var expand_dims(const Var& x, std::int64_t axis) {
  const auto n = static_cast<std::int64_t>(rank_of(x));
  const std::int64_t k = axis < 0 ? axis + n + 1 : axis;
  if (k < 0 || k > n)
    throw TypeError(fmt::format("`expand_dims`: axis {} is out of range for a tensor of rank {}",
                                axis, n));
  std::vector<std::int64_t> order;
  for (std::int64_t a = 0; a < n; ++a) {
    if (a == k) order.push_back(kNewAxis);
    order.push_back(a);
  }
  if (k == n) order.push_back(kNewAxis);
  return dimshuffle(x, std::move(order));
}

Var shape(const Var& x) {
  static const OpPtr op = std::make_shared<ShapeOp>();
  return (*op)({x});
}

Var shape_i(const Var& x, std::int64_t axis) { return (*std::make_shared<ShapeI>(axis))({x}); }

Var make_vector(const std::vector<Operand>& elements, DType dtype) {
  std::vector<Var> in;
  for (const Operand& e : elements) in.push_back(e.resolve(dtype));
  return (*std::make_shared<MakeVector>(dtype))(in);
}

Var reshape(const Var& x, const Var& shape) {
  dtype_of_var(shape);
  const TensorType& t = *shape->tensor_type();
  if (t.ndim() != 1 || t.shape()[0] == kUnknownDim)
    throw TypeError(fmt::format("`reshape`: the shape {} must be a vector of known length",
                                t.to_string()));
  return (*std::make_shared<Reshape>(t.shape()[0]))({x, shape});
}

Var reshape(const Var& x, const std::vector<Operand>& shape) {
  return reshape(x, make_vector(shape, DType::Int64));
}

Var flatten(const Var& x, std::int64_t ndim) { return (*std::make_shared<Flatten>(ndim))({x}); }

Var alloc(const Operand& value, const std::vector<Operand>& shape) {
  std::vector<Var> in{value.resolve()};
  for (const Operand& e : shape) in.push_back(e.resolve(DType::Int64));
  static const OpPtr op = std::make_shared<Alloc>();
  return (*op)(in);
}

Var alloc_empty(DType dtype, const std::vector<Operand>& shape) {
  std::vector<Var> in;
  for (const Operand& e : shape) in.push_back(e.resolve(DType::Int64));
  return (*std::make_shared<AllocEmpty>(dtype))(in);
}

Var fill(const Var& a, const Operand& b) {
  const Var in[] = {a, b.resolve(dtype_of_var(a))};
  return (*fill_op())(in);
}

Var zeros_like(const Var& x, std::optional<DType> dtype) {
  return (*std::make_shared<FullLike>(false, dtype))({x});
}

Var ones_like(const Var& x, std::optional<DType> dtype) {
  return (*std::make_shared<FullLike>(true, dtype))({x});
}

Var specify_shape(const Var& x, StaticShape shape) {
  return (*std::make_shared<SpecifyShape>(std::move(shape)))({x});
}

Var concatenate(const std::vector<Var>& xs, std::int64_t axis) {
  return (*std::make_shared<Join>(axis))(xs);
}

Var stack(const std::vector<Var>& xs, std::int64_t axis) {
  return (*std::make_shared<Stack>(axis))(xs);
}

std::vector<Var> split(const Var& x, const std::vector<Operand>& sizes, std::int64_t axis) {
  const Var s = make_vector(sizes, DType::Int64);
  const Var in[] = {x, s};
  return std::make_shared<Split>(static_cast<std::int64_t>(sizes.size()), axis)
      ->make_node(in)
      ->outputs();
}

Var repeat(const Var& x, const Operand& repeats, std::optional<std::int64_t> axis) {
  const Var in[] = {x, repeats.resolve(DType::Int64)};
  return (*std::make_shared<Repeat>(axis))(in);
}

Var tile(const Var& x, std::vector<std::int64_t> reps) {
  return (*std::make_shared<Tile>(std::move(reps)))({x});
}

Var roll(const Var& x, const Operand& shift, std::optional<std::int64_t> axis) {
  const Var in[] = {x, shift.resolve(DType::Int64)};
  return (*std::make_shared<Roll>(axis))(in);
}

namespace {

/// `axis` counted from the front, or TypeError naming the function.
std::int64_t api_axis(std::string_view fn, std::int64_t axis, std::size_t rank) {
  const auto n = static_cast<std::int64_t>(rank);
  const std::int64_t a = axis < 0 ? axis + n : axis;
  if (a < 0 || a >= n)
    throw TypeError(fmt::format("`{}`: axis {} is out of range for a tensor of rank {}", fn, axis, n));
  return a;
}

}  // namespace

Var squeeze(const Var& x, std::optional<std::vector<std::int64_t>> axes) {
  const StaticShape& s = x->tensor_type()->shape();
  std::vector<bool> drop(s.size(), false);
  if (!axes)
    for (std::size_t a = 0; a < s.size(); ++a) drop[a] = s[a] == 1;
  StaticShape asserted = s;
  bool assert_needed = false;
  for (std::int64_t axis : axes.value_or(std::vector<std::int64_t>{})) {
    const auto a = static_cast<std::size_t>(api_axis("squeeze", axis, s.size()));
    if (s[a] != 1 && s[a] != kUnknownDim)
      throw TypeError(fmt::format("`squeeze`: axis {} of {} has extent {}, expected 1", axis,
                                  x->type()->to_string(), s[a]));
    assert_needed = assert_needed || s[a] == kUnknownDim;
    asserted[a] = 1;
    drop[a] = true;
  }
  std::vector<std::int64_t> order;
  for (std::size_t a = 0; a < s.size(); ++a)
    if (!drop[a]) order.push_back(static_cast<std::int64_t>(a));
  return dimshuffle(assert_needed ? specify_shape(x, asserted) : x, std::move(order));
}

Var broadcast_to(const Var& x, const std::vector<Operand>& shape) { return alloc(x, shape); }

Var swapaxes(const Var& x, std::int64_t a, std::int64_t b) {
  const std::size_t n = rank_of(x);
  std::vector<std::int64_t> order;
  for (std::size_t k = 0; k < n; ++k) order.push_back(static_cast<std::int64_t>(k));
  std::swap(order[static_cast<std::size_t>(api_axis("swapaxes", a, n))],
            order[static_cast<std::size_t>(api_axis("swapaxes", b, n))]);
  return dimshuffle(x, std::move(order));
}

Var moveaxis(const Var& x, std::int64_t source, std::int64_t destination) {
  const std::size_t n = rank_of(x);
  const std::int64_t src = api_axis("moveaxis", source, n);
  const std::int64_t dst = api_axis("moveaxis", destination, n);
  std::vector<std::int64_t> order;
  for (std::size_t k = 0; k < n; ++k)
    if (static_cast<std::int64_t>(k) != src) order.push_back(static_cast<std::int64_t>(k));
  order.insert(order.begin() + dst, src);
  return dimshuffle(x, std::move(order));
}

// ---------------------------------------------------------------------------
// Scans, sorting and counting

Var cumsum(const Var& x, std::optional<std::int64_t> axis) {
  return (*std::make_shared<CumOp>(false, axis))({x});
}

Var cumprod(const Var& x, std::optional<std::int64_t> axis) {
  return (*std::make_shared<CumOp>(true, axis))({x});
}

Var diff(const Var& x, std::int64_t n, std::int64_t axis) {
  return (*std::make_shared<Diff>(n, axis))({x});
}

Var sort(const Var& x, std::optional<std::int64_t> axis) {
  return (*std::make_shared<Sort>(false, axis))({x});
}

Var argsort(const Var& x, std::optional<std::int64_t> axis) {
  return (*std::make_shared<Sort>(true, axis))({x});
}

Var topk(const Var& x, std::int64_t k, std::int64_t axis) {
  return (*std::make_shared<TopK>(false, k, axis))({x});
}

Var argtopk(const Var& x, std::int64_t k, std::int64_t axis) {
  return (*std::make_shared<TopK>(true, k, axis))({x});
}

Var searchsorted(const Var& a, const Operand& v, std::string_view side) {
  if (side != "left" && side != "right")
    throw TypeError(fmt::format("`searchsorted`: side `{}` is not `left` or `right`", side));
  const Var in[] = {a, v.resolve(dtype_of_var(a))};
  return (*std::make_shared<SearchSorted>(side == "right"))(in);
}

Var bincount(const Var& x, const Var& weights, std::int64_t minlength) {
  const OpPtr op = std::make_shared<BinCount>(minlength);
  if (!weights) return (*op)({x});
  const Var in[] = {x, weights};
  return (*op)(in);
}

Var unique(const Var& x) { return (*std::make_shared<Unique>(false))({x}); }

std::pair<Var, Var> unique_counts(const Var& x) {
  const auto outs = std::make_shared<Unique>(true)->make_node(std::span(&x, 1))->outputs();
  return {outs[0], outs[1]};
}

// ---------------------------------------------------------------------------
// Creation

Var eye(const Operand& n, const Operand& m, const Operand& k, DType dtype) {
  const Var in[] = {n.resolve(DType::Int64), m.resolve(DType::Int64), k.resolve(DType::Int64)};
  return (*std::make_shared<Eye>(dtype))(in);
}

Var eye(const Operand& n, DType dtype) {
  const Var nv = n.resolve(DType::Int64);
  return eye(nv, nv, 0, dtype);
}

Var identity_like(const Var& x) {
  if (rank_of(x) != 2)
    throw TypeError(fmt::format("`identity_like`: x is {}, expected a matrix",
                                x->type()->to_string()));
  return eye(shape_i(x, 0), shape_i(x, 1), 0, dtype_of_var(x));
}

Var tri(const Operand& n, const Operand& m, const Operand& k, DType dtype) {
  const Var in[] = {n.resolve(DType::Int64), m.resolve(DType::Int64), k.resolve(DType::Int64)};
  return (*std::make_shared<Tri>(dtype))(in);
}

namespace {

std::pair<Var, Var> tri_indices(bool upper, const Operand& n, const Operand& m, const Operand& k) {
  const Var in[] = {n.resolve(DType::Int64), m.resolve(DType::Int64), k.resolve(DType::Int64)};
  const auto outs = std::make_shared<TriIndices>(upper)->make_node(in)->outputs();
  return {outs[0], outs[1]};
}

}  // namespace

std::pair<Var, Var> tril_indices(const Operand& n, const Operand& m, const Operand& k) {
  return tri_indices(false, n, m, k);
}

std::pair<Var, Var> triu_indices(const Operand& n, const Operand& m, const Operand& k) {
  return tri_indices(true, n, m, k);
}

Var arange(const Operand& start, const Operand& stop, const Operand& step,
           std::optional<DType> dtype) {
  const auto in = resolve_all({&start, &stop, &step});
  return (*std::make_shared<ARange>(dtype))(in);
}

Var arange(const Operand& stop) { return arange(0, stop, 1); }

Var linspace(const Operand& start, const Operand& stop, const Operand& num, bool endpoint,
             std::optional<DType> dtype) {
  const auto bounds = resolve_all({&start, &stop});
  const Var in[] = {bounds[0], bounds[1], num.resolve(DType::Int64)};
  return (*std::make_shared<Linspace>(endpoint, dtype))(in);
}

Var tril(const Var& x, std::int64_t k) { return (*std::make_shared<TriMask>(false, k))({x}); }
Var triu(const Var& x, std::int64_t k) { return (*std::make_shared<TriMask>(true, k))({x}); }

Var alloc_diag(const Var& v, std::int64_t k) { return (*std::make_shared<AllocDiag>(k))({v}); }

Var extract_diag(const Var& x, std::int64_t k) {
  return (*std::make_shared<ExtractDiag>(k))({x});
}

Var diag(const Var& x, std::int64_t k) {
  const std::size_t r = rank_of(x);
  if (r == 1) return alloc_diag(x, k);
  if (r == 2) return extract_diag(x, k);
  throw TypeError(fmt::format("`diag`: x is {}, expected a vector or a matrix",
                              x->type()->to_string()));
}

Var zeros(const std::vector<Operand>& shape, DType dtype) {
  return alloc(constant(0.0, dtype), shape);
}

Var ones(const std::vector<Operand>& shape, DType dtype) {
  return alloc(constant(1.0, dtype), shape);
}

Var full(const std::vector<Operand>& shape, const Operand& value, std::optional<DType> dtype) {
  Var v = dtype ? value.resolve(*dtype) : value.resolve();
  if (dtype && dtype_of_var(v) != *dtype) v = cast(v, *dtype);
  return alloc(v, shape);
}

Var full_like(const Var& x, const Operand& value, std::optional<DType> dtype) {
  const DType d = dtype.value_or(dtype_of_var(x));
  Var v = value.resolve(d);
  if (dtype_of_var(v) != d) v = cast(v, d);
  return fill(x, v);
}

Var empty_like(const Var& x, std::optional<DType> dtype) {
  std::vector<Operand> extents;
  for (std::size_t a = 0; a < rank_of(x); ++a)
    extents.emplace_back(shape_i(x, static_cast<std::int64_t>(a)));
  return alloc_empty(dtype.value_or(dtype_of_var(x)), extents);
}

// ---------------------------------------------------------------------------
// Indexing

Var Bound::var() const {
  if (var_) return var_;
  if (value_) return ops_detail::int64_constant(*value_);
  return {};
}

namespace {

// The index codes and the inputs they take, in order.
std::pair<std::vector<std::int64_t>, std::vector<Var>> encode_index(
    const std::vector<Index>& index) {
  std::vector<std::int64_t> codes;
  std::vector<Var> inputs;
  for (const Index& e : index) {
    if (!e.is_slice()) {
      codes.push_back(kIndexFromInput);
      inputs.push_back(e.index());
      continue;
    }
    const Slice& s = e.as_slice();
    IndexEntry entry{true, s.start.present(), s.stop.present(), s.step.present()};
    codes.push_back(entry.code());
    for (const Bound* b : {&s.start, &s.stop, &s.step})
      if (b->present()) inputs.push_back(b->var());
  }
  return {std::move(codes), std::move(inputs)};
}

Var inc_or_set(const Var& x, const std::vector<Index>& index, const Operand& y, bool set) {
  auto [codes, index_inputs] = encode_index(index);
  std::vector<Var> in{x, y.resolve(dtype_of_var(x))};
  in.insert(in.end(), index_inputs.begin(), index_inputs.end());
  return (*std::make_shared<IncSubtensor>(std::move(codes), set))(in);
}

}  // namespace

Var subtensor(const Var& x, const std::vector<Index>& index) {
  auto [codes, index_inputs] = encode_index(index);
  std::vector<Var> in{x};
  in.insert(in.end(), index_inputs.begin(), index_inputs.end());
  return (*std::make_shared<Subtensor>(std::move(codes)))(in);
}

Var set_subtensor(const Var& x, const std::vector<Index>& index, const Operand& y) {
  return inc_or_set(x, index, y, true);
}

Var inc_subtensor(const Var& x, const std::vector<Index>& index, const Operand& y) {
  return inc_or_set(x, index, y, false);
}

Var take(const Var& x, const Var& indices, std::int64_t axis) {
  return (*std::make_shared<AdvancedSubtensor>(axis))({x, indices});
}

Var advanced_set_subtensor(const Var& x, const Var& indices, const Operand& y,
                           std::int64_t axis) {
  return (*std::make_shared<AdvancedIncSubtensor>(axis, true))(
      {x, y.resolve(dtype_of_var(x)), indices});
}

Var advanced_inc_subtensor(const Var& x, const Var& indices, const Operand& y,
                           std::int64_t axis) {
  return (*std::make_shared<AdvancedIncSubtensor>(axis, false))(
      {x, y.resolve(dtype_of_var(x)), indices});
}

// ---------------------------------------------------------------------------
// Linear algebra and neural networks

Var dot(const Var& a, const Var& b) {
  static const OpPtr op = std::make_shared<Dot>();
  return (*op)({a, b});
}

Var matmul(const Var& a, const Var& b) {
  static const OpPtr op = std::make_shared<MatMul>();
  return (*op)({a, b});
}

Var outer(const Var& x, const Var& y) {
  static const OpPtr op = std::make_shared<Outer>();
  return (*op)({x, y});
}

Var gemm(const Var& z, const Operand& alpha, const Var& x, const Var& y, const Operand& beta) {
  const DType d = dtype_of_var(z);
  static const OpPtr op = std::make_shared<Gemm>();
  return (*op)({z, alpha.resolve(d), x, y, beta.resolve(d)});
}

Var gemv(const Var& y, const Operand& alpha, const Var& a, const Var& x, const Operand& beta) {
  const DType d = dtype_of_var(y);
  static const OpPtr op = std::make_shared<Gemv>();
  return (*op)({y, alpha.resolve(d), a, x, beta.resolve(d)});
}

Var dot22scalar(const Var& x, const Var& y, const Operand& alpha) {
  static const OpPtr op = std::make_shared<Dot22Scalar>();
  return (*op)({x, y, alpha.resolve(dtype_of_var(x))});
}

Var ger(const Var& a, const Operand& alpha, const Var& x, const Var& y) {
  static const OpPtr op = std::make_shared<Ger>();
  return (*op)({a, alpha.resolve(dtype_of_var(a)), x, y});
}

Var matrix_inverse(const Var& a) {
  static const OpPtr op = std::make_shared<MatrixInverse>();
  return (*op)({a});
}

Var inv(const Var& a) { return matrix_inverse(a); }

Var det(const Var& a) {
  static const OpPtr op = std::make_shared<Det>();
  return (*op)({a});
}

Var solve(const Var& a, const Var& b) {
  static const OpPtr op = std::make_shared<Solve>();
  const Var in[] = {a, b};
  return (*op)(in);
}

Var cholesky(const Var& a) {
  static const OpPtr op = std::make_shared<Cholesky>();
  return (*op)({a});
}

Var solve_triangular(const Var& a, const Var& b, bool lower) {
  const Var in[] = {a, b};
  return (*std::make_shared<SolveTriangular>(lower))(in);
}

namespace {

/// The outputs of `op` applied to the one input a.
std::vector<Var> outputs_of(const OpPtr& op, const Var& a) {
  return op->make_node(std::span(&a, 1))->outputs();
}

}  // namespace

std::pair<Var, Var> slogdet(const Var& a) {
  const auto outs = outputs_of(std::make_shared<SLogDet>(), a);
  return {outs[0], outs[1]};
}

std::pair<Var, Var> eigh(const Var& a) {
  const auto outs = outputs_of(std::make_shared<Eigh>(), a);
  return {outs[0], outs[1]};
}

Var eigvalsh(const Var& a) {
  static const OpPtr op = std::make_shared<Eigvalsh>();
  return (*op)({a});
}

std::vector<Var> svd(const Var& a, bool compute_uv) {
  return outputs_of(std::make_shared<Svd>(compute_uv), a);
}

std::pair<Var, Var> qr(const Var& a) {
  const auto outs = outputs_of(std::make_shared<Qr>(), a);
  return {outs[0], outs[1]};
}

std::tuple<Var, Var, Var> lu(const Var& a) {
  const auto outs = outputs_of(std::make_shared<Lu>(), a);
  return {outs[0], outs[1], outs[2]};
}

Var expm(const Var& a) {
  static const OpPtr op = std::make_shared<Expm>();
  return (*op)({a});
}

Var pinv(const Var& a) {
  static const OpPtr op = std::make_shared<Pinv>();
  return (*op)({a});
}

Var lstsq(const Var& a, const Var& b) { return dot(pinv(a), b); }

Var matrix_power(const Var& a, std::int64_t n) {
  if (rank_of(a) != 2)
    throw TypeError(fmt::format("`matrix_power`: a is {}, expected a square matrix",
                                a->type()->to_string()));
  if (n == 0) return identity_like(a);
  Var base = n < 0 ? matrix_inverse(a) : a;
  // Binary powering: about log2(n) products instead of n - 1.
  std::uint64_t e = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  Var result;
  while (true) {
    if (e & 1) result = result ? dot(result, base) : base;
    e >>= 1;
    if (e == 0) break;
    base = dot(base, base);
  }
  return result;
}

Var norm(const Var& x, NormOrd ord) {
  const std::size_t r = rank_of(x);
  if (r != 1 && r != 2)
    throw TypeError(fmt::format("`norm`: x is {}, expected a vector or a matrix",
                                x->type()->to_string()));
  if (r == 1) {
    switch (ord) {
      case NormOrd::L1: return sum(abs(x));
      case NormOrd::Inf: return max(abs(x));
      case NormOrd::Frobenius:
        throw TypeError("`norm`: the Frobenius norm is for matrices; a vector's is L2");
      default: return sqrt(sum(sqr(x)));
    }
  }
  switch (ord) {
    case NormOrd::L1: return max(sum(abs(x), {0}));
    case NormOrd::Inf: return max(sum(abs(x), {1}));
    // The singular values are descending: the first is the largest.
    case NormOrd::L2: return subtensor(svd(x, false)[0], {0});
    default: return sqrt(sum(sqr(x)));
  }
}

Var block_diag(const std::vector<Var>& blocks) {
  static const OpPtr op = std::make_shared<BlockDiag>();
  return (*op)(blocks);
}

Var trace(const Var& x, std::int64_t k) { return sum(extract_diag(x, k)); }

Var kron(const Var& a, const Var& b) {
  static const OpPtr op = std::make_shared<Kron>();
  return (*op)({a, b});
}

Var softmax(const Var& x, std::int64_t axis) {
  return (*std::make_shared<Softmax>(axis, false))({x});
}

Var log_softmax(const Var& x, std::int64_t axis) {
  return (*std::make_shared<Softmax>(axis, true))({x});
}

}  // namespace rw::api

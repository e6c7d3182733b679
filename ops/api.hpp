// The C++ API: graph variables, constants, operators on rw::Var and a free
// function for every standard Op, as DESIGN.md writes programs.
//
//     auto x = rw::vector("x", rw::f64);
//     auto loss = rw::sum(rw::log(1 + rw::exp(x * w)));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/graph/tuple_codes.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The API's functions live here and are reached as `rw::exp`, `rw::sum`…
/// through the using-directive below. Argument-dependent lookup does not
/// follow using-directives, so an unqualified `exp(x)` in another namespace
/// (a test's own toy `exp`) is not made ambiguous by these; the operators,
/// which must be found by ADL, are in `rw` itself.
namespace api {

// ---------------------------------------------------------------------------
// Variables and constants

/// A graph input of this dtype and static shape (entries kUnknownDim where
/// the extent is known only at run time).
Var tensor(std::string name, DType dtype, StaticShape shape);
/// A 0-d graph input.
Var scalar(std::string name, DType dtype = DType::Float64);
/// A 1-d graph input of `n` elements (unknown by default).
Var vector(std::string name, DType dtype = DType::Float64, std::int64_t n = kUnknownDim);
/// A 2-d graph input.
Var matrix(std::string name, DType dtype = DType::Float64, std::int64_t rows = kUnknownDim,
           std::int64_t cols = kUnknownDim);

/// A constant holding (a private copy of) `value`; its type has the value's
/// dtype and exact shape.
Var constant(const Tensor& value, std::string name = {});
/// A 0-d constant of `dtype`.
Var constant(double value, DType dtype);
/// A 0-d constant of `dtype` holding the integer `value` converted exactly
/// (not through double: 2^53 + 1 stays 2^53 + 1).
Var integer_constant(std::int64_t value, DType dtype);
/// A 0-d constant whose dtype is the C++ type's: `constant(2)` is int32,
/// `constant(2.0)` float64, `constant(2.0f)` float32. Integers are exact.
template <class T>
  requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
Var constant(T value) {
  if constexpr (std::is_integral_v<T>)
    return integer_constant(static_cast<std::int64_t>(value), dtype_of<T>());
  else
    return constant(static_cast<double>(value), dtype_of<T>());
}

/// The dtype a plain number takes when it meets a tensor of dtype `other`
/// (as a Python scalar does in NumPy 2): an integer takes `other`'s dtype when
/// that is a float, or an integer type that holds the value (else the
/// promotion with the smallest signed type that does), and int64 next to a
/// bool; a float takes `other`'s dtype when that is a float, else float64.
/// So `x * 2` and `x * 0.5` keep a float32 x float32, and `i + 1` keeps an
/// int8 i int8.
DType number_dtype(bool is_integer, double value, DType other);
/// number_dtype for an integer, judged on its exact value.
DType integer_dtype(std::int64_t value, DType other);

/// An operand of a function: a variable, or a number that becomes a 0-d
/// constant whose dtype follows the other operands (`number_dtype`).
class Operand {
 public:
  Operand(const Var& var) : var_(var) {}  // NOLINT: implicit by design
  template <class T>
    requires(std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
  Operand(T value)  // NOLINT: implicit by design
      : value_(static_cast<double>(value)), is_integer_(std::is_integral_v<T>),
        native_(dtype_of<T>()) {
    if constexpr (std::is_integral_v<T>) int_value_ = static_cast<std::int64_t>(value);
  }

  bool is_number() const { return !var_; }
  const Var& var() const { return var_; }
  /// The variable, or the number as a constant of number_dtype(…, other).
  Var resolve(DType other) const;
  /// The variable, or the number as a constant of its C++ type's dtype.
  Var resolve() const;

 private:
  Var var_;
  double value_ = 0;
  std::int64_t int_value_ = 0;  // an integer's exact value (value_ may round it)
  bool is_integer_ = false;
  DType native_ = DType::Float64;
};

// ---------------------------------------------------------------------------
// Elementwise functions. Operands broadcast as in NumPy, where an axis
// broadcasts only if its static extent is 1 (docs/ops.md).

Var add(const Operand& a, const Operand& b);
Var sub(const Operand& a, const Operand& b);
Var mul(const Operand& a, const Operand& b);
/// Division with a float result (`/`).
Var true_div(const Operand& a, const Operand& b);
/// Floor division (Python's `//`).
Var int_div(const Operand& a, const Operand& b);
/// Remainder with the divisor's sign (Python's `%`).
Var mod(const Operand& a, const Operand& b);
Var pow(const Operand& a, const Operand& b);
Var maximum(const Operand& a, const Operand& b);
Var minimum(const Operand& a, const Operand& b);
/// Sum of several operands in one node (`add(a, b, c)`).
Var add(const std::vector<Var>& terms);
/// Product of several operands in one node.
Var mul(const std::vector<Var>& factors);

Var neg(const Var& x);
Var abs(const Var& x);
Var sign(const Var& x);
Var sqr(const Var& x);
Var reciprocal(const Var& x);
Var exp(const Var& x);
Var exp2(const Var& x);
Var expm1(const Var& x);
Var log(const Var& x);
Var log2(const Var& x);
Var log10(const Var& x);
Var log1p(const Var& x);
Var sqrt(const Var& x);
Var sin(const Var& x);
Var cos(const Var& x);
Var tan(const Var& x);
Var sinh(const Var& x);
Var cosh(const Var& x);
Var tanh(const Var& x);
Var arcsin(const Var& x);
Var arccos(const Var& x);
Var arctan(const Var& x);
/// 1 / (1 + exp(-x)).
Var sigmoid(const Var& x);
/// log(1 + exp(x)).
Var softplus(const Var& x);
Var erf(const Var& x);
Var erfc(const Var& x);
/// erf⁻¹(x), erfc⁻¹(x) (accurate for small x, where erfinv(1 - x) is not),
/// and e^(x²) erfc(x) without its overflow.
Var erfinv(const Var& x);
Var erfcinv(const Var& x);
Var erfcx(const Var& x);
/// log |Γ(x)|, its derivative ψ(x) (digamma, alias psi) and ψ's derivative.
Var gammaln(const Var& x);
Var digamma(const Var& x);
Var psi(const Var& x);
Var trigamma(const Var& x);
/// log |B(a, b)| = gammaln(a) + gammaln(b) - gammaln(a + b).
Var betaln(const Operand& a, const Operand& b);
/// log(1 - e^x) for x <= 0, accurate near 0 and for large -x.
Var log1mexp(const Var& x);
/// log(x / (1 - x)), the inverse of sigmoid; and sigmoid under SciPy's name.
Var logit(const Var& x);
Var expit(const Var& x);
/// x log(y) and x log(1 + y), 0 where x == 0.
Var xlogy(const Operand& x, const Operand& y);
Var xlog1py(const Operand& x, const Operand& y);
/// x / (1 + |x|); x Φ(x) (exact GELU); max(x, 0) keeping NaN.
Var softsign(const Var& x);
Var gelu(const Var& x);
Var relu(const Var& x);
/// The modified Bessel functions of the first kind of orders 0 and 1.
Var i0(const Var& x);
Var i1(const Var& x);
Var floor(const Var& x);
Var ceil(const Var& x);
/// Rounds half to even.
Var round(const Var& x);

/// Comparisons, with a bool result. (`==` and `!=` on Var compare identity,
/// as in Aesara; these build the elementwise comparison.)
Var lt(const Operand& a, const Operand& b);
Var gt(const Operand& a, const Operand& b);
Var le(const Operand& a, const Operand& b);
Var ge(const Operand& a, const Operand& b);
Var eq(const Operand& a, const Operand& b);
Var neq(const Operand& a, const Operand& b);
/// Logical on bools, bitwise on integers (`and`, `or`, `xor`, `not`).
Var and_(const Operand& a, const Operand& b);
Var or_(const Operand& a, const Operand& b);
Var xor_(const Operand& a, const Operand& b);
Var not_(const Var& x);
/// `cond ? a : b` elementwise (Aesara's switch, NumPy's where).
Var where(const Operand& cond, const Operand& a, const Operand& b);
/// min(max(x, lo), hi) elementwise.
Var clip(const Operand& x, const Operand& lo, const Operand& hi);
/// x converted to `dtype` (float to integer truncates and saturates).
Var cast(const Var& x, DType dtype);
/// x itself, computed by an identity node.
Var identity(const Var& x);

}  // namespace api
using namespace api;

// ---------------------------------------------------------------------------
// Operators on Var. Numbers become constants whose dtype follows the other
// operand (number_dtype).

Var operator+(const Var& a, const Var& b);
Var operator-(const Var& a, const Var& b);
Var operator*(const Var& a, const Var& b);
Var operator/(const Var& a, const Var& b);
Var operator-(const Var& x);
Var operator<(const Var& a, const Var& b);
Var operator>(const Var& a, const Var& b);
Var operator<=(const Var& a, const Var& b);
Var operator>=(const Var& a, const Var& b);
Var operator&(const Var& a, const Var& b);
Var operator|(const Var& a, const Var& b);
Var operator^(const Var& a, const Var& b);
Var operator~(const Var& x);

/// Arithmetic types other than bool: the numbers operators accept.
template <class T>
concept Number = std::is_arithmetic_v<T> && !std::is_same_v<T, bool>;

#define RW_VAR_NUMBER_OPERATOR(OP, FN)                                                   \
  template <Number T> Var operator OP(const Var& a, T b) { return FN(a, Operand(b)); } \
  template <Number T> Var operator OP(T a, const Var& b) { return FN(Operand(a), b); }
RW_VAR_NUMBER_OPERATOR(+, add)
RW_VAR_NUMBER_OPERATOR(-, sub)
RW_VAR_NUMBER_OPERATOR(*, mul)
RW_VAR_NUMBER_OPERATOR(/, true_div)
RW_VAR_NUMBER_OPERATOR(<, lt)
RW_VAR_NUMBER_OPERATOR(>, gt)
RW_VAR_NUMBER_OPERATOR(<=, le)
RW_VAR_NUMBER_OPERATOR(>=, ge)
#undef RW_VAR_NUMBER_OPERATOR

/// `a = a + b` and the like: the handle moves to the new variable.
inline Var& operator+=(Var& a, const Operand& b) { return a = add(a, b); }
inline Var& operator-=(Var& a, const Operand& b) { return a = sub(a, b); }
inline Var& operator*=(Var& a, const Operand& b) { return a = mul(a, b); }
inline Var& operator/=(Var& a, const Operand& b) { return a = true_div(a, b); }

namespace api {

// ---------------------------------------------------------------------------
// Reductions. Axes as in the runtime: `rw::sum(x, {0})`, `rw::Axes::all()`.

Var sum(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var prod(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var max(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var min(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var mean(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var any(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
Var all(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
/// log(sum(exp(x))) over `axes`, computed without overflow (shifted by the
/// maximum); x a float.
Var logsumexp(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
/// The median over `axes` (NumPy's): the middle value, or the mean of the
/// two middle ones for an even count; a float.
Var median(const Var& x, const Axes& axes = Axes::all(), bool keepdims = false);
/// The variance and standard deviation over `axes`: sum((x - mean)²) / (n -
/// ddof), n the elements per group (NumPy's var and std), built from mean,
/// sum and sqrt. A float result (float64 for integers).
Var var(const Var& x, const Axes& axes = Axes::all(), std::int64_t ddof = 0, bool keepdims = false);
Var std(const Var& x, const Axes& axes = Axes::all(), std::int64_t ddof = 0, bool keepdims = false);
/// Index (int64) of the first maximum along `axis`, or of the flattened
/// tensor.
Var argmax(const Var& x, std::optional<std::int64_t> axis = std::nullopt, bool keepdims = false);
Var argmin(const Var& x, std::optional<std::int64_t> axis = std::nullopt, bool keepdims = false);

// ---------------------------------------------------------------------------
// Shape and structure.

/// Axes reordered, added (kNewAxis) or dropped (only axes of static extent
/// 1): `dimshuffle(v, {kNewAxis, 0})` makes a row of a vector.
Var dimshuffle(const Var& x, std::vector<std::int64_t> order);
/// Axes reversed, or permuted: result axis i is axis perm[i].
Var transpose(const Var& x);
Var transpose(const Var& x, std::vector<std::int64_t> perm);
/// A new axis of extent 1 before `axis` (negative: from the end).
Var expand_dims(const Var& x, std::int64_t axis);
/// The shape as an int64 vector, and one extent as a 0-d int64.
Var shape(const Var& x);
Var shape_i(const Var& x, std::int64_t axis);
/// 0-d values (numbers or 0-d variables) gathered into a vector of `dtype`.
Var make_vector(const std::vector<Operand>& elements, DType dtype = DType::Int64);
/// x with its elements in a new shape; one extent may be -1.
Var reshape(const Var& x, const Var& shape);
Var reshape(const Var& x, const std::vector<Operand>& shape);
/// The first `ndim - 1` axes kept, the others flattened into one.
Var flatten(const Var& x, std::int64_t ndim = 1);
/// `value` broadcast to a new tensor of this shape (Aesara's alloc).
Var alloc(const Operand& value, const std::vector<Operand>& shape);
/// An uninitialised tensor of `dtype` with these extents (alloc_empty), for
/// code that writes every element before reading one.
Var alloc_empty(DType dtype, const std::vector<Operand>& shape);
/// b broadcast to a's shape (a broadcast with b), with b's dtype.
Var fill(const Var& a, const Operand& b);
/// Zeros or ones of x's shape, of x's dtype or `dtype`.
Var zeros_like(const Var& x, std::optional<DType> dtype = std::nullopt);
Var ones_like(const Var& x, std::optional<DType> dtype = std::nullopt);
/// x, with its static shape asserted: entries kUnknownDim are not checked.
Var specify_shape(const Var& x, StaticShape shape);
/// Tensors joined along an existing axis; dtypes promoted.
Var concatenate(const std::vector<Var>& xs, std::int64_t axis = 0);
/// Tensors of one shape joined along a new axis.
Var stack(const std::vector<Var>& xs, std::int64_t axis = 0);
/// Consecutive pieces along `axis` with these extents (summing to the axis).
std::vector<Var> split(const Var& x, const std::vector<Operand>& sizes, std::int64_t axis = 0);
/// Each slice along `axis` repeated `repeats` times (a number, a 0-d
/// integer, or a vector of one count per slice); without axis, x flattened.
Var repeat(const Var& x, const Operand& repeats, std::optional<std::int64_t> axis = std::nullopt);
/// x repeated reps[a] times along each axis as a whole (NumPy's tile).
Var tile(const Var& x, std::vector<std::int64_t> reps);
/// x shifted by `shift` along `axis` (none: over the flattened x), wrapping.
Var roll(const Var& x, const Operand& shift, std::optional<std::int64_t> axis = std::nullopt);
/// x without the given axes of extent 1 (all axes of static extent 1 when
/// none are given); an axis of unknown extent is checked to be 1 at run time.
Var squeeze(const Var& x, std::optional<std::vector<std::int64_t>> axes = std::nullopt);
/// x broadcast to `shape` (as a new tensor: alloc).
Var broadcast_to(const Var& x, const std::vector<Operand>& shape);
/// Axes a and b exchanged, and axis `source` moved to `destination` (dimshuffles).
Var swapaxes(const Var& x, std::int64_t a, std::int64_t b);
Var moveaxis(const Var& x, std::int64_t source, std::int64_t destination);

// ---------------------------------------------------------------------------
// Creation. Sizes and offsets are numbers or 0-d integer variables.

/// An n × m matrix (n × n without m) with ones on diagonal k, zeros elsewhere.
Var eye(const Operand& n, const Operand& m, const Operand& k = 0, DType dtype = DType::Float64);
Var eye(const Operand& n, DType dtype = DType::Float64);
/// The identity of x's (matrix) shape and dtype: eye(x.shape[0], x.shape[1]).
Var identity_like(const Var& x);
/// An n × m matrix with ones at and below diagonal k, zeros above.
Var tri(const Operand& n, const Operand& m, const Operand& k = 0, DType dtype = DType::Float64);
/// The int64 rows and columns of the positions of an n × m matrix at and
/// below (tril_indices) or at and above (triu_indices) diagonal k, row-major.
std::pair<Var, Var> tril_indices(const Operand& n, const Operand& m, const Operand& k = 0);
std::pair<Var, Var> triu_indices(const Operand& n, const Operand& m, const Operand& k = 0);
/// start, start + step, … up to but excluding stop; the dtype is `dtype`,
/// else the bounds' promotion (numbers follow the variables among them).
Var arange(const Operand& start, const Operand& stop, const Operand& step = 1,
           std::optional<DType> dtype = std::nullopt);
/// 0, 1, …, stop - 1.
Var arange(const Operand& stop);
/// num evenly spaced values from start to stop (included when `endpoint`).
Var linspace(const Operand& start, const Operand& stop, const Operand& num = 50,
             bool endpoint = true, std::optional<DType> dtype = std::nullopt);
/// x with the elements above (tril) or below (triu) diagonal k of its last
/// two axes set to zero.
Var tril(const Var& x, std::int64_t k = 0);
Var triu(const Var& x, std::int64_t k = 0);
/// A square matrix with the vector v on diagonal k.
Var alloc_diag(const Var& v, std::int64_t k = 0);
/// Diagonal k of the matrix x, as a vector.
Var extract_diag(const Var& x, std::int64_t k = 0);
/// NumPy's diag: alloc_diag of a vector, extract_diag of a matrix.
Var diag(const Var& x, std::int64_t k = 0);
/// A new tensor of this shape holding zeros, ones, or `value` (alloc of a
/// 0-d constant); `full` takes value's dtype unless `dtype` is given.
Var zeros(const std::vector<Operand>& shape, DType dtype = DType::Float64);
Var ones(const std::vector<Operand>& shape, DType dtype = DType::Float64);
Var full(const std::vector<Operand>& shape, const Operand& value,
         std::optional<DType> dtype = std::nullopt);
/// `value` broadcast to x's shape, in x's dtype unless `dtype` is given.
Var full_like(const Var& x, const Operand& value, std::optional<DType> dtype = std::nullopt);
/// An uninitialised tensor of x's shape and of x's dtype or `dtype`
/// (NumPy's empty_like): alloc_empty over shape_i of each axis.
Var empty_like(const Var& x, std::optional<DType> dtype = std::nullopt);

// ---------------------------------------------------------------------------
// Indexing.

/// A slice bound or step: absent, a number, or a 0-d integer variable.
class Bound {
 public:
  Bound() = default;
  Bound(std::nullopt_t) {}  // NOLINT: implicit by design
  Bound(const Var& v) : var_(v) {}  // NOLINT
  template <std::integral T>
    requires(!std::is_same_v<T, bool>)
  Bound(T v) : value_(static_cast<std::int64_t>(v)) {}  // NOLINT
  bool present() const { return var_ || value_.has_value(); }
  /// The bound as a variable (a number becomes an int64 constant); null when absent.
  Var var() const;

 private:
  Var var_;
  std::optional<std::int64_t> value_;
};

/// Python's `start:stop:step`.
struct Slice {
  Bound start, stop, step;
};
/// `slice(1, 3)` is `1:3`; `slice()` is `:`; `slice(std::nullopt, std::nullopt, -1)` is `::-1`.
inline Slice slice(Bound start = {}, Bound stop = {}, Bound step = {}) {
  return {std::move(start), std::move(stop), std::move(step)};
}

/// One entry of a basic index: an integer (a number or 0-d integer variable)
/// or a slice.
class Index {
 public:
  Index(const Var& i) : index_(i) {}  // NOLINT: implicit by design
  template <std::integral T>
    requires(!std::is_same_v<T, bool>)
  Index(T i) : index_(Bound(i).var()) {}  // NOLINT
  Index(Slice s) : slice_(std::move(s)), is_slice_(true) {}  // NOLINT
  bool is_slice() const { return is_slice_; }
  const Var& index() const { return index_; }
  const Slice& as_slice() const { return slice_; }

 private:
  Var index_;
  Slice slice_;
  bool is_slice_ = false;
};

/// `x[index…]`: integers drop their axis, slices keep it (a view).
Var subtensor(const Var& x, const std::vector<Index>& index);
/// x with `x[index…]` replaced by y (broadcast), or increased by y.
Var set_subtensor(const Var& x, const std::vector<Index>& index, const Operand& y);
Var inc_subtensor(const Var& x, const std::vector<Index>& index, const Operand& y);
/// `x[..., indices, ...]` with integer `indices` of any rank along `axis`.
Var take(const Var& x, const Var& indices, std::int64_t axis = 0);
/// x with the slices at `indices` along `axis` replaced by, or increased by
/// (each repeat adding again), y.
Var advanced_set_subtensor(const Var& x, const Var& indices, const Operand& y,
                           std::int64_t axis = 0);
Var advanced_inc_subtensor(const Var& x, const Var& indices, const Operand& y,
                           std::int64_t axis = 0);

// ---------------------------------------------------------------------------
// Scans, sorting and counting.

/// Running sums or products along `axis` (none: over x flattened).
Var cumsum(const Var& x, std::optional<std::int64_t> axis = std::nullopt);
Var cumprod(const Var& x, std::optional<std::int64_t> axis = std::nullopt);
/// The n-th discrete difference along `axis` (NumPy's diff).
Var diff(const Var& x, std::int64_t n = 1, std::int64_t axis = -1);
/// x sorted along `axis` (none: flattened), stable with NaNs last, and the
/// int64 positions that sort it.
Var sort(const Var& x, std::optional<std::int64_t> axis = -1);
Var argsort(const Var& x, std::optional<std::int64_t> axis = -1);
/// The |k| largest values along `axis` in descending order (k > 0) or the
/// |k| smallest in ascending order (k < 0), and their int64 positions.
Var topk(const Var& x, std::int64_t k, std::int64_t axis = -1);
Var argtopk(const Var& x, std::int64_t k, std::int64_t axis = -1);
/// Where each element of v goes in the ascending vector a: before equal
/// values (`side` "left") or after them ("right").
Var searchsorted(const Var& a, const Operand& v, std::string_view side = "left");
/// The occurrences of each value of the non-negative integer vector x, or
/// the sums of `weights` (when given) at them, over at least `minlength` bins.
Var bincount(const Var& x, const Var& weights = Var(), std::int64_t minlength = 0);
/// The sorted distinct values of x flattened; with their int64 counts.
Var unique(const Var& x);
std::pair<Var, Var> unique_counts(const Var& x);

// ---------------------------------------------------------------------------
// Linear algebra and neural networks.

/// NumPy's dot for vectors and matrices.
Var dot(const Var& a, const Var& b);
/// NumPy's matmul (`a @ b`), with batch dimensions broadcast.
Var matmul(const Var& a, const Var& b);
/// The outer product of two vectors.
Var outer(const Var& x, const Var& y);
/// alpha * x @ y + beta * z for matrices (BLAS gemm).
Var gemm(const Var& z, const Operand& alpha, const Var& x, const Var& y, const Operand& beta);
/// alpha * a @ x + beta * y for a float matrix a and vectors x, y (BLAS gemv).
Var gemv(const Var& y, const Operand& alpha, const Var& a, const Var& x, const Operand& beta);
/// alpha * x @ y for float matrices x, y (PyTensor's Dot22Scalar).
Var dot22scalar(const Var& x, const Var& y, const Operand& alpha);
/// a + alpha * outer(x, y) for a float matrix a and vectors x, y (BLAS ger).
Var ger(const Var& a, const Operand& alpha, const Var& x, const Var& y);
/// The inverse (alias inv) and determinant of a square float matrix; x with
/// a @ x = b.
Var matrix_inverse(const Var& a);
Var inv(const Var& a);
Var det(const Var& a);
Var solve(const Var& a, const Var& b);
/// The lower Cholesky factor L (L Lᵀ = a) of a symmetric positive-definite
/// matrix, reading a's lower triangle.
Var cholesky(const Var& a);
/// {p, l, u} with a = p l u: the LU factorisation with partial pivoting of a
/// square float matrix (scipy's lu).
std::tuple<Var, Var, Var> lu(const Var& a);
/// The matrix exponential of a square float matrix (scipy's expm).
Var expm(const Var& a);
/// x with a @ x = b, reading only a's lower (`lower`) or upper triangle.
Var solve_triangular(const Var& a, const Var& b, bool lower = false);
/// The sign of det(a) and log|det(a)| (NumPy's slogdet).
std::pair<Var, Var> slogdet(const Var& a);
/// The ascending eigenvalues and the eigenvectors (columns) of the symmetric
/// matrix whose lower triangle is a's.
std::pair<Var, Var> eigh(const Var& a);
/// eigh's eigenvalues alone.
Var eigvalsh(const Var& a);
/// The reduced SVD: {u, s, vt} with a = u diag(s) vt, or {s} alone without
/// `compute_uv`.
std::vector<Var> svd(const Var& a, bool compute_uv = true);
/// The reduced QR: q with orthonormal columns and upper-triangular r, a = q r.
std::pair<Var, Var> qr(const Var& a);
/// The Moore-Penrose pseudo-inverse.
Var pinv(const Var& a);
/// The minimum-norm least-squares solution x of a @ x ≈ b: pinv(a) @ b
/// (NumPy's lstsq's first result).
Var lstsq(const Var& a, const Var& b);
/// a multiplied by itself n times (by squaring); identity_like(a) for n = 0,
/// powers of matrix_inverse(a) for n < 0.
Var matrix_power(const Var& a, std::int64_t n);
/// Which norm `norm` computes (NumPy's `ord`): Default is Frobenius for a
/// matrix and L2 for a vector.
enum class NormOrd { Default, Frobenius, L1, L2, Inf };
/// The norm of a vector (L1: sum |x|, L2: sqrt(sum x²), Inf: max |x|) or of
/// a matrix (Frobenius: sqrt(sum x²), L1: max column sum of |x|, Inf: max
/// row sum, L2: the largest singular value), 0-d; built from other Ops.
Var norm(const Var& x, NormOrd ord = NormOrd::Default);
/// The matrices along the diagonal of one block matrix, zeros elsewhere.
Var block_diag(const std::vector<Var>& blocks);
/// The sum of diagonal k of a matrix (extract_diag, then sum).
Var trace(const Var& x, std::int64_t k = 0);
/// The Kronecker product of two matrices: (m, n) and (p, q) give (m p, n q),
/// block (i, j) being a[i, j] * b (the `kron` Op).
Var kron(const Var& a, const Var& b);
/// Softmax and log-softmax along `axis`.
Var softmax(const Var& x, std::int64_t axis = -1);
Var log_softmax(const Var& x, std::int64_t axis = -1);

}  // namespace api

// The runtime's kernels of the same names (`rw::sum(const Tensor&)`…) would
// hide these from qualified lookup (`rw::sum(x)`), which looks into `api`
// only for names `rw` does not declare itself.
using api::all;
using api::alloc;
using api::any;
using api::argsort;
using api::bincount;
using api::argmax;
using api::cholesky;
using api::argmin;
using api::cast;
using api::concatenate;
using api::cumprod;
using api::cumsum;
using api::diff;
using api::det;
using api::dot;
using api::eigh;
using api::expm;
using api::fill;
using api::gemm;
using api::gemv;
using api::dot22scalar;
using api::ger;
using api::log_softmax;
using api::lu;
using api::matrix_inverse;
using api::matmul;
using api::max;
using api::mean;
using api::min;
using api::outer;
using api::pinv;
using api::prod;
using api::qr;
using api::searchsorted;
using api::slogdet;
using api::sort;
using api::softmax;
using api::solve;
using api::solve_triangular;
using api::split;
using api::stack;
using api::svd;
using api::sum;
using api::take;
using api::topk;
using api::unique;

}  // namespace rw

// The scalar operation set: every elementwise operation, its arity and its dtype rule.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "runtime/dtype.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

/// An elementwise operation on scalars. Elementwise Ops, fused programs and
/// kernels all speak this set.
enum class ScalarOp : std::uint8_t {
  // Arithmetic.
  Add,
  Sub,
  Mul,
  TrueDiv,
  IntDiv,
  Mod,
  Pow,
  Neg,
  Abs,
  Sign,
  Sqr,
  Reciprocal,
  Maximum,
  Minimum,
  // Exponentials, logarithms, powers.
  Exp,
  Exp2,
  Expm1,
  Log,
  Log2,
  Log10,
  Log1p,
  Sqrt,
  Sigmoid,
  Softplus,
  // Trigonometric and hyperbolic.
  Sin,
  Cos,
  Tan,
  Sinh,
  Cosh,
  Tanh,
  ArcSin,
  ArcCos,
  ArcTan,
  // Special functions.
  Erf,
  Erfc,
  Erfinv,
  Erfcinv,
  Erfcx,
  Gammaln,
  Digamma,
  Trigamma,
  Betaln,
  Log1mexp,
  Logit,
  Xlogy,
  Xlog1py,
  Softsign,
  Gelu,
  Relu,
  I0,
  I1,
  // Rounding.
  Floor,
  Ceil,
  Round,
  // Comparisons.
  Lt,
  Gt,
  Le,
  Ge,
  Eq,
  Neq,
  // Logic (bitwise on integers).
  And,
  Or,
  Xor,
  Not,
  // Selection and conversion.
  Switch,
  Clip,
  Cast,
  Identity,
};

/// Every scalar operation, in declaration order.
inline constexpr ScalarOp kAllScalarOps[] = {
    ScalarOp::Add,    ScalarOp::Sub,        ScalarOp::Mul,     ScalarOp::TrueDiv,  ScalarOp::IntDiv,
    ScalarOp::Mod,    ScalarOp::Pow,        ScalarOp::Neg,     ScalarOp::Abs,      ScalarOp::Sign,
    ScalarOp::Sqr,    ScalarOp::Reciprocal, ScalarOp::Maximum, ScalarOp::Minimum,  ScalarOp::Exp,
    ScalarOp::Exp2,   ScalarOp::Expm1,      ScalarOp::Log,     ScalarOp::Log2,     ScalarOp::Log10,
    ScalarOp::Log1p,  ScalarOp::Sqrt,       ScalarOp::Sigmoid, ScalarOp::Softplus, ScalarOp::Sin,
    ScalarOp::Cos,    ScalarOp::Tan,        ScalarOp::Sinh,    ScalarOp::Cosh,     ScalarOp::Tanh,
    ScalarOp::ArcSin, ScalarOp::ArcCos,     ScalarOp::ArcTan,  ScalarOp::Erf,      ScalarOp::Erfc,
    ScalarOp::Erfinv, ScalarOp::Erfcinv, ScalarOp::Erfcx, ScalarOp::Gammaln, ScalarOp::Digamma, ScalarOp::Trigamma, ScalarOp::Betaln, ScalarOp::Log1mexp, ScalarOp::Logit, ScalarOp::Xlogy, ScalarOp::Xlog1py, ScalarOp::Softsign, ScalarOp::Gelu, ScalarOp::Relu, ScalarOp::I0, ScalarOp::I1,
    ScalarOp::Floor,  ScalarOp::Ceil,       ScalarOp::Round,   ScalarOp::Lt,       ScalarOp::Gt,
    ScalarOp::Le,     ScalarOp::Ge,         ScalarOp::Eq,      ScalarOp::Neq,      ScalarOp::And,
    ScalarOp::Or,     ScalarOp::Xor,        ScalarOp::Not,     ScalarOp::Switch,   ScalarOp::Clip,
    ScalarOp::Cast,   ScalarOp::Identity,
};

/// How an operation chooses its result dtype (see docs/runtime.md).
enum class DTypeRule : std::uint8_t {
  Promote,     ///< NumPy promotion of the operands (add, maximum, clip…).
  PromoteInt,  ///< Promotion, bool becomes int8 (int_div, mod, pow).
  Float,       ///< float_result of the promoted operands (exp, true_div…).
  Compare,     ///< Operands promoted, result bool.
  Logic,       ///< Bool or integer operands only, promoted (and, or, xor, not).
  Switch,      ///< Condition as bool; the other two promoted.
  Cast,        ///< The requested dtype.
};

/// Name, arity and dtype rule of a scalar operation.
struct ScalarOpInfo {
  std::string_view name;  ///< "add", "true_div", "arcsin", "switch".
  int arity;              ///< Number of operands (1, 2 or 3).
  DTypeRule rule;
  bool commutative;  ///< op(a, b) == op(b, a) for every a, b.
  bool bool_ok;      ///< Defined on bool operands (sub, neg and sign are not).
  int cost;          ///< Rough cost per element relative to add (for threading).
};

/// The description of `op`.
const ScalarOpInfo& scalar_op_info(ScalarOp op);
/// Shorthands for scalar_op_info(op).name / .arity.
inline std::string_view scalar_op_name(ScalarOp op) {
  return scalar_op_info(op).name;
}
inline int scalar_op_arity(ScalarOp op) {
  return scalar_op_info(op).arity;
}
/// The operation called `name` ("add", "true_div"…); nullopt when unknown.
std::optional<ScalarOp> parse_scalar_op(std::string_view name);

/// The dtypes an operation reads and writes for given operand dtypes.
struct ScalarSignature {
  /// The dtype each operand is converted to before the operation runs.
  SmallVec<DType, 3> operands;
  /// The dtype of the result.
  DType result;
};

/// The signature of `op` applied to operands of dtypes `inputs`: NumPy
/// promotion for arithmetic; bool for comparisons and logic; the float type of
/// `float_result` for transcendental ops, true_div and rounding; `cast_to` for
/// Cast (required there, ignored elsewhere). Throws ValueError naming
/// the operation and dtypes for a wrong operand count or a combination the
/// operation does not define (`sub` of bools, `and` of floats, a cast without
/// a target).
ScalarSignature scalar_signature(ScalarOp op, std::span<const DType> inputs,
                                 std::optional<DType> cast_to = std::nullopt);

}  // namespace rw

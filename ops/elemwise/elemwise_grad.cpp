// Gradients of the elementwise Ops: each scalar operation's partial
// derivatives, used by both L_op (summed back to each input's broadcast
// shape) and R_op (contracted with the eval points).
#include <cmath>
#include <numbers>

#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/elemwise/elemwise.hpp"

namespace rw {
namespace {

using ops_detail::broadcast_like;
using ops_detail::float_zeros_like;
using ops_detail::sum_to;
using ops_detail::var_dtype;

/// 1.0 or 0.0 of `dtype` where `cond` holds.
Var indicator(const Var& cond, DType dtype) { return cast(cond, dtype); }

/// ∂z/∂x_i for each input of `z = op(x…)`; a null Var where the derivative is
/// zero. Only called when z is a float.
std::vector<Var> partials(ScalarOp op, std::span<const Var> x, const Var& z) {
  const DType d = var_dtype(z);
  const std::size_t n = x.size();
  std::vector<Var> p(n);
  auto one = [&] { return constant(1.0, d); };
  switch (op) {
    case ScalarOp::Add:
      for (auto& v : p) v = one();
      break;
    case ScalarOp::Sub:
      p[0] = one();
      p[1] = constant(-1.0, d);
      break;
    case ScalarOp::Mul:
      for (std::size_t i = 0; i < n; ++i) {
        std::vector<Var> others;
        for (std::size_t j = 0; j < n; ++j)
          if (j != i) others.push_back(x[j]);
        p[i] = others.size() == 1 ? others[0] : mul(others);
      }
      break;
    case ScalarOp::TrueDiv:
      p[0] = reciprocal(x[1]);
      p[1] = neg(z / x[1]);
      break;
    case ScalarOp::IntDiv:
      break;  // piecewise constant
    case ScalarOp::Mod:
      p[0] = one();
      p[1] = neg(int_div(x[0], x[1]));
      break;
    case ScalarOp::Pow:
      p[0] = x[1] * pow(x[0], x[1] - 1);
      p[1] = z * log(x[0]);
      break;
    case ScalarOp::Neg: p[0] = constant(-1.0, d); break;
    case ScalarOp::Abs: p[0] = sign(x[0]); break;
    case ScalarOp::Sign: break;
    case ScalarOp::Sqr: p[0] = 2 * x[0]; break;
    case ScalarOp::Reciprocal: p[0] = neg(sqr(z)); break;
    case ScalarOp::Maximum:
    case ScalarOp::Minimum:
      // Ties pass the gradient to both sides, as Aesara does.
      p[0] = indicator(eq(z, x[0]), d);
      p[1] = indicator(eq(z, x[1]), d);
      break;
    case ScalarOp::Exp: p[0] = z; break;
    case ScalarOp::Exp2: p[0] = z * std::numbers::ln2; break;
    case ScalarOp::Expm1: p[0] = z + 1; break;
    case ScalarOp::Log: p[0] = reciprocal(x[0]); break;
    case ScalarOp::Log2: p[0] = reciprocal(x[0] * std::numbers::ln2); break;
    case ScalarOp::Log10: p[0] = reciprocal(x[0] * std::numbers::ln10); break;
    case ScalarOp::Log1p: p[0] = reciprocal(x[0] + 1); break;
    case ScalarOp::Sqrt: p[0] = 0.5 / z; break;
    case ScalarOp::Sigmoid: p[0] = z * (1 - z); break;
    case ScalarOp::Softplus: p[0] = sigmoid(x[0]); break;
    case ScalarOp::Sin: p[0] = cos(x[0]); break;
    case ScalarOp::Cos: p[0] = neg(sin(x[0])); break;
    case ScalarOp::Tan: p[0] = 1 + sqr(z); break;
    case ScalarOp::Sinh: p[0] = cosh(x[0]); break;
    case ScalarOp::Cosh: p[0] = sinh(x[0]); break;
    case ScalarOp::Tanh: p[0] = 1 - sqr(z); break;
    case ScalarOp::ArcSin: p[0] = reciprocal(sqrt(1 - sqr(x[0]))); break;
    case ScalarOp::ArcCos: p[0] = neg(reciprocal(sqrt(1 - sqr(x[0])))); break;
    case ScalarOp::ArcTan: p[0] = reciprocal(1 + sqr(x[0])); break;
    case ScalarOp::Erf: p[0] = exp(neg(sqr(x[0]))) * (2 / std::sqrt(std::numbers::pi)); break;
    case ScalarOp::Erfc: p[0] = exp(neg(sqr(x[0]))) * (-2 / std::sqrt(std::numbers::pi)); break;
    case ScalarOp::Erfinv: p[0] = exp(sqr(z)) * (std::sqrt(std::numbers::pi) / 2); break;
    case ScalarOp::Erfcinv: p[0] = exp(sqr(z)) * (-std::sqrt(std::numbers::pi) / 2); break;
    case ScalarOp::Erfcx: p[0] = 2 * x[0] * z - 2 / std::sqrt(std::numbers::pi); break;
    case ScalarOp::Gammaln: p[0] = digamma(x[0]); break;
    case ScalarOp::Digamma: p[0] = trigamma(x[0]); break;
    case ScalarOp::Trigamma: break;  // polygamma(2) is not in the scalar set (L_op says so)
    case ScalarOp::Betaln:
      p[0] = digamma(x[0]) - digamma(x[0] + x[1]);
      p[1] = digamma(x[1]) - digamma(x[0] + x[1]);
      break;
    case ScalarOp::Log1mexp: p[0] = neg(reciprocal(expm1(neg(x[0])))); break;
    case ScalarOp::Logit: p[0] = reciprocal(x[0] * (1 - x[0])); break;
    case ScalarOp::Xlogy:
      p[0] = log(x[1]);
      p[1] = x[0] / x[1];
      break;
    case ScalarOp::Xlog1py:
      p[0] = log1p(x[1]);
      p[1] = x[0] / (x[1] + 1);
      break;
    case ScalarOp::Softsign: p[0] = reciprocal(sqr(1 + abs(x[0]))); break;
    case ScalarOp::I0: p[0] = i1(x[0]); break;
    // i1' = i0 - i1 / x, whose limit at 0 is 1/2.
    case ScalarOp::I1: p[0] = where(eq(x[0], 0.0), 0.5, i0(x[0]) - z / x[0]); break;
    case ScalarOp::Gelu:
      p[0] = 0.5 * erfc(x[0] * -0.7071067811865476) +
             x[0] * exp(-0.5 * sqr(x[0])) * (1 / std::sqrt(2 * std::numbers::pi));
      break;
    case ScalarOp::Relu: p[0] = indicator(gt(x[0], 0), d); break;
    case ScalarOp::Floor:
    case ScalarOp::Ceil:
    case ScalarOp::Round:
      break;  // piecewise constant
    case ScalarOp::Switch:
      p[1] = indicator(x[0], d);
      p[2] = indicator(not_(x[0]), d);
      break;
    case ScalarOp::Clip:
      p[0] = indicator(and_(ge(x[0], x[1]), le(x[0], x[2])), d);
      p[1] = indicator(lt(x[0], x[1]), d);
      p[2] = indicator(gt(x[0], x[2]), d);
      break;
    case ScalarOp::Cast:
    case ScalarOp::Identity:
      p[0] = one();
      break;
    default:
      break;  // comparisons and logic have bool or integer results
  }
  // Integer and bool inputs take no gradient.
  for (std::size_t i = 0; i < n; ++i)
    if (!is_float(var_dtype(x[i]))) p[i] = Var();
  return p;
}

}  // namespace

std::vector<Var> Elemwise::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var z = node.output(0);
  std::vector<Var> out;
  if (!is_float(var_dtype(z))) {
    // A discrete result is piecewise constant: its gradient is zero.
    for (const Var& x : node.inputs()) out.push_back(float_zeros_like(x));
    return out;
  }
  if (op_ == ScalarOp::Trigamma)
    return {ops_detail::null_grad_var(*this, 0, "its derivative, polygamma(2, x), is not in the scalar set")};
  const std::vector<Var> p = partials(op_, node.inputs(), z);
  const Var& gz = output_grads[0];
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    const Var& x = node.input(i);
    if (!p[i]) {
      out.push_back(float_zeros_like(x));
      continue;
    }
    // gz * p has the output's shape (or p's, when gz broadcasts), summed back to x.
    out.push_back(sum_to(broadcast_like(gz * p[i], z), x));
  }
  return out;
}

std::vector<Var> Elemwise::R_op(const Apply& node, std::span<const Var> eval_points) const {
  const Var z = node.output(0);
  if (!is_float(var_dtype(z))) return {Var()};
  const std::vector<Var> p = partials(op_, node.inputs(), z);
  Var acc;
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    if (!eval_points[i] || !p[i]) continue;
    const Var term = p[i] * eval_points[i];
    acc = acc ? acc + term : term;
  }
  if (!acc) return {Var()};
  return {broadcast_like(acc, z)};
}

std::vector<Var> Fill::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& b = node.input(1);
  Var gb = is_float(var_dtype(b)) ? sum_to(output_grads[0], b) : float_zeros_like(b);
  return {ops_detail::disconnected_grad_var(), gb};
}

std::vector<Var> Fill::R_op(const Apply& node, std::span<const Var> eval_points) const {
  if (!eval_points[1]) return {Var()};
  return {fill(node.input(0), eval_points[1])};
}

}  // namespace rw

// Gradients of dot, matmul, outer and gemm: products with the transposed
// other operand; forward mode by the product rule. block_diag slices the
// output gradient per block; kron sums its blocks against the other operand.
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/detail/util.hpp"
#include "ops/linalg/linalg.hpp"

namespace rw {
namespace {

using ops_detail::float_zeros_like;
using ops_detail::for_input;
using ops_detail::sum_to;
using ops_detail::var_dtype;
using ops_detail::var_rank;

/// The last two axes swapped.
Var swap_last(const Var& x) {
  const auto n = static_cast<std::int64_t>(var_rank(x));
  std::vector<std::int64_t> order;
  for (std::int64_t a = 0; a < n - 2; ++a) order.push_back(a);
  order.push_back(n - 1);
  order.push_back(n - 2);
  return dimshuffle(x, std::move(order));
}

/// The sum of the non-null terms; null when there is none.
Var sum_terms(std::initializer_list<Var> terms) {
  Var acc;
  for (const Var& t : terms)
    if (t) acc = acc ? acc + t : t;
  return acc;
}

/// `f(v, other)` when v is given, else null.
template <class F> Var if_given(const Var& v, F&& f) { return v ? f(v) : Var(); }

}  // namespace

std::vector<Var> Dot::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var &a = node.input(0), &b = node.input(1);
  const Var& g = output_grads[0];
  const std::size_t ra = var_rank(a), rb = var_rank(b);
  Var ga, gb;
  if (ra == 2 && rb == 2) {
    ga = dot(g, transpose(b));
    gb = dot(transpose(a), g);
  } else if (ra == 2 && rb == 1) {
    ga = outer(g, b);
    gb = dot(transpose(a), g);
  } else if (ra == 1 && rb == 2) {
    ga = dot(b, g);
    gb = outer(a, g);
  } else {
    ga = g * b;
    gb = g * a;
  }
  return {for_input(ga, a), for_input(gb, b)};
}

std::vector<Var> Dot::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var &a = node.input(0), &b = node.input(1);
  return {sum_terms({if_given(ev[0], [&](const Var& v) { return dot(v, b); }),
                     if_given(ev[1], [&](const Var& v) { return dot(a, v); })})};
}

std::vector<Var> MatMul::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var &a = node.input(0), &b = node.input(1);
  // Vectors become a row (left) or a column (right); the gradient puts back
  // the axis the product removed, then drops it again.
  const bool a_vec = var_rank(a) == 1, b_vec = var_rank(b) == 1;
  const Var a2 = a_vec ? expand_dims(a, 0) : a;
  const Var b2 = b_vec ? expand_dims(b, 1) : b;
  Var g = output_grads[0];
  if (a_vec) g = expand_dims(g, b_vec ? 0 : -2);
  if (b_vec) g = expand_dims(g, -1);
  Var ga = sum_to(matmul(g, swap_last(b2)), a2);
  Var gb = sum_to(matmul(swap_last(a2), g), b2);
  if (a_vec) ga = dimshuffle(ga, {1});
  if (b_vec) gb = dimshuffle(gb, {0});
  return {for_input(ga, a), for_input(gb, b)};
}

std::vector<Var> MatMul::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var &a = node.input(0), &b = node.input(1);
  return {sum_terms({if_given(ev[0], [&](const Var& v) { return matmul(v, b); }),
                     if_given(ev[1], [&](const Var& v) { return matmul(a, v); })})};
}

std::vector<Var> Outer::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var &x = node.input(0), &y = node.input(1);
  const Var& g = output_grads[0];
  return {for_input(dot(g, y), x), for_input(dot(transpose(g), x), y)};
}

std::vector<Var> Outer::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var &x = node.input(0), &y = node.input(1);
  return {sum_terms({if_given(ev[0], [&](const Var& v) { return outer(v, y); }),
                     if_given(ev[1], [&](const Var& v) { return outer(x, v); })})};
}

std::vector<Var> Gemm::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // out = alpha * x @ y + beta * z
  const Var &z = node.input(0), &alpha = node.input(1), &x = node.input(2), &y = node.input(3),
            &beta = node.input(4);
  const Var& g = output_grads[0];
  return {for_input(beta * g, z), for_input(sum(g * dot(x, y)), alpha),
          for_input(alpha * dot(g, transpose(y)), x), for_input(alpha * dot(transpose(x), g), y),
          for_input(sum(g * z), beta)};
}

namespace {

/// Forward mode of `alpha * dot(x, y) + beta * z`, inputs (z, alpha, x, y,
/// beta): gemm's, and gemv's with a matrix-vector dot.
std::vector<Var> scaled_dot_r_op(const Apply& node, std::span<const Var> ev) {
  const Var &z = node.input(0), &alpha = node.input(1), &x = node.input(2), &y = node.input(3),
            &beta = node.input(4);
  const Var xy_dot = sum_terms({if_given(ev[2], [&](const Var& v) { return dot(v, y); }),
                                if_given(ev[3], [&](const Var& v) { return dot(x, v); })});
  Var r = sum_terms({if_given(ev[0], [&](const Var& v) { return beta * v; }),
                     if_given(ev[1], [&](const Var& v) { return v * dot(x, y); }),
                     if_given(xy_dot, [&](const Var& v) { return alpha * v; }),
                     if_given(ev[4], [&](const Var& v) { return v * z; })});
  if (r && var_dtype(r) != var_dtype(node.output(0))) r = cast(r, var_dtype(node.output(0)));
  return {r};
}

}  // namespace

std::vector<Var> Gemm::R_op(const Apply& node, std::span<const Var> ev) const {
  return scaled_dot_r_op(node, ev);
}

std::vector<Var> Gemv::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // out = alpha * a @ x + beta * y
  const Var &y = node.input(0), &alpha = node.input(1), &a = node.input(2), &x = node.input(3),
            &beta = node.input(4);
  const Var& g = output_grads[0];
  return {for_input(beta * g, y), for_input(sum(g * dot(a, x)), alpha),
          for_input(alpha * outer(g, x), a), for_input(alpha * dot(transpose(a), g), x),
          for_input(sum(g * y), beta)};
}

std::vector<Var> Gemv::R_op(const Apply& node, std::span<const Var> ev) const {
  return scaled_dot_r_op(node, ev);
}

std::vector<Var> Dot22Scalar::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // out = alpha * x @ y
  const Var &x = node.input(0), &y = node.input(1), &alpha = node.input(2);
  const Var& g = output_grads[0];
  return {for_input(alpha * dot(g, transpose(y)), x), for_input(alpha * dot(transpose(x), g), y),
          for_input(sum(g * dot(x, y)), alpha)};
}

std::vector<Var> Dot22Scalar::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var &x = node.input(0), &y = node.input(1), &alpha = node.input(2);
  const Var xy_dot = sum_terms({if_given(ev[0], [&](const Var& v) { return dot(v, y); }),
                                if_given(ev[1], [&](const Var& v) { return dot(x, v); })});
  Var r = sum_terms({if_given(xy_dot, [&](const Var& v) { return alpha * v; }),
                     if_given(ev[2], [&](const Var& v) { return v * dot(x, y); })});
  if (r && var_dtype(r) != var_dtype(node.output(0))) r = cast(r, var_dtype(node.output(0)));
  return {r};
}

std::vector<Var> Ger::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // out = a + alpha * outer(x, y)
  const Var &alpha = node.input(1), &x = node.input(2), &y = node.input(3);
  const Var& g = output_grads[0];
  return {for_input(g, node.input(0)), for_input(sum(g * outer(x, y)), alpha),
          for_input(alpha * dot(g, y), x), for_input(alpha * dot(transpose(g), x), y)};
}

std::vector<Var> Ger::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var &alpha = node.input(1), &x = node.input(2), &y = node.input(3);
  const Var xy_outer = sum_terms({if_given(ev[2], [&](const Var& v) { return outer(v, y); }),
                                  if_given(ev[3], [&](const Var& v) { return outer(x, v); })});
  Var r = sum_terms({ev[0], if_given(ev[1], [&](const Var& v) { return v * outer(x, y); }),
                     if_given(xy_outer, [&](const Var& v) { return alpha * v; })});
  if (r && var_dtype(r) != var_dtype(node.output(0))) r = cast(r, var_dtype(node.output(0)));
  return {r};
}

std::vector<Var> MatrixInverse::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // d(A⁻¹) = -A⁻¹ dA A⁻¹, so the gradient is -X^T G X^T with X = A⁻¹.
  const Var xt = transpose(node.output(0));
  return {neg(dot(dot(xt, output_grads[0]), xt))};
}

std::vector<Var> MatrixInverse::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  const Var x = node.output(0);
  return {neg(dot(dot(x, ev[0]), x))};
}

std::vector<Var> Det::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // d det(A) = det(A) tr(A⁻¹ dA): the gradient is g det(A) A^-T.
  return {output_grads[0] * node.output(0) * transpose(matrix_inverse(node.input(0)))};
}

std::vector<Var> Det::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {node.output(0) * sum(transpose(matrix_inverse(node.input(0))) * ev[0])};
}

std::vector<Var> Solve::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // x = A⁻¹ b: g_b = A^-T g, g_A = -g_b x^T.
  const Var& a = node.input(0);
  const Var x = node.output(0);
  const Var gb = solve(transpose(a), output_grads[0]);
  const Var ga = var_rank(x) == 1 ? neg(outer(gb, x)) : neg(dot(gb, transpose(x)));
  return {ga, gb};
}

std::vector<Var> Solve::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] && !ev[1]) return {Var()};
  const Var& a = node.input(0);
  Var rhs = ev[1] ? ev[1] : Var();
  if (ev[0]) {
    const Var da_x = dot(ev[0], node.output(0));
    rhs = rhs ? rhs - da_x : neg(da_x);
  }
  return {solve(a, rhs)};
}

std::vector<Var> BlockDiag::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const Var& g = output_grads[0];
  std::vector<Var> out;
  Var r = ops_detail::int64_constant(0), c = ops_detail::int64_constant(0);
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    const Var& x = node.input(i);
    const Var r1 = r + shape_i(x, 0), c1 = c + shape_i(x, 1);
    out.push_back(for_input(subtensor(g, {slice(r, r1), slice(c, c1)}), x));
    r = r1;
    c = c1;
  }
  return out;
}

std::vector<Var> BlockDiag::R_op(const Apply& node, std::span<const Var> ev) const {
  std::vector<Var> blocks;
  bool any = false;
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    any = any || static_cast<bool>(ev[i]);
    blocks.push_back(ev[i] ? ev[i] : zeros_like(node.input(i)));
  }
  if (!any) return {Var()};
  return {block_diag(blocks)};
}

std::vector<Var> Kron::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // With G viewed as (m, p, n, q), G[i, k, j, l] = ∂/∂(a[i, j] b[k, l]):
  // g_a[i, j] = Σ_kl G[i, k, j, l] b[k, l], g_b[k, l] = Σ_ij G[i, k, j, l] a[i, j].
  const Var& a = node.input(0);
  const Var& b = node.input(1);
  const Var g4 =
      reshape(output_grads[0], {shape_i(a, 0), shape_i(b, 0), shape_i(a, 1), shape_i(b, 1)});
  const Var ga = sum(g4 * dimshuffle(b, {kNewAxis, 0, kNewAxis, 1}), {1, 3});
  const Var gb = sum(g4 * dimshuffle(a, {0, kNewAxis, 1, kNewAxis}), {0, 2});
  return {for_input(ga, a), for_input(gb, b)};
}

std::vector<Var> Kron::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0] && !ev[1]) return {Var()};
  const Var& a = node.input(0);
  const Var& b = node.input(1);
  if (!ev[1]) return {kron(ev[0], b)};
  if (!ev[0]) return {kron(a, ev[1])};
  return {kron(ev[0], b) + kron(a, ev[1])};
}

}  // namespace rw

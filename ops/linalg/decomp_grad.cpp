// Gradients and forward modes of the factorisations, built from dots,
// triangular masks and triangular solves. Each states its formula; the
// reverse-mode ones follow PyTensor's (slinalg.py, nlinalg.py).
#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/linalg/decomp.hpp"

namespace rw {
namespace {

using ops_detail::float_zeros_like;
using ops_detail::is_disconnected;
using ops_detail::null_grad_var;
using ops_detail::var_dtype;

/// The symmetric matrix an Op that reads a's lower triangle sees:
/// tril(a) + tril(a, -1)ᵀ.
Var symmetric_from_lower(const Var& a) { return tril(a) + transpose(tril(a, -1)); }

/// The lower triangle of x with its diagonal halved (the Φ of the Cholesky
/// derivative).
Var tril_half_diag(const Var& x) { return tril(x) - alloc_diag(extract_diag(x)) * 0.5; }

/// x · r⁻¹ for an upper-triangular r: (r⁻ᵀ xᵀ)ᵀ.
Var right_solve_upper(const Var& x, const Var& r) {
  return transpose(solve_triangular(transpose(r), transpose(x), true));
}

/// The sum of the non-null terms; null when there is none.
Var sum_terms(std::initializer_list<Var> terms) {
  Var acc;
  for (const Var& t : terms)
    if (t) acc = acc ? acc + t : t;
  return acc;
}

/// u diag(d) vt.
Var diag_product(const Var& u, const Var& d, const Var& vt) {
  return dot(u * dimshuffle(d, {kNewAxis, 0}), vt);
}

/// The gradient g of a function of the symmetric matrix, as a function of
/// the lower triangle it is read from: tril(g) + triu(g, 1)ᵀ.
Var fold_onto_lower(const Var& g) { return tril(g) + transpose(triu(g, 1)); }

/// F with F[i, j] = 1 / (w[i] - w[j]) off the diagonal and 0 on it (distinct
/// values assumed).
Var inverse_gaps(const Var& w) {
  const Var e = identity_like(outer(w, w));
  const Var gaps = dimshuffle(w, {0, kNewAxis}) - dimshuffle(w, {kNewAxis, 0});
  return (1.0 - e) / (gaps + e);
}

}  // namespace

std::vector<Var> Cholesky::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // PyTensor's Cholesky.L_op (Murray 2016): s = L⁻ᵀ Φ(Lᵀ G) L⁻¹, and the
  // gradient lies in the lower triangle perform reads: tril(s + sᵀ) - diag(s).
  const Var l = node.output(0);
  const Var p = tril_half_diag(dot(transpose(l), output_grads[0]));
  const Var lt = transpose(l);
  const Var s = solve_triangular(lt, transpose(solve_triangular(lt, transpose(p), false)), false);
  return {tril(s + transpose(s)) - alloc_diag(extract_diag(s))};
}

std::vector<Var> Cholesky::R_op(const Apply& node, std::span<const Var> ev) const {
  // dL = L Φ(L⁻¹ dA L⁻ᵀ), dA the symmetric perturbation the lower triangle makes.
  if (!ev[0]) return {Var()};
  const Var l = node.output(0);
  const Var y = solve_triangular(l, symmetric_from_lower(ev[0]), true);
  const Var x = transpose(solve_triangular(l, transpose(y), true));
  return {dot(l, tril_half_diag(x))};
}

std::vector<Var> Lu::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // a = p l u with l unit lower and u upper: with
  // M = tril(lᵀ g_l, -1) + triu(g_u uᵀ), g_a = p l⁻ᵀ M u⁻ᵀ (PyTensor's LU.L_op).
  const Var p = node.output(0), l = node.output(1), u = node.output(2);
  const Var& gl = output_grads[1];
  const Var& gu = output_grads[2];
  const bool has_l = !is_disconnected(gl), has_u = !is_disconnected(gu);
  if (!has_l && !has_u) return {float_zeros_like(node.input(0))};
  const Var m = sum_terms({has_l ? tril(dot(transpose(l), gl), -1) : Var(),
                           has_u ? triu(dot(gu, transpose(u))) : Var()});
  const Var left = solve_triangular(transpose(l), m, false);
  return {dot(p, transpose(solve_triangular(u, transpose(left), false)))};
}

std::vector<Var> Lu::R_op(const Apply& node, std::span<const Var> ev) const {
  // With X = l⁻¹ pᵀ da u⁻¹ (l⁻¹ dl strictly lower, du u⁻¹ upper):
  // dl = l tril(X, -1), du = triu(X) u; p does not move.
  if (!ev[0]) return {Var(), Var(), Var()};
  const Var p = node.output(0), l = node.output(1), u = node.output(2);
  const Var x = right_solve_upper(solve_triangular(l, dot(transpose(p), ev[0]), true), u);
  return {Var(), dot(l, tril(x, -1)), dot(triu(x), u)};
}

std::vector<Var> SolveTriangular::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // x = A⁻¹ b: g_b = A⁻ᵀ g (the other triangle of Aᵀ), g_A = -g_b xᵀ kept
  // on the triangle perform reads.
  const Var& a = node.input(0);
  const Var x = node.output(0);
  const Var gb = solve_triangular(transpose(a), output_grads[0], !lower_);
  const Var ga = ops_detail::var_rank(x) == 1 ? neg(outer(gb, x)) : neg(dot(gb, transpose(x)));
  return {lower_ ? tril(ga) : triu(ga), gb};
}

std::vector<Var> SolveTriangular::R_op(const Apply& node, std::span<const Var> ev) const {
  // dx = A⁻¹ (db - tri(dA) x).
  if (!ev[0] && !ev[1]) return {Var()};
  const Var& a = node.input(0);
  Var rhs = ev[1];
  if (ev[0]) {
    const Var da_x = dot(lower_ ? tril(ev[0]) : triu(ev[0]), node.output(0));
    rhs = rhs ? rhs - da_x : neg(da_x);
  }
  return {solve_triangular(a, rhs, lower_)};
}

std::vector<Var> SLogDet::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // d log|det A| = tr(A⁻¹ dA): the gradient is g A⁻ᵀ.
  const Var& a = node.input(0);
  if (is_disconnected(output_grads[1])) return {float_zeros_like(a)};
  return {output_grads[1] * transpose(matrix_inverse(a))};
}

std::vector<Var> SLogDet::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var(), Var()};
  return {Var(), sum(transpose(matrix_inverse(node.input(0))) * ev[0])};
}

std::vector<Var> Eigh::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // PyTensor's EighGrad: g = V diag(g_w) Vᵀ + V (F ∘ (g_vᵀ V)) Vᵀ with
  // F[n, m] = 1 / (w[n] - w[m]); as perform reads the lower triangle only,
  // the upper part of g folds onto it: tril(g) + triu(g, 1)ᵀ.
  const Var w = node.output(0), v = node.output(1);
  const Var& gw = output_grads[0];
  const Var& gv = output_grads[1];
  const Var vt = transpose(v);
  const Var g = sum_terms(
      {is_disconnected(gw) ? Var() : diag_product(v, gw, vt),
       is_disconnected(gv) ? Var() : dot(dot(v, inverse_gaps(w) * dot(transpose(gv), v)), vt)});
  return {fold_onto_lower(g)};
}

std::vector<Var> Eigh::R_op(const Apply& node, std::span<const Var> ev) const {
  // With P = Vᵀ dA V: dw = diag(P), dV = V (P[i, j] / (w[j] - w[i])).
  if (!ev[0]) return {Var(), Var()};
  const Var w = node.output(0), v = node.output(1);
  const Var p = dot(dot(transpose(v), symmetric_from_lower(ev[0])), v);
  return {extract_diag(p), dot(v, neg(inverse_gaps(w)) * p)};
}

std::vector<Var> Eigvalsh::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // eigh's gradient with g_v absent: V diag(g) Vᵀ, folded onto the lower triangle.
  const Var v = eigh(node.input(0)).second;
  return {fold_onto_lower(diag_product(v, output_grads[0], transpose(v)))};
}

std::vector<Var> Eigvalsh::R_op(const Apply& node, std::span<const Var> ev) const {
  // dw = diag(Vᵀ dA V).
  if (!ev[0]) return {Var()};
  const Var v = eigh(node.input(0)).second;
  return {extract_diag(dot(dot(transpose(v), symmetric_from_lower(ev[0])), v))};
}

namespace {

/// ds[i] = u[:, i]ᵀ dA vt[i, :]ᵀ.
Var singular_value_rop(const Var& u, const Var& da, const Var& vt) {
  return sum(u * dot(da, transpose(vt)), {0});
}

}  // namespace

std::vector<Var> Svd::L_op(const Apply& node, std::span<const Var> output_grads) const {
  if (!compute_uv_) {
    const auto usv = svd(node.input(0), true);
    return {diag_product(usv[0], output_grads[0], usv[2])};
  }
  if (!is_disconnected(output_grads[0]) || !is_disconnected(output_grads[2]))
    return {null_grad_var(*this, 0, "the gradient through u and vt is not implemented")};
  if (is_disconnected(output_grads[1])) return {float_zeros_like(node.input(0))};
  return {diag_product(node.output(0), output_grads[1], node.output(2))};
}

std::vector<Var> Svd::R_op(const Apply& node, std::span<const Var> ev) const {
  if (compute_uv_)
    throw NotImplementedError("`svd{compute_uv=true}`: the forward mode of u and vt is not "
                              "implemented; use svd{compute_uv=false} for the singular values");
  if (!ev[0]) return {Var()};
  const auto usv = svd(node.input(0), true);
  return {singular_value_rop(usv[0], ev[0], usv[2])};
}

namespace {

/// Whether a's static shape shows m >= n (the QR derivatives need it).
bool tall_enough(const Var& a) {
  const StaticShape& s = a->tensor_type()->shape();
  return s[0] != kUnknownDim && s[1] != kUnknownDim && s[0] >= s[1];
}

constexpr const char* kQrShapeReason =
    "the gradient of qr needs a static shape with m >= n (give one with rw::specify_shape)";

}  // namespace

std::vector<Var> Qr::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // PyTensor's QRFull.L_op (m >= n, full rank): M = R g_Rᵀ - g_Qᵀ Q,
  // g_A = (g_Q + Q copyltu(M)) R⁻ᵀ, copyltu(M) = tril(M, -1) + tril(M)ᵀ.
  const Var& a = node.input(0);
  if (!tall_enough(a)) return {null_grad_var(*this, 0, kQrShapeReason)};
  const Var q = node.output(0), r = node.output(1);
  const Var& gq = output_grads[0];
  const Var& gr = output_grads[1];
  const bool has_q = !is_disconnected(gq), has_r = !is_disconnected(gr);
  if (!has_q && !has_r) return {float_zeros_like(a)};
  const Var m = sum_terms({has_r ? dot(r, transpose(gr)) : Var(),
                           has_q ? neg(dot(transpose(gq), q)) : Var()});
  const Var b = sum_terms({has_q ? gq : Var(), dot(q, tril(m, -1) + transpose(tril(m)))});
  return {transpose(solve_triangular(r, transpose(b), false))};
}

std::vector<Var> Qr::R_op(const Apply& node, std::span<const Var> ev) const {
  // With X = Qᵀ dA R⁻¹ and Ω = tril(X, -1) - tril(X, -1)ᵀ (QᵀdQ, antisymmetric):
  // dR = (X - Ω) R, dQ = (dA - Q dR) R⁻¹.
  const Var& a = node.input(0);
  if (!tall_enough(a)) throw NotImplementedError(std::string("`qr`: ") + kQrShapeReason);
  if (!ev[0]) return {Var(), Var()};
  const Var q = node.output(0), r = node.output(1);
  const Var x = right_solve_upper(dot(transpose(q), ev[0]), r);
  const Var dr = dot(triu(x) + transpose(tril(x, -1)), r);
  return {right_solve_upper(ev[0] - dot(q, dr), r), dr};
}

namespace {

/// I - x y, with the identity of the product's shape and dtype.
Var identity_minus(const Var& x, const Var& y) {
  const Var xy = dot(x, y);
  return identity_like(xy) - xy;
}

}  // namespace

std::vector<Var> Pinv::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // Golub and Pereyra: with P = A⁺, Q = I - A P, R = I - P A,
  // g_A = -Pᵀ G Pᵀ + Q Gᵀ P Pᵀ + Pᵀ P Gᵀ R.
  const Var& a = node.input(0);
  const Var p = node.output(0);
  const Var pt = transpose(p);
  const Var gt = transpose(output_grads[0]);
  return {neg(dot(dot(pt, output_grads[0]), pt)) + dot(dot(identity_minus(a, p), gt), dot(p, pt)) +
          dot(dot(pt, p), dot(gt, identity_minus(p, a)))};
}

std::vector<Var> Pinv::R_op(const Apply& node, std::span<const Var> ev) const {
  // dP = -P dA P + P Pᵀ dAᵀ (I - A P) + (I - P A) dAᵀ Pᵀ P.
  if (!ev[0]) return {Var()};
  const Var& a = node.input(0);
  const Var p = node.output(0);
  const Var pt = transpose(p);
  const Var dat = transpose(ev[0]);
  return {neg(dot(dot(p, ev[0]), p)) + dot(dot(p, pt), dot(dat, identity_minus(a, p))) +
          dot(identity_minus(p, a), dot(dat, dot(pt, p)))};
}

namespace {

/// The top-right n × n block of expm([[a, e], [0, a]]): the Fréchet
/// derivative of expm at a in the direction e (Najfeld and Havel).
Var expm_frechet(const Var& a, const Var& e) {
  const Var n = shape_i(a, 0);
  const Var top = concatenate({a, e}, 1);
  const Var bottom = concatenate({zeros_like(a), a}, 1);
  const Var big = expm(concatenate({top, bottom}, 0));
  return subtensor(big, {slice(std::nullopt, n), slice(n, std::nullopt)});
}

}  // namespace

std::vector<Var> Expm::L_op(const Apply& node, std::span<const Var> output_grads) const {
  // The adjoint of the Fréchet derivative at a is the derivative at aᵀ:
  // g_a = expm([[aᵀ, g], [0, aᵀ]])[:n, n:], as PyTensor's ExpmGrad.
  return {expm_frechet(transpose(node.input(0)), output_grads[0])};
}

std::vector<Var> Expm::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {expm_frechet(node.input(0), ev[0])};
}

}  // namespace rw

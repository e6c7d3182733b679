// Gradients (L_op) and directional derivatives (R_op) of the sparse Ops.
// Structured Ops take the gradient of their sparse operand on its pattern
// only (the seed's "Sparse Gradient"): `on_pattern` restricts a gradient.
#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/grad_util.hpp"
#include "ops/detail/util.hpp"
#include "ops/sparse/sparse.hpp"

namespace rw {

using ops_detail::disconnected_grad_var;

namespace {

const SparseType& stype(const Var& v) { return *as_sparse_type(*v->type()); }

// g (a sparse matrix of s's shape) on s's pattern and in s's format: the
// entries of g where s stores one, zero where g has none.
Var on_pattern(const Var& g, const Var& s) {
  const CsmParts p = csm_properties(s);
  const SparseFormat f = stype(s).format();
  return csm(f, csm_grad(g, f, p.indices, p.indptr), p.indices, p.indptr, p.shape);
}

// (g ⊙ s) on s's pattern, for sparse g and s of one shape.
Var times_on_pattern(const Var& g, const Var& s) {
  const CsmParts p = csm_properties(s);
  const SparseFormat f = stype(s).format();
  return csm(f, csm_grad(g, f, p.indices, p.indptr) * p.data, p.indices, p.indptr, p.shape);
}

// The sum of the terms that are there (null when none is); sparse terms
// are added with add_ss in the first one's format.
Var sum_present(std::initializer_list<Var> terms, bool sparse) {
  Var out;
  for (const Var& t : terms) {
    if (!t) continue;
    if (!out) out = t;
    else out = sparse ? add_ss(out, sparse_like(t, stype(out))) : out + t;
  }
  return out;
}

}  // namespace

std::vector<Var> CsmProperties::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  if (ops_detail::is_disconnected(g[0])) return {disconnected_grad_var()};
  const CsmParts p = csm_properties(s);
  return {csm(stype(s).format(), g[0], p.indices, p.indptr, p.shape)};
}

std::vector<Var> CsmProperties::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var(), Var(), Var(), Var()};
  // The data of the direction, read on the input's pattern.
  const CsmParts p = csm_properties(node.input(0));
  return {csm_grad(ev[0], stype(node.input(0)).format(), p.indices, p.indptr), Var(), Var(), Var()};
}

std::vector<Var> Csm::L_op(const Apply& node, std::span<const Var> g) const {
  const Var d = disconnected_grad_var();
  if (ops_detail::is_disconnected(g[0])) return {d, d, d, d};
  return {csm_grad(g[0], format_, node.input(1), node.input(2)), d, d, d};
}

std::vector<Var> Csm::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {csm(format_, ev[0], node.input(1), node.input(2), node.input(3))};
}

std::vector<Var> CsmGrad::L_op(const Apply& node, std::span<const Var> g) const {
  const Var d = disconnected_grad_var();
  const Var& x = node.input(0);
  const Var shape = csm_properties(x).shape;
  return {sparse_like(csm(format_, g[0], node.input(1), node.input(2), shape), stype(x)), d, d};
}

std::vector<Var> CsmGrad::R_op(const Apply& node, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {csm_grad(ev[0], format_, node.input(1), node.input(2))};
}

std::vector<Var> DenseFromSparse::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  return {sparse_like(mul_sd(sp_ones_like(s), g[0]), stype(s))};
}

std::vector<Var> DenseFromSparse::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {dense_from_sparse(ev[0])};
}

std::vector<Var> SparseFromDense::L_op(const Apply&, std::span<const Var> g) const {
  return {dense_from_sparse(g[0])};
}

std::vector<Var> SparseFromDense::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {format_ == SparseFormat::Csr ? csr_from_dense(ev[0]) : csc_from_dense(ev[0])};
}

std::vector<Var> SparseConvert::L_op(const Apply& node, std::span<const Var> g) const {
  return {sparse_like(g[0], stype(node.input(0)))};
}

std::vector<Var> SparseConvert::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {rw::sparse_convert(ev[0], format_, dtype_)};
}

std::vector<Var> SparseTranspose::L_op(const Apply& node, std::span<const Var> g) const {
  return {sparse_like(rw::sparse_transpose(g[0]), stype(node.input(0)))};
}

std::vector<Var> SparseTranspose::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {rw::sparse_transpose(ev[0])};
}

std::vector<Var> StructuredDot::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  const Var& d = node.input(1);
  const bool vec = ops_detail::var_rank(d) == 1;
  const Var g2 = vec ? dimshuffle(g[0], {0, kNewAxis}) : g[0];
  const Var d2 = vec ? dimshuffle(d, {0, kNewAxis}) : d;
  if (transpose_s_) {
    // y = sᵀ · d: on s's pattern (d · gᵀ)[i, j]; with respect to d, s · g.
    return {sparse_like(rw::sampling_dot(d2, g2, sp_ones_like(s)), stype(s)),
            structured_dot(s, g[0])};
  }
  // On s's pattern: (g · dᵀ)[i, j] where s stores (i, j); with respect to d, sᵀ · g.
  return {sparse_like(rw::sampling_dot(g2, d2, sp_ones_like(s)), stype(s)),
          structured_dot_t(s, g[0])};
}

std::vector<Var> StructuredDot::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var& s = node.input(0);
  const Var& d = node.input(1);
  auto product = [this](const Var& a, const Var& b) {
    return transpose_s_ ? structured_dot_t(a, b) : structured_dot(a, b);
  };
  return {sum_present({ev[0] ? product(ev[0], d) : Var(), ev[1] ? product(s, ev[1]) : Var()}, false)};
}

std::vector<Var> SparseDot::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& a = node.input(0);
  const Var& b = node.input(1);
  return {sparse_like(sparse_dot(g[0], rw::sparse_transpose(b)), stype(a)),
          sparse_like(sparse_dot(rw::sparse_transpose(a), g[0]), stype(b))};
}

std::vector<Var> SparseDot::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var& a = node.input(0);
  const Var& b = node.input(1);
  return {sum_present({ev[0] ? sparse_dot(ev[0], b) : Var(), ev[1] ? sparse_dot(a, ev[1]) : Var()},
                      true)};
}

std::vector<Var> AddSS::L_op(const Apply& node, std::span<const Var> g) const {
  return {sparse_like(g[0], stype(node.input(0))), sparse_like(g[0], stype(node.input(1)))};
}

std::vector<Var> AddSS::R_op(const Apply&, std::span<const Var> ev) const {
  return {sum_present({ev[0], ev[1]}, true)};
}

std::vector<Var> AddSD::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  return {sparse_like(mul_sd(sp_ones_like(s), g[0]), stype(s)), g[0]};
}

std::vector<Var> AddSD::R_op(const Apply&, std::span<const Var> ev) const {
  if (ev[0] && ev[1]) return {add_sd(ev[0], ev[1])};
  if (ev[0]) return {dense_from_sparse(ev[0])};
  return {ev[1]};
}

std::vector<Var> MulSD::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  const Var& d = node.input(1);
  const Var gs = sparse_like(mul_sd(on_pattern(g[0], s), d), stype(s));
  // d's gradient: the sum of g ⊙ s over s's entries, back to d's shape.
  const Var gsd = times_on_pattern(g[0], s);
  const Var gd = ops_detail::var_rank(d) == 0 ? sum(csm_properties(gsd).data)
                                              : ops_detail::sum_to(dense_from_sparse(gsd), d);
  return {gs, gd};
}

std::vector<Var> MulSD::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var& s = node.input(0);
  const Var& d = node.input(1);
  return {sum_present({ev[0] ? mul_sd(ev[0], d) : Var(), ev[1] ? mul_sd(s, ev[1]) : Var()}, true)};
}

std::vector<Var> SpSum::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& s = node.input(0);
  // The output gradient broadcast onto s's entries: a row per column sum, a
  // column per row sum.
  Var b = g[0];
  if (axis_ && *axis_ == 1) b = dimshuffle(g[0], {0, kNewAxis});
  return {sparse_like(mul_sd(sp_ones_like(s), b), stype(s))};
}

std::vector<Var> SpSum::R_op(const Apply&, std::span<const Var> ev) const {
  if (!ev[0]) return {Var()};
  return {sp_sum(ev[0], axis_)};
}

std::vector<Var> SamplingDot::L_op(const Apply& node, std::span<const Var> g) const {
  const Var& x = node.input(0);
  const Var& y = node.input(1);
  const Var& p = node.input(2);
  const Var q = times_on_pattern(g[0], p);  // (g ⊙ p) on p's pattern
  return {structured_dot(q, y), structured_dot_t(q, x),
          sparse_like(rw::sampling_dot(x, y, on_pattern(g[0], p)), stype(p))};
}

std::vector<Var> SamplingDot::R_op(const Apply& node, std::span<const Var> ev) const {
  const Var& x = node.input(0);
  const Var& y = node.input(1);
  const Var& p = node.input(2);
  return {sum_present({ev[0] ? rw::sampling_dot(ev[0], y, p) : Var(),
                       ev[1] ? rw::sampling_dot(x, ev[1], p) : Var(),
                       ev[2] ? rw::sampling_dot(x, y, ev[2]) : Var()},
                      true)};
}

}  // namespace rw

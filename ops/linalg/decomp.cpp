// Cholesky, Lu, SolveTriangular, SLogDet, Eigh, Eigvalsh, Svd, Qr, Pinv and
// Expm: types, shapes, perform, and their registration.
#include "ops/linalg/decomp.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ops/api.hpp"
#include "ops/detail/matrix_checks.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/decomp.hpp"

namespace rw {

using ops_detail::float_matrix_input;
using ops_detail::merge_extent;
using ops_detail::square_float_input;

namespace {

/// The static extent of min(a, b): known when both are, or when one is 0.
std::int64_t static_min(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a == kUnknownDim || b == kUnknownDim) return kUnknownDim;
  return std::min(a, b);
}

/// The common extent of a square matrix's two axes.
std::int64_t square_extent(const TensorType& a) { return merge_extent(a.shape()[0], a.shape()[1]); }

}  // namespace

// ---------------------------------------------------------------------------
// cholesky, solve_triangular

ApplyRef Cholesky::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::int64_t n = square_extent(a);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {n, n});
}

void Cholesky::perform(const Apply&, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return cholesky(inputs[0]); });
}

std::vector<ShapeVars> Cholesky::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0]};
}

ApplyRef Lu::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::int64_t n = square_extent(a);
  const TypePtr t = TensorType::make(a.dtype(), {n, n});
  return Apply::create(ptr(), inputs, std::vector<TypePtr>{t, t, t});
}

void Lu::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  auto [p, l, u] = ops_detail::run_kernel(*this, [&] { return lu(inputs[0]); });
  outputs[0] = std::move(p);
  outputs[1] = std::move(l);
  outputs[2] = std::move(u);
}

std::vector<ShapeVars> Lu::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0], in[0], in[0]};
}

ApplyRef SolveTriangular::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& a = square_float_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, a.dtype(),
                                ops_detail::solve_result_shape(*this, inputs));
}

void SolveTriangular::perform(const Apply&, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return solve_triangular(inputs[0], inputs[1], lower_); });
}

std::vector<ShapeVars> SolveTriangular::infer_shape(const Apply&,
                                                    std::span<const ShapeVars> in) const {
  return {in[1]};
}

// ---------------------------------------------------------------------------
// slogdet, eigh

ApplyRef SLogDet::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::vector<TypePtr> outs{TensorType::make(a.dtype(), {}), TensorType::make(a.dtype(), {})};
  return Apply::create(ptr(), inputs, outs);
}

void SLogDet::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  auto [sign, logabsdet] = ops_detail::run_kernel(*this, [&] { return slogdet(inputs[0]); });
  outputs[0] = std::move(sign);
  outputs[1] = std::move(logabsdet);
}

std::vector<ShapeVars> SLogDet::infer_shape(const Apply&, std::span<const ShapeVars>) const {
  return {ShapeVars{}, ShapeVars{}};
}

ApplyRef Eigh::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::int64_t n = square_extent(a);
  const std::vector<TypePtr> outs{TensorType::make(a.dtype(), {n}),
                                  TensorType::make(a.dtype(), {n, n})};
  return Apply::create(ptr(), inputs, outs);
}

void Eigh::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  auto [w, v] = ops_detail::run_kernel(*this, [&] { return eigh(inputs[0]); });
  outputs[0] = std::move(w);
  outputs[1] = std::move(v);
}

std::vector<ShapeVars> Eigh::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {ShapeVars{in[0][0]}, in[0]};
}

ApplyRef Eigvalsh::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {square_extent(a)});
}

void Eigvalsh::perform(const Apply&, std::span<const Tensor> inputs,
                       std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return eigh(inputs[0]).w; });
}

std::vector<ShapeVars> Eigvalsh::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {ShapeVars{in[0][0]}};
}

// ---------------------------------------------------------------------------
// svd, qr

namespace {

/// min(m, n) of a matrix's symbolic shape.
Var min_extent(const ShapeVars& s) { return minimum(s[0], s[1]); }

}  // namespace

ApplyRef Svd::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = float_matrix_input(*this, inputs, 0);
  const std::int64_t m = a.shape()[0], n = a.shape()[1], k = static_min(m, n);
  std::vector<TypePtr> outs;
  if (compute_uv_) outs.push_back(TensorType::make(a.dtype(), {m, k}));
  outs.push_back(TensorType::make(a.dtype(), {k}));
  if (compute_uv_) outs.push_back(TensorType::make(a.dtype(), {k, n}));
  return Apply::create(ptr(), inputs, outs);
}

void Svd::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  SvdResult r = ops_detail::run_kernel(*this, [&] { return svd(inputs[0], compute_uv_); });
  if (!compute_uv_) {
    outputs[0] = std::move(r.s);
    return;
  }
  outputs[0] = std::move(r.u);
  outputs[1] = std::move(r.s);
  outputs[2] = std::move(r.vt);
}

std::vector<ShapeVars> Svd::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  const Var k = min_extent(in[0]);
  if (!compute_uv_) return {ShapeVars{k}};
  return {ShapeVars{in[0][0], k}, ShapeVars{k}, ShapeVars{k, in[0][1]}};
}

ApplyRef Qr::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = float_matrix_input(*this, inputs, 0);
  const std::int64_t m = a.shape()[0], n = a.shape()[1], k = static_min(m, n);
  const std::vector<TypePtr> outs{TensorType::make(a.dtype(), {m, k}),
                                  TensorType::make(a.dtype(), {k, n})};
  return Apply::create(ptr(), inputs, outs);
}

void Qr::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  auto [q, r] = ops_detail::run_kernel(*this, [&] { return qr(inputs[0]); });
  outputs[0] = std::move(q);
  outputs[1] = std::move(r);
}

std::vector<ShapeVars> Qr::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  const Var k = min_extent(in[0]);
  return {ShapeVars{in[0][0], k}, ShapeVars{k, in[0][1]}};
}

ApplyRef Pinv::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = float_matrix_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {a.shape()[1], a.shape()[0]});
}

void Pinv::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return pinv(inputs[0]); });
}

std::vector<ShapeVars> Pinv::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {ShapeVars{in[0][1], in[0][0]}};
}

ApplyRef Expm::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::int64_t n = square_extent(a);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {n, n});
}

void Expm::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return expm(inputs[0]); });
}

std::vector<ShapeVars> Expm::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0]};
}

// ---------------------------------------------------------------------------

namespace {

/// A registry entry for a factorisation Op without properties.
template <class O> void add_plain(OpRegistry& r, const char* name, const char* doc) {
  r.add({.name = name,
         .doc = doc,
         .params = {},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<O>();
           return op;
         }});
}

}  // namespace

void register_decomp(OpRegistry& r) {
  add_plain<Cholesky>(r, "cholesky",
                      "the lower Cholesky factor of a positive-definite float matrix");
  add_plain<Lu>(r, "lu",
                "p, l, u with a = p l u: the pivoted LU factorisation of a square float matrix");
  r.add({.name = "solve_triangular",
         .doc = "solve_triangular(a, b): x with a @ x = b, reading one triangle of a",
         .params = {{"lower", ParamKind::Bool, PropValue{false}, false,
                     "read a's lower triangle (else its upper one)"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<SolveTriangular>(std::get<bool>(p[0].value));
         }});
  add_plain<SLogDet>(r, "slogdet",
                     "the sign and log-absolute determinant of a square float matrix");
  add_plain<Eigh>(r, "eigh", "the eigenvalues and eigenvectors of a symmetric float matrix");
  add_plain<Eigvalsh>(r, "eigvalsh", "the eigenvalues of a symmetric float matrix");
  r.add({.name = "svd",
         .doc = "the reduced SVD u, s, vt of a float matrix (s alone without compute_uv)",
         .params = {{"compute_uv", ParamKind::Bool, PropValue{true}, false,
                     "also return u and vt"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Svd>(std::get<bool>(p[0].value));
         }});
  add_plain<Qr>(r, "qr", "the reduced QR factorisation q, r of a float matrix");
  add_plain<Pinv>(r, "pinv", "the Moore-Penrose pseudo-inverse of a float matrix");
  add_plain<Expm>(r, "expm", "the matrix exponential of a square float matrix");
}

}  // namespace rw

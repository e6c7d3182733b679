// Matrix factorisation Ops: cholesky, lu, solve_triangular, slogdet, eigh,
// eigvalsh, svd, qr, pinv and expm (Eigen, runtime/kernels/decomp.cpp).
// Gradients in decomp_grad.cpp.
#pragma once

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// The lower Cholesky factor L of a symmetric positive-definite float matrix
/// (L Lᵀ = a), reading a's lower triangle only (PyTensor's Cholesky, lower);
/// a matrix that is not positive definite is a ValueError at run time.
class Cholesky final : public Op {
 public:
  std::string_view name() const override { return "cholesky"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The LU factorisation with partial pivoting of a square float matrix, as
/// scipy's and PyTensor's `lu`: three outputs p, l, u of a's dtype and shape
/// with a = p l u, p a permutation matrix, l unit lower triangular, u upper
/// triangular. A singular a factors too; its gradient then divides by zero.
class Lu final : public Op {
 public:
  std::string_view name() const override { return "lu"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// p is piecewise constant: only l and u carry a gradient.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The matrix exponential e^a of a square float matrix (scipy's and
/// PyTensor's `expm`; Padé approximation with scaling and squaring). The
/// gradient and forward mode are blocks of the exponential of a 2n × 2n
/// block matrix, as PyTensor's ExpmGrad.
class Expm final : public Op {
 public:
  std::string_view name() const override { return "expm"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `solve_triangular(a, b)`: x with a @ x = b, reading only the lower
/// (`lower`) or upper triangle of the square float matrix a; b is (n) or
/// (n, k) of a's dtype (PyTensor's SolveTriangular). A zero on the diagonal
/// is a ValueError at run time.
class SolveTriangular final : public Op {
 public:
  explicit SolveTriangular(bool lower = false) : lower_(lower) {}
  bool lower() const { return lower_; }
  std::string_view name() const override { return "solve_triangular"; }
  Props props() const override { return {{"lower", lower_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  bool lower_;
};

/// Two 0-d outputs of a square float matrix's dtype: the sign of its
/// determinant (-1, 0 or 1) and the log of its absolute value (NumPy's
/// slogdet); a singular matrix gives 0 and -inf.
class SLogDet final : public Op {
 public:
  std::string_view name() const override { return "slogdet"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// The sign is piecewise constant: its gradient is zero.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The eigenvalues w (n, ascending) and eigenvectors v (n, n, columns) of the
/// symmetric float matrix whose lower triangle is a's (PyTensor's Eigh,
/// UPLO "L").
class Eigh final : public Op {
 public:
  std::string_view name() const override { return "eigh"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// PyTensor's EighGrad, built from dots; distinct eigenvalues assumed.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The eigenvalues alone (n, ascending) of the symmetric float matrix whose
/// lower triangle is a's (PyTensor's Eigvalsh with b absent). The gradient
/// V diag(g) Vᵀ, folded onto the lower triangle, builds an eigh for V.
class Eigvalsh final : public Op {
 public:
  std::string_view name() const override { return "eigvalsh"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The reduced SVD of an (m, n) float matrix, k = min(m, n): with
/// `compute_uv`, three outputs u (m, k), s (k), vt (k, n) with a = u diag(s)
/// vt; without, s alone. s is descending and non-negative.
class Svd final : public Op {
 public:
  explicit Svd(bool compute_uv = true) : compute_uv_(compute_uv) {}
  bool compute_uv() const { return compute_uv_; }
  std::string_view name() const override { return "svd"; }
  Props props() const override { return {{"compute_uv", compute_uv_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// The gradient through s (u diag(g) vt, distinct singular values); a
  /// gradient reaching u or vt is a null gradient that says it is not
  /// implemented, as the forward mode of u and vt is.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  bool compute_uv_;
};

/// The reduced QR of an (m, n) float matrix, k = min(m, n): q (m, k) with
/// orthonormal columns and r (k, n) upper triangular, a = q r (Householder;
/// the signs of r's diagonal are Eigen's). Gradients need m >= n and a of
/// full rank.
class Qr final : public Op {
 public:
  std::string_view name() const override { return "qr"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The Moore-Penrose pseudo-inverse (n, m) of an (m, n) float matrix, from
/// its SVD; singular values below max(m, n) · eps · the largest count as 0
/// (NumPy's pinv with its default tolerance). The gradient is Golub and
/// Pereyra's, which holds where the rank does not change.
class Pinv final : public Op {
 public:
  std::string_view name() const override { return "pinv"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// Registers cholesky, lu, solve_triangular (`lower`), slogdet, eigh,
/// eigvalsh, svd (`compute_uv`), qr, pinv and expm.
void register_decomp(OpRegistry& registry);

}  // namespace rw

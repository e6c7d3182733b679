// Linear algebra Ops: dot, matmul (batched), outer, gemm, gemv, ger, dot22scalar,
// matrix_inverse, det, solve, block_diag and kron.
#pragma once

#include <optional>

#include "engine/graph/op.hpp"
#include "engine/graph/op_params.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// NumPy's dot of vectors and matrices (rank 1 or 2 each): matrix product,
/// matrix-vector, vector-matrix, or the inner product (0-d). Dtype promoted.
class Dot final : public Op {
 public:
  std::string_view name() const override { return "dot"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// NumPy's matmul (`a @ b`): operands of rank 1 or more; a vector is a row
/// (left) or a column (right) whose axis is removed from the result; leading
/// axes are batches that broadcast (static extent 1 only).
class MatMul final : public Op {
 public:
  std::string_view name() const override { return "matmul"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The outer product of two vectors: (m,) and (n,) give (m, n).
class Outer final : public Op {
 public:
  std::string_view name() const override { return "outer"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `gemm(z, alpha, x, y, beta)` = alpha · x @ y + beta · z for matrices x
/// (m, k), y (k, n), z (m, n) of one float dtype and 0-d alpha, beta (BLAS
/// gemm). `inplace` computes into z (destroy_map {0: 0}), as the GEMM
/// rewrite will use it; otherwise z is copied first. Its params are `inplace`.
struct GemmParams {
  bool inplace = false;
  static constexpr auto fields() { return std::tuple{param("inplace", &GemmParams::inplace)}; }
};

class Gemm final : public ParamsOp<GemmParams> {
 public:
  explicit Gemm(bool inplace = false) : ParamsOp(GemmParams{inplace}) {}
  bool inplace() const { return params().inplace; }
  std::string_view name() const override { return "gemm"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  IoMap destroy_map() const override;

 protected:
  void perform_with(const GemmParams& params, const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const override;
};

/// `gemv(y, alpha, a, x, beta) = alpha * a @ x + beta * y` for a float
/// matrix a (m, n), vectors x (n) and y (m) of one dtype and 0-d alpha, beta
/// (BLAS gemv). y is copied first (beta == 0 never reads it).
class Gemv final : public Op {
 public:
  std::string_view name() const override { return "gemv"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `ger(a, alpha, x, y) = a + alpha * outer(x, y)` for a float matrix a
/// (m, n), vectors x (m) and y (n) of one dtype and a 0-d alpha (BLAS ger).
/// a is copied first.
class Ger final : public Op {
 public:
  std::string_view name() const override { return "ger"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `dot22scalar(x, y, alpha)` = alpha · x @ y for matrices x (m, k), y (k, n)
/// of one float dtype and a 0-d alpha (PyTensor's Dot22Scalar): the scale
/// goes into the BLAS call instead of a pass over the product.
class Dot22Scalar final : public Op {
 public:
  std::string_view name() const override { return "dot22scalar"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The inverse of a square float matrix (PyTensor's MatrixInverse); a
/// singular matrix is a ValueError at run time.
class MatrixInverse final : public Op {
 public:
  std::string_view name() const override { return "matrix_inverse"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The determinant of a square float matrix, 0-d of its dtype (PyTensor's Det).
class Det final : public Op {
 public:
  std::string_view name() const override { return "det"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `solve(a, b)`: x with a @ x = b for a square float matrix a (n, n) and b
/// (n) or (n, k) of a's dtype (PyTensor's Solve, general a); a singular a is
/// a ValueError at run time.
class Solve final : public Op {
 public:
  std::string_view name() const override { return "solve"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/linalg/linalg_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `block_diag(a, b, …)`: the matrices along the diagonal of one matrix of
/// their summed extents, zeros elsewhere (PyTensor's BlockDiagonal); dtype
/// promoted.
class BlockDiag final : public Op {
 public:
  std::string_view name() const override { return "block_diag"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Each block's part of the output gradient; forward mode the block
  /// matrix of the eval points.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `kron(a, b)`: the Kronecker product of two matrices (PyTensor's
/// KroneckerProduct): (m, n) and (p, q) give (m p, n q), block (i, j) being
/// a[i, j] * b; dtype promoted.
class Kron final : public Op {
 public:
  std::string_view name() const override { return "kron"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Each operand's gradient sums the output gradient's blocks against the
  /// other operand; forward mode by the product rule.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// Registers dot, matmul, outer, gemm (`inplace`), gemv, ger, dot22scalar,
/// matrix_inverse, det, solve, block_diag and kron.
void register_linalg(OpRegistry& registry);

}  // namespace rw

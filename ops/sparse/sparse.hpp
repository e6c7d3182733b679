// The sparse Ops (PyTensor's pytensor.sparse): conversions between dense and
// sparse matrices, the arrays of a sparse matrix and the matrix built from
// them, products, sums, transposes and structured elementwise Ops, with
// their C++ API functions and registration (docs/sparse.md).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/sparse_type.hpp"

namespace rw {

/// Common ground of the sparse Ops: a sparse Op is *structured* when its
/// result is computed on the entries its sparse operand stores and is zero
/// elsewhere whatever the other operands hold (PyTensor's structured Ops);
/// the gradient with respect to that operand is then taken on its pattern
/// only, as the seed's "Sparse Gradient" describes.
class SparseOp : public Op {
 public:
  /// One shape pair per sparse input: `input_shapes[i]` when the caller gave
  /// one (two extents), else the extents read from the value at run time
  /// (csm_properties' shape).
  static ShapeVars sparse_dims(const Var& x, const ShapeVars& given);
};

/// The arrays of a sparse matrix: (data, indices, indptr, shape), as scipy's
/// `.data`, `.indices`, `.indptr`, `.shape`. data has the matrix's dtype,
/// indices and indptr are int32, shape an int64 vector of 2.
class CsmProperties final : public SparseOp {
 public:
  std::string_view name() const override { return "csm_properties"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Only data carries a gradient: the matrix of data's gradient on the same
  /// pattern.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `csr(data, indices, indptr, shape)` / `csc(…)`: the matrix those arrays
/// describe (PyTensor's CSM). The arrays are checked when the node runs: a
/// bad one is a ValueError naming it. Structured in data: the gradient is
/// the output gradient's entries at the pattern (csm_grad).
class Csm final : public SparseOp {
 public:
  explicit Csm(SparseFormat format) : format_(format) {}
  SparseFormat format() const { return format_; }
  std::string_view name() const override { return sparse_format_name(format_); }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  SparseFormat format_;
};

/// `csm_grad{format}(g, indices, indptr)`: the entries of the sparse g at the
/// positions of a `format` pattern, zero where g stores none (the gradient
/// of a constructor with respect to its data; PyTensor's CSMGrad).
class CsmGrad final : public SparseOp {
 public:
  explicit CsmGrad(SparseFormat format) : format_(format) {}
  SparseFormat format() const { return format_; }
  std::string_view name() const override { return "csm_grad"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  /// Linear in g: the gradient is the matrix of the pattern holding the
  /// output gradient (a sparse matrix of g's format).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  SparseFormat format_;
};

/// The dense matrix of a sparse one (scipy's `.toarray()`). Its gradient is
/// structured: the output gradient at the stored entries.
class DenseFromSparse final : public SparseOp {
 public:
  std::string_view name() const override { return "dense_from_sparse"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `csr_from_dense(x)` / `csc_from_dense(x)`: the nonzero entries of a float
/// matrix. The gradient is the dense form of the output gradient.
class SparseFromDense final : public SparseOp {
 public:
  explicit SparseFromDense(SparseFormat format) : format_(format) {}
  SparseFormat format() const { return format_; }
  std::string_view name() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  SparseFormat format_;
};

/// The same matrix in another format and dtype (scipy's `.asformat` and
/// `.astype`); what gradients of another format or dtype go through.
class SparseConvert final : public SparseOp {
 public:
  SparseConvert(SparseFormat format, DType dtype) : format_(format), dtype_(dtype) {}
  SparseFormat format() const { return format_; }
  DType dtype() const { return dtype_; }
  std::string_view name() const override { return "sparse_convert"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  SparseFormat format_;
  DType dtype_;
};

/// The transpose: CSR (m, n) gives CSC (n, m) on the same arrays, and the
/// reverse.
class SparseTranspose final : public SparseOp {
 public:
  std::string_view name() const override { return "sparse_transpose"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `structured_dot(s, d)`: sparse (m, k) times dense (k, n) or (k,), a dense
/// result. Structured in s: the gradient with respect to s is
/// sampling_dot(g, d) on s's pattern; with respect to d, sᵀ · g.
/// `structured_dot_t(s, d)` is sᵀ · d for s (k, m), without forming sᵀ (what
/// the gradient with respect to d uses, and what
/// `structured_dot(sparse_transpose(s), d)` is rewritten to).
class StructuredDot final : public SparseOp {
 public:
  explicit StructuredDot(bool transpose_s = false) : transpose_s_(transpose_s) {}
  /// True for structured_dot_t.
  bool transpose_s() const { return transpose_s_; }
  std::string_view name() const override {
    return transpose_s_ ? "structured_dot_t" : "structured_dot";
  }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  bool transpose_s_;
};

/// `sparse_dot(a, b)`: the product of two sparse matrices, sparse in a's
/// format. Not structured: the gradients are the full products g · bᵀ and
/// aᵀ · g, in the operands' formats.
class SparseDot final : public SparseOp {
 public:
  std::string_view name() const override { return "sparse_dot"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `add_ss(a, b)`: the sum of two sparse matrices of one shape and format.
class AddSS final : public SparseOp {
 public:
  std::string_view name() const override { return "add_ss"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `add_sd(s, d)`: a sparse plus a dense matrix of its shape, dense. The
/// gradient with respect to s is structured (on s's pattern).
class AddSD final : public SparseOp {
 public:
  std::string_view name() const override { return "add_sd"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `mul_sd(s, d)`: s times a dense d that broadcasts to s's shape (a scalar,
/// a row, a column or a matrix), on s's stored entries (structured): sparse,
/// with s's pattern and format.
class MulSD final : public SparseOp {
 public:
  std::string_view name() const override { return "mul_sd"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `sp_sum{axis}(s)`: the sum of the entries, all (axis none, 0-d), down
/// the columns (axis 0, (n,)) or along the rows (axis 1, (m,)); dense.
/// Structured: the gradient is the output gradient broadcast onto s's pattern.
class SpSum final : public SparseOp {
 public:
  /// `axis`: nullopt for all, else 0 or 1.
  explicit SpSum(std::optional<std::int64_t> axis) : axis_(axis) {}
  std::optional<std::int64_t> axis() const { return axis_; }
  std::string_view name() const override { return "sp_sum"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::optional<std::int64_t> axis_;
};

/// `sampling_dot(x, y, p)`: p ⊙ (x · yᵀ) on the entries p stores, for dense
/// x (m, k) and y (n, k) and sparse p (m, n): sparse, with p's pattern
/// (PyTensor's SamplingDot). Structured in p.
class SamplingDot final : public SparseOp {
 public:
  std::string_view name() const override { return "sampling_dot"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

// ---------------------------------------------------------------------------
// The C++ API

/// The SparseType of a variable, or nullptr.
const SparseType* sparse_type_of(const Var& v);
/// A sparse graph input: `sparse_matrix("s", SparseFormat::Csr, f64)`.
Var sparse_matrix(std::string name, SparseFormat format, DType dtype = DType::Float64,
                  std::int64_t rows = kUnknownDim, std::int64_t cols = kUnknownDim);
/// A constant holding a packed sparse value (its exact shape in the type).
Var sparse_constant(const Tensor& value, std::string name = {});

/// The arrays of a sparse matrix.
struct CsmParts {
  Var data, indices, indptr, shape;
};
CsmParts csm_properties(const Var& s);
/// The matrix of the arrays; `shape` an integer vector of 2.
Var csr(const Var& data, const Var& indices, const Var& indptr, const Var& shape);
Var csc(const Var& data, const Var& indices, const Var& indptr, const Var& shape);
Var csm(SparseFormat format, const Var& data, const Var& indices, const Var& indptr,
        const Var& shape);
Var csm_grad(const Var& g, SparseFormat format, const Var& indices, const Var& indptr);
Var dense_from_sparse(const Var& s);
Var csr_from_dense(const Var& x);
Var csc_from_dense(const Var& x);
Var sparse_convert(const Var& s, SparseFormat format, DType dtype);
/// s in `like`'s format and dtype (s itself when they agree already).
Var sparse_like(const Var& s, const SparseType& like);
Var sparse_transpose(const Var& s);
Var structured_dot(const Var& s, const Var& d);
/// sᵀ · d without forming sᵀ.
Var structured_dot_t(const Var& s, const Var& d);
Var sparse_dot(const Var& a, const Var& b);
Var add_ss(const Var& a, const Var& b);
Var add_sd(const Var& s, const Var& d);
Var mul_sd(const Var& s, const Var& d);
/// s times a number (a 0-d constant of s's dtype).
Var mul_sd(const Var& s, double scalar);
Var sp_sum(const Var& s, std::optional<std::int64_t> axis = std::nullopt);
Var sampling_dot(const Var& x, const Var& y, const Var& p);
/// A matrix of s's pattern and format holding ones (PyTensor's sp_ones_like).
Var sp_ones_like(const Var& s);

/// Registers the sparse Ops.
void register_sparse(OpRegistry& registry);

}  // namespace rw

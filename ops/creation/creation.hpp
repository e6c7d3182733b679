// Creation Ops: eye, tri, tril_indices/triu_indices, arange, linspace,
// tril/triu masks and diagonals.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// `eye(n, m, k)`: an n × m matrix of `dtype` with ones on diagonal k (k > 0
/// above the main one, k < 0 below) and zeros elsewhere (NumPy's eye); the
/// sizes are 0-d integer inputs, so they may be known at run time only.
/// Not differentiable: its inputs are sizes.
class Eye final : public Op {
 public:
  explicit Eye(DType dtype = DType::Float64) : dtype_(dtype) {}
  std::string_view name() const override { return "eye"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  DType dtype_;
};

/// `tri(n, m, k)`: an n × m matrix of `dtype` with ones at and below
/// diagonal k (j <= i + k) and zeros above (NumPy's tri). Not differentiable.
class Tri final : public Op {
 public:
  explicit Tri(DType dtype = DType::Float64) : dtype_(dtype) {}
  std::string_view name() const override { return "tri"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  DType dtype_;
};

/// `tril_indices(n, m, k)` / `triu_indices(n, m, k)`: two int64 vectors,
/// the rows and columns of the positions of an n × m matrix at and below
/// diagonal k (j <= i + k), or at and above it (j >= i + k), in row-major
/// order (NumPy's tril_indices(n, k, m) and triu_indices). The sizes are 0-d
/// integer inputs, as tri's; the length is static when all three are
/// constants, and infer_shape computes it as a graph. Not differentiable.
class TriIndices final : public Op {
 public:
  explicit TriIndices(bool upper) : upper_(upper) {}
  bool upper() const { return upper_; }
  std::string_view name() const override { return upper_ ? "triu_indices" : "tril_indices"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool upper_;
};

/// `arange(start, stop, step)`: start, start + step, … up to but excluding
/// stop, ceil((stop - start) / step) values or none (NumPy's arange). The
/// bounds are 0-d numbers; the dtype is `dtype`, else their promotion.
/// Differentiable in start (1 per element) and step (the element's index).
class ARange final : public Op {
 public:
  explicit ARange(std::optional<DType> dtype = std::nullopt) : dtype_(dtype) {}
  std::string_view name() const override { return "arange"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/creation/creation_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::optional<DType> dtype_;
};

/// `linspace(start, stop, num)`: num evenly spaced values from start to stop
/// (included when `endpoint`, the last value then exactly stop), NumPy's
/// linspace. start and stop are 0-d numbers, num a 0-d integer; the dtype is
/// `dtype` (a float), else the float of the bounds' promotion.
/// Differentiable in start and stop.
class Linspace final : public Op {
 public:
  Linspace(bool endpoint = true, std::optional<DType> dtype = std::nullopt)
      : endpoint_(endpoint), dtype_(dtype) {}
  bool endpoint() const { return endpoint_; }
  std::string_view name() const override { return "linspace"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/creation/creation_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool endpoint_;
  std::optional<DType> dtype_;
};

/// The lower (`tril`) or upper (`triu`) triangle of the last two axes of x
/// (rank >= 2): elements above diagonal k (j > i + k), or below it
/// (j < i + k), set to zero (NumPy's tril / triu). The gradient is the same
/// mask applied to the output gradient.
class TriMask final : public Op {
 public:
  TriMask(bool upper, std::int64_t k) : upper_(upper), k_(k) {}
  bool upper() const { return upper_; }
  std::int64_t k() const { return k_; }
  std::string_view name() const override { return upper_ ? "triu" : "tril"; }
  Props props() const override { return {{"k", k_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/creation/creation_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  bool upper_;
  std::int64_t k_;
};

/// `alloc_diag{offset=k}(v)`: a square matrix of extent n + |k| with the
/// vector v (n) on diagonal k and zeros elsewhere (NumPy's diag of a vector).
class AllocDiag final : public Op {
 public:
  explicit AllocDiag(std::int64_t offset = 0) : offset_(offset) {}
  std::int64_t offset() const { return offset_; }
  std::string_view name() const override { return "alloc_diag"; }
  Props props() const override { return {{"offset", offset_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/creation/creation_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t offset_;
};

/// `extract_diag{offset=k}(x)`: diagonal k of the matrix x (n, m) as a new
/// vector of max(0, min(n, m - k)) elements for k >= 0, max(0, min(n + k, m))
/// for k < 0 (NumPy's diag of a matrix).
class ExtractDiag final : public Op {
 public:
  explicit ExtractDiag(std::int64_t offset = 0) : offset_(offset) {}
  std::int64_t offset() const { return offset_; }
  std::string_view name() const override { return "extract_diag"; }
  Props props() const override { return {{"offset", offset_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/creation/creation_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t offset_;
};

/// Registers eye, tri, tril_indices, triu_indices, arange, linspace, tril,
/// triu, alloc_diag and extract_diag.
void register_creation(OpRegistry& registry);

}  // namespace rw

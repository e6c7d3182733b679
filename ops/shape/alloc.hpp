// Alloc (a value broadcast to a symbolic shape) and zeros_like/ones_like.
#pragma once

#include <optional>

#include "engine/graph/op.hpp"

namespace rw {

/// `alloc(value, d0, d1, …)`: a new tensor of shape (d0, d1, …) (0-d integer
/// inputs) holding `value` broadcast to it (Aesara's Alloc). value's axes
/// broadcast only where their static extent is 1. Not constant-folded, so
/// that a large array is not baked into the graph.
class Alloc final : public Op {
 public:
  std::string_view name() const override { return "alloc"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  bool do_constant_folding(const Apply& node) const override;
};

/// An uninitialised tensor of `dtype` whose extents are the inputs (0-d
/// integers; Aesara's AllocEmpty): for rewrites and in-place work that write
/// every element before reading it. Its elements are whatever the memory
/// held; `debug_perform` fills them with NaN (floats), the largest value
/// (integers) or true, so that DebugMode shows a read before a write. Not
/// constant-folded, not merged with another (two allocations are two
/// buffers), and not differentiable (its extents have no gradient).
class AllocEmpty final : public Op {
 public:
  explicit AllocEmpty(DType dtype) : dtype_(dtype) {}
  DType dtype() const { return dtype_; }
  std::string_view name() const override { return "alloc_empty"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  void debug_perform(const Apply& node, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  bool do_constant_folding(const Apply& node) const override;
  bool mergeable() const override { return false; }

 private:
  DType dtype_;
};

/// Zeros (`zeros_like`) or ones (`ones_like`) of the input's shape, of the
/// input's dtype or `dtype`. Only the input's shape is read: not connected
/// for gradients.
class FullLike final : public Op {
 public:
  FullLike(bool ones, std::optional<DType> dtype) : ones_(ones), dtype_(dtype) {}
  bool ones() const { return ones_; }
  std::string_view name() const override { return ones_ ? "ones_like" : "zeros_like"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool ones_;
  std::optional<DType> dtype_;
};

}  // namespace rw

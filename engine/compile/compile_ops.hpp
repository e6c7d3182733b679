// The structural Ops a compiled function needs: deep_copy (break aliasing of an
// output) and view (an output that is its input, seen through another variable).
#pragma once

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// `deep_copy(x)`: an independent copy of x, of x's type. The compiler puts it
/// on outputs that would otherwise alias an input, a constant, a shared
/// variable or another output (Aesara's DeepCopyOp). Like Aesara's, it has no
/// gradient: it appears only in compiled graphs, after differentiation.
class DeepCopyOp final : public Op {
 public:
  std::string_view name() const override { return "deep_copy"; }
  /// One input; the output has its type. Throws TypeError for another count.
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Copies into the tensor already in the output slot when its dtype and
  /// shape fit and it is contiguous; allocates otherwise.
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// The input's shape.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// The identity's derivatives (engine/compile/compile_ops_grad.cpp).
  std::vector<Var> grad(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// `view(x)`: x itself under another variable; the output is a view of input
/// 0 (view_map {0: 0}) and its gradient is the output's gradient (Aesara's
/// ViewOp).
class ViewOp final : public Op {
 public:
  std::string_view name() const override { return "view"; }
  /// One input; the output has its type. Throws TypeError for another count.
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// The output is the input tensor (same buffer).
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// The input's shape.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// The output gradient, unchanged.
  std::vector<Var> grad(const Apply& node, std::span<const Var> output_grads) const override;
  /// The eval point, unchanged.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  /// Output 0 views input 0.
  IoMap view_map() const override { return {{0, 0}}; }
};

/// The shared instances (Ops are immutable values; one of each suffices).
const OpPtr& deep_copy_op();
const OpPtr& view_op();

/// `deep_copy(x)` and `view(x)` as graph expressions.
Var deep_copy(const Var& x);
Var view(const Var& x);

/// Registers `deep_copy` and `view` (no parameters, one input each).
void register_compile_ops(OpRegistry& registry);

}  // namespace rw

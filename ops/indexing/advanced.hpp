// Integer-array indexing along one axis: AdvancedSubtensor (gather) and
// AdvancedIncSubtensor (scatter: set, or add with repeats adding again).
#pragma once

#include <cstdint>

#include "engine/graph/op.hpp"

namespace rw {

/// `advanced_subtensor(x, indices)`: the slices of x at the integer
/// `indices` (any rank, negative from the end) along `axis`; the result has
/// shape x.shape[:axis] + indices.shape + x.shape[axis+1:] (NumPy's take;
/// Aesara's AdvancedSubtensor1 for axis 0).
class AdvancedSubtensor final : public Op {
 public:
  explicit AdvancedSubtensor(std::int64_t axis = 0) : axis_(axis) {}
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return "advanced_subtensor"; }
  Props props() const override { return {{"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/indexing/indexing_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::int64_t axis_;
};

/// `advanced_inc_subtensor(x, y, indices)`: x with y (broadcast to the shape
/// the gather has) added at `indices` along `axis`, a repeated index adding
/// each time (NumPy's add.at); `advanced_set_subtensor` assigns instead (for
/// a repeated index the last value stays). `inplace` writes into x.
class AdvancedIncSubtensor final : public Op {
 public:
  AdvancedIncSubtensor(std::int64_t axis, bool set, bool inplace = false)
      : axis_(axis), set_(set), inplace_(inplace) {}
  std::int64_t axis() const { return axis_; }
  bool is_set() const { return set_; }
  bool inplace() const { return inplace_; }
  std::string_view name() const override {
    return set_ ? "advanced_set_subtensor" : "advanced_inc_subtensor";
  }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/indexing/indexing_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap destroy_map() const override;

 private:
  std::int64_t axis_;
  bool set_;
  bool inplace_;
};

}  // namespace rw

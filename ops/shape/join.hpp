// Join (concatenate), Split and Stack.
#pragma once

#include <cstdint>

#include "engine/graph/op.hpp"

namespace rw {

/// Inputs of one rank joined along `axis` (NumPy's concatenate; Aesara's
/// Join with a constant axis). Extents off the axis must agree; dtypes are
/// promoted.
class Join final : public Op {
 public:
  explicit Join(std::int64_t axis) : axis_(axis) {}
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return "join"; }
  Props props() const override { return {{"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t axis_;
};

/// `split(x, sizes)`: `n` consecutive pieces of x along `axis`, with the
/// extents of the 1-d integer input `sizes`, which must add up to the axis'
/// extent. The pieces are views of x (Aesara's Split).
class Split final : public Op {
 public:
  Split(std::int64_t n, std::int64_t axis) : n_(n), axis_(axis) {}
  std::int64_t num_splits() const { return n_; }
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return "split"; }
  Props props() const override { return {{"n", n_}, {"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap view_map() const override;

 private:
  std::int64_t n_;
  std::int64_t axis_;
};

/// Inputs of one shape joined along a new axis `axis` (NumPy's stack).
class Stack final : public Op {
 public:
  explicit Stack(std::int64_t axis) : axis_(axis) {}
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return "stack"; }
  Props props() const override { return {{"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t axis_;
};

}  // namespace rw

// Ops that copy x's slices in a new arrangement along axes: repeat, tile, roll.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/graph/op.hpp"

namespace rw {

/// `repeat(x, repeats)`: each slice of x along `axis` repeated, a 0-d
/// integer `repeats` times, or repeats[i] times for slice i when repeats is a
/// vector of the axis' extent (NumPy's repeat; Aesara's Repeat). Without
/// `axis`, x is flattened first. Differentiable in x.
class Repeat final : public Op {
 public:
  explicit Repeat(std::optional<std::int64_t> axis) : axis_(axis) {}
  std::optional<std::int64_t> axis() const { return axis_; }
  std::string_view name() const override { return "repeat"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::optional<std::int64_t> axis_;
};

/// `tile{reps}(x)`: x repeated reps[a] times along each axis a as a whole
/// (NumPy's tile). With more reps than axes, x gains leading axes of extent
/// 1; with fewer, the reps are padded with leading 1s.
class Tile final : public Op {
 public:
  explicit Tile(std::vector<std::int64_t> reps) : reps_(std::move(reps)) {}
  const std::vector<std::int64_t>& reps() const { return reps_; }
  std::string_view name() const override { return "tile"; }
  Props props() const override { return {{"reps", reps_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::vector<std::int64_t> reps_;
};

/// `roll(x, shift)`: x shifted by the 0-d integer `shift` along `axis`, the
/// elements leaving one end entering at the other (NumPy's roll). Without
/// `axis`, the flattened x is rolled and given x's shape back.
class Roll final : public Op {
 public:
  explicit Roll(std::optional<std::int64_t> axis) : axis_(axis) {}
  std::optional<std::int64_t> axis() const { return axis_; }
  std::string_view name() const override { return "roll"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::optional<std::int64_t> axis_;
};

}  // namespace rw

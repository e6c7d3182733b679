// Reshape (to a symbolic shape, one extent may be -1) and Flatten.
#pragma once

#include <cstdint>

#include "engine/graph/op.hpp"

namespace rw {

/// `reshape(x, shape)`: x's elements in row-major order laid out in `shape`,
/// a 1-d integer input of `ndim` entries, one of which may be -1 (inferred).
/// Static extents come from constant entries. The output is a view when the
/// layout allows (view_map {0: 0}), a copy otherwise (Aesara's Reshape).
class Reshape final : public Op {
 public:
  explicit Reshape(std::int64_t ndim) : ndim_(ndim) {}
  std::int64_t ndim() const { return ndim_; }
  std::string_view name() const override { return "reshape"; }
  Props props() const override { return {{"ndim", ndim_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap view_map() const override { return {{0, 0}}; }

 private:
  std::int64_t ndim_;
};

/// The first `ndim - 1` axes kept and the rest flattened into one (Aesara's
/// Flatten); a view when the layout allows.
class Flatten final : public Op {
 public:
  explicit Flatten(std::int64_t ndim = 1) : ndim_(ndim) {}
  std::int64_t ndim() const { return ndim_; }
  std::string_view name() const override { return "flatten"; }
  Props props() const override { return {{"ndim", ndim_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  IoMap view_map() const override { return {{0, 0}}; }

 private:
  std::int64_t ndim_;
};

}  // namespace rw

// Ops about shapes: shape, shape_i, make_vector and specify_shape.
#pragma once

#include <cstdint>

#include "engine/graph/op.hpp"
#include "engine/graph/type.hpp"

namespace rw {

/// The shape of the input as an int64 vector. Not connected for gradients.
class ShapeOp final : public Op {
 public:
  std::string_view name() const override { return "shape"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
};

/// The extent of axis `i` of the input, as a 0-d int64 (Aesara's Shape_i).
class ShapeI final : public Op {
 public:
  explicit ShapeI(std::int64_t i) : i_(i) {}
  std::int64_t axis() const { return i_; }
  std::string_view name() const override { return "shape_i"; }
  Props props() const override { return {{"i", i_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::int64_t i_;
};

/// 0-d inputs gathered into a vector of `dtype`; each input must convert to
/// it without loss (Aesara's MakeVector).
class MakeVector final : public Op {
 public:
  explicit MakeVector(DType dtype = DType::Int64) : dtype_(dtype) {}
  DType dtype() const { return dtype_; }
  std::string_view name() const override { return "make_vector"; }
  Props props() const override { return {{"dtype", dtype_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  DType dtype_;
};

/// The input, unchanged, with its static shape asserted: `shape` entries
/// other than kUnknownDim are checked at run time (ValueError) and become the
/// output type's (Aesara's SpecifyShape). The output is a view of the input.
class SpecifyShape final : public Op {
 public:
  explicit SpecifyShape(StaticShape shape) : shape_(std::move(shape)) {}
  const StaticShape& shape() const { return shape_; }
  std::string_view name() const override { return "specify_shape"; }
  Props props() const override { return {{"shape", shape_}}; }
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
  StaticShape shape_;
};

}  // namespace rw

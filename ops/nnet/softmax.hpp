// Softmax and LogSoftmax along one axis.
#pragma once

#include <optional>

#include <cstdint>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// exp(x - max) / sum(exp(x - max)) along `axis` (`log`: x - max -
/// log(sum(exp(x - max))), without forming the softmax), numerically stable.
/// The output has x's shape and dtype float_result(x) (Aesara's Softmax and
/// LogSoftmax). The axis must exist in x: a TypeError names the op and input.
class Softmax final : public Op {
 public:
  Softmax(std::int64_t axis, bool log) : axis_(axis), log_(log) {}
  std::int64_t axis() const { return axis_; }
  /// Whether this is log_softmax.
  bool is_log() const { return log_; }

  std::string_view name() const override { return log_ ? "log_softmax" : "softmax"; }
  Props props() const override { return {{"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  /// The input's shape.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/nnet/softmax_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t axis_;
  bool log_;
};

/// Registers softmax and log_softmax (`axis`, default -1).
void register_nnet(OpRegistry& registry);

}  // namespace rw

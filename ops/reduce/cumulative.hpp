// Scans along an axis: cumsum and cumprod (CumOp), and diff.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// Running sums (`cumsum`) or products (`cumprod`) along `axis`, or over x
/// flattened when there is none (Aesara's CumOp). Dtype as sum and prod:
/// bools and integers give int64. cumsum's gradient is the reversed cumsum
/// of the output gradient; cumprod's divides by x, so it is not defined where
/// x has zeros (as in PyTensor).
class CumOp final : public Op {
 public:
  CumOp(bool mul, std::optional<std::int64_t> axis) : mul_(mul), axis_(axis) {}
  bool mul() const { return mul_; }
  std::optional<std::int64_t> axis() const { return axis_; }
  std::string_view name() const override { return mul_ ? "cumprod" : "cumsum"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/reduce/reduce_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  bool mul_;
  std::optional<std::int64_t> axis_;
};

/// The `n`-th discrete difference along `axis`, x[1:] - x[:-1] applied n
/// times (NumPy's diff): the axis shrinks by n, to at least 0; dtype x's
/// (bools refused).
class Diff final : public Op {
 public:
  Diff(std::int64_t n, std::int64_t axis) : n_(n), axis_(axis) {}
  std::int64_t n() const { return n_; }
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return "diff"; }
  Props props() const override { return {{"n", n_}, {"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/reduce/reduce_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t n_;
  std::int64_t axis_;
};

/// Registers cumsum, cumprod and diff.
void register_cumulative(OpRegistry& registry);

}  // namespace rw

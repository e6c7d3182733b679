// Reductions: sum, prod, max, min, mean, any, all, logsumexp and median over
// a set of axes, and argmax, argmin along one axis or all.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/op_params.hpp"
#include "engine/graph/op_registry.hpp"
#include "runtime/kernels/reduce.hpp"

namespace rw {

/// `op` over `axis` (every axis when none); reduced axes are removed, as in
/// Aesara, where keepdims is a dimshuffle after the reduction. Output dtype:
/// reduce_result_dtype (sum and prod of integers give int64, mean a float,
/// any/all bool). Negative axes count from the end; an axis out of range or
/// given twice is a TypeError naming the op and input. Its params are the
/// axes; which reduction it is, is its name.
struct ReduceParams {
  /// The axes as given (none: all).
  std::optional<std::vector<std::int64_t>> axis;
  static constexpr auto fields() { return std::tuple{param("axis", &ReduceParams::axis)}; }
};

class Reduce final : public ParamsOp<ReduceParams> {
 public:
  Reduce(ReduceOp op, std::optional<std::vector<std::int64_t>> axis);

  ReduceOp reduce_op() const { return op_; }
  /// The axes as given (none: all).
  const std::optional<std::vector<std::int64_t>>& axis() const { return params().axis; }
  /// For a node: which input axes are reduced.
  std::vector<bool> reduced_axes(const Apply& node) const;
  /// Which axes of inputs[0] are reduced; an axis out of range or given
  /// twice is a TypeError naming `named` (an Op that reduces over this one's
  /// axes, such as logsumexp), or this Op.
  std::vector<bool> check_axes(std::span<const Var> inputs, const Op* named = nullptr) const;
  /// The static shape of inputs[0] without the reduced axes.
  static StaticShape kept_shape(const TensorType& t, const std::vector<bool>& reduced);

  std::string_view name() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  /// The input's extents on the axes that are kept.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// reduce_native_source of the program whose output is its input (what
  /// perform reduces): the input's memory accumulated by the interpreter's
  /// own drivers, in its order. Empty when the reduced axes neither trail
  /// nor lead.
  std::optional<NativeCode> native_code(const Apply& node,
                                        const NativeNames& names) const override;
  /// The output gradient broadcast back over the reduced axes, times the
  /// reduction's derivative (ops/reduce/reduce_grad.cpp); zero for discrete results.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// The eval point reduced the same way, weighted by that derivative.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 protected:
  void perform_with(const ReduceParams& params, const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const override;

 private:
  ReduceOp op_;
};

/// Index (int64) of the first maximum (argmax) or minimum (argmin) along
/// `axis`, or of the flattened tensor when none.
class ArgReduce final : public Op {
 public:
  ArgReduce(bool is_max, std::optional<std::int64_t> axis);
  bool is_max() const { return is_max_; }
  const std::optional<std::int64_t>& axis() const { return axis_; }

  std::string_view name() const override { return is_max_ ? "argmax" : "argmin"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// An index is piecewise constant in x: zero.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 private:
  std::int64_t normalized_axis(std::span<const Var> inputs) const;
  bool is_max_;
  std::optional<std::int64_t> axis_;
};

/// A reduction over `axis` (every axis when none) that is not one of
/// Reduce's: it checks its axes, removes the reduced ones from the output
/// shape and infers that shape as the sum over the same axes would, naming
/// itself in the errors. Base of logsumexp and median.
class AxesReduction : public Op {
 public:
  explicit AxesReduction(std::optional<std::vector<std::int64_t>> axis);
  const std::optional<std::vector<std::int64_t>>& axis() const { return sum_->axis(); }
  /// For a node: which input axes are reduced.
  std::vector<bool> reduced_axes(const Apply& node) const { return sum_->reduced_axes(node); }

  /// `axis`: a tuple, or none for all axes.
  Props props() const override { return sum_->props(); }
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;

 protected:
  /// A node with one output of `dtype` whose static shape is inputs[0]'s
  /// without the reduced axes.
  ApplyRef make_reduced(std::span<const Var> inputs, DType dtype) const;

 private:
  std::shared_ptr<const Reduce> sum_;
};

/// log(sum(exp(x))) over `axis` of a float x, shifted by the maximum so that
/// it neither overflows nor underflows (scipy's logsumexp). An empty group
/// gives -inf; an infinite maximum shifts by 0. The gradient is the softmax
/// over the group times the output gradient.
class LogSumExpReduce final : public AxesReduction {
 public:
  using AxesReduction::AxesReduction;
  std::string_view name() const override { return "logsumexp"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// The median over `axis` (NumPy's median): the middle value of each group,
/// or the mean of the two middle ones when the group has an even count; NaN
/// for a group that holds a NaN or is empty. The dtype is float_result of
/// x's. The gradient goes to the middle element, or half to each of the two
/// middle ones (ranked as a stable sort ranks them).
class MedianReduce final : public AxesReduction {
 public:
  using AxesReduction::AxesReduction;
  std::string_view name() const override { return "median"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
};

/// Registers sum, prod, max, min, mean, any, all (`axis`: tuple or none),
/// logsumexp and median (`axis`) and argmax, argmin (`axis`: int or none).
void register_reduce(OpRegistry& registry);

}  // namespace rw

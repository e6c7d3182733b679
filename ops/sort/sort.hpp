// Sorting and counting Ops: sort, argsort, topk, argtopk, searchsorted,
// bincount, unique.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// The values of x in ascending order along `axis` (`sort`), or the int64
/// positions that order them (`argsort`): stable, NaNs last, as NumPy's
/// kind="stable". Without `axis`, x is flattened first. sort's gradient goes
/// back through the permutation; argsort has none (an integer result).
class Sort final : public Op {
 public:
  Sort(bool arg, std::optional<std::int64_t> axis) : arg_(arg), axis_(axis) {}
  bool arg() const { return arg_; }
  std::optional<std::int64_t> axis() const { return axis_; }
  std::string_view name() const override { return arg_ ? "argsort" : "sort"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode of sort (ops/sort/sort_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool arg_;
  std::optional<std::int64_t> axis_;
};

/// The |k| largest values of x along `axis` in descending order (k > 0), or
/// the |k| smallest in ascending order (k < 0) (`topk`), or their int64
/// positions (`argtopk`): a partial sort of each line, ties in the order of
/// the axis, NaNs larger than every number (as sort). The axis' extent
/// becomes |k|; an extent below |k| is a TypeError when static, a ValueError
/// at run time. PyTensor's topk / argtopk, whose results are sorted here.
/// topk's gradient goes back to the positions argtopk gives.
class TopK final : public Op {
 public:
  TopK(bool arg, std::int64_t k, std::int64_t axis) : arg_(arg), k_(k), axis_(axis) {}
  bool arg() const { return arg_; }
  std::int64_t k() const { return k_; }
  std::int64_t axis() const { return axis_; }
  std::string_view name() const override { return arg_ ? "argtopk" : "topk"; }
  Props props() const override { return {{"k", k_}, {"axis", axis_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode of topk (ops/sort/sort_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool arg_;
  std::int64_t k_;
  std::int64_t axis_;
};

/// `searchsorted(a, v)`: for each element of v, the int64 position in the
/// ascending vector a where it would be inserted to keep a sorted, before
/// equal values (`side="left"`) or after them (`"right"`); NumPy's
/// searchsorted. The result has v's shape. Not differentiable.
class SearchSorted final : public Op {
 public:
  explicit SearchSorted(bool right = false) : right_(right) {}
  bool right() const { return right_; }
  std::string_view name() const override { return "searchsorted"; }
  Props props() const override { return {{"side", std::string(right_ ? "right" : "left")}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool right_;
};

/// `bincount(x[, weights])`: for each value 0 … max(max(x) + 1, minlength) - 1
/// the number of times the non-negative integer vector x holds it (int64),
/// or the sum of the weights there (float64, or the weights' float dtype);
/// NumPy's bincount. Differentiable in the weights.
class BinCount final : public Op {
 public:
  explicit BinCount(std::int64_t minlength = 0) : minlength_(minlength) {}
  std::int64_t minlength() const { return minlength_; }
  std::string_view name() const override { return "bincount"; }
  Props props() const override { return {{"minlength", minlength_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode in the weights (ops/sort/sort_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  std::int64_t minlength_;
};

/// `unique(x)`: the sorted distinct values of x flattened (NaNs count as one
/// value, last), and with `return_counts` a second int64 output of how often
/// each occurs; NumPy's unique. Not differentiable.
class Unique final : public Op {
 public:
  explicit Unique(bool return_counts = false) : return_counts_(return_counts) {}
  bool return_counts() const { return return_counts_; }
  std::string_view name() const override { return "unique"; }
  Props props() const override { return {{"return_counts", return_counts_}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// The number of distinct values, as a graph that sorts x and counts changes.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  bool return_counts_;
};

/// Registers sort, argsort, topk, argtopk, searchsorted, bincount and unique.
void register_sort(OpRegistry& registry);

}  // namespace rw

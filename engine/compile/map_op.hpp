// MapOp: a loop over an inner graph. Step k runs the inner graph (an
// OpFromGraph) with the step index k, and row k of each output is what it
// computed; how jacobian and hessian handle vectors of unknown length.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "engine/compile/op_from_graph.hpp"
#include "engine/graph/op.hpp"

namespace rw {

/// for k in range(n): row k of output j = output j of `body`(k, args…).
/// Inputs: the number of steps `n` (int64, 0-d); then, per output, its row
/// shape (an int64 vector with one entry per axis of the row); then the
/// body's inputs after k (its shared variables are appended when left out).
/// Output j has shape (n,) + row shape. Equality is identity.
class MapOp final : public Op {
 public:
  /// `body`'s first input is the step index: int64, 0-d. Throws TypeError otherwise.
  explicit MapOp(std::shared_ptr<const OpFromGraph> body);

  std::string_view name() const override { return name_; }
  std::string to_string() const override { return name_; }
  bool equals(const Op& other) const override { return this == &other; }

  /// The inner graph run at each step.
  const OpFromGraph& body() const { return *body_; }
  /// Number of outputs (the body's).
  std::size_t num_rows() const { return body_->inner_outputs().size(); }

  /// Checks n, the row shapes (TypeError naming the input) and the body's
  /// inputs (as OpFromGraph::make_node).
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Runs the body (compiled once, by OpFromGraph) n times. Throws ValueError
  /// for a negative n or row extent, or a row whose shape is not the one given.
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// (n,) + the row shape inputs: the body is not looked into.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Another map, `grad_of_<name>`, whose step k is the body's L_op at step
  /// k (through OpFromGraph's gradient Op) with row k of each output
  /// gradient; each input's gradient is its rows summed. n and the row
  /// shapes are not connected. Built once, on the first call.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// Another map, `rop_of_<name>`, whose step k is the body's R_op at step
  /// k with the body inputs' eval points (a null one is zero); row k of each
  /// result is that of the output's. Built once, on the first call.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  /// n and the row shapes are not connected to the outputs; the body's inputs are.
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

 private:
  void build_lop() const;
  void build_rop() const;

  std::shared_ptr<const OpFromGraph> body_;
  std::string name_;
  ApplyRef body_node_;  // the body applied to its own inputs, for perform

  // Gradient: the map of the body's L_op, and for each body input after k
  // the index of its gradient among that map's outputs, or a marker
  // (DisconnectedType / NullType) when it has none.
  mutable std::once_flag lop_once_;
  mutable std::shared_ptr<const MapOp> lop_map_;
  mutable std::vector<int> lop_index_;
  mutable std::vector<Var> lop_marker_;
  // Forward mode: the map of the body's R_op.
  mutable std::once_flag rop_once_;
  mutable std::shared_ptr<const MapOp> rop_map_;
};

/// Builds a map: `rows` are computed from the step index `k` (a fresh int64
/// 0-d variable) and any other roots, which become the body's inputs (shared
/// variables and constants stay inside). `row_shapes[j]` is an int64 vector,
/// the shape of row j. The Op is named `name`; its body `name` + "_step".
/// Returns one variable per row, of shape (n,) + row shape. Throws TypeError
/// for a k that is not an int64 0-d input, or counts that do not match.
std::vector<Var> map_steps(const Var& n, const Var& k, std::span<const Var> rows,
                           std::span<const Var> row_shapes, const std::string& name = "map");

}  // namespace rw

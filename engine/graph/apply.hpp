// Apply: one application of an Op to input variables, owning its outputs.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "engine/graph/variable.hpp"

namespace rw {

class Op;
/// Ops are immutable and shared between the nodes that apply them.
using OpPtr = std::shared_ptr<const Op>;

class ApplyRef;

/// A node of the graph: `op(inputs…)`. It is allocated in one block with its
/// input handles and its output Variables; holding the node, or any of its
/// outputs, keeps the node alive. Its inputs and its Op change only through
/// the FunctionGraph that holds it (`replace`, `change_input`, `change_op`),
/// which a graph built with `clone = false` shares with its caller.
class Apply {
 public:
  /// A node with these inputs and outputs of these types. No checks: an Op's
  /// `make_node` checks and converts its inputs and then calls this.
  static ApplyRef create(OpPtr op, std::span<const Var> inputs,
                         std::span<const TypePtr> output_types);

  Apply(const Apply&) = delete;
  Apply& operator=(const Apply&) = delete;

  const Op& op() const { return *op_; }
  const OpPtr& op_ptr() const { return op_; }
  /// `op().kind().index()`, kept in the node: a driver glancing at a node's
  /// inputs reads their nodes only, not their Ops.
  std::uint32_t kind_index() const { return kind_; }
  std::size_t num_inputs() const { return n_inputs_; }
  std::span<const Var> inputs() const { return {inputs_, n_inputs_}; }
  const Var& input(std::size_t i) const { return inputs_[i]; }

  std::size_t num_outputs() const { return n_outputs_; }
  /// Output `i` as a handle (keeps this node alive).
  Var output(std::size_t i) const { return Var(&outputs_[i]); }
  /// Output `i` as a reference, valid while this node is alive.
  Variable& output_var(std::size_t i) const { return outputs_[i]; }
  std::vector<Var> outputs() const;
  /// The output a call of the Op returns: its only output, or the Op's
  /// `default_output`. Throws when the node has several and no default.
  Var default_output() const;

  /// A node applying the same Op to other inputs, with the same output types.
  /// No checks; use `op().make_node(...)` for a type-checked node.
  ApplyRef clone_with_inputs(std::span<const Var> inputs) const;

  /// True while this node belongs to a FunctionGraph.
  bool in_fgraph() const { return fgraph_ != nullptr; }

 private:
  friend class ApplyRef;
  friend class FunctionGraph;
  friend class Var;
  friend struct detail::FGraphImpl;
  friend void detail::destroy_unreferenced(Variable*) noexcept;
  friend struct detail::WorklistMark;  // the rewrite driver's scratch, below
  Apply(OpPtr op, std::uint32_t kind, std::size_t n_inputs, std::size_t n_outputs);
  ~Apply();
  static void destroy(Apply* a) noexcept;

  OpPtr op_;
  detail::RefCount count_;
  std::uint32_t n_inputs_;
  std::uint32_t n_outputs_;
  std::uint32_t kind_;  // op_->kind().index()
  Var* inputs_;
  Variable* outputs_;
  // Bookkeeping of the FunctionGraph that holds this node (one at a time).
  detail::FGraphImpl* fgraph_ = nullptr;
  void* vertex_ = nullptr;
  std::uint64_t label_ = 0;  // position in a topological order, see function_graph.cpp
  // Scratch of a rewrite driver's worklist, not part of the node's value: the
  // run that has the node queued, or 0. Reached only through
  // detail::WorklistMark (engine/rewrite/detail/worklist_mark.hpp).
  mutable std::atomic<std::uint32_t> worklist_mark_{0};
};

/// A counted handle to an Apply node.
class ApplyRef {
 public:
  ApplyRef() noexcept = default;
  ApplyRef(std::nullptr_t) noexcept {}
  explicit ApplyRef(Apply* a) noexcept : p_(a) {
    if (p_) p_->count_.n.fetch_add(1, std::memory_order_relaxed);
  }
  ApplyRef(const ApplyRef& o) noexcept : ApplyRef(o.p_) {}
  ApplyRef(ApplyRef&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  ApplyRef& operator=(ApplyRef o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~ApplyRef() {
    if (p_ && p_->count_.n.fetch_sub(1, std::memory_order_acq_rel) == 1) Apply::destroy(p_);
  }

  Apply* get() const noexcept { return p_; }
  Apply* operator->() const noexcept { return p_; }
  Apply& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  friend bool operator==(const ApplyRef& a, const ApplyRef& b) noexcept { return a.p_ == b.p_; }

 private:
  Apply* p_ = nullptr;
};

}  // namespace rw

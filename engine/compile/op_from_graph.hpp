// OpFromGraph: a graph wrapped as one Op (Aesara's compile.builders), run by
// compiling its inner graph once, differentiated by Ops built from it, and
// optionally expanded back into the outer graph by a rewrite.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/compile/function.hpp"
#include "engine/compile/function_options.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

// The rewrites below are for the standard database; a program that only
// builds OpFromGraphs does not need the rewrite engine's headers.
class NodeRewriter;
class RewriteDB;
using NodeRewriterPtr = std::shared_ptr<const NodeRewriter>;

/// A per-input gradient: `inputs` are the inner graph's inputs, `output_grads`
/// one variable per output (Aesara's grad_overrides callables).
using GradOverrideFn =
    std::function<Var(std::span<const Var> inputs, std::span<const Var> output_grads)>;
/// The same, also given the inner outputs (Aesara's lop_overrides).
using LopOverrideFn = std::function<Var(std::span<const Var> inputs, std::span<const Var> outputs,
                                        std::span<const Var> output_grads)>;
/// A per-output directional derivative from the inner inputs and one eval
/// point per input (Aesara's rop_overrides).
using RopOverrideFn =
    std::function<Var(std::span<const Var> inputs, std::span<const Var> eval_points)>;

/// How one input's gradient (or one output's R_op) is made: the default
/// (differentiate the inner graph), a callable, or a marker that it is
/// disconnected or undefined. Default-constructed means 'default'; a callable
/// converts implicitly: `{.grad_overrides = {{}, rescale_dy, {}}}`.
template <class Fn> class Override {
 public:
  enum class Kind : std::uint8_t { Default, Callable, Disconnected, Null };
  Override() = default;
  template <class F>
    requires(std::is_constructible_v<Fn, F> && !std::is_same_v<std::decay_t<F>, Override>)
  Override(F fn) : kind_(Kind::Callable), fn_(std::move(fn)) {}  // NOLINT: implicit by design
  /// Not connected: the gradient is DisconnectedType.
  static Override disconnected() { return Override(Kind::Disconnected, ""); }
  /// Undefined, with the reason (NullType).
  static Override null(std::string why) { return Override(Kind::Null, std::move(why)); }
  Kind kind() const { return kind_; }
  const Fn& fn() const { return fn_; }
  const std::string& why() const { return why_; }

 private:
  Override(Kind kind, std::string why) : kind_(kind), why_(std::move(why)) {}
  Kind kind_ = Kind::Default;
  Fn fn_;
  std::string why_;
};

/// How an OpFromGraph is built (Aesara's keyword arguments).
struct OpFromGraphOptions {
  /// The Op's name: printing shows it, the registry and rules find it by it.
  std::string name = "op_from_graph";
  /// Expand the inner graph into the outer one during rewriting (the
  /// `inline_op_from_graph` rewrite), so that outer rewrites see inside.
  bool inline_graph = false;
  /// Per input: empty means all default. Give either grad or lop overrides.
  std::vector<Override<GradOverrideFn>> grad_overrides;
  std::vector<Override<LopOverrideFn>> lop_overrides;
  /// Per output: empty means all default.
  std::vector<Override<RopOverrideFn>> rop_overrides;
  /// connection[i][j]: output j depends on input i (explicit inputs, then the
  /// shared variables). Computed from the inner graph when not given.
  std::optional<std::vector<std::vector<bool>>> connection_pattern;
  /// The rewrite pipeline the inner graph is compiled with for perform (and
  /// which its gradient Ops inherit). Empty: none.
  GraphRewrite rewrite;
};

/// A graph wrapped as an Op. Its inputs are the explicit inputs, then the
/// shared variables the inner graph uses (picked up automatically; a call
/// may leave them out and they are appended). Equality is identity.
class OpFromGraph final : public Op {
 public:
  /// Throws Error naming the variable: a null, constant or repeated input; a
  /// null output; an output that needs a root variable that is neither an
  /// input, a constant nor a shared variable; overrides of the wrong count,
  /// or both grad and lop overrides; a connection pattern of the wrong shape.
  OpFromGraph(std::vector<Var> inputs, std::vector<Var> outputs, OpFromGraphOptions options = {});

  std::string_view name() const override { return options_.name; }
  std::string to_string() const override { return options_.name; }
  bool equals(const Op& other) const override { return this == &other; }

  /// The inner graph (a private copy): its inputs (explicit, then one per
  /// shared variable) and outputs.
  std::span<const Var> inner_inputs() const { return inner_inputs_; }
  std::span<const Var> inner_outputs() const { return inner_outputs_; }
  /// The shared variables used inside, in the order they follow the explicit inputs.
  std::span<const Var> shared_inputs() const { return shared_; }
  std::size_t num_explicit_inputs() const { return num_explicit_; }
  const OpFromGraphOptions& options() const { return options_; }
  bool is_inline() const { return options_.inline_graph; }

  /// Checks each input against the inner input's type (TypeError naming the
  /// Op and input); appends the shared variables when only the explicit
  /// inputs are given.
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Runs the inner graph, compiled (with options().rewrite) on first use.
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// The inner graph's shapes, in terms of this node's inputs.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Through the gradient OpFromGraph, built on the first call.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// Through the R_op OpFromGraph, built on the first call.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;

  /// The inner graph with `inputs` in place of the inner inputs: a fresh copy.
  std::vector<Var> expand(std::span<const Var> inputs) const;

 private:
  void build_lop() const;
  void build_rop() const;

  OpFromGraphOptions options_;
  std::vector<Var> inner_inputs_, inner_outputs_, shared_;
  std::size_t num_explicit_ = 0;
  std::vector<std::vector<bool>> pattern_;

  mutable std::once_flag compiled_once_, lop_once_, rop_once_;
  mutable std::mutex call_mutex_;
  mutable std::unique_ptr<FunctionBase> fn_;
  // Gradient: for each input, the output of lop_op_ that is its gradient, or
  // a marker variable (DisconnectedType / NullType) when it has none.
  mutable std::shared_ptr<const OpFromGraph> lop_op_;
  mutable std::vector<int> lop_index_;
  mutable std::vector<Var> lop_marker_;
  mutable std::shared_ptr<const OpFromGraph> rop_op_;
};

/// Builds an OpFromGraph.
std::shared_ptr<const OpFromGraph> op_from_graph(std::vector<Var> inputs, std::vector<Var> outputs,
                                                 OpFromGraphOptions options = {});

/// The rewrite that replaces a node of an inline OpFromGraph by a copy of its
/// inner graph (`inline_op_from_graph`, tracking OpFromGraph).
NodeRewriterPtr inline_op_from_graph_rewriter();
/// Registers it in the standard database's canonicalize group (tags
/// fast_run, fast_compile), where it runs before the other rewrites see the node.
void register_op_from_graph_rewrites(RewriteDB& optdb);
/// Expands every inline OpFromGraph node of `fgraph`, nested ones included;
/// usable as a GraphRewrite. Returns the number of nodes expanded.
std::size_t expand_inline_op_from_graph(FunctionGraph& fgraph);

/// Registers `op` under its name, so that rules and graph files can name it.
/// Throws ValueError when the name is taken.
void register_op_from_graph(OpRegistry& registry, std::shared_ptr<const OpFromGraph> op);

/// debugprint of `outputs`, followed by the inner graph of each OpFromGraph
/// and Scan met (nested ones too), each once: "inner graph of `name`:".
std::string debugprint_expanded(std::span<const Var> outputs);

}  // namespace rw

// Provenance: stable ids for the nodes of one rewriting run and the history
// of each — which rule created it, which rule replaced or removed it — and
// the run's firings, in order (what --trace, --why-not and --dot print).
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/feature.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/trace.hpp"

namespace rw::check {

/// A node's id: 1, 2, … — the graph's nodes in topological order when the
/// run starts, then new nodes in the order the graph imports them.
using NodeId = std::size_t;

/// What is known of one node.
struct NodeHistory {
  /// Its id.
  NodeId id = 0;
  /// The node, kept alive so that its address is never reused in the run.
  ApplyRef node;
  /// Its Op's name (`log`). Its infix form is Provenance::expr, made when
  /// asked: printing every node of a deep graph up front cost more than the
  /// rewriting.
  std::string op;
  /// The rewriter whose replacement imported it, and the pass it ran in;
  /// empty for a node of the original graph.
  std::string created_by;
  std::string created_pass;
  /// The rewriter whose replacement removed it from the graph, and the
  /// pass; empty while it is in the graph. `replaced` is true when the
  /// rewriter replaced this node's output itself, false when the node was
  /// pruned because it lost its last use.
  std::string removed_by;
  std::string removed_pass;
  bool replaced = false;
  /// The firing that removed it (index into Provenance::firings()).
  std::optional<std::size_t> removed_in;
};

/// One replacement made during the run. A node that came to apply another Op
/// (FunctionGraph::change_op, as the in-place pass does) is a firing too, of
/// the rewriter that gave the change as its reason: `before_node` and
/// `after_node` are that node, `before` and `after` the Ops.
struct Firing {
  /// The pass and the rewriter (the rule's name, or `merge`, …).
  std::string pass;
  std::string rule;
  /// The replaced variable's node (none for an input or constant) and its
  /// infix form before the replacement (`leaf_or_expr`; see Provenance's `exprs`).
  std::optional<NodeId> before_node;
  std::string before;
  /// The replacement's node (none for an input or constant) and its infix form.
  std::optional<NodeId> after_node;
  std::string after;
  /// Nodes the replacement brought in and nodes it removed, by id. For a
  /// replacement of several outputs at once, the first firing has them.
  std::vector<NodeId> created;
  std::vector<NodeId> removed;
  /// Nodes whose input the replacement changed (its users then), by id; for
  /// a replacement of several outputs at once, the first firing has them.
  std::vector<NodeId> users;
  /// A change of Op (FunctionGraph::change_op): `before` and `after` are the
  /// Ops of the node both name.
  bool op_change = false;
};

/// Attach to a FunctionGraph (as a Feature) and subscribe to the run's
/// Trace (as a TraceListener) before rewriting; read after. With `failures`,
/// the reasons rewriters failed on each node are kept too (for --why-not).
class Provenance final : public Feature, public TraceListener {
 public:
  /// Keeps the last failure reason of the rewriter `failures_of` per node
  /// (none when empty). With `exprs` false, a firing's `before` and `after`
  /// are left empty except for the firings of `failures_of`: a report that
  /// prints no firing does not pay for printing them.
  explicit Provenance(std::string failures_of = {}, bool exprs = true);

  /// Numbers the graph's nodes in topological order.
  void on_attach(FunctionGraph& fgraph) override;
  /// A new node gets the next id and its creator (`reason`: the rewriter).
  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  /// Records who removed the node (undoing a refused change removes nothing).
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  /// A node whose input is replaced: a user of the next firing.
  void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                       const Var& new_var, std::string_view reason) override;
  /// A node that applies another Op: a firing of `reason` (the rewriter) on it.
  void on_change_op(FunctionGraph& fgraph, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override;
  /// Follows passes, collects firings (and the watched rewriter's failures).
  void on_event(const TraceEvent& event) override;
  /// Attempts are heard only for the watched rewriter's failures: without
  /// one, the run's filters and reasons cost what they cost untraced.
  bool wants_attempts() const override { return !watched_.empty(); }

  /// The id of a node seen in the run, or nullopt.
  std::optional<NodeId> id_of(const Apply& node) const;
  /// The history of node `id` (1-based).
  const NodeHistory& node(NodeId id) const { return nodes_.at(id - 1); }
  /// Every node seen, by id.
  const std::vector<NodeHistory>& nodes() const { return nodes_; }
  /// Number of nodes of the graph when the run started.
  std::size_t original_count() const { return original_; }
  /// Every replacement and change of Op, in order.
  const std::vector<Firing>& firings() const { return firings_; }
  /// The last reason the watched rewriter gave for not rewriting node `id`.
  const std::string* failure(NodeId id) const;
  /// Whether the watched rewriter was tried on node `id`.
  bool tried(NodeId id) const;
  /// Node `id` in infix form as it is now: in the graph, or as it was when
  /// it left the graph (a removed node keeps its inputs).
  std::string expr(NodeId id) const;

 private:
  NodeId add(Apply& node, std::string_view reason);
  std::vector<NodeId> pending_users_;
  std::string current_pass() const;

  std::string watched_;
  bool exprs_;
  std::vector<NodeHistory> nodes_;
  std::unordered_map<const Apply*, NodeId> ids_;
  std::size_t original_ = 0;
  std::vector<Firing> firings_;
  std::vector<std::string> passes_;  // the stack of running passes
  std::vector<NodeId> pending_created_;
  std::vector<NodeId> pending_removed_;
  std::map<NodeId, std::string> failures_;
  std::map<NodeId, bool> tried_;
};

/// The infix form of a variable as reports show it (cut at 160 characters).
std::string expr_of(const Variable& var);
/// The same, and for an input or constant its kind and type:
/// `1 (constant i8[])`.
std::string leaf_or_expr(const Variable& var);

}  // namespace rw::check

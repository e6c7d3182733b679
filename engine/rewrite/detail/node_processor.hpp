// The machinery the node-processing drivers share: the Op-kind index of their
// rewriters, the listener that collects what a change touched, and the attempt
// of one rewriter on one node (trace, profile, no-change detection, validated
// replacement, refusal).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

#include "engine/graph/feature.hpp"
#include "engine/rewrite/context.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw::detail {

/// Op kind -> the ranks of the rewriters that track it, resolved once when a
/// driver is built. A lookup is an index by the Op's kind (OpKind), and a
/// short scan of the tracked classes when some rewriter tracks classes;
/// rewriters tracking every Op are merged into each kind's list.
class RewriterIndex {
 public:
  /// `rewriters` in rank order (the order in which a node tries them).
  explicit RewriterIndex(std::span<const NodeRewriterPtr> rewriters);

  /// Each rewriter's filter and its glance, by rank: built with the index,
  /// not by every run of its driver.
  std::span<const NodeFilter* const> filters() const { return filters_; }
  std::span<const NodeFilter::Glance> glances() const { return glances_; }
  /// Whether a rank's filter checks anything (beside its glance, side by side).
  std::span<const std::uint8_t> filtered() const { return filtered_; }

  /// The candidates for a node: two rank-sorted lists, tried merged by rank.
  struct Candidates {
    std::span<const std::uint32_t> a;
    std::span<const std::uint32_t> b;
  };
  /// The candidates for `node`, by the kind the node keeps (its Op is read
  /// only when some rewriter tracks a class).
  Candidates lookup(const Apply& node) const {
    Candidates c;
    const std::uint32_t k = node.kind_index();
    c.a = k < by_kind_.size() ? by_kind_[k] : std::span<const std::uint32_t>(any_);
    if (!by_class_.empty()) c.b = class_candidates(node.op());
    return c;
  }
  /// Whether some rewriter tracks `node`'s Op.
  bool tracks(const Apply& node) const {
    const Candidates c = lookup(node);
    return !c.a.empty() || !c.b.empty();
  }

 private:
  std::span<const std::uint32_t> class_candidates(const Op& op) const;

  // Indexed by OpKind::index(); kinds interned after the index was built, or
  // tracked by nobody, get the rewriters of every Op.
  std::vector<std::span<const std::uint32_t>> by_kind_;
  std::vector<std::vector<std::uint32_t>> lists_;  // what by_kind_ points into
  // Tracked classes by Op::class_index, which the Op keeps: a node's class is
  // an integer compare away (type_info's == compares names as strings when
  // the objects differ), confirmed by type on a match.
  struct ClassRanks {
    std::uint32_t number;
    std::type_index type;
    std::vector<std::uint32_t> ranks;
  };
  std::vector<ClassRanks> by_class_;
  std::vector<std::uint32_t> any_;
  std::vector<const NodeFilter*> filters_;
  std::vector<NodeFilter::Glance> glances_;
  std::vector<std::uint8_t> filtered_;
};

/// The report of a pass over `fgraph` that need try nothing, stopped with
/// `stop`, when no node is tracked by a rewriter of `index` (one look at each
/// node's kind, no sort); the rewriters are listed in the profile, as a run
/// lists them. Otherwise nothing: the pass must run.
std::optional<PassReport> untracked_report(const RewriterIndex& index,
                                           std::span<const NodeRewriterPtr> rewriters,
                                           const FunctionGraph& fgraph, RewriteContext& ctx,
                                           StopReason stop);

/// Calls `f(rank)` for each candidate in rank order (duplicates once) until it
/// returns true; returns whether it did.
template <class F> bool for_each_candidate(const RewriterIndex::Candidates& c, F&& f) {
  std::size_t i = 0, j = 0;
  while (i < c.a.size() || j < c.b.size()) {
    std::uint32_t r;
    if (j == c.b.size() || (i < c.a.size() && c.a[i] < c.b[j])) {
      r = c.a[i++];
    } else if (i == c.a.size() || c.b[j] < c.a[i]) {
      r = c.b[j++];
    } else {
      r = c.a[i++];
      ++j;
    }
    if (f(r)) return true;
  }
  return false;
}

/// Hears every change while a driver runs: which nodes a change touched, and
/// how many nodes came and went.
///
/// It keeps every node pruned while it listens alive until it is detached, so
/// that a driver may hold plain pointers to any node it met during its run
/// (in the graph, or pruned: `FunctionGraph::contains` tells) instead of
/// counted handles, whose atomic counts cost more than the rest of a push
/// and a pop.
class ChangeListener final : public Feature {
 public:
  /// Nodes touched since the driver last took them: imported nodes, nodes
  /// whose inputs or Op changed (their users may match now too).
  std::vector<Apply*> touched;
  /// Nodes whose outputs gained or lost a client (only they may match now).
  std::vector<Apply*> uses_changed;
  /// Of those, the imported nodes and those that apply another Op (for
  /// drivers that queue new nodes only).
  std::vector<Apply*> imported_nodes;
  std::size_t imported = 0;
  std::size_t pruned = 0;
  /// Every callback counts, so a driver can tell whether anything changed.
  std::size_t changes = 0;

  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                       const Var& new_var, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override;
  /// Forgets what was collected (after a refused change, which undid itself).
  void forget() {
    touched.clear();
    uses_changed.clear();
    imported_nodes.clear();
  }
  /// Lets the nodes pruned so far go: for a driver that holds no pointer to
  /// any of them (its worklist is empty and it took what was touched), so
  /// that a long run does not keep every node it removed.
  void release_pruned() { pruned_nodes_.clear(); }

 private:
  std::vector<ApplyRef> pruned_nodes_;  // alive while the driver may point at them
};

/// Applies node rewriters to nodes of one graph for one driver run. Attaches
/// a ChangeListener for its lifetime.
class NodeProcessor {
 public:
  /// `rewriters` in rank order, and their index; `pass` names the driver in
  /// events.
  NodeProcessor(std::string_view pass, std::span<const NodeRewriterPtr> rewriters,
                const RewriterIndex& index, FunctionGraph& fgraph, RewriteContext& ctx);
  ~NodeProcessor();
  NodeProcessor(const NodeProcessor&) = delete;
  NodeProcessor& operator=(const NodeProcessor&) = delete;

  /// Tries rewriter `rank` on `node` (which is in the graph; `glance` is
  /// NodeFilter::glance_at(node)). True when the graph changed; a failure, an
  /// error, a no-change success or a refused replacement leave the graph as
  /// it was and return false. When nobody listens to attempts, a node the
  /// rewriter's filter refuses fails here, before `transform` (counted as an
  /// attempt when profiling): most at a glance, in a few compares of
  /// integers the processor keeps side by side, the rest by the filter.
  bool attempt(std::uint32_t rank, Apply& node, const NodeFilter::NodeGlance& glance) {
    if (!ctx_.explaining() &&
        (!glances_[rank].admits(glance) || (filtered_[rank] && !filters_[rank]->accepts(node)))) {
      if (!stats_.empty()) ++stats_[rank]->attempts;
      return false;
    }
    return transform_and_replace(rank, node);
  }

  ChangeListener& listener() { return *listener_; }
  /// Replacements made so far, in total and per rank.
  std::size_t applications() const { return applications_; }
  std::size_t applied(std::uint32_t rank) const { return applied_[rank]; }
  const NodeRewriter& rewriter(std::uint32_t rank) const { return *rewriters_[rank]; }
  std::size_t size() const { return rewriters_.size(); }

 private:
  bool transform_and_replace(std::uint32_t rank, Apply& node);
  bool record_error(std::uint32_t rank, Apply& node, std::string_view message);

  std::string_view pass_;
  std::span<const NodeRewriterPtr> rewriters_;
  std::span<const NodeFilter* const> filters_;  // per rank, kept by the index
  std::span<const NodeFilter::Glance> glances_;  // per rank, side by side
  std::span<const std::uint8_t> filtered_;       // per rank
  FunctionGraph& fgraph_;
  RewriteContext& ctx_;
  std::shared_ptr<ChangeListener> listener_;
  std::vector<RewriterStats*> stats_;  // per rank; empty when not profiling
  std::vector<std::size_t> applied_;
  std::size_t applications_ = 0;
  std::vector<std::pair<Var, Var>> pairs_;  // reused between attempts
};

/// True when `new_var` is a fresh node computing exactly what `old_var`'s node
/// computes (same Op, same inputs, same output slot and type): replacing one by
/// the other would change nothing.
bool same_computation(const Variable& old_var, const Variable& new_var);

}  // namespace rw::detail

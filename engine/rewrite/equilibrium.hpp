// EquilibriumRewriter: the node-processing driver that applies node rewriters
// until nothing changes (Aesara's EquilibriumGraphRewriter), re-trying only
// the nodes a change touched, with a guard against rewrites that never settle.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

namespace detail {
class RewriterIndex;
}

/// The default growth bound: a run may grow the graph to 16 times its initial
/// node count, and in any case by 4096 nodes. Ordinary rewriting (inlining
/// included) stays far below; a rule that keeps adding nodes reaches it fast.
inline constexpr double kDefaultMaxGrowth = 16;
inline constexpr std::size_t kDefaultGrowthAllowance = 4096;

namespace detail {
/// The most nodes a run that starts with `initial` may make: max(`factor` x
/// `initial`, `initial` + `allowance`), saturating; 0 (no bound) for factor 0.
std::size_t growth_bound(std::size_t initial, double factor, std::size_t allowance);
/// Throws RewriteError, naming `owner`, unless `factor` is 0 or at least 1 and finite.
void check_growth_factor(std::string_view owner, double factor);
}  // namespace detail

/// Applies its node rewriters to a fixed point.
///
/// A worklist holds the nodes still to try, first in topological order
/// (inputs before users). A node tries the rewriters that track its Op kind
/// (one index lookup), by decreasing benefit. When one applies, the driver
/// queues exactly the nodes the change touched — new nodes and nodes whose
/// inputs changed, with the users above them up to the largest `depth` of its
/// rewriters, and nodes whose outputs gained or lost a use (with the users
/// above them up to the depth of the rewriters that read uses). When some rewriter has
/// `kAnyDepth`, a quiet worklist is followed by a sweep of the whole graph
/// until a sweep changes nothing (Aesara's behaviour).
///
/// Graph rewriters join in three roles (as in Aesara): global rewriters run at
/// the start of each round, final rewriters at its end, and cleanup rewriters
/// (e.g. merge) after every change. Rounds repeat until one changes nothing.
///
/// A replacement the graph refuses leaves it unchanged; the run goes on. A
/// success that would change nothing (the same variable, or a fresh node with
/// the same Op and inputs) is reported as no-change, not counted as progress.
///
/// Limits, set by chained calls, stop the run with a StopReason and a
/// diagnostic instead of running forever: a rewriter applied more than
/// `max_use_ratio` times the largest node count seen (default 8), a growth
/// bound relative to the graph's initial size (on by default: the two
/// together stop every runaway), a node limit, a time limit.
class EquilibriumRewriter final : public GraphRewriter {
 public:
  /// A driver of these node rewriters; throws RewriteError for an empty name,
  /// a null rewriter or two of one name.
  explicit EquilibriumRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters = {});
  ~EquilibriumRewriter() override;

  /// Adds a node rewriter; throws RewriteError when one of that name is there.
  EquilibriumRewriter& add(NodeRewriterPtr rewriter);
  /// Adds a graph rewriter run at the start of each round.
  EquilibriumRewriter& add_global(GraphRewriterPtr rewriter);
  /// Adds a graph rewriter run at the end of each round.
  EquilibriumRewriter& add_final(GraphRewriterPtr rewriter);
  /// Adds a graph rewriter run after every change; it must be cheap when there
  /// is nothing to do (as MergeOptimizer is).
  EquilibriumRewriter& add_cleanup(GraphRewriterPtr rewriter);

  /// Each rewriter may apply at most `ratio` times the largest number of nodes
  /// the graph had (Aesara's max_use_ratio, default 8). Must be positive.
  EquilibriumRewriter& with_max_use_ratio(double ratio);
  /// Stop when the graph grows beyond max(`factor` x its node count when the
  /// run started, that count + `allowance`) nodes (StopReason::GrowthLimit).
  /// On by default (kDefaultMaxGrowth, kDefaultGrowthAllowance); `factor` must
  /// be at least 1, or 0 to turn the bound off.
  EquilibriumRewriter& with_max_growth(double factor,
                                       std::size_t allowance = kDefaultGrowthAllowance);
  /// Stop when the graph grows beyond `nodes` nodes (0: no limit, the default).
  EquilibriumRewriter& with_node_limit(std::size_t nodes);
  /// Stop after `seconds` (0: no limit, the default).
  EquilibriumRewriter& with_time_limit(double seconds);

  /// The limits set (0: none).
  double max_use_ratio() const { return max_use_ratio_; }
  std::size_t node_limit() const { return node_limit_; }
  double time_limit() const { return time_limit_; }
  double max_growth() const { return max_growth_; }
  std::size_t growth_allowance() const { return growth_allowance_; }
  /// The node rewriters in the order a node tries them (benefit, then order given).
  const std::vector<NodeRewriterPtr>& rewriters() const { return rewriters_; }
  /// The graph rewriters of each role.
  const std::vector<GraphRewriterPtr>& global_rewriters() const { return global_; }
  const std::vector<GraphRewriterPtr>& final_rewriters() const { return final_; }
  const std::vector<GraphRewriterPtr>& cleanup_rewriters() const { return cleanup_; }
  /// The largest depth among the node rewriters (kAnyDepth when one has it).
  int max_depth() const { return max_depth_; }
  /// The largest depth among the node rewriters that read uses (0 if none).
  int uses_depth() const { return uses_depth_; }

  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
  std::string summary(int indent = 0) const override;

 private:
  friend struct EquilibriumRun;
  void check_new_name(const std::string& name) const;
  void insert(NodeRewriterPtr rewriter);
  void reindex();

  std::vector<NodeRewriterPtr> rewriters_;
  std::vector<GraphRewriterPtr> global_;
  std::vector<GraphRewriterPtr> final_;
  std::vector<GraphRewriterPtr> cleanup_;
  std::unique_ptr<detail::RewriterIndex> index_;
  int max_depth_ = 0;
  int uses_depth_ = 0;
  double max_use_ratio_ = 8.0;
  std::size_t node_limit_ = 0;
  double time_limit_ = 0;
  double max_growth_ = kDefaultMaxGrowth;
  std::size_t growth_allowance_ = kDefaultGrowthAllowance;
};

}  // namespace rw

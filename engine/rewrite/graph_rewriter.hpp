// GraphRewriter: a rewrite of a whole FunctionGraph (a pass), with the
// features it requires, and the report of a run: what changed, why it stopped.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/context.hpp"

namespace rw {

/// Why a pass stopped (egg's StopReason). Only Saturated and Completed mean
/// the pass did all it was asked; the others leave a valid graph that the
/// pass had not finished rewriting.
enum class StopReason : unsigned char {
  Saturated,     ///< a fixed point: no rewriter applies anywhere
  Completed,     ///< a single-pass rewriter went through the whole graph
  RewriteLimit,  ///< a rewriter kept firing (Aesara's max_use_ratio guard)
  NodeLimit,     ///< the graph grew beyond the node limit
  GrowthLimit,   ///< the graph grew beyond its growth bound (relative to its initial size)
  TimeLimit,     ///< the time limit ran out
};

/// "saturated", "completed", "rewrite limit", "node limit", "growth limit", "time limit".
std::string_view stop_reason_name(StopReason reason);

/// What one run of a pass did.
struct PassReport {
  /// The pass's name.
  std::string pass;
  /// Why it stopped.
  StopReason stop = StopReason::Completed;
  /// For a pass that stopped early, what happened, naming the rewriters at fault.
  std::string diagnostic;
  /// Replacements the pass made itself (not counting nested passes).
  std::size_t applications = 0;
  /// Whether the graph changed (including through nested passes).
  bool changed = false;
  /// Nodes in the graph before and after the pass.
  std::size_t nodes_before = 0;
  std::size_t nodes_after = 0;
  /// The most nodes the graph had during the pass.
  std::size_t nodes_max = 0;
  /// Reports of nested passes, in the order they ran.
  std::vector<PassReport> children;

  /// True when this pass and every nested pass ran to its end (no limit hit).
  bool ok() const;
  /// The diagnostics of every pass that stopped early, one per line.
  std::string problems() const;
};

/// A rewrite of a whole graph (Aesara's GraphRewriter): a driver that applies
/// node rewriters, a sequence of passes, merging, or any global change.
/// Graph rewriters are immutable once built and may be applied to many graphs,
/// one at a time each.
class GraphRewriter {
 public:
  virtual ~GraphRewriter() = default;
  GraphRewriter(const GraphRewriter&) = delete;
  GraphRewriter& operator=(const GraphRewriter&) = delete;

  /// The pass's name, in reports, trace events, profiles and databases.
  const std::string& name() const { return name_; }

  /// Attaches the features `apply` relies on (Aesara's add_requirements).
  virtual void add_requirements(FunctionGraph& fgraph) const { (void)fgraph; }
  /// Rewrites `fgraph` (requirements already attached). Drivers and sequences
  /// call `run`, which adds the trace events and profile of the pass.
  virtual PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const = 0;
  /// One line per rewriter, indented by nesting: what the pass consists of.
  virtual std::string summary(int indent = 0) const;

  /// `apply` between PassStarted and PassEnded events, profiled when the
  /// context has a profile.
  PassReport run(FunctionGraph& fgraph, RewriteContext& ctx) const;
  /// `add_requirements` then `run` (Aesara's rewrite).
  PassReport rewrite(FunctionGraph& fgraph, RewriteContext& ctx) const;
  /// `rewrite` with a silent context.
  PassReport rewrite(FunctionGraph& fgraph) const;

 protected:
  /// Throws RewriteError when `name` is empty.
  explicit GraphRewriter(std::string name);

 private:
  std::string name_;
};

/// Shared, immutable graph rewriters.
using GraphRewriterPtr = std::shared_ptr<const GraphRewriter>;

/// A graph rewriter made from a function (Aesara's @graph_rewriter). The
/// function reports whether it changed the graph.
class FunctionGraphRewriter final : public GraphRewriter {
 public:
  /// Rewrites the graph; returns whether it changed it.
  using Fn = std::function<bool(FunctionGraph&, RewriteContext&)>;
  /// Attaches the features `Fn` needs.
  using Requirements = std::function<void(FunctionGraph&)>;
  /// Throws RewriteError for an empty name or function.
  FunctionGraphRewriter(std::string name, Fn fn, Requirements requirements = {});
  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;

 private:
  Fn fn_;
  Requirements requirements_;
};

}  // namespace rw

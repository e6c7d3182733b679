// Profiling of rewriting: per pass time and node counts, per rewriter time,
// attempts, applications, nodes created and removed; printed as a table.
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

/// What one rewriter did within one pass, summed over the pass's runs.
struct RewriterStats {
  /// The rewriter's name.
  std::string name;
  /// Time spent in the rewriter (matching, building, and its replacements).
  double seconds = 0;
  /// Nodes it was tried on (for a graph rewriter inside a pass: invocations).
  std::size_t attempts = 0;
  /// Attempts that changed the graph.
  std::size_t applied = 0;
  /// Attempts that claimed success but would have changed nothing.
  std::size_t no_change = 0;
  /// Attempts whose replacement the graph refused.
  std::size_t refused = 0;
  /// Attempts that threw an rw::Error.
  std::size_t errors = 0;
  /// Nodes its replacements brought into the graph, and nodes they removed.
  std::size_t nodes_created = 0;
  std::size_t nodes_removed = 0;
};

/// One pass (a graph rewriter run under a profile), summed over its runs.
struct PassProfile {
  /// The pass's name.
  std::string name;
  /// Nesting depth: 0 for a pass run directly, 1 for a pass of a sequence, …
  int depth = 0;
  /// Runs of the pass and their total time.
  std::size_t runs = 0;
  double seconds = 0;
  /// Nodes when the pass started and ended (summed over runs), and the most
  /// the graph had while it ran (maximum over runs).
  std::size_t nodes_start = 0;
  std::size_t nodes_end = 0;
  std::size_t nodes_max = 0;
  /// Replacements made by the pass itself (not counting nested passes).
  std::size_t applications = 0;
  /// Why the last run stopped ("saturated", "completed", "rewrite limit", …).
  std::string stop;
  /// Rewriters of the pass, in the order they first ran.
  std::deque<RewriterStats> rewriters;
  /// Nested passes, in the order they first ran.
  std::vector<PassProfile*> children;

  /// The stats of rewriter `name`, created on first use (references stay valid).
  RewriterStats& rewriter(std::string_view name);
  /// The stats of rewriter `name`, or nullptr.
  const RewriterStats* find_rewriter(std::string_view name) const;
};

/// Collects PassProfiles as passes run; hand it to the drivers through
/// RewriteContext. One profile can accumulate several runs.
class RewriteProfile {
 public:
  RewriteProfile() = default;
  RewriteProfile(const RewriteProfile&) = delete;
  RewriteProfile& operator=(const RewriteProfile&) = delete;

  /// Enters pass `name` nested in the current pass (or at top level) and makes
  /// it current. A pass entered again under the same parent accumulates.
  PassProfile& enter(std::string_view name);
  /// Leaves the current pass.
  void leave();
  /// The pass being run, or nullptr.
  PassProfile* current() const { return stack_.empty() ? nullptr : stack_.back(); }

  /// The first pass named `name` (depth-first, in order of first run), or nullptr.
  const PassProfile* find(std::string_view name) const;
  /// Every pass, depth-first in order of first run.
  std::vector<const PassProfile*> passes() const;
  /// The profile as a table: a row per pass (indented by nesting) with its
  /// runs, time and node counts, and under it a row per rewriter.
  std::string table() const;

 private:
  std::deque<PassProfile> store_;
  std::vector<PassProfile*> roots_;
  std::vector<PassProfile*> stack_;
};

}  // namespace rw

// --why-not RULE: for every node the rule could root at, why it did not
// rewrite it — the first subpattern or guard that failed, the rule that
// rewrote the node first — or that it did.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/dsl/rule_registration.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/mode.hpp"
#include "tools/rwcheck/provenance.hpp"

namespace rw::check {

/// What happened between a rule and one node of its root op.
enum class WhyNotStatus : unsigned char {
  Fired,      ///< the rule replaced the node
  Failed,     ///< the rule does not apply to it (in the final graph): `reason`
  RemovedBy,  ///< another rewriter replaced or removed the node first: `by`, `pass`
  NotRun,     ///< the rule applies to the node, but the mode does not run it
};

/// One node the rule could root at.
struct WhyNotEntry {
  NodeId node = 0;
  /// The node in infix form: as it is in the final graph, or as it was
  /// when it was replaced or removed.
  std::string expr;
  WhyNotStatus status = WhyNotStatus::Failed;
  /// Failed: why not; RemovedBy: the rule's last failure on it, if it was
  /// tried before; Fired: the replacement's infix form.
  std::string reason;
  /// RemovedBy: the rewriter and pass; whether it replaced the node itself
  /// (true) or removed it as no longer used (false). Fired: the pass.
  std::string by;
  std::string pass;
  bool replaced = false;
};

/// The answer for one rule.
struct WhyNotReport {
  std::string rule;
  /// The op its left side is rooted at, its group and other tags.
  std::string op;
  std::string group;
  std::vector<std::string> tags;
  /// Whether the mode's pipeline runs the rule (its group and tags selected).
  bool selected = false;
  /// The mode's name and query (for the explanation when not selected).
  std::string mode;
  std::string query;
  /// Every node of the op seen during the run, by id.
  std::vector<WhyNotEntry> entries;
  /// How many times the rule fired.
  std::size_t fired = 0;
};

/// Explains `rule` over a finished run: `fgraph` is the rewritten graph,
/// `provenance` watched the run (with the rule's failures), `mode` ran it.
WhyNotReport explain_why_not(const dsl::CompiledRule& rule, const FunctionGraph& fgraph,
                             const Provenance& provenance, const Mode& mode);

/// The report as text (one line per node, then a summary).
std::string format_why_not(const WhyNotReport& report);

}  // namespace rw::check

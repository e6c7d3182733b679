// rwcheck lint: findings about a rule set — rules shadowed by an earlier one,
// pairs that undo each other, rules that grow the graph and can match their
// own output — each a warning at the rule's name.
#pragma once

#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "tools/rwcheck/rule_sources.hpp"

namespace rw::check {

/// Every finding about `rules`, in load order of the rule they are about.
///
/// - **shadowed**: an earlier rule of the same group, without a guard, with
///   a priority at least as high and allowing shared inner nodes whenever
///   this one does, whose left side is at least as general: this rule's left
///   side is an instance of it (one-way syntactic matching of the terms,
///   op parameters included). Such an earlier rule is tried first on every
///   node this one matches, so this one fires only where the earlier one's
///   result does not fit (cannot be built, or has another type than the node).
/// - **undo**: two rules, each one's right side an instance of the other's
///   left side: together they can rewrite forever (the equilibrium driver's
///   use-ratio guard stops them).
/// - **growth**: a right side with more op applications than the left side,
///   one of which unifies with the left side: each firing makes new work
///   for the rule.
std::vector<dsl::Diagnostic> lint_rules(const RuleSet& rules);

/// Load diagnostics that lint reports as findings (unknown ops) rather than
/// as errors, turned into warnings; the others are returned unchanged.
std::vector<dsl::Diagnostic> lint_load_diagnostics(std::vector<dsl::Diagnostic> diagnostics);

}  // namespace rw::check

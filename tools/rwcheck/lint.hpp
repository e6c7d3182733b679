// rwcheck lint: findings about a rule set — rules shadowed by an earlier one,
// pairs that undo each other, rules that grow the graph and can match their
// own output — each a warning at the rule's name, unless a `# lint:
// allow(KIND)` comment on the line before the rule silences it.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "tools/rwcheck/rule_sources.hpp"

namespace rw::check {

/// The kinds of finding, as `# lint: allow(KIND, ...)` names them.
inline constexpr std::array<std::string_view, 3> kLintKinds = {"shadowed", "undo", "growth"};

/// One thing lint reports: a warning (a finding, which makes lint exit 1) or
/// a note (information only), and its kind: one of kLintKinds, or `allow`
/// for an allow comment that is itself wrong.
struct LintFinding {
  std::string kind;
  dsl::Diagnostic diagnostic;
};

/// Every finding about `rules`, in load order of the rule they are about,
/// less those an allow comment silences: a whole-line comment `# lint:
/// allow(shadowed, growth)` on the line just before a rule silences those
/// kinds at that rule only. An unknown kind, a malformed allow comment, or
/// one that is not on the line before a rule is a finding of kind `allow`;
/// those come first, in file order.
///
/// - **shadowed**: an earlier rule of the same group, without a guard, with
///   a priority at least as high and allowing shared inner nodes whenever
///   this one does, whose left side is at least as general: this rule's left
///   side is an instance of it (one-way syntactic matching of the terms,
///   op parameters included). Such an earlier rule is tried first on every
///   node this one matches, so this one fires only where the earlier one's
///   result does not fit (cannot be built, or has another type than the node).
///   When the only such earlier rules have a guard, a note (not a warning):
///   the rule is shadowed wherever the guard holds.
/// - **undo**: two rules, each one's right side an instance of the other's
///   left side: together they can rewrite forever (the equilibrium driver's
///   use-ratio guard stops them).
/// - **growth**: a right side with more op applications than the left side,
///   one of which unifies with the left side: each firing makes new work
///   for the rule.
std::vector<LintFinding> lint_rules(const RuleSet& rules);

}  // namespace rw::check

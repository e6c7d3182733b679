// Pattern: a term compiled for matching graph variables — the hot path of
// rewriting: no search machinery, no allocation when a match fails, and a
// reason (which subpattern failed, and on what) when it does.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/graph/variable.hpp"
#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"
#include "engine/unify/theory.hpp"

namespace rw {

class FunctionGraph;
class Pattern;
class MatchResult;
struct MatchOptions;
MatchResult match(const Pattern& p, const Variable& v, const MatchOptions& options);
std::size_t match_each(const Pattern& p, const Variable& v, const MatchOptions& options,
                       const std::function<bool(const Substitution&)>& f);

/// What went wrong where a match failed.
enum class MatchFailKind : std::uint8_t {
  None,             ///< no failure (the match succeeded)
  NotComputed,      ///< an application was expected; the variable is an input or constant
  NotDefaultOutput, ///< the variable is a non-default output of a multi-output node
  OpMismatch,       ///< another Op (or the same Op with other properties)
  ArityMismatch,    ///< the node has another number of inputs
  NoArrangement,    ///< no arrangement of an associative Op's operands fits
  NotConstant,      ///< a literal was expected; the variable is not a constant
  LiteralMismatch,  ///< a constant with another value
  LeafMismatch,     ///< a particular graph variable was expected
  BindingMismatch,  ///< a repeated variable would stand for two different values
  NeverMatches,     ///< the subpattern is an atom no graph variable can be (a string…)
  GuardFailed,      ///< the structure matched; a guard said no
  ConstraintFailed, ///< a subpattern's constraint refused the variable it reached
};

/// Where and why a match failed. Cheap to make (no allocation); turn it into
/// a message with `Pattern::explain` while the matched graph is alive.
struct MatchFailure {
  MatchFailKind kind = MatchFailKind::None;
  std::uint32_t node = 0;              ///< the subpattern (index into the compiled pattern)
  const Variable* subject = nullptr;   ///< the graph variable it was matched against
  std::uint64_t detail = 0;            ///< kind-specific: the guard or constraint index, a slot…
};

/// How `match` runs.
struct MatchOptions {
  /// The graph the matched variable belongs to, which guards see through
  /// `Bindings::fgraph()` and constraints as their second argument (null:
  /// none — a guard that needs it then decides without it).
  const FunctionGraph* fgraph = nullptr;
  /// When a guard with an `explain` function fails first, call it, so that
  /// `MatchResult::why()` says why and not only which guard. Costs nothing
  /// unless a guard fails.
  bool explain = false;
};

/// The variables a successful structural match bound, as guards see them.
class Bindings {
 public:
  /// The value bound to pattern variable `var` (a graph term for graph
  /// variables), or the null term.
  Term operator[](const Term& var) const;
  /// The graph variable `var` is bound to, or null when it is bound to
  /// something else (a property value, a regrouped application).
  Var graph(const Term& var) const;
  /// The graph being matched in, when the caller gave one (MatchOptions).
  const FunctionGraph* fgraph() const { return fgraph_; }

 private:
  friend class Matcher;
  Bindings(const Pattern& p, std::span<const std::uint64_t> slots, const FunctionGraph* fgraph)
      : pattern_(p), slots_(slots), fgraph_(fgraph) {}
  const Pattern& pattern_;
  std::span<const std::uint64_t> slots_;
  const FunctionGraph* fgraph_;
};

/// A guard: a named predicate over the bindings (the rules language's
/// `where float(y)`), checked after the structure matched; with an Op
/// declared commutative or associative, a failing guard makes the matcher
/// try the next arrangement.
struct Guard {
  /// How messages name it: `float(y)`.
  std::string name;
  /// True to accept the bindings.
  std::function<bool(const Bindings&)> check;
  /// Optional: why the guard rejects these bindings, called only when it
  /// failed first and the match was asked to explain (MatchOptions).
  std::function<std::string(const Bindings&)> explain;
};

/// A condition on the graph variable that one subpattern reaches (Aesara's
/// `{"pattern": …, "constraint": …}`): checked as soon as the matcher gets
/// there — before the subpattern's inputs are looked at — so a refusal prunes
/// the match early and says where.
struct Constraint {
  /// How messages name it: `positive`.
  std::string name;
  /// True to accept the variable; the graph is MatchOptions::fgraph (or null).
  std::function<bool(const Variable&, const FunctionGraph*)> check;
};

/// The result of `match`: the substitution of the pattern's variables, or
/// the reason it failed.
class MatchResult {
 public:
  /// Whether the pattern matched.
  explicit operator bool() const { return failure_.kind == MatchFailKind::None; }
  bool has_value() const { return failure_.kind == MatchFailKind::None; }
  /// The bindings of the pattern's variables (empty on failure).
  const Substitution& operator*() const { return subst_; }
  const Substitution* operator->() const { return &subst_; }
  /// Where and why it failed (kind None on success).
  const MatchFailure& failure() const { return failure_; }
  /// "input 1 of `mul`: expected constant 1, got `y`" ("" on success). It
  /// reads the pattern and the matched graph, which must still be alive: a
  /// failure records where, not copies, so that failing costs nothing.
  std::string why() const;

 private:
  friend class Matcher;
  friend MatchResult match(const Pattern& p, const Variable& v, const MatchOptions& options);
  Substitution subst_;
  MatchFailure failure_;
  const Pattern* pattern_ = nullptr;
  std::string explanation_;  // a guard's own explanation (MatchOptions::explain)
};

/// A pattern term compiled for matching graph variables.
///
/// The term may contain: logic variables (bound on first occurrence, checked
/// on the next ones); applications `head(args…)` whose head is an Op atom
/// (matched by Op equality), an op pattern `name{prop=term…}` (matched by name
/// and unifying the listed properties, which may contain variables), a
/// symbol (any Op of that name) or a variable (bound to the Op); literals
/// (matched against constants per `literal_matches_constant`); and graph
/// variables (matched by identity, or by structure). Ops declared commutative
/// or associative in the theory match in every arrangement of their
/// operands, the plain one first.
class Pattern {
 public:
  /// Compiles `term`. Throws TermError for the null term.
  explicit Pattern(Term term, Theory theory = {});
  Pattern(const Pattern&) = default;
  Pattern(Pattern&&) noexcept = default;
  Pattern& operator=(const Pattern&) = default;
  Pattern& operator=(Pattern&&) noexcept = default;
  ~Pattern();

  /// Adds a guard; chainable: `Pattern(t).where("float(y)", f)`. `explain`,
  /// optional, says why the guard rejects bindings (see Guard).
  Pattern& where(std::string name, std::function<bool(const Bindings&)> check,
                 std::function<std::string(const Bindings&)> explain = {});
  /// Adds a constraint on the subpattern at `path` — input positions from
  /// the root: `{}` is the root, `{0, 1}` input 1 of input 0 — as written in
  /// the term (associative flattening does not change paths). Throws
  /// TermError when the path leads nowhere or `check` is empty. Chainable.
  Pattern& constrain(const std::vector<std::uint32_t>& path, std::string name,
                     std::function<bool(const Variable&, const FunctionGraph*)> check);

  /// The pattern term, its theory and its guards.
  const Term& term() const { return term_; }
  const Theory& theory() const { return theory_; }
  const std::vector<Guard>& guards() const { return guards_; }
  /// The constraints, in the order added.
  const std::vector<Constraint>& constraints() const { return constraints_; }
  /// The pattern's variables in order of first appearance.
  std::span<const Term> variables() const { return vars_; }
  /// The name of the Op at the root when the root is an application with a
  /// named head ("" for a variable head or a pattern that is not an
  /// application): what a rewriter dispatches on.
  std::string_view root_op_name() const { return root_name_; }

  /// A message for a failure of this pattern: the path to the subpattern
  /// ("input 1 of `mul`: ") and what it found.
  std::string explain(const MatchFailure& failure) const;
  /// The subpattern with index `node` (of `MatchFailure::node`).
  const Term& subpattern(std::uint32_t node) const;

  /// Compiled form, for the matcher.
  struct Node;

 private:
  friend class Matcher;
  friend class Bindings;
  friend MatchResult match(const Pattern& p, const Variable& v, const MatchOptions& options);
  friend std::size_t match_each(const Pattern& p, const Variable& v, const MatchOptions& options,
                                const std::function<bool(const Substitution&)>& f);
  void compile();
  int slot_of(const Term& var) const;

  Term term_;
  Theory theory_;
  std::vector<Guard> guards_;
  std::vector<Constraint> constraints_;
  std::vector<Term> vars_;
  /// vars_'s slots by variable id, for patterns with many variables (built
  /// by compile past kScanSlots; slot_of scans fewer).
  std::shared_ptr<const std::unordered_map<std::uint64_t, std::uint32_t>> slot_index_;
  std::string root_name_;
  std::shared_ptr<const std::vector<Node>> nodes_;
  bool has_choices_ = false;  // some node is commutative or associative
};

/// Matches `p` against `v`: the first match (the plain arrangement first),
/// or the reason there is none. A failure at the root Op costs a name
/// comparison and no allocation.
MatchResult match(const Pattern& p, const Var& v);
/// The same with options: the graph guards and constraints see, and whether
/// a failing guard is asked why.
MatchResult match(const Pattern& p, const Variable& v, const MatchOptions& options);

/// Calls `f` with each match of `p` against `v` — several when an Op is
/// commutative or associative — until `f` returns false. Returns the number
/// of matches `f` saw; each distinct binding is seen once.
std::size_t match_each(const Pattern& p, const Var& v,
                       const std::function<bool(const Substitution&)>& f);
std::size_t match_each(const Pattern& p, const Variable& v, const MatchOptions& options,
                       const std::function<bool(const Substitution&)>& f);

/// Every match, up to `limit`.
std::vector<Substitution> match_all(const Pattern& p, const Var& v,
                                    std::size_t limit = static_cast<std::size_t>(-1));

}  // namespace rw

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

#include "engine/graph/op.hpp"
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
  /// The graph variable in `slot` (Pattern::slot), or null when the slot
  /// holds something else (a property value, a regrouping) or is out of
  /// range: the read of guards compiled with their pattern, without looking
  /// the variable up.
  Var graph_at(std::uint32_t slot) const;
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
  /// Optional: the slots it reads (Pattern::slot), for the program listing.
  std::vector<std::uint32_t> slots;
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
  /// Adds a guard given whole. Throws TermError when it has no check or
  /// lists a slot the pattern does not have.
  Pattern& where(Guard guard);
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

  /// One instruction of the compiled program: a subpattern, visited in
  /// pre-order (a node's index is smaller than its inputs'), with the test
  /// it makes of the graph value it reaches. Node 0 is the root.
  struct Node {
    enum class Kind : std::uint8_t {
      Var,      ///< bind the value to `slot` on first visit, else compare with it
      Literal,  ///< a constant equal to `term`
      Leaf,     ///< exactly the graph variable `term`
      Apply,    ///< a node of the Op `head` names, then its inputs
      Never,    ///< an atom no graph value is (a string, a tuple…)
    };
    /// How an Apply names its Op.
    enum class Head : std::uint8_t {
      OpAtom,     ///< an Op, compared whole (kind and properties)
      OpPattern,  ///< `name{prop=term…}`: the name, then each listed property unified
      Symbol,     ///< a name alone: any Op of that name
      Var,        ///< a variable (its `slot`) bound to the Op
    };
    Kind kind = Kind::Never;
    Head head = Head::OpAtom;
    bool commutative = false, associative = false;
    /// The node whose input this is (kNoParent for the root) and which input.
    std::uint32_t parent = 0xffffffffu, position = 0;
    /// Var: its slot; Apply with a variable head: the head's.
    std::uint32_t slot = 0;
    /// Applications between this node and the root (0 for the root).
    std::uint32_t depth = 0;
    /// Apply: the input subpatterns, in order.
    std::vector<std::uint32_t> children;
    /// Associative Apply: the flattened operand subpatterns.
    std::vector<std::uint32_t> operands;
    /// Indices into Pattern::constraints(), checked on arrival.
    std::vector<std::uint32_t> constraints;
    /// This subpattern, and an Apply's head.
    Term term;
    Term head_term;
    /// Apply: the Op name the head stands for, and its kind (none for a
    /// variable head).
    std::string name;
    OpKind op_kind;
  };
  static constexpr std::uint32_t kNoParent = 0xffffffffu;

  /// What the program says about the pattern as a whole: what a rewriter's
  /// depth, filter and shared-node check are read from.
  struct Facts {
    /// Applications on the longest path below the root (0: the root only).
    int depth = 0;
    /// Whether some application's Op is commutative, or associative.
    bool commutative = false, associative = false;
    /// Input-position paths of the applications below the root, sorted.
    std::vector<std::vector<std::uint32_t>> intermediates;
    /// The graph variables written into the pattern.
    std::vector<Term> leaves;
  };

  /// The compiled program, root first.
  std::span<const Node> program() const;
  /// Its facts.
  const Facts& facts() const { return *facts_; }
  /// The input-position path from the root to node `index` of the program.
  std::vector<std::uint32_t> path_of(std::uint32_t index) const;
  /// The slot a pattern variable is bound in, or nullopt when it is not one
  /// of the pattern's. Guards compiled with the pattern read slots directly
  /// (`Bindings::graph_at`).
  std::optional<std::uint32_t> slot(const Term& var) const;
  /// The program as text, one instruction per line, then the guards and
  /// constraints (`rwcheck --show-program`).
  std::string listing() const;

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
  std::shared_ptr<const Facts> facts_;
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

// Compiling checked rules into rewriters: each side of a rule into a term, the
// left side into a unify Pattern (the module's declarations as its theory, the
// guard adapted to the match), the whole into a PatternNodeRewriter.
#pragma once

#include <memory>
#include <vector>

#include "engine/dsl/rule.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"
#include "engine/unify/term.hpp"
#include "engine/unify/theory.hpp"

namespace rw::dsl {

/// The matching theory a module declares: `declare add: commutative,
/// associative` makes `add` commutative and associative for every rule of it.
Theory theory_of(const RuleModule& module);

/// A rule as terms.
struct RuleTerms {
  /// One logic variable per rule variable, by VarId (named as the rule
  /// names them; each `_` its own unnamed variable).
  std::vector<Term> vars;
  /// The left side: an application whose head is the op's name (a symbol)
  /// when the op takes no parameters, the Op itself when every parameter is
  /// a literal, else an op pattern listing every parameter — literal values
  /// (defaults included, so `sum(x)` matches only `sum{axis=none}`) and
  /// parameter variables.
  Term lhs;
  /// The right side: Ops for applications whose parameters are all literal,
  /// op patterns (built through the registry at rewrite time) for those that
  /// take parameter variables.
  Term rhs;
};

/// The terms of a rule.
RuleTerms rule_terms(const CheckedRule& rule);

/// Compiles `rule` into a rewriter named as the rule: it tracks the left
/// side's root op, its benefit is the rule's priority, its input pattern is
/// the left side under `theory` with the guard attached (evaluated on the
/// tensor variables of a match; a variable bound to a regrouping of operands
/// makes it false), and its output pattern is the right side. Its depth is
/// the left side's, or kAnyDepth when the guard calls a predicate that reads
/// more than types (`one_client`, predicates registered in C++ by default).
/// `ops` builds right-side ops whose parameters come from the left side, at
/// rewrite time; it must outlive the rewriter.
std::shared_ptr<const PatternNodeRewriter> compile_rule(const CheckedRule& rule,
                                                        const Theory& theory,
                                                        const OpRegistry& ops);

}  // namespace rw::dsl

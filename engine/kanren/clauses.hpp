// Clause tables: a relation's clauses built once as terms over template
// variables, and applied on each call by unification instead of by building
// a conde of goals.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "engine/kanren/goal.hpp"

namespace rw::kanren {

/// What a clause's continuation sees: the relation's arguments, then the
/// clause's fresh variables, in the order the clause declares them.
using ClauseEnv = std::span<const Term>;

/// One clause of a ClauseTable: `fresh(fresh…) { eq(u, v)…; then(env) }`.
struct Clause {
  /// Template variables that stand for new variables on each use. A clause
  /// that has any suspends first, as `fresh` does.
  std::vector<Term> fresh;
  /// Equations `u == v`, unified in order; their variables are the table's
  /// parameters and this clause's fresh variables.
  std::vector<std::pair<Term, Term>> eqs;
  /// The goal after the equations, built from the environment when they
  /// hold (for a recursive call); empty: the clause succeeds. It must use the
  /// environment, never the template variables themselves.
  std::function<Goal(ClauseEnv)> then;
};

namespace detail {
/// A checked clause table, shared by the goals that call it.
struct ClauseTableData {
  std::vector<std::uint64_t> params;  // words of the parameter variables
  std::vector<Clause> clauses;
};
}  // namespace detail

/// A relation written once as clauses, `conde` style: the relation applied
/// to arguments has the answers, in the same order, of
/// `conde({{fresh(…) { eq…, then }}, …})` with the parameters replaced by the
/// arguments — but a call builds one small goal instead of the conde, its
/// patterns and closures, and a clause whose equations do not fit the
/// arguments builds nothing. Each use renames the template variables: a
/// parameter stands for its argument, and a fresh variable for the term it
/// is first unified with (no binding is made: nothing else knows it yet), or
/// for a new variable where it must stand alone. So a clause never binds a
/// variable of its caller except through the arguments, and a template
/// variable never reaches an answer. Fresh variables are made only when
/// needed, so variable ids differ from the conde's; reified answers do not.
///
/// ```cpp
/// Term l = lvar("l"), s = lvar("s"), out = lvar("out");
/// Term a = lvar("a"), d = lvar("d"), res = lvar("res");
/// ClauseTable appendo_t({l, s, out},
///                       {{{}, {{l, Term::nil()}, {s, out}}, {}},
///                        {{a, d, res}, {{cons(a, d), l}, {cons(a, res), out}},
///                         [&](ClauseEnv v) { return appendo_t(v[4], v[1], v[5]); }}});
/// ```
class ClauseTable {
 public:
  /// Checks the clauses: the parameters and each clause's fresh variables
  /// are distinct logic variables, and an equation uses no other variable
  /// (TermError naming the clause and the variable otherwise).
  ClauseTable(std::vector<Term> params, std::vector<Clause> clauses);
  /// The relation applied to `args` (as many as parameters, else TermError).
  Goal operator()(std::span<const Term> args) const;
  template <class... A>
    requires(std::convertible_to<A, Term> && ...)
  Goal operator()(A&&... args) const {
    const Term ts[] = {Term(std::forward<A>(args))...};
    return (*this)(std::span<const Term>(ts, sizeof...(A)));
  }
  /// Number of parameters.
  std::size_t arity() const { return data_->params.size(); }

 private:
  std::shared_ptr<const detail::ClauseTableData> data_;
};

}  // namespace rw::kanren

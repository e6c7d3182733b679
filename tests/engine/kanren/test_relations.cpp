// The relations library: lists, appendo's splits, the zebra puzzle, term
// decomposition, and equality modulo commutativity and associativity.
#include <catch2/catch.hpp>

#include <set>

#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/kanren/relations.hpp"

using namespace rw;
using namespace rw::kanren;

namespace {

using Strings = std::vector<std::string>;

std::vector<std::string> strings(const std::vector<Term>& ts) {
  std::vector<std::string> out;
  for (const Term& t : ts) out.push_back(to_string(t));
  return out;
}

Term ints(int n) {
  std::vector<Term> items;
  for (int i = 0; i < n; ++i) items.push_back(i);
  return list(items);
}

// The five-houses puzzle, houses as 5-tuples (nationality, smoke, drink, pet,
// colour) of fresh variables.
Goal righto(Term x, Term y, Term l) {
  return conde({{fresh([=](Term d) { return eq(cons(x, cons(y, d)), l); })},
                {fresh([=](Term a, Term d) { return conj(eq(cons(a, d), l), righto(x, y, d)); })}});
}
Goal nexto(Term x, Term y, Term l) { return conde({{righto(x, y, l)}, {righto(y, x, l)}}); }
Term house(Term a, Term b, Term c, Term d, Term e) { return tuple({a, b, c, d, e}); }

Goal zebrao(Term hs) {
  auto _ = [] { return lvar(); };
  return conj({eq(list({_(), _(), house(_(), _(), "milk", _(), _()), _(), _()}), hs),
               fresh([hs, _](Term d) { return eq(cons(house("norwegian", _(), _(), _(), _()), d), hs); }),
               nexto(house("norwegian", _(), _(), _(), _()), house(_(), _(), _(), _(), "blue"), hs),
               righto(house(_(), _(), _(), _(), "ivory"), house(_(), _(), _(), _(), "green"), hs),
               membero(house("englishman", _(), _(), _(), "red"), hs),
               membero(house(_(), "kools", _(), _(), "yellow"), hs),
               membero(house("spaniard", _(), _(), "dog", _()), hs),
               membero(house(_(), _(), "coffee", _(), "green"), hs),
               membero(house("ukrainian", _(), "tea", _(), _()), hs),
               membero(house(_(), "lucky-strikes", "oj", _(), _()), hs),
               membero(house("japanese", "parliaments", _(), _(), _()), hs),
               membero(house(_(), "oldgolds", _(), "snails", _()), hs),
               nexto(house(_(), _(), _(), "horse", _()), house(_(), "kools", _(), _(), _()), hs),
               nexto(house(_(), _(), _(), "fox", _()), house(_(), "chesterfields", _(), _(), _()), hs),
               membero(house(_(), _(), "water", _(), _()), hs),
               membero(house(_(), _(), _(), "zebra", _()), hs)});
}

}  // namespace

TEST_CASE("conso, caro, cdro and nullo take lists apart", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, conso(1, list({2, 3}), q))) == Strings{"(1 2 3)"});
  REQUIRE(strings(run_all(q, conso(q, list({2}), list({1, 2})))) == Strings{"1"});
  REQUIRE(strings(run_all(q, caro(list({"a", "b"}), q))) == Strings{"a"});
  REQUIRE(strings(run_all(q, cdro(list({"a", "b"}), q))) == Strings{"(b)"});
  REQUIRE(strings(run_all(q, nullo(q))) == Strings{"()"});
  REQUIRE(run_all(q, nullo(list({1}))).empty());
}

TEST_CASE("membero finds each occurrence", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, membero(q, list({"a", "b", "a"})))) == Strings{"a", "b", "a"});
  REQUIRE(run_all(q, membero("z", list({"a", "b"}))).empty());
  // Backwards: lists that contain 7.
  REQUIRE(strings(run(3, q, membero(7, q))) == Strings{"(7 . _0)", "(_0 7 . _1)", "(_0 _1 7 . _2)"});
}

TEST_CASE("appendo enumerates every split of a list, in order", "[kanren]") {
  for (int n : {0, 1, 5, 40}) {
    Term q = lvar("q");
    const auto answers = run_all(q, fresh([q, n](Term x, Term y) {
      return conj(eq(q, list({x, y})), appendo(x, y, ints(n)));
    }));
    REQUIRE(answers.size() == static_cast<std::size_t>(n + 1));
    for (int k = 0; k <= n; ++k) {
      std::vector<Term> front, back;
      for (int i = 0; i < n; ++i) (i < k ? front : back).push_back(i);
      REQUIRE(answers[k] == list({list(front), list(back)}));
    }
  }
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, appendo(list({1, 2}), list({3}), q))) == Strings{"(1 2 3)"});
  REQUIRE(strings(run_all(q, appendo(q, list({3}), list({1, 2, 3})))) == Strings{"(1 2)"});
  REQUIRE(run_all(q, appendo(q, list({4}), list({1, 2, 3}))).empty());
}

TEST_CASE("the zebra puzzle has exactly one solution", "[kanren]") {
  Term hs = lvar("houses");
  const auto answers = run_all(hs, zebrao(hs));
  REQUIRE(answers.size() == 1);
  REQUIRE(to_string(answers[0]) ==
          "([norwegian, kools, water, fox, yellow] "
          "[ukrainian, chesterfields, tea, horse, blue] "
          "[englishman, oldgolds, milk, snails, red] "
          "[spaniard, lucky-strikes, oj, dog, ivory] "
          "[japanese, parliaments, coffee, zebra, green])");
  // The first answer is the same one.
  REQUIRE(run(1, hs, zebrao(hs)) == answers);
}

TEST_CASE("applyo gives kanren's test_applyo answers", "[kanren]") {
  // pythological/kanren's tests/test_term.py, tuples (add, 1, 2) as add(1, 2).
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, applyo("add", list({1, 2, 3}), q))) == Strings{"add(1, 2, 3)"});
  REQUIRE(strings(run_all(q, applyo(q, list({1, 2, 3}), parse_term("add(1, 2, 3)")))) == Strings{"add"});
  REQUIRE(strings(run_all(q, applyo("add", q, parse_term("add(1, 2, 3)")))) == Strings{"(1 2 3)"});
  // On lists it acts as conso.
  REQUIRE(strings(run_all(q, applyo(1, q, list({1, 2, 3})))) == Strings{"(2 3)"});
  REQUIRE(strings(run_all(q, applyo(q, list({2, 3}), list({1, 2, 3})))) == Strings{"1"});
  REQUIRE(strings(run_all(q, fresh([q](Term a, Term b) { return applyo(a, b, q); }))) == Strings{"(_0 . _1)"});
  // Nothing to take apart, and arguments that are no list.
  REQUIRE(run_all(q, fresh([q](Term b) { return applyo(q, b, 7); })).empty());
  REQUIRE(run_all(q, applyo(1, 2, q)).empty());
}

TEST_CASE("lall and lany are conjunction and disjunction", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, lany({eq(q, 1), eq(q, 2)}))) == Strings{"1", "2"});
  REQUIRE(strings(run_all(q, lall({membero(q, list({1, 2, 3})), membero(q, list({3, 2}))}))) ==
          Strings{"2", "3"});
}

TEST_CASE("applyo takes a term apart into head and arguments, and builds one", "[kanren]") {
  Term args = lvar("args"), q = lvar("q");
  REQUIRE(strings(run_all(q, fresh([&](Term hh, Term aa) {
            return conj(applyo(hh, aa, parse_term("mul(x, 1)")), eq(q, list({hh, aa})));
          }))) == Strings{"(mul (x 1))"});
  REQUIRE(strings(run_all(q, applyo("add", list({1, 2}), q))) == Strings{"add(1, 2)"});
  // An open list of arguments builds the list form (head . args).
  REQUIRE(strings(run_all(q, applyo("add", cons(1, args), q))) == Strings{"(add 1 . _0)"});
}

TEST_CASE("eq_mod unifies modulo commutativity", "[kanren]") {
  Theory th;
  th.commutative("add");
  TermVars vars;
  Term pat = parse_term("add(?x, mul(?y, 2))", vars);
  Term subject = parse_term("add(mul(3, 2), 5)");
  Term q = lvar("q");
  // Plain unification fails; modulo commutativity it finds the one arrangement.
  REQUIRE(run_all(q, conj(eq(pat, subject), eq(q, pat))).empty());
  REQUIRE(strings(run_all(q, conj(eq_mod(pat, subject, th), eq(q, pat)))) ==
          Strings{"add(5, mul(3, 2))"});
  // Both arrangements of two variables, the plain one first.
  REQUIRE(strings(run_all(q, fresh([&](Term a, Term b) {
            return conj(eq_mod(compound("add", {a, b}), parse_term("add(1, 2)"), th),
                        eq(q, list({a, b})));
          }))) == Strings{"(1 2)", "(2 1)"});
  // mul is not declared: no permutation there.
  REQUIRE(run_all(q, eq_mod(parse_term("mul(1, 2)"), parse_term("mul(2, 1)"), th)).empty());
}

TEST_CASE("eq_mod regroups associative operators", "[kanren]") {
  Theory th;
  th.associative("add");
  TermVars vars;
  Term q = lvar("q");
  // a + (b + c) against (1 + 2) + 3.
  Term pat = parse_term("add(?a, add(?b, ?c))", vars);
  REQUIRE(strings(run_all(q, conj(eq_mod(pat, parse_term("add(add(1, 2), 3)"), th),
                                  eq(q, list({vars["a"], vars["b"], vars["c"]}))))) ==
          Strings{"(1 2 3)"});
  // x + y against (1 + 2) + 3: the existing grouping first, then the regrouping.
  REQUIRE(strings(run_all(q, fresh([&](Term x, Term y) {
            return conj(eq_mod(compound("add", {x, y}), parse_term("add(add(1, 2), 3)"), th),
                        eq(q, list({x, y})));
          }))) == Strings{"(add(1, 2) 3)", "(1 add(2, 3))"});
  // Associative only: order is kept.
  REQUIRE(run_all(q, eq_mod(parse_term("add(3, add(1, 2))"), parse_term("add(add(1, 2), 3)"), th))
              .empty());
  Theory ac;
  ac.ac("add");
  REQUIRE(run_all(q, eq_mod(parse_term("add(3, add(1, 2))"), parse_term("add(add(1, 2), 3)"), ac))
              .size() == 1);
  // Every way to split four operands among two variables modulo AC: 2^4 - 2.
  const auto splits = run_all(q, fresh([&](Term x, Term y) {
    return conj(eq_mod(compound("add", {x, y}), parse_term("add(add(1, 2), add(3, 4))"), ac),
                eq(q, list({x, y})));
  }));
  REQUIRE(splits.size() == 14);
  std::set<std::string> distinct;
  for (const auto& s : strings(splits)) distinct.insert(s);
  REQUIRE(distinct.size() == 14);
  REQUIRE(to_string(splits[0]) == "(add(1, 2) add(3, 4))");
}

// The expected answers below are those of pythological/kanren's
// tests/test_assoccomm.py, with its tuples `(op, a, b)` written as op(a, b).

namespace {

Strings answers(std::size_t n, const std::function<Goal(Term)>& make) {
  return strings(run(n, [&](Term q) { return make(q); }));
}

Term t(const char* text) { return parse_term(text); }

using Relation = Goal (*)(Term, Term, const Theory&);

// Whether the relation holds at least once between the two terms.
bool holds(Relation r, const Term& a, const Term& b, const Theory& th) {
  return !run(1, lvar(), r(a, b, th)).empty();
}
bool holds(Relation r, const char* a, const char* b, const Theory& th) { return holds(r, t(a), t(b), th); }

}  // namespace

TEST_CASE("eq_comm checks and binds modulo commutativity, as kanren's test_eq_comm", "[kanren]") {
  Theory th;
  th.commutative("c");
  auto holds = [&](const char* a, const char* b) { return ::holds(&eq_comm, a, b, th); };
  REQUIRE(holds("1", "1"));
  REQUIRE(holds("c(1, 2, 3)", "c(1, 2, 3)"));
  REQUIRE(holds("c(3, 2, 1)", "c(1, 2, 3)"));
  REQUIRE_FALSE(holds("op(3, 2, 1)", "op(1, 2, 3)"));  // op is not commutative
  REQUIRE_FALSE(holds("c(1, 2, 1)", "c(1, 2, 3)"));
  REQUIRE_FALSE(holds("op(1, 2, 3)", "c(1, 2, 3)"));
  Term x = lvar("x"), y = lvar("y"), z = lvar("z");
  auto xy = [&](Term a, Term b) { return answers(kAll, [&](Term q) { return conj(eq_comm(a, b, th), eq(q, list({x, y}))); }); };
  REQUIRE(answers(kAll, [&](Term q) { return conj(eq_comm(compound("c", {3, y, 1}), t("c(1, 2, 3)"), th), eq(q, y)); }) ==
          Strings{"2"});
  REQUIRE(xy(compound("c", {x, y, 1}), t("c(1, 2, 3)")) == Strings{"(2 3)", "(3 2)"});
  REQUIRE(xy(t("c(2, 3, 1)"), compound("c", {1, x, y})) == Strings{"(2 3)", "(3 2)"});
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("c(1, 2, 3)"), compound("c", {2, q, 1}), th); }) ==
          Strings{"3"});
  // Through an Op that is not commutative, and not inside one.
  REQUIRE(answers(kAll, [&](Term q) {
            return eq_comm(t("div(1, c(1, 2, 3))"), compound("div", {1, compound("c", {2, q, 1})}), th);
          }) == Strings{"3"});
  REQUIRE(answers(kAll, [&](Term q) {
            return eq_comm(t("div(1, div(1, 2, 3))"), compound("div", {1, compound("div", {2, q, 1})}), th);
          }).empty());
  // Every permutation, whichever side has the variables.
  const std::set<std::string> perms{"(1 2 3)", "(1 3 2)", "(2 1 3)", "(2 3 1)", "(3 1 2)", "(3 2 1)"};
  auto xyz = [&](Term a, Term b) {
    const auto all = answers(kAll, [&](Term q) { return conj(eq_comm(a, b, th), eq(q, list({x, y, z}))); });
    REQUIRE(all.size() == 6);
    return std::set<std::string>(all.begin(), all.end());
  };
  REQUIRE(xyz(t("c(1, 2, 3)"), compound("c", {x, y, z})) == perms);
  REQUIRE(xyz(compound("c", {x, y, z}), t("c(1, 2, 3)")) == perms);
  REQUIRE(xyz(t("div(1, c(1, 2, 3))"), compound("div", {1, compound("c", {x, y, z})})) == perms);
  // Nested applications, and lists of them.
  REQUIRE(xy(compound("c", {compound("c", {1, x}), y}), t("c(2, c(3, 1))")) == Strings{"(3 2)"});
  REQUIRE(xy(list({2, t("c(3, 1)")}), list({y, compound("c", {1, x})})) == Strings{"(3 2)"});
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(list({t("c(3, 1)")}), list({compound("c", {1, q})}), th); }) ==
          Strings{"3"});
}

TEST_CASE("eq_comm generates the permutations of a term, the first one before the term", "[kanren]") {
  Theory th;
  th.commutative("c");
  // kanren's order: permutations by position (its itertools.permutations),
  // with the term itself interleaved second.
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("c(1, 2)"), q, th); }) == Strings{"c(2, 1)", "c(1, 2)"});
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(q, t("c(1, 2, 3)"), th); }) ==
          Strings{"c(1, 3, 2)", "c(1, 2, 3)", "c(2, 1, 3)", "c(2, 3, 1)", "c(3, 1, 2)", "c(3, 2, 1)"});
  // Equal operands are not exchanged: c(1, 1, 2) has three forms, not six.
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("c(1, 1, 2)"), q, th); }) ==
          Strings{"c(1, 2, 1)", "c(1, 1, 2)", "c(2, 1, 1)"});
  // Inside an Op that is not commutative, and in nested applications.
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("div(c(1, 2), 3)"), q, th); }) ==
          Strings{"div(c(2, 1), 3)", "div(c(1, 2), 3)"});
  const auto nested = answers(kAll, [&](Term q) { return eq_comm(t("c(1, c(2, 3))"), q, th); });
  REQUIRE(std::set<std::string>(nested.begin(), nested.end()) ==
          std::set<std::string>{"c(1, c(2, 3))", "c(1, c(3, 2))", "c(c(2, 3), 1)", "c(c(3, 2), 1)"});
  REQUIRE(nested.size() == 4);
  // Nothing to permute: one answer, the term.
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("op(1, 2)"), q, th); }) == Strings{"op(1, 2)"});
}

TEST_CASE("eq_assoc regroups, and generates the groupings in kanren's order", "[kanren]") {
  Theory th;
  th.associative("a");
  auto holds = [&](const char* l, const char* r) { return ::holds(&eq_assoc, l, r, th); };
  REQUIRE(holds("1", "1"));
  REQUIRE(holds("a(1, 2, 3)", "a(1, 2, 3)"));
  REQUIRE_FALSE(holds("a(3, 2, 1)", "a(1, 2, 3)"));
  REQUIRE(holds("a(a(1, 2), 3)", "a(1, 2, 3)"));
  REQUIRE(holds("a(1, 2, 3)", "a(a(1, 2), 3)"));
  REQUIRE_FALSE(holds("op(1, 2, 3)", "op(op(1, 2), 3)"));  // op is not associative
  // Flattening on both sides (kanren's eq_assoc_args cases).
  REQUIRE(holds("a(1, a(2, 3), 4)", "a(1, 2, 3, 4)"));
  REQUIRE_FALSE(holds("a(1, 2, 3)", "a(1, a(2, 3), 4)"));
  // kanren's test_assoc_flatten: only the associative Op's own applications
  // are flattened (mul is not declared in th).
  REQUIRE_FALSE(holds("mul(1, add(2, 3), mul(4, 5))", "mul(1, add(2, 3), 4, 5)"));
  REQUIRE(::holds(&eq_assoc, "mul(1, add(2, 3), mul(4, 5))", "mul(1, add(2, 3), 4, 5)",
                  Theory().ac("add").ac("mul")));
  REQUIRE_FALSE(::holds(&eq_assoc, "mul(1, add(2, 3), 4, 5)", "mul(1, 2, 3, 4, 5)", Theory().ac("add").ac("mul")));
  // A variable takes the operands a grouping leaves to it.
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoc(compound("a", {1, q, 4}), t("a(1, 2, 3, 4)"), th); }) ==
          Strings{"a(2, 3)"});
  const Strings three{"a(a(1, 2), 3)", "a(1, 2, 3)", "a(1, a(2, 3))"};
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoc(t("a(1, 2, 3)"), q, th); }) == three);
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoc(q, t("a(1, 2, 3)"), th); }) == three);
  // A pair against an application: (head . arguments) of each form.
  REQUIRE(answers(kAll, [&](Term q) {
            return fresh([&th, q](Term x, Term y) {
              return conj(eq_assoc(cons(x, y), t("a(1, 2, 3)"), th), eq(q, cons(x, y)));
            });
          }) == Strings{"(a a(1, 2) 3)", "(a 1 2 3)", "(a 1 a(2, 3))"});
  // Nested expressions.
  REQUIRE(answers(kAll, [&](Term q) {
            return eq_assoc(compound("a", {1, 2, compound("a", {q, 5, 6})}), t("a(a(1, 2), 3, 4, 5, 6)"), th);
          }) == Strings{"a(3, 4)"});
  // Four operands: every tree over them once (11, the little Schröder
  // number), where kanren lists only one grouping at a time.
  const auto four = answers(kAll, [&](Term q) { return eq_assoc(t("a(1, 2, 3, 4)"), q, th); });
  REQUIRE(four.size() == 11);
  REQUIRE(std::set<std::string>(four.begin(), four.end()).size() == 11);
  REQUIRE(four[0] == "a(a(1, 2), 3, 4)");
  REQUIRE(four[1] == "a(1, 2, 3, 4)");
  // Symbols take any number of arguments: a binary application has a flat form.
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoc(t("a(a(1, 2), 3)"), q, th); }) == three);
}

TEST_CASE("eq_assoccomm generates the 18 AC-equal terms of kanren's test_eq_assoccomm", "[kanren]") {
  Theory th;
  th.ac("ac");
  auto holds = [&](Term l, Term r) { return ::holds(&eq_assoccomm, l, r, th); };
  REQUIRE(holds(1, 1));
  REQUIRE(holds(list({1}), list({1})));
  REQUIRE(holds(lvar(), list({1})));
  REQUIRE(holds(list({1}), lvar()));
  REQUIRE(holds(t("ac(1, ac(2, 3))"), t("ac(ac(1, 2), 3)")));  // regroup only
  REQUIRE(holds(t("ac(1, ac(2, 3))"), t("ac(ac(3, 2), 1)")));  // commute only
  REQUIRE(holds(t("ac(1, ac(3, 2))"), t("ac(ac(1, 2), 3)")));  // both
  REQUIRE(holds(t("ac(ac(1, 2), 3)"), t("ac(1, 2, 3)")));
  REQUIRE(holds(t("ac(3, ac(1, 2))"), t("ac(1, 2, 3)")));
  REQUIRE_FALSE(holds(t("ac(1, 1)"), t("other_op(1, 1)")));
  const std::set<std::string> expected{
      "ac(1, 3, 2)",       "ac(1, 2, 3)",       "ac(2, 1, 3)",       "ac(2, 3, 1)",       "ac(3, 1, 2)",
      "ac(3, 2, 1)",       "ac(1, ac(2, 3))",   "ac(1, ac(3, 2))",   "ac(2, ac(1, 3))",   "ac(2, ac(3, 1))",
      "ac(3, ac(1, 2))",   "ac(3, ac(2, 1))",   "ac(ac(2, 3), 1)",   "ac(ac(3, 2), 1)",   "ac(ac(1, 3), 2)",
      "ac(ac(3, 1), 2)",   "ac(ac(1, 2), 3)",   "ac(ac(2, 1), 3)"};
  for (const char* given : {"ac(1, ac(2, 3))", "ac(1, 3, 2)", "ac(2, ac(3, 1))"}) {
    INFO(given);
    const auto all = answers(kAll, [&](Term q) { return eq_assoccomm(t(given), q, th); });
    REQUIRE(all.size() == 18);  // each once
    REQUIRE(std::set<std::string>(all.begin(), all.end()) == expected);
  }
  const auto lhs = answers(kAll, [&](Term q) { return eq_assoccomm(q, t("ac(1, ac(2, 3))"), th); });
  REQUIRE(std::set<std::string>(lhs.begin(), lhs.end()) == expected);
  Term x = lvar("x"), y = lvar("y");
  REQUIRE(answers(kAll, [&](Term q) {
            return conj(eq_assoccomm(compound("ac", {compound("ac", {1, x}), y}), t("ac(2, ac(3, 1))"), th),
                        eq(q, list({x, y})));
          }) == Strings{"(2 3)", "(3 2)"});
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoccomm(t("ac(3, ac(1, 2))"), compound("ac", {1, q, 3}), th); }) ==
          Strings{"2"});
  // The module docstring's examples: a variable meeting a group of operands
  // takes both orders of it, and (1 + x) * y against 2 * (3 + 1).
  Theory algebra;
  algebra.ac("add").ac("mul");
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoccomm(t("add(1, 2, 3)"), compound("add", {1, q}), algebra); }) ==
          Strings{"add(3, 2)", "add(2, 3)"});
  REQUIRE(answers(kAll, [&](Term q) {
            return conj(eq_assoccomm(compound("mul", {compound("add", {1, x}), y}), t("mul(2, add(3, 1))"), algebra),
                        eq(q, list({x, y})));
          }) == Strings{"(3 2)"});
}

TEST_CASE("the term relations are not generative where nothing is known", "[kanren]") {
  Theory th;
  th.ac("ac");
  Term x = lvar("x"), y = lvar("y");
  // Two unbound variables are unified, once (kanren would enumerate terms of
  // every declared Op).
  for (Relation r : {Relation(&eq_comm), Relation(&eq_assoc), Relation(&eq_assoccomm)}) {
    REQUIRE(answers(kAll, [&](Term q) { return conj(r(x, y, th), eq(q, list({x, y}))); }) == Strings{"(_0 _0)"});
  }
  // eq_mod checks: a variable takes the term it meets as it is.
  REQUIRE(answers(kAll, [&](Term q) { return eq_mod(t("ac(1, 2)"), q, th); }) == Strings{"ac(1, 2)"});
  REQUIRE(answers(kAll, [&](Term q) { return eq_mod(t("add(1, 2, 3)"), compound("add", {1, q}), Theory().ac("add")); }) ==
          Strings{"add(2, 3)"});
  // An Op the relation's laws leave alone: eq_comm does not regroup, eq_assoc
  // does not permute.
  REQUIRE(answers(kAll, [&](Term q) { return eq_comm(t("ac(ac(1, 2), 3)"), compound("ac", {1, q}), th); }).empty());
  REQUIRE(answers(kAll, [&](Term q) { return eq_assoc(t("ac(1, 2)"), q, th); }) == Strings{"ac(1, 2)"});
}

TEST_CASE("forms of many operands stream: the first answers come at once", "[kanren]") {
  // 10 operands: 10! permutations, and 10! times 2^9 - 1 flat groupings
  // modulo AC; a relation that listed them first (or stopped at a limit)
  // could not answer.
  Theory th;
  th.ac("ac").commutative("c");
  Strings first;
  REQUIRE_NOTHROW(first = answers(5, [&](Term q) { return eq_comm(t("c(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)"), q, th); }));
  REQUIRE(first == Strings{"c(0, 1, 2, 3, 4, 5, 6, 7, 9, 8)", "c(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)",
                           "c(0, 1, 2, 3, 4, 5, 6, 8, 7, 9)", "c(0, 1, 2, 3, 4, 5, 6, 8, 9, 7)",
                           "c(0, 1, 2, 3, 4, 5, 6, 9, 7, 8)"});
  REQUIRE_NOTHROW(first = answers(5, [&](Term q) { return eq_assoccomm(q, t("ac(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)"), th); }));
  REQUIRE(first == Strings{"ac(ac(0, 1), 2, 3, 4, 5, 6, 7, 8, 9)", "ac(0, 1, 2, 3, 4, 5, 6, 7, 8, 9)",
                           "ac(0, ac(1, 2), 3, 4, 5, 6, 7, 8, 9)", "ac(0, 1, ac(2, 3), 4, 5, 6, 7, 8, 9)",
                           "ac(0, 1, 2, ac(3, 4), 5, 6, 7, 8, 9)"});
  // Checking against 10 operands in another order: the arrangement that fits
  // is the 720th, reached one at a time.
  std::vector<Term> pattern{lvar("p")};
  for (int i = 1; i < 10; ++i) pattern.push_back(i);
  REQUIRE(answers(1, [&](Term q) { return conj(eq_comm(compound("c", pattern), t("c(0, 1, 2, 3, 9, 8, 7, 6, 5, 4)"), th),
                                               eq(q, pattern[0])); }) == Strings{"0"});
}

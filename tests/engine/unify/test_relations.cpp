// The relations library: lists, appendo's splits, the zebra puzzle, term
// decomposition, and equality modulo commutativity and associativity.
#include <catch2/catch.hpp>

#include <set>

#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/relations.hpp"

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

TEST_CASE("conso, caro, cdro and nullo take lists apart", "[unify]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, conso(1, list({2, 3}), q))) == Strings{"(1 2 3)"});
  REQUIRE(strings(run_all(q, conso(q, list({2}), list({1, 2})))) == Strings{"1"});
  REQUIRE(strings(run_all(q, caro(list({"a", "b"}), q))) == Strings{"a"});
  REQUIRE(strings(run_all(q, cdro(list({"a", "b"}), q))) == Strings{"(b)"});
  REQUIRE(strings(run_all(q, nullo(q))) == Strings{"()"});
  REQUIRE(run_all(q, nullo(list({1}))).empty());
}

TEST_CASE("membero finds each occurrence", "[unify]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, membero(q, list({"a", "b", "a"})))) == Strings{"a", "b", "a"});
  REQUIRE(run_all(q, membero("z", list({"a", "b"}))).empty());
  // Backwards: lists that contain 7.
  REQUIRE(strings(run(3, q, membero(7, q))) == Strings{"(7 . _0)", "(_0 7 . _1)", "(_0 _1 7 . _2)"});
}

TEST_CASE("appendo enumerates every split of a list, in order", "[unify]") {
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

TEST_CASE("the zebra puzzle has exactly one solution", "[unify]") {
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

TEST_CASE("lall and lany are conjunction and disjunction", "[unify]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, lany({eq(q, 1), eq(q, 2)}))) == Strings{"1", "2"});
  REQUIRE(strings(run_all(q, lall({membero(q, list({1, 2, 3})), membero(q, list({3, 2}))}))) ==
          Strings{"2", "3"});
}

TEST_CASE("applyo takes a term apart into head and arguments, and builds one", "[unify]") {
  Term args = lvar("args"), q = lvar("q");
  REQUIRE(strings(run_all(q, fresh([&](Term hh, Term aa) {
            return conj(applyo(hh, aa, parse_term("mul(x, 1)")), eq(q, list({hh, aa})));
          }))) == Strings{"(mul (x 1))"});
  REQUIRE(strings(run_all(q, applyo("add", list({1, 2}), q))) == Strings{"add(1, 2)"});
  // An open list of arguments builds the list form (head . args).
  REQUIRE(strings(run_all(q, applyo("add", cons(1, args), q))) == Strings{"(add 1 . _0)"});
}

TEST_CASE("eq_mod unifies modulo commutativity", "[unify]") {
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

TEST_CASE("eq_mod regroups associative operators", "[unify]") {
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

// miniKanren goals and streams: eq, conj, disj, conde, fresh, interleaving,
// disequality constraints, and searches deeper than the C++ stack.
#include <catch2/catch.hpp>

#include "engine/kanren/goal.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"

using namespace rw;
using namespace rw::kanren;

namespace {

std::vector<std::string> strings(const std::vector<Term>& ts) {
  std::vector<std::string> out;
  for (const Term& t : ts) out.push_back(to_string(t));
  return out;
}

using Strings = std::vector<std::string>;

/// Never succeeds, never fails: suspends forever.
Goal nevero() {
  return delay([] { return nevero(); });
}

/// q is 0, infinitely often.
Goal zeroso(Term q) {
  return conde({{eq(q, 0)}, {delay([q] { return zeroso(q); })}});
}

/// n is a Peano numeral z, s(z), s(s(z)), …
Goal nato(Term n) {
  return conde({{eq(n, "z")}, {fresh([n](Term m) { return conj(eq(n, compound("s", {m})), nato(m)); })}});
}

}  // namespace

TEST_CASE("eq, conj and fresh compute answers", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, eq(q, 1))) == Strings{"1"});
  REQUIRE(run_all(q, conj(eq(q, 1), eq(q, 2))).empty());
  REQUIRE(strings(run_all(q, succeed())) == Strings{"_0"});
  REQUIRE(run_all(q, fail()).empty());
  REQUIRE(strings(run_all(q, fresh([q](Term x, Term y) {
            return conj(eq(q, list({x, y})), eq(x, 1), eq(y, compound("f", {x})));
          }))) == Strings{"(1 f(1))"});
  // Unbound parts of an answer are reified in order of appearance.
  REQUIRE(strings(run_all(q, fresh([q](Term x, Term y) { return eq(q, list({y, x, y})); }))) ==
          Strings{"(_0 _1 _0)"});
  // More variables than fit in the inline buffer.
  REQUIRE(strings(run_all(q, fresh(10, [q](std::span<const Term> v) {
            return conj(eq(q, list(v)), eq(v[9], 9), eq(v[0], v[9]));
          }))) == Strings{"(9 _0 _1 _2 _3 _4 _5 _6 _7 9)"});
  REQUIRE(strings(run(1, [](Term x) { return eq(x, "ok"); })) == Strings{"ok"});
  REQUIRE(run(0, q, eq(q, 1)).empty());
}

TEST_CASE("disjunctions answer in faster-miniKanren's order", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, disj(eq(q, 1), eq(q, 2), eq(q, 3)))) == Strings{"1", "2", "3"});
  REQUIRE(strings(run_all(q, conde({{eq(q, "a")}, {fail()}, {eq(q, "b"), succeed()}}))) ==
          Strings{"a", "b"});
  // (run 4 (q) (conde ((nato q)) ((== q 'x)))): nato suspends at once, so the
  // second clause answers first, then nato's answers follow.
  REQUIRE(strings(run(4, q, conde({{nato(q)}, {eq(q, "x")}}))) ==
          Strings{"x", "z", "s(z)", "s(s(z))"});
  REQUIRE(run_all(q, disj(std::span<const Goal>{})).empty());
  REQUIRE(strings(run_all(q, conj(std::span<const Goal>{}))) == Strings{"_0"});
}

TEST_CASE("an infinite branch does not starve the others", "[kanren]") {
  Term q = lvar("q");
  // The first branch never answers and never ends; the second still does.
  REQUIRE(strings(run(1, q, conde({{nevero()}, {eq(q, 1)}}))) == Strings{"1"});
  // An endless stream of answers interleaves with the other branch.
  const auto answers = strings(run(5, q, disj(zeroso(q), eq(q, 1))));
  REQUIRE(answers.size() == 5);
  REQUIRE(std::count(answers.begin(), answers.end(), "1") == 1);
  REQUIRE(std::count(answers.begin(), answers.end(), "0") == 4);
  // A bounded look at a search that will never end.
  Stream s(conde({{nevero()}, {eq(q, 1)}}));
  REQUIRE(s.next(1000));
  REQUIRE_FALSE(s.next(1000));
  REQUIRE_FALSE(s.exhausted());
  Stream done(eq(q, 1));
  REQUIRE(done.next());
  REQUIRE_FALSE(done.next());
  REQUIRE(done.exhausted());
}

TEST_CASE("disequality constraints are re-checked as the substitution grows", "[kanren]") {
  Term q = lvar("q");
  REQUIRE(strings(run_all(q, conj(neq(q, 2), disj(eq(q, 1), eq(q, 2), eq(q, 3))))) ==
          Strings{"1", "3"});
  REQUIRE(strings(run_all(q, conj(disj(eq(q, 1), eq(q, 2), eq(q, 3)), neq(q, 2)))) ==
          Strings{"1", "3"});
  REQUIRE(run_all(q, conj(eq(q, 2), neq(q, 2))).empty());
  REQUIRE(strings(run_all(q, conj(eq(q, 2), neq(q, 3)))) == Strings{"2"});
  // Through a variable: x =/= y, then x = y.
  REQUIRE(run_all(q, fresh([](Term x, Term y) { return conj(neq(x, y), eq(x, y)); })).empty());
  // A constraint on a pair is violated only when every part holds.
  auto pairs = [&](Goal extra) {
    return strings(run_all(q, fresh([q, extra](Term x, Term y) {
      return conj(eq(q, list({x, y})), neq(list({x, y}), list({1, 2})), eq(x, 1), extra);
    })));
  };
  REQUIRE(pairs(succeed()) == Strings{"(1 _0)"});
  REQUIRE(pairs(eq(q, list({1, 2}))).empty());
  REQUIRE(pairs(eq(q, list({1, 3}))) == Strings{"(1 3)"});
  // Answers carry the constraints that still hold over them.
  const auto answers = run_answers(kAll, q, fresh([q](Term x, Term y) {
    return conj(eq(q, list({x, y})), neq(list({x, y}), list({1, 2})), eq(x, 1));
  }));
  REQUIRE(answers.size() == 1);
  REQUIRE(to_string(answers[0].value) == "(1 _0)");
  REQUIRE(strings(answers[0].neq) == Strings{"((_0 . 2))"});
  // Constraints on variables not in the answer are not shown.
  const auto hidden = run_answers(kAll, q, fresh([q](Term x) { return conj(eq(q, 1), neq(x, 2)); }));
  REQUIRE(hidden.size() == 1);
  REQUIRE(hidden[0].neq.empty());
}

TEST_CASE("with_state sees walked values", "[kanren]") {
  Term q = lvar("q");
  auto double_it = [](Term in, Term out) {
    return with_state([in, out](const State& s) {
      const Term& v = s.walk(in);
      return v.kind() == TermKind::Int ? eq(out, v.as_int() * 2) : fail();
    });
  };
  REQUIRE(strings(run_all(q, fresh([&](Term x) { return conj(eq(x, 21), double_it(x, q)); }))) ==
          Strings{"42"});
  REQUIRE(run_all(q, fresh([&](Term x) { return double_it(x, q); })).empty());
}

TEST_CASE("an exception from a goal body leaves the stream finished", "[kanren]") {
  Term q = lvar("q");
  Goal boom = fresh([](Term) -> Goal { throw std::runtime_error("boom"); });
  Stream s(conj(eq(q, 1), boom, eq(q, 1)));
  REQUIRE_THROWS_WITH(s.next(), "boom");
  REQUIRE(s.exhausted());
  // Thrown while binds are pending: they are dropped (the sanitizer build
  // checks nothing leaks).
  Goal now = with_state([](const State&) -> Goal { throw std::runtime_error("now"); });
  Stream t(conj(now, eq(q, 1), eq(q, 1)));
  REQUIRE_THROWS_WITH(t.next(), "now");
  REQUIRE(t.exhausted());
}

TEST_CASE("a conjunction nested a million deep runs on the machine's own stack", "[kanren]") {
  Term q = lvar("q");
  Goal g = eq(q, 7);
  for (int i = 0; i < 1'000'000; ++i) g = conj(g, succeed());
  REQUIRE(strings(run_all(q, g)) == Strings{"7"});
  g = succeed();  // and is dropped without recursion
}

TEST_CASE("non-tail recursion nests pending binds", "[kanren]") {
  // counto(n, k): n is s^k(z), with work after the recursive call at every
  // level. (Each answer costs time linear in the nesting, as in any
  // miniKanren on streams.)
  constexpr int kDepth = 2000;
  std::function<Goal(Term, int)> counto = [&counto](Term n, int k) -> Goal {
    if (k == 0) return eq(n, "z");
    return fresh([&counto, n, k](Term m) {
      return conj(counto(m, k - 1), eq(n, compound("s", {m})));
    });
  };
  Term q = lvar("q");
  const auto answers = run_all(q, counto(q, kDepth));
  REQUIRE(answers.size() == 1);
  int depth = 0;
  for (Term t = answers[0]; t.is_compound(); t = t.arg(0)) ++depth;
  REQUIRE(depth == kDepth);
}


// Clause tables: the same answers, in the same order, as the conde they
// stand for; template variables renamed on every use; checks at build time.
#include <catch2/catch.hpp>

#include "engine/kanren/clauses.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/kanren/relations.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::kanren;
using namespace rw::test;

namespace {

std::vector<std::string> strings(const std::vector<Term>& ts) {
  std::vector<std::string> out;
  for (const Term& t : ts) out.push_back(to_string(t));
  return out;
}

// appendo(l, s, out) as a clause table.
Goal appendo_t(Term l, Term s, Term out);
const ClauseTable& appendo_table() {
  static const ClauseTable table = [] {
    const Term l = lvar("l"), s = lvar("s"), out = lvar("out");
    const Term a = lvar("a"), d = lvar("d"), res = lvar("res");
    return ClauseTable({l, s, out}, {{{}, {{l, Term::nil()}, {s, out}}, {}},
                                     {{a, d, res},
                                      {{cons(a, d), l}, {cons(a, res), out}},
                                      [](ClauseEnv v) { return appendo_t(v[4], v[1], v[5]); }}});
  }();
  return table;
}
Goal appendo_t(Term l, Term s, Term out) { return appendo_table()(l, s, out); }

// membero(x, l) as a clause table.
Goal membero_t(Term x, Term l);
const ClauseTable& membero_table() {
  static const ClauseTable table = [] {
    const Term x = lvar("x"), l = lvar("l"), a = lvar("a"), d = lvar("d");
    return ClauseTable({x, l}, {{{d}, {{l, cons(x, d)}}, {}},
                                {{a, d}, {{l, cons(a, d)}},
                                 [](ClauseEnv v) { return membero_t(v[0], v[3]); }}});
  }();
  return table;
}
Goal membero_t(Term x, Term l) { return membero_table()(x, l); }

// The benchmark's one-step rewrite relation, both ways.
const Term kMul = "*", kAdd = "+", kDiv = "/";

Goal rewriteo(Term e, Term e2) {
  return conde({{eq(e, compound(kMul, e2, 1))},
                {eq(e, compound(kMul, 1, e2))},
                {eq(e, compound(kAdd, e2, 0))},
                {eq(e, compound(kAdd, 0, e2))},
                {eq(e, compound(kDiv, e2, 1))},
                {fresh([=](Term y) { return eq(e, compound(kDiv, compound(kMul, e2, y), y)); })},
                {fresh([=](Term op, Term a, Term b, Term a2) {
                  return conj(eq(e, compound(op, a, b)), eq(e2, compound(op, a2, b)),
                              lazy([a, a2] { return rewriteo(a, a2); }));
                })},
                {fresh([=](Term op, Term a, Term b, Term b2) {
                  return conj(eq(e, compound(op, a, b)), eq(e2, compound(op, a, b2)),
                              lazy([b, b2] { return rewriteo(b, b2); }));
                })}});
}

Goal rewriteo_t(Term e, Term e2);
const ClauseTable& rewrite_table() {
  static const ClauseTable table = [] {
    const Term e = lvar("e"), e2 = lvar("e2"), y = lvar("y"), op = lvar("op"), a = lvar("a"),
               b = lvar("b"), a2 = lvar("a2"), b2 = lvar("b2");
    return ClauseTable({e, e2},
                       {{{}, {{e, compound(kMul, e2, 1)}}, {}},
                        {{}, {{e, compound(kMul, 1, e2)}}, {}},
                        {{}, {{e, compound(kAdd, e2, 0)}}, {}},
                        {{}, {{e, compound(kAdd, 0, e2)}}, {}},
                        {{}, {{e, compound(kDiv, e2, 1)}}, {}},
                        {{y}, {{e, compound(kDiv, compound(kMul, e2, y), y)}}, {}},
                        {{op, a, b, a2},
                         {{e, compound(op, a, b)}, {e2, compound(op, a2, b)}},
                         [](ClauseEnv v) { return rewriteo_t(v[3], v[5]); }},
                        {{op, a, b, b2},
                         {{e, compound(op, a, b)}, {e2, compound(op, a, b2)}},
                         [](ClauseEnv v) { return rewriteo_t(v[4], v[5]); }}});
  }();
  return table;
}
Goal rewriteo_t(Term e, Term e2) { return rewrite_table()(std::move(e), std::move(e2)); }

}  // namespace

TEST_CASE("a clause table gives the conde's answers in the conde's order", "[kanren]") {
  const Term l = list({1, 2, 3, 4});
  auto splits = [&](auto rel) {
    const Term q = lvar("q");
    return strings(run_all(q, fresh([&](Term x, Term y) {
      return conj(eq(q, list({x, y})), rel(x, y, l));
    })));
  };
  const auto want = splits([](Term a, Term b, Term c) { return appendo(a, b, c); });
  REQUIRE(want.size() == 5);
  REQUIRE(splits([](Term a, Term b, Term c) { return appendo_t(a, b, c); }) == want);
  // Run backwards (an unbound first argument: the clauses bind it).
  const Term q = lvar("q");
  REQUIRE(strings(run(3, q, fresh([&](Term x, Term y) {
            return conj(eq(q, list({x, y})), appendo_t(x, list({9}), y));
          }))) == strings(run(3, q, fresh([&](Term x, Term y) {
            return conj(eq(q, list({x, y})), appendo(x, list({9}), y));
          }))));

  // The benchmark's rewrite relation on an expression where several rules
  // and both congruences apply, all answers and repeated first answers.
  TermVars v;
  const Term e = parse_term(
      "+(*(/(*(a, b), b), 1), +(0, /(*(1, c), 1)))", v);
  const Term r = lvar("r");
  const auto all_conde = strings(run_all(r, rewriteo(e, r)));
  REQUIRE(all_conde.size() >= 5);
  REQUIRE(strings(run_all(r, rewriteo_t(e, r))) == all_conde);
  Term x = e, y = e;
  for (int step = 0; step < 10; ++step) {
    const auto nx = run(1, r, rewriteo(x, r)), ny = run(1, r, rewriteo_t(y, r));
    REQUIRE(strings(nx) == strings(ny));
    if (nx.empty()) break;
    x = nx[0];
    y = ny[0];
  }
  REQUIRE(to_string(y) == "+(a, c)");
}

TEST_CASE("a clause table renames its variables on every use", "[kanren]") {
  // wrapo(x): fresh(u) x == w(u). Two uses give two different u's.
  const Term x = lvar("x"), u = lvar("u");
  const ClauseTable wrapo({x}, {{{u}, {{x, compound("w", u)}}, {}}});
  const Term q = lvar("q");
  REQUIRE(strings(run_all(q, fresh([&](Term a, Term b) {
            return conj(eq(q, list({a, b})), wrapo(a), wrapo(b));
          }))) == std::vector<std::string>{"(w(_0) w(_1))"});
  // The caller's own variables (here the table's template variables
  // themselves, passed as arguments) are values like any other: the clause
  // binds them only through its arguments.
  REQUIRE(strings(run_all(q, conj(wrapo(u), eq(q, u)))) == std::vector<std::string>{"w(_0)"});
  REQUIRE(strings(run_all(q, conj(wrapo(x), eq(q, list({x, u}))))) ==
          std::vector<std::string>{"(w(_0) _1)"});
  // A recursive table: every level has its own fresh variables.
  REQUIRE(strings(run(1, q, membero_t(7, q))) == std::vector<std::string>{"(7 . _0)"});
  REQUIRE(strings(run(3, q, membero_t(7, q))) ==
          std::vector<std::string>{"(7 . _0)", "(_0 7 . _1)", "(_0 _1 7 . _2)"});
}

TEST_CASE("a clause table keeps the occurs check on its fresh variables", "[kanren]") {
  // fresh(y) y == f(y) has no answer, as with eq; nor has x == f(x) for an argument x.
  const Term x = lvar("x"), y = lvar("y");
  const ClauseTable loop({x}, {{{y}, {{y, compound("f", y)}}, {}}, {{}, {{x, compound("f", x)}}, {}}});
  const Term q = lvar("q");
  REQUIRE(run_all(q, loop(q)).empty());
  REQUIRE(run_all(q, fresh([](Term y2) { return eq(y2, compound("f", y2)); })).empty());
  // The same variable on both sides: it just stands for itself.
  const ClauseTable same({x}, {{{y}, {{y, y}, {x, y}}, {}}});
  REQUIRE(strings(run_all(q, same(q))) == std::vector<std::string>{"_0"});
}

TEST_CASE("a clause table's equations wake disequality constraints", "[kanren]") {
  const Term q = lvar("q");
  REQUIRE(to_string(list(run_all(q, conj(membero_t(q, list({1, 2, 3})), neq(q, 2))))) == "(1 3)");
  REQUIRE(to_string(list(run_all(q, conj(neq(q, 2), membero_t(q, list({1, 2, 3})))))) == "(1 3)");
  REQUIRE(to_string(list(run_all(q, conj(neq(q, 2), membero(q, list({1, 2, 3})))))) == "(1 3)");
}

TEST_CASE("a clause table instantiates what it binds, op patterns included", "[kanren]") {
  const Term x = lvar("x"), a = lvar("a");
  const ClauseTable sumo({x}, {{{a}, {{x, op_pattern("sum", {{"axis", a}})}, {a, tuple({0})}}, {}}});
  const Term q = lvar("q");
  REQUIRE(strings(run_all(q, sumo(q))) == std::vector<std::string>{"sum{axis=[0]}"});
  REQUIRE(strings(run_all(q, sumo(op_pattern("sum", {{"axis", q}})))) ==
          std::vector<std::string>{"[0]"});
  REQUIRE(run_all(q, sumo(compound("f", q))).empty());
}

TEST_CASE("a clause table is checked when it is built", "[kanren]") {
  const Term x = lvar("x"), y = lvar("y"), z = lvar("z");
  CHECK_THROWS_WITH(ClauseTable({x}, {{{}, {{x, compound("f", z)}}, {}}}),
                    "clause 0 uses `?z`, which is neither a parameter nor one of its fresh variables");
  CHECK_THROWS_WITH(ClauseTable({x}, {{{y}, {}, {}}, {{}, {{x, y}}, {}}}),
                    "clause 1 uses `?y`, which is neither a parameter nor one of its fresh variables");
  CHECK_THROWS_WITH(ClauseTable({x, x}, {}), "parameter `?x` is listed twice");
  CHECK_THROWS_WITH(ClauseTable({x}, {{{x}, {}, {}}}), "clause 0: `?x` is declared twice");
  CHECK_THROWS_WITH(ClauseTable({Term(1)}, {}),
                    "a clause table's parameters must be logic variables, got `1`");
  const ClauseTable one({x}, {{{}, {{x, 1}}, {}}});
  CHECK_THROWS_WITH(one(x, y), "a clause table of 1 parameters applied to 2 arguments");
  // No clauses: the relation fails.
  const Term q = lvar("q");
  REQUIRE(run_all(q, ClauseTable({x}, {})(q)).empty());
}

TEST_CASE("a clause table reads graph nodes through the unifier's views", "[kanren]") {
  // The head of a template is a symbol, an Op atom or a variable; the term
  // is a graph variable read as op(inputs…), or a literal against a constant.
  const Term x = lvar("x"), a = lvar("a"), h = lvar("h");
  const ClauseTable by_name({x, a}, {{{}, {{x, compound("mul", a, 1)}}, {}}});
  const ClauseTable by_op({x, a}, {{{}, {{x, compound(toy("mul", 2), a, 1)}}, {}}});
  const ClauseTable by_var({x, a}, {{{h}, {{x, compound(h, a, 1)}}, {}}});
  const Var y = fvec("y");
  const Term e = Term(mul(exp(y), fconst(1.0)));
  const Term q = lvar("q");
  for (const ClauseTable* t : {&by_name, &by_op, &by_var}) {
    const std::vector<Term> got = run_all(q, (*t)(e, q));
    REQUIRE(got.size() == 1);
    REQUIRE(to_string(got[0]) == "exp(y)");
    REQUIRE(run_all(q, (*t)(Term(mul(y, y)), q)).empty());
  }
  // A symbol in the template against an Op atom in the term, and back.
  REQUIRE(run_all(q, by_name(compound(toy("mul", 2), 5, 1), q)) == std::vector<Term>{Term(5)});
  REQUIRE(run_all(q, by_op(compound("mul", 5, 1), q)) == std::vector<Term>{Term(5)});
  REQUIRE(run_all(q, by_name(compound("mul", 5, 2), q)).empty());
}

TEST_CASE("a clause table agrees with eq on terms of every shape", "[kanren]") {
  // A compound or pair template meets atoms (in the word and on the heap),
  // compounds of another arity, and the cons view both ways; each answer
  // set must be the one the eq goals give.
  const Term x = lvar("x"), out = lvar("out"), a = lvar("a"), b = lvar("b"), d = lvar("d");
  const ClauseTable shape({x, out}, {{{a, b}, {{x, compound("f", a, b)}, {out, list({a, b})}}, {}}});
  const ClauseTable pairs({x, out}, {{{a, d}, {{x, cons(a, d)}, {out, a}}, {}}});
  auto shape_eq = [](Term t, Term q) {
    return fresh([=](Term a2, Term b2) { return conj(eq(t, compound("f", a2, b2)), eq(q, list({a2, b2}))); });
  };
  auto pairs_eq = [](Term t, Term q) {
    return fresh([=](Term a2, Term d2) { return conj(eq(t, cons(a2, d2)), eq(q, a2)); });
  };
  const Term q = lvar("q");
  const std::vector<Term> subjects{7, "leaf", "a symbol longer than seven bytes", 2.5,
                                   Term::integer(std::int64_t{1} << 61), Term::nil(),
                                   compound("f", 1), compound("f", 1, 2), compound("g", 1, 2),
                                   list({"f", 1, 2}), list({1, 2}), tuple({1, 2})};
  std::size_t shape_answers = 0, pair_answers = 0;
  for (const Term& s : subjects) {
    INFO(to_string(s));
    const std::vector<Term> got_shape = run_all(q, shape(s, q));
    REQUIRE(got_shape == run_all(q, shape_eq(s, q)));
    const std::vector<Term> got_pairs = run_all(q, pairs(s, q));
    REQUIRE(got_pairs == run_all(q, pairs_eq(s, q)));
    shape_answers += got_shape.size();
    pair_answers += got_pairs.size();
  }
  // f(1, 2) and (f 1 2) match f(?a, ?b); every compound and non-empty list is a pair.
  REQUIRE(shape_answers == 2);
  REQUIRE(pair_answers == 6);
  REQUIRE(strings(run_all(q, shape(list({"f", 1, 2}), q))) == std::vector<std::string>{"(1 2)"});
  REQUIRE(strings(run_all(q, pairs(compound("g", 1, 2), q))) == std::vector<std::string>{"g"});
}

TEST_CASE("a clause table with more than eight arguments and fresh variables", "[kanren]") {
  // 3 parameters and 7 fresh variables: the environment no longer fits the
  // call's inline buffer. The clause takes a 7-element list apart and
  // returns it reversed, with the two other arguments around it.
  const Term l = lvar("l"), pre = lvar("pre"), out = lvar("out");
  std::vector<Term> f;
  for (int i = 0; i < 7; ++i) f.push_back(lvar("f" + std::to_string(i)));
  std::vector<Term> reversed(f.rbegin(), f.rend());
  const ClauseTable rev({l, pre, out}, {{f, {{l, list(f)}, {out, cons(pre, list(reversed))}}, {}}});
  const ClauseTable rev_then({l, pre, out},
                             {{f, {{l, list(f)}},
                               [](ClauseEnv v) {
                                 REQUIRE(v.size() == 10);
                                 std::vector<Term> r(v.rbegin(), v.rend() - 3);
                                 return eq(v[2], cons(v[1], list(r)));
                               }}});
  const Term q = lvar("q");
  const Term items = list({1, 2, 3, 4, 5, 6, 7});
  for (const ClauseTable* t : {&rev, &rev_then}) {
    REQUIRE(strings(run_all(q, (*t)(items, "x", q))) == std::vector<std::string>{"(x 7 6 5 4 3 2 1)"});
    REQUIRE(run_all(q, (*t)(list({1, 2}), "x", q)).empty());
  }
}

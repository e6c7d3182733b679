// The examples of docs/unify.md, compiled and run. Every ```cpp block of the
// page must appear in this file (the last test checks it), so the page cannot
// drift from code that works.
#include <fstream>
#include <rw/kanren.hpp>
#include <rw/rewrite.hpp>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/kanren/relation_rewrite.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/reify_graph.hpp"
#include "support/toy_ops.hpp"

using namespace rw::test;

TEST_CASE("docs: terms", "[unify]") {
  // doc: terms
  using namespace rw;
  Term x = lvar("x");                        // a logic variable, printed ?x
  Term t = compound("f", x, 1, 2.5, "milk");  // f(?x, 1, 2.5, milk)
  Term l = list({1, 2, 3});                  // (1 2 3)
  Term p = tuple({0, 1});                    // [0, 1]
  Term s = op_pattern("sum", {{"axis", lvar("a")}});  // sum{axis=?a}

  REQUIRE(to_string(t) == "f(?x, 1, 2.5, milk)");
  REQUIRE_FALSE(parse_term("f(?x, 1)") == parse_term("f(?x, 1)"));  // two different ?x
  TermVars vars;
  REQUIRE(parse_term("f(?x, 1)", vars) == parse_term("f(?x, 1)", vars));  // one ?x
  REQUIRE(t.is_ground() == false);
  REQUIRE(l.is_ground());
  // end doc
  REQUIRE(to_string(l) == "(1 2 3)");
  REQUIRE(to_string(p) == "[0, 1]");
  REQUIRE(to_string(s) == "sum{axis=?a}");
}

TEST_CASE("docs: unify and reify", "[unify]") {
  // doc: unify
  using namespace rw;
  TermVars v;
  Term a = parse_term("f(?x, g(?y), ?y)", v);
  Term b = parse_term("f(1, ?z, 2)", v);
  std::optional<Substitution> s = unify(a, b);
  REQUIRE(s);
  REQUIRE(to_string(reify(a, *s)) == "f(1, g(2), 2)");
  REQUIRE(to_string(reify(parse_term("h(?x, ?w, ?u, ?w)", v), *s)) == "h(1, _0, _1, _0)");
  REQUIRE_FALSE(unify(v["x"], parse_term("f(?x)", v)));  // the occurs check
  // end doc
}

namespace {
// doc: appendo
using namespace rw;
using namespace rw::kanren;

// out is l followed by s. The recursive call is lazy: built when reached.
Goal my_appendo(Term l, Term s, Term out) {
  return conde({{eq(l, Term::nil()), eq(s, out)},
                {fresh([=](Term a, Term d, Term res) {
                  return conj(eq(cons(a, d), l), eq(cons(a, res), out),
                              lazy([=] { return my_appendo(d, s, res); }));
                })}});
}
// end doc
}  // namespace

TEST_CASE("docs: miniKanren", "[unify]") {
  // doc: run
  Term q = lvar("q");
  std::vector<Term> splits = run_all(q, fresh([&](Term x, Term y) {
    return conj(eq(q, list({x, y})), my_appendo(x, y, list({1, 2, 3})));
  }));
  REQUIRE(to_string(splits[0]) == "(() (1 2 3))");
  REQUIRE(to_string(splits[3]) == "((1 2 3) ())");
  REQUIRE(splits.size() == 4);

  // Disequality: q is in (1 2 3) but is not 2.
  REQUIRE(to_string(list(run_all(q, conj(membero(q, list({1, 2, 3})), neq(q, 2))))) == "(1 3)");
  // end doc
}

namespace docs_clauses {
// doc: clause tables
using namespace rw;
using namespace rw::kanren;
Goal membero_t(Term x, Term l);
const ClauseTable& membero_table() {
  static const ClauseTable table = [] {
    const Term x = lvar("x"), l = lvar("l"), a = lvar("a"), d = lvar("d");
    // Each clause: its fresh variables, its equations, what follows them.
    // The continuation sees the arguments, then the fresh variables: v[3] is d.
    return ClauseTable({x, l}, {{{d}, {{l, cons(x, d)}}, {}},
                                {{a, d}, {{l, cons(a, d)}},
                                 [](ClauseEnv v) { return membero_t(v[0], v[3]); }}});
  }();
  return table;
}
Goal membero_t(Term x, Term l) { return membero_table()(x, l); }
// end doc
}  // namespace docs_clauses

TEST_CASE("docs: the term relations", "[unify]") {
  // doc: term relations
  using namespace rw;
  using namespace rw::kanren;
  Theory th;
  th.associative("a").ac("ac");
  Term q = lvar("q");
  auto forms = [&](const Goal& g) {
    std::vector<std::string> out;
    for (const Term& t : run_all(q, g)) out.push_back(to_string(t));
    return out;
  };
  REQUIRE(forms(eq_assoc(parse_term("a(1, 2, 3)"), q, th)) ==
          std::vector<std::string>{"a(a(1, 2), 3)", "a(1, 2, 3)", "a(1, a(2, 3))"});
  REQUIRE(run_all(q, eq_assoccomm(parse_term("ac(1, ac(2, 3))"), q, th)).size() == 18);
  // A variable inside a term takes both orders of the operands left to it.
  REQUIRE(forms(eq_assoccomm(parse_term("ac(1, 2, 3)"), compound("ac", {1, q}), th)) ==
          std::vector<std::string>{"ac(3, 2)", "ac(2, 3)"});
  // eq_mod only checks: the same query binds q to the group as it is.
  REQUIRE(forms(eq_mod(parse_term("ac(1, 2, 3)"), compound("ac", {1, q}), th)) ==
          std::vector<std::string>{"ac(2, 3)"});
  // end doc
}

TEST_CASE("docs: clause tables", "[unify]") {
  Term q = lvar("q");
  REQUIRE(to_string(list(run_all(q, docs_clauses::membero_t(q, list({1, 2, 3}))))) == "(1 2 3)");
  REQUIRE(to_string(list(run_all(q, conj(docs_clauses::membero_t(q, list({1, 2, 3})), neq(q, 2))))) ==
          "(1 3)");
}

TEST_CASE("docs: the graph view and patterns", "[unify]") {
  // doc: match
  using namespace rw;
  using rw::test::exp;  // the toy Op, not the standard rw::exp
  OpPtr mul_op = toy("mul", 2);
  Var x = fvec("x"), y = fvec("y");
  Var e = mul(exp(x), fconst(1.0));             // exp(x) * 1.0

  Term z = lvar("z");
  Pattern times_one(compound(mul_op, z, 1));    // mul(?z, 1)
  MatchResult m = match(times_one, e);
  REQUIRE(m);
  REQUIRE(to_string(m->walk(z)) == "exp(x)");   // ?z is bound to the graph variable exp(x)

  Var f = mul(x, y);
  MatchResult no = match(times_one, f);
  REQUIRE(no.why() == "input 1 of `mul`: expected constant 1, got `y`");
  // end doc
}

TEST_CASE("docs: commutative patterns and guards", "[unify]") {
  // doc: theory
  using namespace rw;
  Theory th;
  th.commutative("mul");
  Term c = lvar("c"), w = lvar("w");
  Pattern scale(compound(toy("mul", 2), c, w), th);
  scale.where("constant(c)", [c](const Bindings& b) {
    Var g = b.graph(c);
    return g && g->is_constant();
  });
  Var x = fvec("x");
  MatchResult m = match(scale, mul(x, fconst(3.0)));       // x * 3.0
  REQUIRE(m);
  REQUIRE(to_string(m->walk(c)) == "3.0");                 // found in the swapped order
  // end doc
}

TEST_CASE("docs: reify_to_graph", "[unify]") {
  // doc: reify_to_graph
  using namespace rw;
  using rw::test::exp;  // the toy Op, not the standard rw::exp
  Var a = fvec("a"), b = fvec("b");
  Term x = lvar("x"), y = lvar("y");
  Pattern lhs(compound(toy("div", 2), compound(toy("mul", 2), x, y), y));  // (x * y) / y
  Var e = div(mul(a, exp(b)), exp(b));
  MatchResult m = match(lhs, e);
  REQUIRE(m);
  GraphResult out = reify_to_graph(compound(toy("mul", 2), x, 2), *m);      // x * 2
  REQUIRE(out);
  REQUIRE(to_infix(out.var) == "a * 2.0");                                  // 2 became float64

  Var i = Variable::make(TensorType::make(DType::Int32, {kUnknownDim}), "i");
  GraphResult bad = reify_to_graph(compound(toy("add", 2), Term(a), Term(i)));
  REQUIRE(bad.why == "`add` refused its inputs: toy `add` takes float64 tensors, got i32[?]");
  // end doc
}

TEST_CASE("docs: relation rewrite", "[unify]") {
  // doc: relation
  using namespace rw;
  using namespace rw::kanren;
  using rw::test::exp, rw::test::log;  // the toy Ops, not rw::exp and rw::log
  // log(args…) -> exp(args…)
  Relation log_to_exp = [](const Term& in, const Term& out) {
    return fresh([=](Term args) {
      return conj(conso(toy("log", 1), args, in), conso(toy("exp", 1), args, out));
    });
  };
  Var x = fvec("x");
  Var l = log(x);
  GraphResult r = rewrite_with_relation(log_to_exp, *l->owner());
  REQUIRE(to_infix(r.var) == "exp(x)");
  REQUIRE(rewrite_with_relation(log_to_exp, *exp(x)->owner()).why == "the relation has no answer");
  // end doc
}

TEST_CASE("docs: every example of docs/unify.md is in this file", "[unify]") {
  auto read = [](const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  // Whitespace-insensitive: runs of blanks become one space.
  auto squash = [](const std::string& s) {
    std::string out;
    bool space = false;
    for (char ch : s) {
      if (ch == ' ' || ch == '\n' || ch == '\t') {
        space = true;
        continue;
      }
      if (space && !out.empty()) out += ' ';
      space = false;
      out += ch;
    }
    return out;
  };
  const std::string doc = read(std::string(RW_SOURCE_DIR) + "/docs/unify.md");
  const std::string code = squash(read(std::string(RW_SOURCE_DIR) + "/tests/engine/unify/test_docs.cpp"));
  std::size_t blocks = 0;
  for (std::size_t pos = doc.find("```cpp\n"); pos != std::string::npos;
       pos = doc.find("```cpp\n", pos)) {
    const std::size_t begin = pos + 7;
    const std::size_t end = doc.find("```", begin);
    REQUIRE(end != std::string::npos);
    const std::string block = squash(doc.substr(begin, end - begin));
    INFO(block);
    CHECK(code.find(block) != std::string::npos);
    ++blocks;
    pos = end + 3;
  }
  REQUIRE(blocks >= 7);
}

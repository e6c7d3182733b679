// Unification, the occurs check, substitute and reify, on terms of any depth.
#include <catch2/catch.hpp>

#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/unify.hpp"

using namespace rw;

namespace {
/// Reads two terms sharing variables, unifies them, and reifies the first.
std::optional<std::string> unify_text(const char* a, const char* b) {
  TermVars vars;
  Term u = parse_term(a, vars), v = parse_term(b, vars);
  auto s = unify(u, v);
  if (!s) return std::nullopt;
  return to_string(reify(u, *s));
}
}  // namespace

TEST_CASE("unification finds the most general unifier", "[unify]") {
  CHECK(unify_text("f(?x, 2)", "f(1, ?y)") == "f(1, 2)");
  CHECK(unify_text("f(?x, ?x)", "f(1, ?y)") == "f(1, 1)");
  CHECK(unify_text("f(?x, ?y)", "f(?y, g(?z))") == "f(g(_0), g(_0))");
  CHECK(unify_text("(?a ?b . ?rest)", "(1 2 3 4)") == "(1 2 3 4)");
  CHECK(unify_text("[?a, 2]", "[1, ?b]") == "[1, 2]");
  CHECK(unify_text("sum{axis=?a}(?x)", "sum{axis=[0, 1]}(v)") == "sum{axis=[0, 1]}(v)");
  CHECK(unify_text("?f(1, 2)", "add(1, ?y)") == "add(1, 2)");
  CHECK_FALSE(unify_text("f(?x, ?x)", "f(1, 2)"));
  CHECK_FALSE(unify_text("f(1)", "g(1)"));
  CHECK_FALSE(unify_text("f(1)", "f(1, 2)"));
  CHECK_FALSE(unify_text("1", "1.0"));
  CHECK_FALSE(unify_text("(1 2)", "(1 2 3)"));
  CHECK_FALSE(unify_text("[1]", "(1)"));
}

TEST_CASE("a pair unifies with a compound read as the list (head arg…)", "[unify]") {
  CHECK(unify_text("(?h . ?args)", "mul(?x, 1)") == "(mul _0 1)");
  CHECK(unify_text("(mul ?a ?b)", "mul(2, 3)") == "(mul 2 3)");
  CHECK_FALSE(unify_text("(add . ?args)", "mul(2, 3)"));
}

TEST_CASE("the occurs check refuses x = f(x), directly or through bindings", "[unify]") {
  Term x = lvar("x"), y = lvar("y");
  REQUIRE_FALSE(unify(x, compound("f", {x})));
  REQUIRE_FALSE(unify(x, list({1, x})));
  auto s = unify(y, compound("g", {x}));
  REQUIRE(s);
  REQUIRE_FALSE(unify(x, compound("f", {y}), *s));  // y stands for g(x)
  REQUIRE(occurs(x, compound("f", {y}), *s));
  REQUIRE_FALSE(occurs(x, compound("f", {1}), *s));
  // Without it, the binding is made (and walking it would not end).
  auto cyclic = unify(x, compound("f", {x}), {}, UnifyOptions{.occurs_check = false});
  REQUIRE(cyclic);
  REQUIRE(cyclic->walk(x) == compound("f", {x}));
}

TEST_CASE("unify_in leaves the substitution as it was when it fails", "[unify]") {
  Term x = lvar("x"), y = lvar("y"), z = lvar("z");
  Substitution s;
  REQUIRE(unify_in(x, 1, s));
  const auto before = s.bindings();
  // y and z would be bound before the clash at the last argument.
  REQUIRE_FALSE(unify_in(compound("f", {y, z, x}), compound("f", {2, 3, 4}), s));
  REQUIRE(s.bindings() == before);
  REQUIRE(unify_in(compound("f", {y, z, x}), compound("f", {2, 3, 1}), s));
  REQUIRE(s.size() == 3);
}

TEST_CASE("reified names are stable: order of first appearance", "[unify]") {
  TermVars vars;
  Term t = parse_term("f(?b, g(?a, ?b), ?c, (?a . ?d))", vars);
  REQUIRE(to_string(reify(t, {})) == "f(_0, g(_1, _0), _2, (_1 . _3))");
  // The same answer reified twice, or from another substitution that leaves
  // the same shape, reads the same.
  Substitution s;
  s.bind(vars.at("c"), vars.at("a"));
  REQUIRE(to_string(reify(t, s)) == "f(_0, g(_1, _0), _1, (_1 . _2))");
  REQUIRE(reify(t, s) == reify(t, s));
  // One naming across several terms.
  Reifier r(s);
  REQUIRE(to_string(r(vars.at("d"))) == "_0");
  REQUIRE(to_string(r(t)) == "f(_1, g(_2, _1), _2, (_2 . _0))");
}

TEST_CASE("substitute replaces bindings throughout and shares what did not change", "[unify]") {
  TermVars vars;
  Term ground = parse_term("h(1, 2, 3)");
  Term t = parse_term("f(?x, ?y)", vars);
  Term u = compound("g", {ground, vars.at("y")});
  Substitution s;
  s.bind(vars.at("x"), u);
  s.bind(vars.at("y"), 5);
  const Term r = substitute(t, s);
  REQUIRE(to_string(r) == "f(g(h(1, 2, 3), 5), 5)");
  REQUIRE(r.arg(0).arg(0).same(ground));  // the ground part is not copied
  REQUIRE(substitute(ground, s).same(ground));
  const Term unbound = parse_term("f(?p, 1)");
  REQUIRE(substitute(unbound, s).same(unbound));  // nothing bound inside: the same node
}

TEST_CASE("shared subterms are substituted once, not once per path", "[unify]") {
  // A DAG whose unfolding has 2^60 leaves.
  Term x = lvar("x");
  Term t = x;
  for (int i = 0; i < 60; ++i) t = compound("p", {t, t});
  Substitution s;
  s.bind(x, 1);
  const Term r = substitute(t, s);
  REQUIRE(r.is_ground());
  REQUIRE(r.arg(0).same(r.arg(1)));
  REQUIRE(occurs(x, t, {}));
}

TEST_CASE("substitute and reify keep every kind of word a rebuilt node holds", "[unify]") {
  // The rebuild marks the nodes it made in their words; atoms whose words use
  // the same bits (odd integers, symbols of any length, named variables,
  // specials) must come through unchanged, in every arity and kind of node.
  TermVars v;
  Term t = parse_term(
      "f(?a, 1, 3, -7, x, abcdefg, \"a long string\", ?n, none, true, 2.5, "
      "g(?a, ?b), (?a 9 . ?c), sum{axis=?a}, h(?a, 11, ?a, 13, ?a, 15))",
      v);
  Substitution s;
  s.bind(v["a"], parse_term("k(5, ?b, yz)", v));
  s.bind(v["b"], 17);
  const Term want =
      parse_term("f(k(5, 17, yz), 1, 3, -7, x, abcdefg, \"a long string\", ?n, none, true, 2.5, "
                 "g(k(5, 17, yz), 17), (k(5, 17, yz) 9 . ?c), sum{axis=k(5, 17, yz)}, "
                 "h(k(5, 17, yz), 11, k(5, 17, yz), 13, k(5, 17, yz), 15))",
                 v);
  const Term got = substitute(t, s);
  REQUIRE(to_string(got) == to_string(want));
  REQUIRE(got == want);
  // ?a's value is rebuilt once and shared by every place that names ?a.
  REQUIRE(got.arg(0).same(got.arg(11).arg(0)));
  REQUIRE(got.arg(0).same(got.arg(14).arg(4)));
  REQUIRE(to_string(reify(t, s)) ==
          "f(k(5, 17, yz), 1, 3, -7, x, abcdefg, \"a long string\", _0, none, true, 2.5, "
          "g(k(5, 17, yz), 17), (k(5, 17, yz) 9 . _1), sum{axis=k(5, 17, yz)}, "
          "h(k(5, 17, yz), 11, k(5, 17, yz), 13, k(5, 17, yz), 15))");
  // The input and the values in the substitution are untouched.
  REQUIRE(to_string(*s.find(v["a"])) == "k(5, ?b, yz)");
  REQUIRE(to_string(t.arg(1)) == "1");
}

TEST_CASE("unify and reify a million-deep chain without recursion", "[unify]") {
  constexpr int kDepth = 1'000'000;
  Term x = lvar("x");
  Term a = x, b = Term(42);
  for (int i = 0; i < kDepth; ++i) {
    a = compound("s", {a});
    b = compound("s", {b});
  }
  auto s = unify(a, b);
  REQUIRE(s);
  REQUIRE(s->find(x)->as_int() == 42);
  Term r = reify(a, *s);
  REQUIRE(r == b);
  Term q = lvar("q");
  auto s2 = unify(q, a, *s);
  REQUIRE(s2);
  REQUIRE(reify(q, *s2) == b);
  // Long lists too.
  Term l1 = Term::nil(), l2 = Term::nil();
  std::vector<Term> vars = lvars(kDepth);
  for (int i = 0; i < kDepth; ++i) {
    l1 = cons(vars[i], l1);
    l2 = cons(i, l2);
  }
  auto s3 = unify(l1, l2);
  REQUIRE(s3);
  REQUIRE(s3->size() == static_cast<std::size_t>(kDepth));
  REQUIRE(reify(l1, *s3) == l2);
}

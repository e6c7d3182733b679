// Terms: atoms, variables, compounds, hashing and equality, printing and
// reading, and deep terms.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <thread>

#include "engine/unify/intern.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/term.hpp"
#include "support/toy_ops.hpp"

using namespace rw;

TEST_CASE("atoms know their kind and value", "[unify]") {
  REQUIRE(Term(3).kind() == TermKind::Int);
  REQUIRE(Term(3).as_int() == 3);
  REQUIRE(Term(-7LL).as_int() == -7);
  REQUIRE(Term(2.5).kind() == TermKind::Float);
  REQUIRE(Term(2.5).as_float() == 2.5);
  REQUIRE(Term("milk").kind() == TermKind::String);
  REQUIRE(Term("milk").as_string() == "milk");
  REQUIRE(Term::boolean(true).as_bool());
  REQUIRE_FALSE(Term::boolean(false).as_bool());
  REQUIRE(Term::none().kind() == TermKind::None);
  REQUIRE(Term::dtype(DType::Float32).as_dtype() == DType::Float32);
  REQUIRE(Term::nil().is_nil());
  REQUIRE(Term().is_null());
  REQUIRE(Term().kind() == TermKind::Null);
  // Large integers are boxed, small ones are not; both read back exactly.
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  REQUIRE(Term(big).is_heap());
  REQUIRE(Term(big).as_int() == big);
  REQUIRE(Term(std::numeric_limits<std::int64_t>::min()).as_int() ==
          std::numeric_limits<std::int64_t>::min());
  REQUIRE_FALSE(Term(1LL << 40).is_heap());
  REQUIRE(Term(1LL << 40).as_int() == (1LL << 40));
  REQUIRE_THROWS_AS(Term::integer(std::numeric_limits<std::uint64_t>::max()), TermError);
}

TEST_CASE("strings of up to 7 bytes live in the handle; longer ones are nodes", "[unify]") {
  const Term f("f"), seven("1234567"), eight("12345678");
  REQUIRE_FALSE(f.is_heap());
  REQUIRE_FALSE(seven.is_heap());
  REQUIRE(eight.is_heap());
  REQUIRE(Term("").as_string().empty());
  REQUIRE(Term("").kind() == TermKind::String);
  REQUIRE(seven.as_string() == "1234567");
  REQUIRE(eight.as_string() == "12345678");
  // Equal strings are identical when short, structurally equal when long.
  REQUIRE(Term("milk").same(Term(std::string("milk"))));
  REQUIRE(eight == Term("12345678"));
  REQUIRE(eight.hash() == Term("12345678").hash());
  REQUIRE(Term("milk").hash() == Term(std::string_view("milk")).hash());
  REQUIRE(Term("milk") != Term("milk "));
  REQUIRE(Term("a") != Term(1));
  // Any byte, NUL included, is kept.
  const std::string nul("a\0b", 3);
  REQUIRE(Term(nul).as_string() == nul);
  REQUIRE(Term(nul) != Term("a"));
  REQUIRE(Term(std::string("\xff\xfe", 2)).as_string() == std::string("\xff\xfe", 2));
  // A compound headed by a short symbol hashes and compares as one with a long one.
  REQUIRE(compound("f", 1, 2) == compound(std::string("f"), 1, 2));
  REQUIRE(compound("f", 1, 2) != compound("g", 1, 2));
  REQUIRE(compound("function", 1) == compound("function", 1));
}

TEST_CASE("taking a term apart the wrong way names what it is", "[unify]") {
  REQUIRE_THROWS_WITH(Term(1).head(), "head() of a integer");
  REQUIRE_THROWS_WITH(Term("a").car(), "car() of a string");
  REQUIRE_THROWS_WITH(Term(1.5).as_int(), "as_int() of a number");
  REQUIRE_THROWS_WITH(Term("f")(1).arg(3), "argument 3 of a compound of arity 1");
  REQUIRE_THROWS_WITH(compound(Term(), {1}), "a compound term needs a head");
  REQUIRE_THROWS_WITH(compound("f", {Term(1), Term()}),
                      "argument 1 of a compound term is the null term");
  REQUIRE_THROWS_WITH(op_pattern("sum", {{"axis", 1}, {"axis", 2}}),
                      "op pattern `sum` names property `axis` twice");
  const char* no_string = nullptr;
  REQUIRE_THROWS_WITH(Term(no_string), "a string term needs a string");
  static_assert(!std::is_constructible_v<Term, std::nullptr_t>);
}

TEST_CASE("variables are distinct even when they share a name", "[unify]") {
  Term a = lvar("x"), b = lvar("x"), c = lvar();
  REQUIRE(a.is_var());
  REQUIRE_FALSE(a == b);
  REQUIRE(a == a);
  REQUIRE(a.var_name() == "x");
  REQUIRE(b.var_name() == "x");
  REQUIRE(c.var_name().empty());
  REQUIRE(a.var_id() != b.var_id());
  REQUIRE_FALSE(a.is_ground());
  REQUIRE(Term::reified(4).var_name() == "_4");
  REQUIRE(Term::reified(4).is_reified_var());
  REQUIRE(Term::reified(4) == Term::reified(4));
}

TEST_CASE("variables made on several threads have distinct ids", "[unify]") {
  std::vector<std::uint64_t> ids[4];
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&ids, t] {
      for (int i = 0; i < 10000; ++i) ids[t].push_back(lvar().var_id());
    });
  for (auto& th : threads) th.join();
  std::vector<std::uint64_t> all;
  for (auto& v : ids) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  REQUIRE(std::adjacent_find(all.begin(), all.end()) == all.end());
}

TEST_CASE("structurally equal terms are equal and hash equal", "[unify]") {
  Term x = lvar("x");
  Term a = compound("f", {x, list({1, 2.5, "s"}), tuple({0, 1})});
  Term b = compound("f", {x, list({1, 2.5, "s"}), tuple({0, 1})});
  REQUIRE_FALSE(a.same(b));
  REQUIRE(a == b);
  REQUIRE(a.hash() == b.hash());
  REQUIRE_FALSE(a == compound("f", {x, list({1, 2.5, "s"}), tuple({0, 2})}));
  REQUIRE_FALSE(a == compound("g", {x, list({1, 2.5, "s"}), tuple({0, 1})}));
  // Integers and numbers are different terms; NaN equals NaN; -0.0 equals 0.0.
  REQUIRE_FALSE(Term(1) == Term(1.0));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  REQUIRE(Term(nan) == Term(nan));
  REQUIRE(Term(-0.0) == Term(0.0));
  REQUIRE(Term(-0.0).hash() == Term(0.0).hash());
  // Op atoms compare by the Op's value.
  REQUIRE(Term(test::toy("add", 2, 3)) == Term(test::toy("add", 2, 3)));
  REQUIRE_FALSE(Term(test::toy("add", 2, 3)) == Term(test::toy("add", 2, 4)));
}

TEST_CASE("ground flags follow the variables inside", "[unify]") {
  Term x = lvar();
  REQUIRE(compound("f", {1, "a"}).is_ground());
  REQUIRE_FALSE(compound("f", {1, x}).is_ground());
  REQUIRE_FALSE(cons(1, cons(x, Term::nil())).is_ground());
  REQUIRE(list({1, 2}).is_ground());
  REQUIRE_FALSE(op_pattern("sum", {{"axis", x}}).is_ground());
  REQUIRE(op_pattern("sum", {{"axis", tuple({0})}}).is_ground());
  REQUIRE(Term(test::fvec("v")).is_ground());
  REQUIRE_FALSE(compound(x, {1}).is_ground());
}

TEST_CASE("terms print in the documented form", "[unify]") {
  Term x = lvar("x");
  REQUIRE(to_string(compound("mul", {x, 1})) == "mul(?x, 1)");
  REQUIRE(to_string(list({1, "a", 2.0})) == "(1 a 2.0)");
  REQUIRE(to_string(cons(1, x)) == "(1 . ?x)");
  REQUIRE(to_string(Term::nil()) == "()");
  REQUIRE(to_string(tuple({0, 1})) == "[0, 1]");
  REQUIRE(to_string(op_pattern("sum", {{"axis", x}})) == "sum{axis=?x}");
  REQUIRE(to_string(compound(op_pattern("sum", {{"axis", 0}}), {x})) == "sum{axis=0}(?x)");
  REQUIRE(to_string(Term("two words")) == "\"two words\"");
  REQUIRE(to_string(Term("+")) == "+");
  REQUIRE(to_string(Term("true")) == "\"true\"");
  REQUIRE(to_string(Term::boolean(true)) == "true");
  REQUIRE(to_string(Term::none()) == "none");
  REQUIRE(to_string(Term::dtype(DType::Float64)) == "float64");
  REQUIRE(to_string(Term::reified(2)) == "_2");
  Term anon = lvar();
  REQUIRE(to_string(anon) == "?_" + std::to_string(anon.var_id()));
  REQUIRE(to_string(Term(test::toy("add", 2, 3))) == "add{tag=3}");
  Var v = test::fvec("v");
  REQUIRE(to_string(compound("f", {Term(v)})) == "f(v)");
}

TEST_CASE("printed terms read back as equal terms", "[unify]") {
  TermVars vars;
  for (const char* text :
       {"mul(?x, 1)", "(1 a 2.0)", "(1 . ?x)", "()", "[0, 1]", "sum{axis=?x}", "sum{axis=0}(?x)",
        "\"two words\"", "+", "\"true\"", "true", "none", "_2", "f(g(h(?x)), [], (a (b c) . d))",
        "-3", "1.5e-07", "nan", "-inf", "?f(1, 2)", "\"a\\\"b\""}) {
    INFO(text);
    Term t = parse_term(text, vars);
    REQUIRE(to_string(t) == text);
    REQUIRE(parse_term(to_string(t), vars) == t);
  }
  // One name, one variable: a rule's sides share them.
  Term lhs = parse_term("mul(?x, 1)", vars), rhs = parse_term("?x", vars);
  REQUIRE(lhs.arg(0) == rhs);
  REQUIRE(vars.at("x") == rhs);
  // `?_` is a fresh variable each time.
  Term anon = parse_term("f(?_, ?_)");
  REQUIRE_FALSE(anon.arg(0) == anon.arg(1));
}

TEST_CASE("the reader says where the text went wrong", "[unify]") {
  REQUIRE_THROWS_WITH(parse_term("f(1, 2"), "column 7: expected `,`, got the end of the text");
  REQUIRE_THROWS_WITH(parse_term("f(1 2)"), "column 5: expected `,`, got `2`");
  REQUIRE_THROWS_WITH(parse_term("(1 2"), "column 5: expected a term, got the end of the text");
  REQUIRE_THROWS_WITH(parse_term("f(1) x"), "column 6: unexpected `x` after the term");
  REQUIRE_THROWS_WITH(parse_term("?"), "column 2: expected a variable name after `?`");
  REQUIRE_THROWS_WITH(parse_term("\"abc"), "column 5: unterminated string");
  REQUIRE_THROWS_WITH(parse_term("99999999999999999999"),
                      "column 21: integer `99999999999999999999` does not fit in int64");
  REQUIRE_THROWS_WITH(parse_term("( . a)"), "column 3: a dotted list needs an element before `.`");
  REQUIRE_THROWS_WITH(parse_term(std::string(2000, '(')), "column 1002: terms nested deeper than 1000 levels");
}

TEST_CASE("deep terms are built, compared, printed and dropped without recursion", "[unify]") {
  constexpr int kDepth = 1'000'000;
  Term a = Term(0), b = Term(0), l = Term::nil();
  for (int i = 0; i < kDepth; ++i) {
    a = compound("s", {a});
    b = compound("s", {b});
    l = cons(i, l);
  }
  REQUIRE(a == b);
  REQUIRE(a.hash() == b.hash());
  REQUIRE(to_string(l).size() > 5'000'000);
  const std::string printed = to_string(a);
  REQUIRE(printed.size() == 3 * static_cast<std::size_t>(kDepth) + 1);
  REQUIRE(printed.substr(0, 6) == "s(s(s(");
  a = Term();
  b = Term();
  l = Term();  // a recursive destructor would overflow the stack here
}

TEST_CASE("a term table shares one node per structure", "[unify]") {
  TermTable table;
  Term x = lvar("x");
  Term a = parse_term("f(g(1, h(2)), g(1, h(2)), (1 2 3))");
  Term b = parse_term("k(h(2), (1 2 3))");
  REQUIRE_FALSE(a.arg(0).same(a.arg(1)));
  Term ia = table.intern(a), ib = table.intern(b);
  REQUIRE(ia == a);  // the same structure
  REQUIRE(ia.arg(0).same(ia.arg(1)));              // equal subterms, one node
  REQUIRE(ia.arg(0).arg(1).same(ib.arg(0)));       // across terms
  REQUIRE(ia.arg(2).same(ib.arg(1)));
  REQUIRE(table.intern(parse_term("g(1, h(2))")).same(ia.arg(0)));
  // Interning the canonical node again gives it back; non-ground terms too.
  REQUIRE(table.intern(ia).same(ia));
  Term n1 = table.intern(compound("p", x, 1)), n2 = table.intern(compound("p", x, 1));
  REQUIRE(n1.same(n2));
  REQUIRE_FALSE(table.intern(compound("p", lvar(), 1)).same(n1));
  // Immediates need no table.
  REQUIRE(table.intern(Term(5)).same(Term(5)));
  const std::size_t held = table.size();
  REQUIRE(held > 0);
  table.clear();
  REQUIRE(table.size() == 0);
  // Deep terms are interned without recursion.
  Term deep = Term(0);
  for (int i = 0; i < 200000; ++i) deep = compound("s", deep);
  REQUIRE(table.intern(deep) == deep);
}

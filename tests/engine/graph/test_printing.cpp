// debugprint and the infix printer.
#include <catch2/catch.hpp>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("debugprint shows the tree with ids, types and shared nodes once", "[graph]") {
  Var x = fvec("x");
  Var e = exp(x);
  Var z = mul(e, add(e, fconst(2)));
  z->set_name("z");
  const std::string expected =
      "mul [id A] <f64[?]> 'z'\n"
      " ├─ exp [id B] <f64[?]>\n"
      " │  └─ x [id C] <f64[?]>\n"
      " └─ add [id D] <f64[?]>\n"
      "    ├─ exp [id B] <f64[?]> ···\n"
      "    └─ 2.0 [id E] <f64[]>\n";
  REQUIRE(debugprint(z) == expected);
  DebugPrintOptions no_types;
  no_types.show_types = false;
  no_types.max_depth = 1;
  REQUIRE(debugprint(z, no_types) ==
          "mul [id A] 'z'\n"
          " ├─ exp [id B]\n"
          " │  └─ ···\n"
          " └─ add [id C]\n"
          "    └─ ···\n");
}

TEST_CASE("debugprint of a FunctionGraph prints its outputs", "[graph]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x), neg(x)});
  REQUIRE(debugprint(fg) ==
          "exp [id A] <f64[?]>\n"
          " └─ x [id B] <f64[?]>\n"
          "neg [id C] <f64[?]>\n"
          " └─ x [id B] <f64[?]>\n");
}

TEST_CASE("the infix printer follows precedence and associativity", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  REQUIRE(to_infix(mul(exp(x), fconst(2))) == "exp(x) * 2.0");
  REQUIRE(to_infix(mul(add(x, y), y)) == "(x + y) * y");
  REQUIRE(to_infix(add(x, mul(x, y))) == "x + x * y");
  REQUIRE(to_infix(sub(x, sub(x, y))) == "x - (x - y)");
  REQUIRE(to_infix(sub(sub(x, y), x)) == "x - y - x");
  REQUIRE(to_infix(neg(add(x, y))) == "-(x + y)");
  REQUIRE(to_infix(neg(x)) == "-x");
  REQUIRE(to_infix(div(mul(x, y), y)) == "x * y / y");
  REQUIRE(to_infix(exp(fvec(""))) == "exp(<f64[?]>)");
  REQUIRE(to_infix(mul(x, y), 3) == "x *…");
}

TEST_CASE("describe names variables for error messages", "[graph]") {
  Var x = fvec("x");
  REQUIRE(describe(*x) == "`x`");
  REQUIRE(describe(*fconst(1.5)) == "constant `1.5`");
  REQUIRE(describe(*exp(x)) == "`exp(x)`");
  REQUIRE(describe(*fvec("")) == "an unnamed input of type f64[?]");
}

TEST_CASE("the infix printer's work is bounded by the length it may print", "[graph]") {
  // Printing each node of a long chain, capped, walked the whole chain below
  // each node: quadratic (rwcheck's provenance did this on attach).
  Var x = fvec("x");
  std::vector<Var> chain{x};
  for (int i = 0; i < 30000; ++i) chain.push_back(i % 2 ? exp(chain.back()) : neg(chain.back()));
  std::size_t capped = 0;
  for (const Var& v : chain) capped += to_infix(v, 60).ends_with("…");
  REQUIRE(capped == chain.size() - 20);  // all but the twenty shortest
  REQUIRE(to_infix(chain.back(), 12) == "exp(-exp(-ex…");
  REQUIRE(to_infix(chain[4]) == "exp(-exp(-x))");
  // A shared subexpression prints in full at each use, within the cap.
  Var d = x;
  for (int i = 0; i < 64; ++i) d = add(d, d);
  REQUIRE(to_infix(d, 20) == "x + x + (x + x) + (x…");
}

// debugprint and the infix printer.
#include <catch2/catch.hpp>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "support/text_measures.hpp"
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
  for (int i = 0; i < 20; ++i) d = add(d, d);
  REQUIRE(to_infix(d, 20) == "x + x + (x + x) + (x…");
}

TEST_CASE("the infix printer elides what is nested past its depth", "[graph]") {
  // A left-deep sum prints nothing until its innermost operand: printing its
  // first characters walked the whole chain, for each node of it.
  Var x = fvec("x"), y = fvec("y");
  std::vector<Var> chain{x};
  for (int i = 0; i < 100000; ++i) chain.push_back(add(chain.back(), y));
  std::size_t elided = 0;
  for (const Var& v : chain) elided += to_infix(v, 160).starts_with("… + y + y");
  CHECK(elided == chain.size() - 41);  // nested past max(32, 160 / 4) levels
  std::string full = "x";
  for (int i = 0; i < 39; ++i) full += " + y";
  CHECK(to_infix(chain[39], 160) == full);
  CHECK(to_infix(chain[41], 160).starts_with("… + y"));
  // The cut never splits a character: `…` is three bytes of UTF-8.
  for (std::size_t n = 1; n < 12; ++n) {
    const std::string s = to_infix(chain.back(), n);
    CHECK(s.ends_with("…"));
    CHECK(std::count(s.begin(), s.end(), '\xE2') * 3 ==
          std::count_if(s.begin(), s.end(), [](char c) { return c & 0x80; }));
  }
}

TEST_CASE("debugprint continues a deep tree at the margin", "[graph]") {
  Var x = fvec("x");
  Var e = x;
  for (int i = 0; i < 5; ++i) e = exp(e);
  DebugPrintOptions o;
  o.show_types = false;
  o.max_indent = 2;
  REQUIRE(debugprint(add(e, e), o) ==
          "add [id A]\n"
          " ├─ exp [id B]\n"
          " │  └─ exp [id C] (continued below)\n"
          " └─ exp [id B] ···\n"
          "exp [id C]\n"
          " └─ exp [id D]\n"
          "    └─ exp [id E] (continued below)\n"
          "exp [id E]\n"
          " └─ exp [id F]\n"
          "    └─ x [id G]\n");
  // Width bounded, size linear: 20,000 levels print in about 20,000 lines of
  // at most max_indent levels (quadratic before: 600 MB).
  Var deep = x;
  for (int i = 0; i < 20000; ++i) deep = i % 2 ? exp(deep) : neg(deep);
  const std::string text = debugprint(deep);
  CHECK(widest_line(text) <= 32 * 3 + 60);
  CHECK(text.size() < 20000 * 100);
  // A line a variable, and the first line of each of the 624 continued
  // trees (one every 32 levels; `x`, at level 20,000, is a leaf).
  CHECK(std::count(text.begin(), text.end(), '\n') == 20001 + 624);
}

TEST_CASE("debugprint stops at its line cap and counts what it left out", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var a = exp(x);
  FunctionGraph fg({x, y}, {mul(a, y), neg(add(a, y))});
  DebugPrintOptions o;
  o.show_types = false;
  o.max_lines = 4;
  o.cut_note = " (more with --full)";
  REQUIRE(debugprint(fg, o) ==
          "mul [id A]\n"
          " ├─ exp [id B]\n"
          " │  └─ x [id C]\n"
          " └─ y [id D]\n"
          "… 2 more nodes (more with --full)\n");
  o.max_lines = 5;
  REQUIRE(debugprint(fg, o).ends_with(" └─ y [id D]\nneg [id E]\n… 1 more node (more with --full)\n"));
  o.max_lines = 7;
  REQUIRE(debugprint(fg, o).ends_with("    ├─ exp [id B] ···\n… more lines, of nodes shown above (more with --full)\n"));
  o.max_lines = 8;
  REQUIRE(debugprint(fg, o) == debugprint(fg, DebugPrintOptions{.show_types = false}));
}

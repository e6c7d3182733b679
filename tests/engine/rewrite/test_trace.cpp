// The trace: the events of a run in order, their text, determinism across
// runs, listeners coming and going, and the bounded short form of variables.
#include <catch2/catch.hpp>

#include <random>
#include <sstream>

#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/sequence.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

using Lines = std::vector<std::string>;

TEST_CASE("a run emits pass, attempt, match and replacement events in order", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {exp(div(mul(x, y), y))});
  EquilibriumRewriter eq("simplify", {div_cancel()});
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  eq.rewrite(fg, ctx);
  REQUIRE(rec->lines() == Lines{
                              "pass simplify started with 3 nodes",
                              "try div_cancel on x * y / y",
                              "div_cancel matched x * y / y",
                              "replaced x * y / y by x  [div_cancel]",
                              "pass simplify ended (saturated) with 1 nodes after 1 replacements",
                          });
}

TEST_CASE("failed attempts carry their reasons; a recorder can leave them out", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {div(x, y)});
  Trace trace;
  auto all = std::make_shared<TraceRecorder>();
  auto changes = std::make_shared<TraceRecorder>(/*attempts=*/false);
  trace.subscribe(all);
  trace.subscribe(changes);
  trace.subscribe(all);  // once only
  RewriteContext ctx{.trace = &trace};
  EquilibriumRewriter("simplify", {div_cancel()}).rewrite(fg, ctx);
  REQUIRE(all->lines() == Lines{
                              "pass simplify started with 1 nodes",
                              "try div_cancel on x / y",
                              "div_cancel failed on x / y: the numerator is not a product",
                              "pass simplify ended (saturated) with 1 nodes after 0 replacements",
                          });
  REQUIRE(changes->lines().size() == 2);
  trace.unsubscribe(*all);
  all->clear();
  EquilibriumRewriter("simplify", {div_cancel()}).rewrite(fg, ctx);
  REQUIRE(all->lines().empty());
  REQUIRE(changes->lines().size() == 4);
  REQUIRE(changes->text() ==
          "pass simplify started with 1 nodes\n"
          "pass simplify ended (saturated) with 1 nodes after 0 replacements\n"
          "pass simplify started with 1 nodes\n"
          "pass simplify ended (saturated) with 1 nodes after 0 replacements\n");
}

TEST_CASE("a logger writes the events to a stream", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {neg(neg(x))});
  std::ostringstream out;
  Trace trace;
  trace.subscribe(std::make_shared<TraceLogger>(out));
  RewriteContext ctx{.trace = &trace};
  EquilibriumRewriter("eq", {neg_neg()}).rewrite(fg, ctx);
  REQUIRE(out.str() ==
          "pass eq started with 2 nodes\n"
          "neg_neg matched --x\n"
          "replaced --x by x  [neg_neg]\n"
          "pass eq ended (saturated) with 0 nodes after 1 replacements\n");
}

namespace {

/// A random DAG of toy ops with constants, duplicates and simplifiable parts.
Var random_graph(const std::vector<Var>& inputs, int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Var> vs = inputs;
  auto pick = [&] { return vs[std::uniform_int_distribution<std::size_t>(0, vs.size() - 1)(rng)]; };
  for (int i = 0; i < n; ++i) {
    switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
      case 0: vs.push_back(mul(pick(), fconst(1))); break;
      case 1: vs.push_back(neg(neg(pick()))); break;
      case 2: vs.push_back(add(pick(), fconst(0))); break;
      case 3: {
        Var a = pick(), b = pick();
        vs.push_back(div(mul(a, b), b));
        break;
      }
      case 4: vs.push_back(exp(add(fconst(1), fconst(2)))); break;
      case 5: vs.push_back(add(pick(), pick())); break;
      default: vs.push_back(mul(pick(), pick())); break;
    }
  }
  Var out = vs.back();
  for (std::size_t i = vs.size() - 10; i + 1 < vs.size(); ++i) out = add(out, vs[i]);
  return out;
}

Lines traced_run(unsigned seed) {
  Var x = fvec("x"), y = fvec("y");
  const Var out = random_graph({x, y}, 300, seed);
  FunctionGraph fg({x, y}, {out});
  auto eq = std::make_shared<EquilibriumRewriter>(
      "canonicalize", std::vector<NodeRewriterPtr>{div_cancel(), mul_one(), add_zero(), neg_neg(),
                                                   std::make_shared<ConstantFolding>()});
  eq->add_cleanup(std::make_shared<MergeOptimizer>());
  SequenceRewriter pipeline("pipeline", {std::make_shared<MergeOptimizer>("merge1"), eq,
                                         std::make_shared<MergeOptimizer>("merge2")});
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  REQUIRE(pipeline.rewrite(fg, ctx).ok());
  fg.check_integrity();
  Lines lines = rec->lines();
  lines.push_back(debugprint(fg));
  return lines;
}

}  // namespace

TEST_CASE("the same graph and rules give the same result and trace, run after run",
          "[rewrite]") {
  const Lines first = traced_run(11);
  REQUIRE(first.size() > 300);
  for (int run = 0; run < 3; ++run) REQUIRE(traced_run(11) == first);
  REQUIRE(traced_run(12) != first);
}

TEST_CASE("brief shows a bounded part of a variable", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  Var deep = x;
  for (int i = 0; i < 1000; ++i) deep = exp(deep);
  REQUIRE(brief(*deep) == "exp(exp(exp(…)))");
  REQUIRE(brief(*deep, 1) == "exp(…)");
  REQUIRE(brief(*div(mul(x, y), add(x, y))) == "x * y / (x + y)");
  REQUIRE(brief(*neg(add(x, fconst(-2)))) == "-(x + -2.0)");
  REQUIRE(brief(*fvec("")) == "<f64[?]>");
  auto two = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  REQUIRE(brief(*two->output(1)) == "two_out(x).1");
  REQUIRE(trace_kind_name(TraceKind::Refused) == "refused");
}

// Graph walks and cloning outside a FunctionGraph.
#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
bool contains(const std::vector<Var>& vs, const Var& v) {
  return std::find(vs.begin(), vs.end(), v) != vs.end();
}
}  // namespace

TEST_CASE("ancestors and graph_inputs walk back to the roots", "[graph]") {
  Var x = fvec("x"), y = fvec("y"), c = fconst(2);
  Var a = exp(x), b = mul(a, c), z = add(b, y);
  const Var outs[] = {z};
  const auto anc = ancestors(outs);
  REQUIRE(anc.size() == 6);
  REQUIRE(anc.back() == z);
  // Each variable comes after everything it depends on.
  auto pos = [&](const Var& v) { return std::find(anc.begin(), anc.end(), v) - anc.begin(); };
  REQUIRE(pos(x) < pos(a));
  REQUIRE(pos(a) < pos(b));
  REQUIRE(pos(c) < pos(b));
  const auto roots = graph_inputs(outs);
  REQUIRE(roots.size() == 3);
  REQUIRE(contains(roots, x));
  REQUIRE(contains(roots, c));
  const Var block[] = {b};
  const auto cut = graph_inputs(outs, block);
  REQUIRE(cut.size() == 2);
  REQUIRE(contains(cut, b));
  REQUIRE(contains(cut, y));
}

TEST_CASE("io_toposort lists the nodes between inputs and outputs in order", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var a = exp(x), b = log(a), z = add(b, a);
  const Var ins[] = {a}, outs[] = {z};
  const auto order = io_toposort(ins, outs);
  REQUIRE(order.size() == 2);
  REQUIRE(order[0] == b->owner());
  REQUIRE(order[1] == z->owner());
}

TEST_CASE("applys_between and vars_between keep only paths from the inputs", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var a = exp(x), b = log(y), z = add(a, b);
  const Var ins[] = {x}, outs[] = {z};
  const auto nodes = applys_between(ins, outs);
  REQUIRE(nodes.size() == 2);  // exp and add, not log
  const auto vars = vars_between(ins, outs);
  REQUIRE(vars.size() == 3);
  REQUIRE(contains(vars, x));
  REQUIRE(contains(vars, a));
  REQUIRE_FALSE(contains(vars, b));
  REQUIRE(depends_on(z, x));
  REQUIRE_FALSE(depends_on(a, y));
}

TEST_CASE("clone_graph copies nodes and inputs, sharing constants", "[graph]") {
  Var x = fvec("x"), c = fconst(3);
  Var z = mul(exp(x), c);
  const Var ins[] = {x}, outs[] = {z};
  ClonedGraph cg = clone_graph(ins, outs);
  REQUIRE(cg.inputs[0] != x);
  REQUIRE(cg.inputs[0]->name() == "x");
  REQUIRE(cg.outputs[0] != z);
  REQUIRE(to_infix(cg.outputs[0]) == to_infix(z));
  REQUIRE(cg.outputs[0]->owner()->input(1) == c);
  ClonedGraph deep = clone_graph(ins, outs, /*copy_orphans=*/true);
  REQUIRE(deep.outputs[0]->owner()->input(1) != c);
}

TEST_CASE("clone_replace swaps variables and copies only what depends on them", "[graph]") {
  Var x = fvec("x"), y = fvec("y");
  Var a = exp(x), b = log(y), z = add(a, b);
  std::unordered_map<const Variable*, Var> repl{{x.get(), neg(y)}};
  const Var outs[] = {z};
  const auto out = clone_replace(outs, repl);
  REQUIRE(to_infix(out[0]) == "exp(-y) + log(y)");
  REQUIRE(out[0]->owner()->input(1) == b);  // untouched branch is shared
  REQUIRE(to_infix(z) == "exp(x) + log(y)");
}

// Scheduling: in-place nodes run after every reader of the buffer they overwrite.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/schedule.hpp"
#include "engine/graph/errors.hpp"
#include "support/toy_inplace_ops.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
std::size_t position(const std::vector<Apply*>& order, std::string_view op) {
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i]->op().name() == op) return i;
  FAIL("no node " << op);
  return 0;
}
}  // namespace

TEST_CASE("without in-place nodes the schedule is the topological order", "[compile]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {add(exp(x), neg(x))});
  REQUIRE(schedule(fg) == fg.toposort());
}

TEST_CASE("an in-place node runs after the other readers of its input", "[compile]") {
  Var x = fvec("x");
  Var t = exp(x);
  Var t_view = view(t);
  // add reads t through a view; neg_inplace overwrites t. The plain
  // topological order runs neg_inplace first, which would feed add the
  // overwritten values.
  Var out = mul(add(t_view, fconst(1.0)), neg_inplace(t));
  FunctionGraph fg({x}, {out});
  REQUIRE(position(fg.toposort(), "neg_inplace") < position(fg.toposort(), "add"));
  const auto order = schedule(fg);
  REQUIRE(order.size() == 5);
  REQUIRE(position(order, "add") < position(order, "neg_inplace"));
  REQUIRE(position(order, "view") < position(order, "neg_inplace"));
  REQUIRE(position(order, "exp") < position(order, "view"));

  auto f = compile_function({x}, out);
  const Tensor r = f(Tensor::from({0.0, 1.0}));
  const double e1 = std::exp(1.0);
  REQUIRE(r.at({0}) == 2.0 * -1.0);
  REQUIRE(r.at({1}) == Approx(-e1 * (e1 + 1)));
}

TEST_CASE("impossible in-place schedules are refused, naming the nodes", "[compile]") {
  Var x = fvec("x");
  Var t = exp(x);
  SECTION("two nodes overwrite one buffer") {
    FunctionGraph fg({x}, {add(neg_inplace(t), neg_inplace(view(t)))});
    REQUIRE_THROWS_WITH(schedule(fg),
                        "`neg_inplace` and `neg_inplace` both overwrite the buffer of `exp(x)`");
  }
  SECTION("a reader of the old contents needs the new") {
    FunctionGraph fg({x}, {add(t, neg_inplace(t))});
    REQUIRE_THROWS_WITH(schedule(fg),
                        "cannot order the nodes: `neg_inplace` overwrites a buffer that a node "
                        "computed from its result still has to read");
  }
  SECTION("the overwritten buffer is an output") {
    FunctionGraph fg({x}, {t, neg_inplace(t)});
    REQUIRE_THROWS_WITH(schedule(fg), "`neg_inplace` overwrites the buffer of `exp(x)`, which "
                                      "output 0 of the graph returns");
    REQUIRE_THROWS_AS(compile_function({x}, {t, neg_inplace(t)}), Error);
  }
}

// DestroyHandler: which overwrites it allows, which it refuses, and that a
// refusal leaves the graph as it was.
#include <catch2/catch.hpp>

#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/destroy_handler.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/elemwise.hpp"

namespace {

using namespace rw;

/// `a + b` computed into a's buffer.
Var add_into_first(const Var& a, const Var& b) {
  return (*elemwise_op(ScalarOp::Add)->with_inplace(0))({a, b});
}

std::string snapshot(const FunctionGraph& fg) {
  std::string s;
  for (const Var& o : fg.outputs()) s += to_infix(o) + "; ";
  for (const Apply* n : fg.toposort()) s += n->op().to_string() + " ";
  return s;
}

}  // namespace

TEST_CASE("DestroyHandler allows overwriting a value only its destroyer reads",
          "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  FunctionGraph fg({x, y}, {e + y}, /*clone=*/false);
  auto& dh = require_destroy_handler(fg);
  CHECK(&require_destroy_handler(fg) == &dh);
  fg.replace(fg.outputs()[0], add_into_first(e, y));
  CHECK(dh.num_destroyers() == 1);
  CHECK_FALSE(dh.why_not_destroy(fg, *fg.outputs()[0]->owner(), 0));
}

TEST_CASE("DestroyHandler refuses overwriting a value another node reads", "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  FunctionGraph fg({x, y}, {e + y, e * 2.0}, /*clone=*/false);
  require_destroy_handler(fg);
  const std::string before = snapshot(fg);
  try {
    fg.replace(fg.outputs()[0], add_into_first(e, y));
    FAIL("the replacement was accepted");
  } catch (const ReplacementError& err) {
    CHECK_THAT(err.what(), Catch::Contains("would overwrite its input 0, which is still needed: "
                                           "`exp(x)` is also read by `mul`"));
  }
  CHECK(snapshot(fg) == before);
  fg.check_integrity();
}

TEST_CASE("DestroyHandler protects graph inputs unless they are mutable, outputs and constants",
          "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  {
    FunctionGraph fg({x, y}, {x + y}, /*clone=*/false);
    require_destroy_handler(fg);
    CHECK_THROWS_AS(fg.replace(fg.outputs()[0], add_into_first(x, y)), ReplacementError);
    CHECK(fg.outputs()[0]->owner()->op().destroy_map().empty());
  }
  {
    FunctionGraph fg({x, y}, {x + y}, /*clone=*/false);
    fg.attach_feature(std::make_shared<DestroyHandler>(std::vector<Var>{x}));
    fg.replace(fg.outputs()[0], add_into_first(x, y));
    CHECK(fg.outputs()[0]->owner()->op().destroy_map() == IoMap{{0, 0}});
  }
  {
    const Var e = exp(x);
    FunctionGraph fg({x, y}, {e, e + y}, /*clone=*/false);
    const auto& dh = require_destroy_handler(fg);
    const ApplyRef trial = elemwise_op(ScalarOp::Add)->with_inplace(0)->make_node(std::vector<Var>{e, y});
    const auto why = dh.why_not_destroy(fg, *trial, 0, fg.outputs()[1]->owner());
    REQUIRE(why);
    CHECK(*why == "`exp(x)` is an output of the graph");
  }
}

TEST_CASE("DestroyHandler follows views to the value they show", "[rewrite][destroy]") {
  const Var m = matrix("m");
  const Var e = exp(m);
  const Var t = transpose(e);  // a view of e
  {
    FunctionGraph fg({m}, {t + 1.0}, /*clone=*/false);
    require_destroy_handler(fg);
    fg.replace(fg.outputs()[0], add_into_first(t, constant(1.0, f64)));
    CHECK(fg.outputs()[0]->owner()->op().destroy_map() == IoMap{{0, 0}});
  }
  {
    // e is also read directly: overwriting its view would change what that
    // reader sees.
    FunctionGraph fg({m}, {t + 1.0, e * 2.0}, /*clone=*/false);
    require_destroy_handler(fg);
    const std::string before = snapshot(fg);
    CHECK_THROWS_AS(fg.replace(fg.outputs()[0], add_into_first(t, constant(1.0, f64))),
                    ReplacementError);
    CHECK(snapshot(fg) == before);
  }
  {
    // Overwriting a view of the graph's input overwrites the input.
    const Var tm = transpose(m);
    FunctionGraph fg({m}, {tm + 1.0}, /*clone=*/false);
    require_destroy_handler(fg);
    CHECK_THROWS_AS(fg.replace(fg.outputs()[0], add_into_first(tm, constant(1.0, f64))),
                    ReplacementError);
  }
}

TEST_CASE("DestroyHandler refuses a later change that gives a destroyed value a reader",
          "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  const Var z = y * 2.0;
  FunctionGraph fg({x, y}, {add_into_first(e, y), z}, /*clone=*/false);
  require_destroy_handler(fg);
  const std::string before = snapshot(fg);
  CHECK_THROWS_AS(fg.replace(fg.outputs()[1], e * 2.0), ReplacementError);
  CHECK(snapshot(fg) == before);
  // A reader of the new version (the destroyer's output) is fine.
  fg.replace(fg.outputs()[1], fg.outputs()[0] * 2.0);
  CHECK(to_infix(fg.outputs()[1]).find("* 2.0") != std::string::npos);
}

TEST_CASE("DestroyHandler finds, through views, the destroyer a later change endangers",
          "[rewrite][destroy]") {
  // t = transpose(exp(m)) is overwritten in place; a later change that gives
  // exp(m) — the buffer t shows — another reader must be refused, although
  // the change touches neither the destroyer nor t.
  const Var m = matrix("m"), n = matrix("n");
  const Var e = exp(m);
  const Var t = transpose(e);
  const Var z = n * 2.0;
  FunctionGraph fg({m, n}, {add_into_first(t, constant(1.0, f64)), z}, /*clone=*/false);
  const auto& dh = require_destroy_handler(fg);
  const Apply& destroyer = *fg.outputs()[0]->owner();
  CHECK(dh.can_destroy(fg, destroyer, 0));
  const std::string before = snapshot(fg);
  try {
    fg.replace(fg.outputs()[1], e * 2.0);
    FAIL("the replacement was accepted");
  } catch (const ReplacementError& err) {
    CHECK_THAT(err.what(), Catch::Contains("would overwrite its input 0, which is still needed: "
                                           "`exp(m)` is also read by `mul`"));
  }
  CHECK(snapshot(fg) == before);
  CHECK(dh.can_destroy(fg, destroyer, 0));
  // A reader of another value is fine, and the destroyer stays allowed.
  fg.replace(fg.outputs()[1], n * 3.0);
  CHECK(dh.can_destroy(fg, destroyer, 0));
  CHECK(dh.num_destroyers() == 1);
}

TEST_CASE("DestroyHandler::can_destroy agrees with why_not_destroy", "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  FunctionGraph fg({x, y}, {e + y, e * 2.0, x + y}, /*clone=*/false);
  const auto& dh = require_destroy_handler(fg);
  for (const Apply* node : fg.toposort())
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      INFO(node->op().to_string() << " input " << i);
      CHECK(dh.can_destroy(fg, *node, i) == !dh.why_not_destroy(fg, *node, i).has_value());
    }
  // exp(x) has two readers, 2.0 is a constant, x an input not declared
  // mutable: none of these may be overwritten.
  CHECK_FALSE(dh.can_destroy(fg, *fg.outputs()[0]->owner(), 0));
  CHECK_FALSE(dh.can_destroy(fg, *fg.outputs()[1]->owner(), 1));
  CHECK_FALSE(dh.can_destroy(fg, *fg.outputs()[2]->owner(), 0));
}

TEST_CASE("DestroyHandler checks a node that change_op makes a destroyer", "[rewrite][destroy]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  const OpPtr add_into = elemwise_op(ScalarOp::Add)->with_inplace(0);
  SECTION("refused while another node reads the value") {
    FunctionGraph fg({x, y}, {e + y, e * 2.0}, /*clone=*/false);
    auto& dh = require_destroy_handler(fg);
    const std::string before = snapshot(fg);
    CHECK_THROWS_WITH(fg.change_op(*fg.outputs()[0]->owner(), add_into, "inplace"),
                      Catch::Contains("(inplace)") &&
                          Catch::Contains("`exp(x)` is also read by `mul`"));
    CHECK(snapshot(fg) == before);
    CHECK(dh.num_destroyers() == 0);
    fg.check_integrity();
  }
  SECTION("allowed when it is the only reader, and then guards the value") {
    FunctionGraph fg({x, y}, {e + y}, /*clone=*/false);
    auto& dh = require_destroy_handler(fg);
    Apply& sum = *fg.outputs()[0]->owner();
    fg.change_op(sum, add_into);
    CHECK(dh.num_destroyers() == 1);
    CHECK(sum.op().to_string() == add_into->to_string());
    // A second reader of exp(x) is refused now.
    CHECK_THROWS_WITH(fg.change_input({&sum, 1}, e * 2.0), Catch::Contains("is also read by"));
    CHECK(sum.input(1) == y);
    // Back to the plain Op: no longer a destroyer.
    fg.change_op(sum, elemwise_op(ScalarOp::Add));
    CHECK(dh.num_destroyers() == 0);
  }
}

// MergeFeature and MergeOptimizer: duplicate subgraphs and equal constants
// are merged; different ops, properties or values are not.
#include <catch2/catch.hpp>

#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/merge.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("merge folds duplicate subgraphs into one", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  // Two separately built copies of exp(x * y).
  FunctionGraph fg({x, y}, {add(exp(mul(x, y)), exp(mul(x, y)))});
  REQUIRE(fg.num_nodes() == 5);
  MergeOptimizer merge;
  const PassReport r = merge.rewrite(fg);
  REQUIRE(r.changed);
  REQUIRE(r.applications == 2);  // the products, then the exps that became equal
  REQUIRE(fg.num_nodes() == 3);
  const Apply* sum = fg.outputs()[0]->owner();
  REQUIRE(sum->input(0) == sum->input(1));
  REQUIRE(infix(fg) == "exp(x * y) + exp(x * y)");
  fg.check_integrity();
}

TEST_CASE("merge folds equal constants, then the nodes that use them", "[rewrite]") {
  Var x = fvec("x");
  Var two_a = fconst(2), two_b = fconst(2), three = fconst(3);
  FunctionGraph fg({x}, {add(add(mul(x, two_a), mul(x, two_b)), mul(x, three))}, false);
  REQUIRE(fg.num_nodes() == 5);
  MergeOptimizer merge;
  const PassReport r = merge.rewrite(fg);
  REQUIRE(r.applications == 2);  // the constant, then the product
  REQUIRE(fg.num_nodes() == 4);
  const Apply* inner = fg.outputs()[0]->owner()->input(0)->owner();
  REQUIRE(inner->input(0) == inner->input(1));
  // One of the equal constants stays, the other is gone; 3.0 is not merged.
  REQUIRE(fg.contains(*two_a) != fg.contains(*two_b));
  REQUIRE(fg.contains(*three));
  fg.check_integrity();
}

TEST_CASE("merge keeps nodes whose ops or inputs differ", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y},
                   {add(add((*toy("exp", 1, 1))({x}), (*toy("exp", 1, 2))({x})),
                        add(mul(x, y), mul(y, x)))});
  const std::string before = debugprint(fg);
  const PassReport r = MergeOptimizer().rewrite(fg);
  REQUIRE_FALSE(r.changed);
  REQUIRE(debugprint(fg) == before);
}

TEST_CASE("merge handles nodes with several outputs and duplicate graph outputs", "[rewrite]") {
  Var x = fvec("x");
  auto two = std::make_shared<ToyTwoOut>();
  ApplyRef a = two->make_node(std::vector<Var>{x});
  ApplyRef b = two->make_node(std::vector<Var>{x});
  FunctionGraph fg({x}, {add(a->output(0), b->output(1)), exp(x), exp(x)}, false);
  REQUIRE(fg.num_nodes() == 5);
  MergeOptimizer().rewrite(fg);
  REQUIRE(fg.num_nodes() == 3);
  const Apply* sum = fg.outputs()[0]->owner();
  REQUIRE(sum->input(0)->owner() == sum->input(1)->owner());
  REQUIRE(sum->input(0)->index() == 0);
  REQUIRE(sum->input(1)->index() == 1);
  REQUIRE(fg.outputs()[1] == fg.outputs()[2]);
  fg.check_integrity();
}

TEST_CASE("the merge feature follows changes and schedules new duplicates", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {add(exp(x), neg(x))});
  MergeOptimizer merge;
  merge.add_requirements(fg);
  auto* feature = fg.find_feature<MergeFeature>();
  REQUIRE(feature != nullptr);
  REQUIRE(feature->scheduled() == 0);
  // Replace -x by a new exp(x): a duplicate of the one already there.
  const Var negx = fg.outputs()[0]->owner()->input(1);
  fg.replace(negx, exp(fg.inputs()[0]));
  REQUIRE(feature->scheduled() == 1);
  REQUIRE(fg.num_nodes() == 3);
  RewriteContext ctx;
  const PassReport r = merge.run(fg, ctx);
  REQUIRE(r.applications == 1);
  REQUIRE(feature->scheduled() == 0);
  REQUIRE(fg.num_nodes() == 2);
  merge.add_requirements(fg);  // already there: not attached twice
  REQUIRE(fg.features().size() == 1);
}

TEST_CASE("merge without its feature says what is missing", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  RewriteContext ctx;
  REQUIRE_THROWS_WITH(MergeOptimizer("merge2").apply(fg, ctx),
                      "`merge2` needs a MergeFeature on the graph; run it with rewrite(), or call "
                      "add_requirements() first");
}

TEST_CASE("merge moves every use of a duplicate, however many it has", "[rewrite]") {
  Var x = fvec("x");
  const Var e1 = exp(x), e2 = exp(x);
  Var sum = add(e1, e2);
  for (int i = 0; i < 9; ++i) sum = add(add(sum, mul(e1, fconst(i))), mul(e2, fconst(i)));
  FunctionGraph fg({x}, {sum}, false);
  REQUIRE(fg.num_clients(*e1) == 10);
  REQUIRE(fg.num_clients(*e2) == 10);
  MergeOptimizer().rewrite(fg);
  fg.check_integrity();
  const bool kept_e1 = fg.contains(*e1);
  REQUIRE(kept_e1 != fg.contains(*e2));
  REQUIRE(fg.num_clients(kept_e1 ? *e1 : *e2) == 11);  // 20 uses, the 9 products merged
}

TEST_CASE("the merge feature follows its graph when the graph is moved", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph first({x}, {add(exp(x), neg(x))});
  MergeOptimizer merge;
  merge.add_requirements(first);
  FunctionGraph fg = std::move(first);
  const Var negx = fg.outputs()[0]->owner()->input(1);
  fg.replace(negx, exp(fg.inputs()[0]));
  RewriteContext ctx;
  REQUIRE(merge.run(fg, ctx).applications == 1);
  REQUIRE(fg.num_nodes() == 2);
  fg.check_integrity();
}

TEST_CASE("a node whose input changed is known by its new inputs only", "[rewrite]") {
  // exp(x) becomes exp(y), then goes away: its old entry must be gone too, or
  // looking up a new exp(x) would reach the freed node (the sanitizer build
  // catches that) or schedule a merge with it.
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {add(exp(x), y)});
  MergeOptimizer merge;
  merge.add_requirements(fg);
  auto* feature = fg.find_feature<MergeFeature>();
  Apply* e = fg.outputs()[0]->owner()->input(0)->owner();
  const Var xi = fg.inputs()[0], yi = fg.inputs()[1];
  fg.change_input(Client{e, 0}, yi);
  REQUIRE(to_infix(fg.outputs()[0]) == "exp(y) + y");
  fg.replace(e->output(0), neg(yi));
  REQUIRE(feature->scheduled() == 0);
  fg.replace(fg.outputs()[0]->owner()->input(0), exp(xi));
  REQUIRE(feature->scheduled() == 0);
  // A true duplicate is still found.
  fg.replace(fg.outputs()[0]->owner()->input(1), exp(xi));
  REQUIRE(feature->scheduled() == 1);
  RewriteContext ctx;
  REQUIRE(merge.run(fg, ctx).applications == 1);
  REQUIRE(to_infix(fg.outputs()[0]) == "exp(x) + exp(x)");
  REQUIRE(fg.num_nodes() == 2);
  fg.check_integrity();
}

TEST_CASE("the merge feature knows a node by the Op it applies after change_op", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {add(exp(x), neg(x))});
  MergeOptimizer merge;
  merge.add_requirements(fg);
  auto* feature = fg.find_feature<MergeFeature>();
  Apply& sum = *fg.outputs()[0]->owner();
  RewriteContext ctx;
  SECTION("a node changed into a duplicate is scheduled") {
    // -x becomes exp(x): a duplicate of the other node.
    fg.change_op(*sum.input(1)->owner(), toy("exp", 1));
    REQUIRE(feature->scheduled() == 1);
  }
  SECTION("the Op it applied before is forgotten") {
    fg.change_op(*sum.input(0)->owner(), toy("log", 1));
    REQUIRE(feature->scheduled() == 0);
    // A new exp(x) duplicates nothing now; a new log(x) duplicates the changed node.
    fg.replace(sum.input(1), exp(fg.inputs()[0]));
    REQUIRE(feature->scheduled() == 0);
    fg.replace(sum.input(1), log(fg.inputs()[0]));
    REQUIRE(feature->scheduled() == 1);
  }
  REQUIRE(merge.run(fg, ctx).applications == 1);
  REQUIRE(fg.num_nodes() == 2);
  REQUIRE(sum.input(0) == sum.input(1));
  fg.check_integrity();
}

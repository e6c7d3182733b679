// RelationNodeRewriter: a miniKanren relation as a node rewriter (Aesara's
// KanrenRelationSub), to a fixed point, with its reasons and type check.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/kanren/relations.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/relation_rewriter.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::kanren;
using namespace rw::test;

namespace {

// x * 1 -> x and 1 * x -> x: two clauses of one relation.
Goal times_one(const Term& in, const Term& out) {
  return conde({{eq(in, compound(toy("mul", 2), out, 1))},
                {eq(in, compound(toy("mul", 2), 1, out))}});
}

// log(args…) -> exp(args…).
Goal log_to_exp(const Term& in, const Term& out) {
  return fresh([in, out](Term args) {
    return conj(conso(toy("log", 1), args, in), conso(toy("exp", 1), args, out));
  });
}

}  // namespace

TEST_CASE("a relation rewriter rewrites to a fixed point", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  auto r = std::make_shared<RelationNodeRewriter>("times_one", times_one, Tracks{"mul"});
  CHECK(r->depth() == kAnyDepth);
  CHECK(r->describe() == "times_one (relation)");
  check_rewrite({r}, {x, y}, add(mul(fconst(1), mul(x, fconst(1))), mul(y, fconst(2))),
                "x + y * 2.0");
  // Tracking every op by default.
  auto any = std::make_shared<RelationNodeRewriter>("log_to_exp", log_to_exp);
  CHECK(any->tracks().tracks_any());
  check_rewrite({any}, {x}, exp(log(log(x))), "exp(exp(exp(x)))");
}

TEST_CASE("a relation rewriter says why it does not apply", "[rewrite]") {
  Var x = fvec("x");
  Var v3 = ftensor("v", {3});
  FunctionGraph fg({x, v3}, {mul(x, fconst(2)), mul(v3, fconst(1)), mul(fconst(1), x)});
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>(true);
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};

  const RelationNodeRewriter r("times_one", times_one, Tracks{"mul"});
  CHECK(r.transform(fg, *fg.outputs()[0]->owner(), ctx).reason() == "the relation has no answer");
  CHECK(r.transform(fg, *fg.outputs()[0]->owner(), RewriteContext{}).reason() ==
        "(reason not recorded: nobody listens)");
  CHECK(r.transform(fg, *fg.outputs()[2]->owner(), ctx).applied());

  // An answer whose type cannot replace the output: 1 * x is f64[?] (x's
  // type); a relation answering with the constant 1 (f64[]) cannot replace it.
  const RelationNodeRewriter to_one(
      "to_one", [](const Term& in, const Term& out) {
        return fresh([=](Term a) { return conj(eq(in, compound(toy("mul", 2), 1, a)), eq(out, fconst(1))); });
      },
      Tracks{"mul"});
  CHECK(to_one.transform(fg, *fg.outputs()[2]->owner(), ctx).reason() ==
        "the answer `1.0` is f64[], which cannot replace `1.0 * x` of type f64[?]");
  REQUIRE_THROWS_WITH(RelationNodeRewriter("empty", Relation{}),
                      "`empty`: the relation is empty");
}

// RewriteResult, Tracks, the NodeRewriter bases (typed and from a function),
// and lazily built failure reasons.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("a failed result keeps a literal reason without copying it", "[rewrite]") {
  static const char kWhy[] = "operand is not constant";
  RewriteResult r = RewriteResult::fail(kWhy);
  REQUIRE_FALSE(r.applied());
  REQUIRE(r.reason().data() == kWhy);
  REQUIRE(r.outputs().empty());
  REQUIRE(r.pairs().empty());
}

TEST_CASE("an owned reason survives moves of the result", "[rewrite]") {
  RewriteResult a = RewriteResult::fail_owned("short");  // fits the small-string buffer
  RewriteResult b = std::move(a);
  RewriteResult c = RewriteResult::fail("x");
  c = std::move(b);
  REQUIRE(c.reason() == "short");
  REQUIRE_FALSE(c.applied());
}

TEST_CASE("applied results carry outputs or pairs", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  RewriteResult one = RewriteResult::replace_output(x);
  REQUIRE(one.applied());
  REQUIRE(one.by_outputs());
  REQUIRE(one.outputs() == std::vector<Var>{x});
  REQUIRE(one.reason().empty());
  RewriteResult pairs = RewriteResult::replace({{x, y}});
  REQUIRE(pairs.applied());
  REQUIRE_FALSE(pairs.by_outputs());
  REQUIRE(pairs.pairs().size() == 1);
  REQUIRE(pairs.pairs()[0].second == y);
}

TEST_CASE("tracks name ops, classes, or every op", "[rewrite]") {
  const Tracks names{"div", "mul", "div"};
  REQUIRE(names.op_names() == std::vector<std::string>{"div", "mul"});
  REQUIRE(names.matches(*toy("div", 2)));
  REQUIRE_FALSE(names.matches(*toy("add", 2)));
  REQUIRE(names.to_string() == "div, mul");

  const Tracks any = Tracks::any();
  REQUIRE(any.tracks_any());
  REQUIRE(any.matches(ToyTwoOut()));
  REQUIRE(any.to_string() == "any");

  Tracks cls = Tracks::op_class<ToyTwoOut>();
  REQUIRE(cls.matches(*std::make_shared<ToyTwoOut>()));
  REQUIRE_FALSE(cls.matches(*toy("two_out", 1)));  // same name, another class
  cls.and_ops({"exp"});
  REQUIRE(cls.matches(*toy("exp", 1)));

  REQUIRE_THROWS_WITH(Tracks(std::vector<std::string>{}),
                      "a node rewriter must track at least one op; use Tracks::any() for all");
}

TEST_CASE("a node rewriter needs a name, a function and a sensible depth", "[rewrite]") {
  auto fn = [](FunctionGraph&, Apply&, const RewriteContext&) { return RewriteResult::fail("-"); };
  REQUIRE_THROWS_AS(make_node_rewriter("", Tracks::any(), fn), RewriteError);
  REQUIRE_THROWS_WITH(make_node_rewriter("r", Tracks::any(), fn, -1),
                      "node rewriter `r`: depth must not be negative");
  REQUIRE_THROWS_WITH(make_node_rewriter("r", Tracks::any(), nullptr),
                      "node rewriter `r` has no function");
  auto r = make_node_rewriter("r", {"exp"}, fn, 2, 5, "exp(x) -> nothing");
  REQUIRE(r->name() == "r");
  REQUIRE(r->depth() == 2);
  REQUIRE(r->benefit() == 5);
  REQUIRE(r->describe() == "exp(x) -> nothing");
  REQUIRE(make_node_rewriter("q", Tracks::any(), fn)->depth() == kAnyDepth);
}

namespace {
/// two_out(x) -> (x, x): typed on the ToyTwoOut class.
class TwoOutToInput final : public OpRewriter<ToyTwoOut> {
 public:
  TwoOutToInput() : OpRewriter("two_out_to_input", /*depth=*/0) {}
  mutable int calls = 0;

 protected:
  RewriteResult rewrite(FunctionGraph&, Apply& node, const ToyTwoOut& op,
                        const RewriteContext&) const override {
    ++calls;
    REQUIRE(op.name() == "two_out");
    return RewriteResult::replace_outputs({node.input(0), node.input(0)});
  }
};
}  // namespace

TEST_CASE("a typed rewriter sees only nodes of its op class", "[rewrite]") {
  Var x = fvec("x");
  auto two = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{exp(x)});
  Var out = add(two->output(0), (*toy("two_out", 1))({two->output(1)}));  // a toy op of that name
  FunctionGraph fg({x}, {out});
  auto typed = std::make_shared<TwoOutToInput>();
  EquilibriumRewriter eq("typed", {typed});
  REQUIRE(eq.rewrite(fg).stop == StopReason::Saturated);
  REQUIRE(typed->calls == 1);
  REQUIRE(to_infix(fg.outputs()[0]) == "exp(x) + two_out(exp(x))");
}

TEST_CASE("reasons built with ctx.fail cost nothing when nobody listens", "[rewrite]") {
  int built = 0;
  auto r = make_node_rewriter("why", Tracks::any(),
                              [&](FunctionGraph&, Apply& node, const RewriteContext& ctx) {
                                return ctx.fail([&] {
                                  ++built;
                                  return "no luck with " + node.op().to_string();
                                });
                              });
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(neg(x))});
  EquilibriumRewriter eq("eq", {r});
  eq.rewrite(fg);
  REQUIRE(built == 0);

  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  eq.rewrite(fg, ctx);
  REQUIRE(built == 2);
  REQUIRE(std::count(rec->lines().begin(), rec->lines().end(), "why failed on -x: no luck with neg") ==
          1);
}

// EquilibriumRewriter: the Simplify example, fixed points, re-queueing of
// touched nodes, the guard against rewrites that never settle, no-change
// successes, refused replacements, limits, errors, and graph rewriter roles.
#include <catch2/catch.hpp>

#include <algorithm>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/detail/worklist_mark.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/substitution.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

struct Traced {
  Trace trace;
  std::shared_ptr<TraceRecorder> rec = std::make_shared<TraceRecorder>(false);
  RewriteContext ctx;
  Traced() {
    trace.subscribe(rec);
    ctx.trace = &trace;
  }
  bool has(const std::string& line) const {
    return std::find(rec->lines().begin(), rec->lines().end(), line) != rec->lines().end();
  }
};

/// Refuses every change once armed (a feature's veto).
class Veto final : public Feature {
 public:
  bool armed = false;
  void validate(const FunctionGraph&) override {
    if (armed) throw InconsistencyError("veto says no");
  }
};

/// exp(x) => exp(--x): every application adds two nodes.
NodeRewriterPtr grow_double_neg() {
  return make_node_rewriter("grow", {"exp"},
                            [](FunctionGraph&, Apply& n, const RewriteContext&) {
                              return RewriteResult::replace_output(exp(neg(neg(n.input(0)))));
                            },
                            0);
}

}  // namespace

TEST_CASE("the Simplify example: (x*y)/y -> x and (x*y)/x -> y", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y"), z = fvec("z");
  check_rewrite({div_cancel()}, {x, y}, div(mul(x, y), y), "x");
  check_rewrite({div_cancel()}, {x, y}, div(mul(x, y), x), "y");
  check_rewrite({div_cancel()}, {x, y, z}, div(mul(div(mul(x, y), y), z), z), "x");
  check_rewrite({div_cancel()}, {x, y, z}, div(mul(x, y), z), "x * y / z");
  check_rewrite({div_cancel()}, {x, y}, add(div(mul(x, y), x), div(mul(y, x), x)), "y + y");
}

TEST_CASE("an equilibrium runs to a fixed point", "[rewrite]") {
  Var x = fvec("x");
  Var v = x;
  for (int i = 0; i < 100; ++i) v = (i % 2) ? mul(v, fconst(1)) : neg(neg(add(v, fconst(0))));
  FunctionGraph fg({x}, {exp(v)});
  REQUIRE(fg.num_nodes() == 1 + 50 + 50 * 3);
  EquilibriumRewriter eq("simplify", {mul_one(), add_zero(), neg_neg()});
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.stop == StopReason::Saturated);
  REQUIRE(r.ok());
  REQUIRE(r.changed);
  REQUIRE(r.applications == 150);
  REQUIRE(r.nodes_before == 201);
  REQUIRE(r.nodes_after == 1);
  REQUIRE(infix(fg) == "exp(x)");
  fg.check_integrity();
  // A second run finds nothing to do.
  const PassReport again = eq.rewrite(fg);
  REQUIRE(again.stop == StopReason::Saturated);
  REQUIRE(again.applications == 0);
  REQUIRE_FALSE(again.changed);
}

namespace {
/// A final rewriter that, once, replaces -(-y) by y through the graph: a
/// change below a node the worklist already tried.
GraphRewriterPtr late_negneg() {
  auto done = std::make_shared<bool>(false);
  return std::make_shared<FunctionGraphRewriter>(
      "late_negneg", [done](FunctionGraph& fg, RewriteContext&) {
        if (*done) return false;
        for (Apply* n : fg.toposort())
          if (n->op().name() == "neg" && n->input(0)->owner() &&
              n->input(0)->owner()->op().name() == "neg") {
            fg.replace(n->output(0), n->input(0)->owner()->input(0), "late");
            *done = true;
            return true;
          }
        return false;
      });
}
}  // namespace

TEST_CASE("an equilibrium with nothing it tracks in the graph leaves it at a glance", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(mul(x, fconst(1)))});
  RewriteProfile prof;
  RewriteContext ctx{.profile = &prof};
  // neg_neg tracks neg, which the graph lacks; the profile still lists it.
  EquilibriumRewriter eq("simplify", {neg_neg()});
  const PassReport r = eq.rewrite(fg, ctx);
  REQUIRE(r.ok());
  REQUIRE(r.stop == StopReason::Saturated);
  REQUIRE_FALSE(r.changed);
  REQUIRE(r.applications == 0);
  REQUIRE(infix(fg) == "exp(x * 1.0)");
  const PassProfile* p = prof.find("simplify");
  REQUIRE(p != nullptr);
  const RewriterStats* n = p->find_rewriter("neg_neg");
  REQUIRE(n != nullptr);
  REQUIRE(n->attempts == 0);
  // One tracked node is enough for the full run.
  FunctionGraph fg2({x}, {exp(neg(neg(x)))});
  REQUIRE(eq.rewrite(fg2).applications == 1);
  REQUIRE(infix(fg2) == "exp(x)");
}

TEST_CASE("a change re-queues the users within the rewriters' depth, and no more",
          "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  // (x * -(-y)) / y: div_cancel matches only once -(-y) has become y, which
  // happens after the worklist tried the division.
  const Var out = div(mul(x, neg(neg(y))), y);
  {
    FunctionGraph fg({x, y}, {out});
    EquilibriumRewriter eq("eq", {div_cancel()});  // depth 1: the division is re-tried
    eq.add_final(late_negneg());
    REQUIRE(eq.max_depth() == 1);
    const PassReport r = eq.rewrite(fg);
    REQUIRE(r.stop == StopReason::Saturated);
    REQUIRE(infix(fg) == "x");
  }
  {
    FunctionGraph fg({x, y}, {out});
    auto shallow = make_node_rewriter(
        "div_cancel_claims_depth_0", {"div"},
        [](FunctionGraph& g, Apply& n, const RewriteContext& c) {
          return div_cancel()->transform(g, n, c);
        },
        0);
    EquilibriumRewriter eq("eq", {shallow});  // depth 0: only the product is re-tried
    eq.add_final(late_negneg());
    eq.rewrite(fg);
    REQUIRE(infix(fg) == "x * y / y");
  }
  {
    FunctionGraph fg({x, y}, {out});
    auto unbounded = make_node_rewriter(
        "div_cancel_any_depth", {"div"},
        [](FunctionGraph& g, Apply& n, const RewriteContext& c) {
          return div_cancel()->transform(g, n, c);
        });
    EquilibriumRewriter eq("eq", {unbounded});  // kAnyDepth: a sweep after each round
    eq.add_final(late_negneg());
    REQUIRE(eq.max_depth() == kAnyDepth);
    eq.rewrite(fg);
    REQUIRE(infix(fg) == "x");
  }
}

TEST_CASE("a looping pair is stopped by the guard, naming the rewriters", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  auto there = std::make_shared<SubstitutionNodeRewriter>(toy("exp", 1), toy("log", 1));
  auto back = std::make_shared<SubstitutionNodeRewriter>(toy("log", 1), toy("exp", 1));
  auto bystander = add_zero();
  EquilibriumRewriter eq("canonicalize", {there, back, bystander});
  Traced t;
  const PassReport r = eq.rewrite(fg, t.ctx);
  const std::string diagnostic =
      "rewriting did not settle: `exp->log` applied 9 times, more than 8 times the largest node "
      "count of the graph (1); the rewriters that kept firing: `exp->log` (9 times), `log->exp` "
      "(8 times)";
  REQUIRE(r.stop == StopReason::RewriteLimit);
  REQUIRE_FALSE(r.ok());
  REQUIRE(r.diagnostic == diagnostic);
  REQUIRE(r.problems() == "canonicalize: " + diagnostic + "\n");
  REQUIRE(r.applications == 17);
  REQUIRE(t.has("pass canonicalize stopped: " + diagnostic));
  REQUIRE(t.has("pass canonicalize ended (rewrite limit) with 1 nodes after 17 replacements"));
  fg.check_integrity();
  REQUIRE(infix(fg) == "log(x)");

  // A larger ratio lets it run longer, and the count scales with the graph.
  FunctionGraph fg2({x}, {exp(x)});
  eq.with_max_use_ratio(2);
  const PassReport r2 = eq.rewrite(fg2);
  REQUIRE(r2.applications == 5);
  REQUIRE_THROWS_WITH(eq.with_max_use_ratio(0),
                      "`canonicalize`: max_use_ratio must be a positive number, not 0");
}

TEST_CASE("a success that changes nothing is reported, not counted as progress", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  auto same_var = make_node_rewriter("same_var", {"mul"},
                                     [](FunctionGraph&, Apply& node, const RewriteContext&) {
                                       return RewriteResult::replace_output(node.output(0));
                                     },
                                     0);
  auto rebuilt = make_node_rewriter(
      "rebuilt", {"mul"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        return RewriteResult::replace_output(mul(node.input(0), node.input(1)));
      },
      0);
  FunctionGraph fg({x, y}, {mul(x, y)});
  const std::string before = debugprint(fg);
  EquilibriumRewriter eq("eq", {same_var, rebuilt});
  RewriteProfile prof;
  Traced t;
  t.ctx.profile = &prof;
  const PassReport r = eq.rewrite(fg, t.ctx);
  REQUIRE(r.stop == StopReason::Saturated);
  REQUIRE(r.applications == 0);
  REQUIRE_FALSE(r.changed);
  REQUIRE(debugprint(fg) == before);
  REQUIRE(t.has("same_var matched x * y but its replacement changes nothing"));
  REQUIRE(t.has("rebuilt matched x * y but its replacement changes nothing"));
  REQUIRE(prof.find("eq")->find_rewriter("rebuilt")->no_change == 1);
  REQUIRE(prof.find("eq")->find_rewriter("rebuilt")->applied == 0);
}

TEST_CASE("a refused replacement leaves the graph as it was and the run goes on", "[rewrite]") {
  Var x = ftensor("x", {3}), y = ftensor("y", {3});
  // Replaces a product by a vector of unknown length: the graph refuses the
  // wider type.
  auto widen = make_node_rewriter("widen", {"mul"},
                                  [](FunctionGraph&, Apply&, const RewriteContext&) {
                                    return RewriteResult::replace_output(fvec("w"));
                                  },
                                  0);
  FunctionGraph fg({x, y}, {add(mul(x, y), neg(neg(y)))});
  Traced t;
  EquilibriumRewriter eq("eq", {widen, neg_neg()});
  const PassReport r = eq.rewrite(fg, t.ctx);
  REQUIRE(r.stop == StopReason::Saturated);
  REQUIRE(r.applications == 1);
  REQUIRE(infix(fg) == "x * y + y");
  fg.check_integrity();
  REQUIRE(t.has("widen on x * y refused: replacement refused (widen): type mismatch: `x * y` "
                "has type f64[3], but its replacement `w` has type f64[?]"));
}

TEST_CASE("a feature's veto refuses a replacement without undoing others", "[rewrite]") {
  Var x = fvec("x");
  auto veto = std::make_shared<Veto>();
  FunctionGraph fg({x}, {add(neg(neg(x)), mul(x, fconst(1)))});
  fg.attach_feature(veto);
  // The mul rewriter arms the veto before proposing its change, the neg
  // rewriter disarms it: only the mul change is refused.
  auto arm_then_mul_one = make_node_rewriter(
      "mul_one_vetoed", {"mul"},
      [veto](FunctionGraph& g, Apply& n, const RewriteContext& c) {
        veto->armed = true;
        return mul_one()->transform(g, n, c);
      },
      0, /*benefit=*/2);
  auto disarm_then_negneg = make_node_rewriter(
      "neg_neg_allowed", {"neg"},
      [veto](FunctionGraph& g, Apply& n, const RewriteContext& c) {
        veto->armed = false;
        return neg_neg()->transform(g, n, c);
      },
      1);
  Traced t;
  EquilibriumRewriter eq("eq", {arm_then_mul_one, disarm_then_negneg});
  const PassReport r = eq.rewrite(fg, t.ctx);
  REQUIRE(r.ok());
  REQUIRE(infix(fg) == "x + x * 1.0");
  REQUIRE(t.has("mul_one_vetoed on x * 1.0 refused: replacement refused (mul_one_vetoed): veto "
                "says no"));
  fg.check_integrity();
}

TEST_CASE("rewriters of a node are tried by decreasing benefit", "[rewrite]") {
  Var x = fvec("x");
  auto low = make_node_rewriter("low", {"exp"},
                                [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                  return RewriteResult::replace_output(log(n.input(0)));
                                },
                                0, 1);
  auto high = make_node_rewriter("high", {"exp"},
                                 [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                   return RewriteResult::replace_output(neg(n.input(0)));
                                 },
                                 0, 10);
  FunctionGraph fg({x}, {exp(x)});
  EquilibriumRewriter eq("eq", {low, high});
  REQUIRE(eq.rewriters()[0]->name() == "high");
  eq.rewrite(fg);
  REQUIRE(infix(fg) == "-x");
  REQUIRE_THROWS_WITH(eq.add(low), "`eq` already has a rewriter named `low`");
}

TEST_CASE("the node limit stops a growing rewrite", "[rewrite]") {
  Var x = fvec("x");
  auto grow = grow_double_neg();
  FunctionGraph fg({x}, {exp(x)});
  EquilibriumRewriter eq("eq", {grow});
  eq.with_node_limit(10).with_max_use_ratio(100);
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.stop == StopReason::NodeLimit);
  REQUIRE(r.diagnostic ==
          "the graph grew to 11 nodes, beyond the limit of 10; the last rewriters applied: `grow` "
          "(5 times)");
  REQUIRE(fg.num_nodes() == 11);
  fg.check_integrity();
}

TEST_CASE("the growth bound stops a rewrite that keeps growing the graph", "[rewrite]") {
  // exp(x) => exp(--x): every application adds nodes, so the use-ratio guard,
  // which follows the graph's size, never fires.
  Var x = fvec("x");
  auto grow = grow_double_neg();
  SECTION("with a bound set") {
    FunctionGraph fg({x}, {exp(x)});
    EquilibriumRewriter eq("eq", {grow});
    eq.with_max_growth(4, 10);  // at most max(4 x 1, 1 + 10) = 11 nodes
    Traced t;
    const PassReport r = eq.rewrite(fg, t.ctx);
    const std::string diagnostic =
        "the graph grew from 1 to 13 nodes, beyond its growth bound of 11 (4 times its initial "
        "size, or 10 more nodes); the rewriters that kept firing: `grow` (6 times)";
    REQUIRE(r.stop == StopReason::GrowthLimit);
    REQUIRE(stop_reason_name(r.stop) == "growth limit");
    REQUIRE(r.diagnostic == diagnostic);
    REQUIRE(t.has("pass eq stopped: " + diagnostic));
    REQUIRE(fg.num_nodes() == 13);
    fg.check_integrity();
    REQUIRE_THROWS_WITH(eq.with_max_growth(0.5),
                        "`eq`: the growth factor must be at least 1, not 0.5");
  }
  SECTION("by default") {
    FunctionGraph fg({x}, {exp(x)});
    EquilibriumRewriter eq("eq", {grow});
    eq.with_node_limit(100'000);  // a safety net: the bound must stop it well before
    REQUIRE(eq.max_growth() == kDefaultMaxGrowth);
    REQUIRE(eq.growth_allowance() == kDefaultGrowthAllowance);
    const PassReport r = eq.rewrite(fg);
    REQUIRE(r.stop == StopReason::GrowthLimit);
    REQUIRE(fg.num_nodes() <= 1 + kDefaultGrowthAllowance + 2);
    fg.check_integrity();
  }
  SECTION("an EquilibriumDB passes it on") {
    EquilibriumDB db("eqdb");
    db.add(grow, {"fast_run"});
    db.with_max_growth(2, 4);
    FunctionGraph fg({x}, {exp(x)});
    const PassReport r = db.build(RewriteQuery({"fast_run"}))->rewrite(fg);
    REQUIRE(r.stop == StopReason::GrowthLimit);
    REQUIRE(fg.num_nodes() == 7);
  }
}

TEST_CASE("the time limit stops a rewrite that would run forever", "[rewrite]") {
  Var x = fvec("x");
  auto grow = make_node_rewriter("grow", {"exp"},
                                 [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                   return RewriteResult::replace_output(exp(neg(n.input(0))));
                                 },
                                 0);
  FunctionGraph fg({x}, {exp(x)});
  EquilibriumRewriter eq("eq", {grow});
  eq.with_max_use_ratio(1e12).with_max_growth(0).with_time_limit(0.02);  // no other limit
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.stop == StopReason::TimeLimit);
  REQUIRE(r.diagnostic.rfind("the time limit of 0.02 s ran out after ", 0) == 0);
  REQUIRE(r.applications > 0);
  fg.check_integrity();
  REQUIRE_THROWS_WITH(eq.with_time_limit(-1),
                      "`eq`: the time limit must be zero or positive, not -1");
}

TEST_CASE("a rewriter that throws is recorded and skipped, or raised on request", "[rewrite]") {
  Var x = fvec("x");
  auto throws = make_node_rewriter("throws", {"exp"},
                                   [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                     // A binary op given one input: make_node refuses.
                                     return RewriteResult::replace_output(
                                         (*toy("add", 2))({n.input(0)}));
                                   },
                                   0);
  auto two_for_one = make_node_rewriter("two_for_one", {"neg"},
                                        [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                          return RewriteResult::replace_outputs(
                                              {n.input(0), n.input(0)});
                                        },
                                        0);
  FunctionGraph fg({x}, {neg(exp(x))});
  const std::string before = debugprint(fg);
  Traced t;
  RewriteProfile prof;
  t.ctx.profile = &prof;
  EquilibriumRewriter eq("eq", {throws, two_for_one});
  const PassReport r = eq.rewrite(fg, t.ctx);
  REQUIRE(r.ok());
  REQUIRE(debugprint(fg) == before);
  REQUIRE(t.has("throws threw on exp(x): toy `add` takes 2 inputs"));
  REQUIRE(t.has("two_for_one threw on -exp(x): node rewriter `two_for_one` returned 2 "
                "replacements for `neg`, which has 1 outputs"));
  REQUIRE(prof.find("eq")->find_rewriter("throws")->errors == 1);

  t.ctx.raise_rewriter_errors = true;
  REQUIRE_THROWS_AS(eq.rewrite(fg, t.ctx), TypeError);
  EquilibriumRewriter eq2("eq2", {two_for_one});
  REQUIRE_THROWS_WITH(eq2.rewrite(fg, t.ctx),
                      "node rewriter `two_for_one` returned 2 replacements for `neg`, which has 1 "
                      "outputs");
  REQUIRE(debugprint(fg) == before);
}

TEST_CASE("merge as a cleanup rewriter merges what node rewriters duplicate", "[rewrite]") {
  Var x = fvec("x");
  // exp(x) + -(-exp(x)): the two exp nodes are distinct until merged; after
  // neg_neg both terms are the same exp.
  FunctionGraph fg({x}, {add(exp(x), neg(neg(exp(x))))});
  REQUIRE(fg.num_nodes() == 5);
  EquilibriumRewriter eq("eq", {neg_neg()});
  eq.add_cleanup(std::make_shared<MergeOptimizer>());
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.ok());
  REQUIRE(fg.num_nodes() == 2);
  const Apply* sum = fg.outputs()[0]->owner();
  REQUIRE(sum->input(0) == sum->input(1));
  REQUIRE(infix(fg) == "exp(x) + exp(x)");
}

TEST_CASE("global and final rewriters run each round until nothing changes", "[rewrite]") {
  Var x = fvec("x");
  int global_runs = 0, final_runs = 0;
  auto global = std::make_shared<FunctionGraphRewriter>(
      "count_global", [&](FunctionGraph&, RewriteContext&) {
        ++global_runs;
        return false;
      });
  // Replaces one exp by -(-x') per round, three times: each round leaves work
  // for the node rewriters.
  auto final = std::make_shared<FunctionGraphRewriter>(
      "exp_to_negneg", [&](FunctionGraph& fg, RewriteContext&) {
        ++final_runs;
        for (Apply* n : fg.toposort())
          if (n->op().name() == "exp") {
            fg.replace(n->output(0), neg(neg(n->input(0))));
            return true;
          }
        return false;
      });
  FunctionGraph fg({x}, {exp(exp(exp(x)))});
  EquilibriumRewriter eq("eq", {neg_neg()});
  eq.add_global(global).add_final(final);
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.ok());
  REQUIRE(infix(fg) == "x");
  // Rounds 1-3 each replace one exp; round 4 removes the last negations; round
  // 5 changes nothing.
  REQUIRE(final_runs == 5);
  REQUIRE(global_runs == 5);
  REQUIRE_THROWS_WITH(eq.add_cleanup(global), "`eq` already has a rewriter named `count_global`");
}

namespace {
/// (x * y) / y -> x, only when the product has no other use.
class SingleUseDivCancel final : public NodeRewriter {
 public:
  explicit SingleUseDivCancel(bool declare) : NodeRewriter("single_use_div_cancel", {"div"}, 1) {
    if (declare) set_reads_uses();
  }
  RewriteResult transform(FunctionGraph& fg, Apply& node, const RewriteContext& ctx) const override {
    const Apply* num = node.input(0)->owner();
    if (num && fg.num_clients(num->output_var(0)) > 1)
      return RewriteResult::fail("the product has other uses");
    return div_cancel()->transform(fg, node, ctx);
  }
};

/// Once: replaces exp(v) by exp(x), removing a use of v.
GraphRewriterPtr drop_other_use(Var x) {
  auto done = std::make_shared<bool>(false);
  return std::make_shared<FunctionGraphRewriter>(
      "drop_other_use", [done, x](FunctionGraph& fg, RewriteContext&) {
        if (*done) return false;
        for (Apply* n : fg.toposort())
          if (n->op().name() == "exp") {
            fg.replace(n->output(0), exp(fg.inputs()[0]));
            *done = true;
            return true;
          }
        return false;
      });
}
}  // namespace

TEST_CASE("a rewriter that reads uses is re-tried when uses below it change", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const Var m = mul(x, y);
  for (const bool declare : {true, false}) {
    FunctionGraph fg({x, y}, {div(m, y), exp(m)});
    auto r = std::make_shared<SingleUseDivCancel>(declare);
    REQUIRE(r->reads_uses() == declare);
    EquilibriumRewriter eq("eq", {r});
    eq.add_final(drop_other_use(x));
    REQUIRE(eq.uses_depth() == (declare ? 1 : 0));
    eq.rewrite(fg);
    INFO("declared: " << declare);
    REQUIRE(infix(fg) == (declare ? "x ; exp(x)" : "x * y / y ; exp(x)"));
  }
}

namespace {
/// Whether some node of `fg` is still marked as queued by a driver.
bool any_marked(const FunctionGraph& fg) {
  for (const Apply* n : fg.nodes())
    if (rw::detail::WorklistMark::of(*n).load() != 0) return true;
  return false;
}
}  // namespace

TEST_CASE("an equilibrium nested in another keeps the outer run's worklist", "[rewrite]") {
  // The outer run queues every node, then runs the inner one (its global
  // rewriter), which queues and drains the same nodes. The inner run's change
  // touches only the sum, not the negations: the outer run must still try
  // its own rewriter on them afterwards, from its own worklist.
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {mul(neg(neg(x)), add(y, fconst(0)))});
  auto inner = std::make_shared<EquilibriumRewriter>("inner", std::vector<NodeRewriterPtr>{add_zero()});
  EquilibriumRewriter outer("outer", {neg_neg()});
  outer.add_global(inner);
  const PassReport r = outer.rewrite(fg);
  REQUIRE(r.ok());
  REQUIRE(infix(fg) == "x * y");
  REQUIRE_FALSE(any_marked(fg));
}

TEST_CASE("a run leaves no node marked as queued however it ends", "[rewrite]") {
  Var x = fvec("x");
  SECTION("stopped by the guard") {
    FunctionGraph fg({x}, {add(exp(x), neg(neg(exp(x))))});
    auto there = std::make_shared<SubstitutionNodeRewriter>(toy("exp", 1), toy("log", 1));
    auto back = std::make_shared<SubstitutionNodeRewriter>(toy("log", 1), toy("exp", 1));
    EquilibriumRewriter eq("loop", {there, back, neg_neg()});
    REQUIRE(eq.rewrite(fg).stop == StopReason::RewriteLimit);
    REQUIRE(fg.num_nodes() > 1);
    REQUIRE_FALSE(any_marked(fg));
  }
  SECTION("left by a rewriter's exception") {
    FunctionGraph fg({x}, {exp(neg(neg(exp(x))))});
    auto throws = make_node_rewriter("throws", {"exp"},
                                     [](FunctionGraph&, Apply&, const RewriteContext&) -> RewriteResult {
                                       throw TypeError("no");
                                     },
                                     0);
    EquilibriumRewriter eq("eq", {throws, neg_neg()});
    RewriteContext ctx;
    ctx.raise_rewriter_errors = true;
    REQUIRE_THROWS_AS(eq.rewrite(fg, ctx), TypeError);
    REQUIRE_FALSE(any_marked(fg));
    // And the graph is whole: a later run finishes the work.
    ctx.raise_rewriter_errors = false;
    REQUIRE(eq.rewrite(fg, ctx).ok());
    REQUIRE(infix(fg) == "exp(exp(x))");
  }
}

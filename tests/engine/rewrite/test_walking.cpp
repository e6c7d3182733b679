// WalkingRewriter: in-to-out and out-to-in order, one pass, new nodes.
#include <catch2/catch.hpp>

#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/walking.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// Records the op of every node it is tried on, and never applies.
NodeRewriterPtr recorder(std::vector<std::string>& seen) {
  return make_node_rewriter("record", Tracks::any(),
                            [&seen](FunctionGraph&, Apply& node, const RewriteContext&) {
                              seen.push_back(brief(node.output_var(0), 1));
                              return RewriteResult::fail("records only");
                            });
}

/// exp(x) -> -(-x): creates two nodes.
NodeRewriterPtr exp_to_negneg() {
  return make_node_rewriter("exp_to_negneg", {"exp"},
                            [](FunctionGraph&, Apply& node, const RewriteContext&) {
                              return RewriteResult::replace_output(neg(neg(node.input(0))));
                            },
                            0);
}

}  // namespace

TEST_CASE("in2out visits inputs first, out2in users first", "[rewrite]") {
  Var x = fvec("x");
  // log(exp(neg(x)))
  std::vector<std::string> seen;
  {
    FunctionGraph fg({x}, {log(exp(neg(x)))});
    in2out("walk", {recorder(seen)})->rewrite(fg);
  }
  REQUIRE(seen == std::vector<std::string>{"-x", "exp(…)", "log(…)"});
  seen.clear();
  {
    FunctionGraph fg({x}, {log(exp(neg(x)))});
    out2in("walk", {recorder(seen)})->rewrite(fg);
  }
  REQUIRE(seen == std::vector<std::string>{"log(…)", "exp(…)", "-x"});
}

TEST_CASE("a walk visits the nodes a replacement brings in, unless told not to", "[rewrite]") {
  Var x = fvec("x");
  {
    FunctionGraph fg({x}, {log(exp(x))});
    const PassReport r = in2out("walk", {exp_to_negneg(), neg_neg()})->rewrite(fg);
    REQUIRE(r.stop == StopReason::Completed);
    REQUIRE(r.applications == 2);
    REQUIRE(infix(fg) == "log(x)");
  }
  {
    FunctionGraph fg({x}, {log(exp(x))});
    const PassReport r = in2out("walk", {exp_to_negneg(), neg_neg()}, true)->rewrite(fg);
    REQUIRE(r.applications == 1);
    REQUIRE(infix(fg) == "log(--x)");
  }
}

TEST_CASE("a walk is one pass, not a fixed point", "[rewrite]") {
  Var x = fvec("x");
  // Out to in, the outer negation pair is removed first, exposing nothing new
  // above; in to out, each pair is removed as it is reached. Both end at x,
  // but a walk that only removes the outermost pair it meets stops early:
  auto outer_only = make_node_rewriter(
      "neg_neg_at_output", {"neg"},
      [](FunctionGraph& fg, Apply& node, const RewriteContext&) {
        const Apply* inner = node.input(0)->owner();
        if (!inner || inner->op().name() != "neg") return RewriteResult::fail("not -(-x)");
        if (fg.clients(node.output_var(0)).front().node)
          return RewriteResult::fail("not an output of the graph");
        return RewriteResult::replace_output(inner->input(0));
      },
      kAnyDepth);
  FunctionGraph fg({x}, {neg(neg(neg(neg(x))))});
  const PassReport r = in2out("walk", {outer_only})->rewrite(fg);
  REQUIRE(r.applications == 1);
  REQUIRE(infix(fg) == "--x");
}

TEST_CASE("a walk tries rewriters by benefit and takes the first that applies", "[rewrite]") {
  Var x = fvec("x");
  auto to_log = make_node_rewriter(
      "exp_to_log", {"exp"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        return RewriteResult::replace_output(log(node.input(0)));
      },
      0, /*benefit=*/1);
  auto to_neg = make_node_rewriter(
      "exp_to_neg", {"exp"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        return RewriteResult::replace_output(neg(node.input(0)));
      },
      0, /*benefit=*/3);
  FunctionGraph fg({x}, {exp(x)});
  auto walk = in2out("walk", {to_log, to_neg});
  REQUIRE(walk->rewriters().front()->name() == "exp_to_neg");
  walk->rewrite(fg);
  REQUIRE(infix(fg) == "-x");
  REQUIRE_THROWS_WITH(in2out("walk", {to_log, to_log}),
                      "`walk` already has a rewriter named `exp_to_log`");
}

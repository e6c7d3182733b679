// Profiling: pass time and node counts, rewriter attempts, applications,
// nodes created and removed, nesting, accumulation, and the table.
#include <catch2/catch.hpp>

#include <sstream>

#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/sequence.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
/// exp(x) -> -(-x): two nodes in, one out.
NodeRewriterPtr exp_to_negneg() {
  return make_node_rewriter("exp_to_negneg", {"exp"},
                            [](FunctionGraph&, Apply& n, const RewriteContext&) {
                              return RewriteResult::replace_output(neg(neg(n.input(0))));
                            },
                            0);
}
}  // namespace

TEST_CASE("a profile counts attempts, applications, nodes created and removed", "[rewrite]") {
  Var x = fvec("x");
  // exp(x * 1 * 1 * 1): mul_one removes three nodes; exp_to_negneg makes two
  // and removes one; neg_neg then removes the two.
  FunctionGraph fg({x}, {exp(mul(mul(mul(x, fconst(1)), fconst(1)), fconst(1)))});
  RewriteProfile prof;
  RewriteContext ctx{.profile = &prof};
  EquilibriumRewriter eq("simplify", {mul_one(), exp_to_negneg(), neg_neg()});
  eq.rewrite(fg, ctx);
  REQUIRE(infix(fg) == "x");

  const PassProfile* p = prof.find("simplify");
  REQUIRE(p != nullptr);
  REQUIRE(p->runs == 1);
  REQUIRE(p->nodes_start == 4);
  REQUIRE(p->nodes_end == 0);
  REQUIRE(p->nodes_max == 4);
  REQUIRE(p->applications == 5);
  REQUIRE(p->stop == "saturated");
  REQUIRE(p->seconds > 0);

  const RewriterStats* m = p->find_rewriter("mul_one");
  REQUIRE(m->attempts == 3);
  REQUIRE(m->applied == 3);
  REQUIRE(m->nodes_created == 0);
  REQUIRE(m->nodes_removed == 3);
  const RewriterStats* e = p->find_rewriter("exp_to_negneg");
  REQUIRE(e->attempts == 1);
  REQUIRE(e->applied == 1);
  REQUIRE(e->nodes_created == 2);
  REQUIRE(e->nodes_removed == 1);
  const RewriterStats* n = p->find_rewriter("neg_neg");
  REQUIRE(n->applied == 1);
  REQUIRE(n->attempts == 2);  // the inner negation first, which fails
  REQUIRE(n->nodes_removed == 2);
  REQUIRE(n->refused == 0);
  REQUIRE(n->errors == 0);
}

TEST_CASE("nested passes are profiled under their sequence and accumulate", "[rewrite]") {
  Var x = fvec("x");
  auto eq = std::make_shared<EquilibriumRewriter>("canonicalize",
                                                  std::vector<NodeRewriterPtr>{neg_neg()});
  SequenceRewriter seq("pipeline", {std::make_shared<MergeOptimizer>("merge1"), eq});
  RewriteProfile prof;
  RewriteContext ctx{.profile = &prof};
  for (int i = 0; i < 2; ++i) {
    FunctionGraph fg({x}, {add(neg(neg(x)), neg(neg(x)))});
    seq.rewrite(fg, ctx);
    REQUIRE(infix(fg) == "x + x");
  }
  std::vector<std::string> names;
  for (const PassProfile* p : prof.passes())
    names.push_back(std::string(static_cast<std::size_t>(p->depth) * 2, ' ') + p->name);
  REQUIRE(names == std::vector<std::string>{"pipeline", "  merge1", "  canonicalize"});
  const PassProfile* merge = prof.find("merge1");
  REQUIRE(merge->runs == 2);
  REQUIRE(merge->applications == 4);  // two negations merged, twice
  REQUIRE(merge->nodes_start == 10);
  REQUIRE(merge->nodes_end == 6);
  const PassProfile* canon = prof.find("canonicalize");
  REQUIRE(canon->find_rewriter("neg_neg")->applied == 2);
  REQUIRE(prof.find("pipeline")->nodes_max == 5);
  REQUIRE(prof.current() == nullptr);
  REQUIRE_THROWS_WITH(prof.leave(), "RewriteProfile::leave: no pass is being profiled");
}

TEST_CASE("the profile prints as a table", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {neg(neg(x))});
  RewriteProfile prof;
  RewriteContext ctx{.profile = &prof};
  EquilibriumRewriter("canonicalize", {neg_neg()}).rewrite(fg, ctx);
  const std::string table = prof.table();
  INFO(table);
  // The header, the pass row and its rewriter rows, with the counts.
  REQUIRE(table.find("pass") == 0);
  REQUIRE(table.find("nodes start>end (max)") != std::string::npos);
  REQUIRE(table.find("canonicalize") != std::string::npos);
  REQUIRE(table.find("2>0 (2)") != std::string::npos);
  const auto row = table.find("  neg_neg");
  REQUIRE(row != std::string::npos);
  const std::string line = table.substr(row, table.find('\n', row) - row);
  // tried, applied, no-op, refused, errors, created, removed
  std::istringstream fields(line);
  std::string name;
  std::size_t tried, applied, noop, refused, errors, created, removed;
  fields >> name >> tried >> applied >> noop >> refused >> errors >> created >> removed;
  REQUIRE(name == "neg_neg");
  REQUIRE(tried == 2);
  REQUIRE(applied == 1);
  REQUIRE(noop == 0);
  REQUIRE(refused == 0);
  REQUIRE(errors == 0);
  REQUIRE(created == 0);
  REQUIRE(removed == 2);
}

TEST_CASE("a stopped pass shows why in the table", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {exp(x)});
  auto grow = make_node_rewriter("grow", {"exp"},
                                 [](FunctionGraph&, Apply& n, const RewriteContext&) {
                                   return RewriteResult::replace_output(exp(neg(n.input(0))));
                                 },
                                 0);
  RewriteProfile prof;
  RewriteContext ctx{.profile = &prof};
  EquilibriumRewriter eq("eq", {grow});
  eq.with_node_limit(5);
  eq.rewrite(fg, ctx);
  REQUIRE(prof.find("eq")->stop == "node limit");
  REQUIRE(prof.table().find("stopped: node limit") != std::string::npos);
}

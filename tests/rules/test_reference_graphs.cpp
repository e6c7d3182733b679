// The default mode on two reference graphs (/work/shared/bench/graphs, copied
// to tests/rules/graphs): the useless work they contain is removed, and the
// rewritten graph computes what the original does.
#include <map>
#include <string>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"
#include "support/graph_eval.hpp"

namespace {

struct Counts {
  std::size_t before = 0;
  std::size_t after = 0;
  /// Nodes per op after rewriting: `add ×3  exp ×2 …`.
  std::string ops;
};

Counts check_graph(const std::string& name) {
  const rw::dsl::GraphFile g = rw::dsl::load_graph(
      std::string(RW_SOURCE_DIR) + "/tests/rules/graphs/" + name, rw::standard_registry());
  rw::FunctionGraph fg = g.function_graph();
  Counts counts{fg.num_nodes(), 0};
  const rw::PassReport report = rw::default_mode().rewrite(fg);
  CHECK(report.ok());
  counts.after = fg.num_nodes();
  std::map<std::string, int> per_op;
  for (const rw::Apply* node : fg.toposort()) ++per_op[std::string(node->op().name())];
  for (const auto& [op, n] : per_op) counts.ops += op + " ×" + std::to_string(n) + "  ";

  const std::vector<rw::In> inputs(g.inputs.begin(), g.inputs.end());
  auto plain = rw::function(inputs, g.outputs, {}, rw::Mode::none(rw::standard_db()));
  auto rewritten = rw::function(inputs, g.outputs);
  rw::Rng rng(7);
  for (int draw = 0; draw < 3; ++draw) {
    const auto args = rw::testing::random_args(g.inputs, rng, 0.5, 2.0, 16);
    const auto want = plain.call(args);
    const auto got = rewritten.call(args);
    REQUIRE(got.size() == want.size());
    CHECK(rw::testing::close_for_dtype(got[0], want[0]));
  }
  return counts;
}

}  // namespace

TEST_CASE("chain-100: the default mode removes the chain's useless work", "[rules]") {
  const Counts c = check_graph("chain-100.graph");
  INFO("nodes before " << c.before << ", after " << c.after << ": " << c.ops);
  CHECK(c.before == 101);
  // 101 -> 1: merged constants, `v*1`, `v+0`, `-(-v)`, `v*v`, `2*v + 3*v`,
  // `log(1+v)` (log1p) and `(v*x)/x` are gone, and fusion makes the chain's
  // real elementwise work one node (PyTensor: 1).
  CHECK(c.after == 1);
}

TEST_CASE("dag-100: the default mode merges duplicates and simplifies", "[rules]") {
  const Counts c = check_graph("dag-100.graph");
  INFO("nodes before " << c.before << ", after " << c.after << ": " << c.ops);
  CHECK(c.before == 107);
  // 107 -> 1: duplicates merged, `maximum(v, v)` and the constants'
  // useless work gone, the rest fused into one node (PyTensor: 1).
  CHECK(c.after == 1);
}

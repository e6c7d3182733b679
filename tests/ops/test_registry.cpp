// The standard registry: PyTensor's spellings in the benchmark graphs build
// standard Ops, and a loaded graph runs to the values computed by hand.
#include <cmath>
#include <filesystem>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"

using namespace rw;

namespace {

const std::filesystem::path kGraphs = "/work/shared/bench/graphs";

Tensor random_matrix(Rng& rng, std::int64_t r, std::int64_t c) {
  return rng.uniform({r, c}, -1.0, 1.0);
}

}  // namespace

TEST_CASE("every benchmark graph loads with the standard registry", "[ops]") {
  // "nodes before" from the graphs' README.
  const std::pair<const char*, std::size_t> graphs[] = {
      {"chain-100", 101}, {"chain-1000", 1002}, {"chain-5000", 5000},
      {"dag-100", 107},   {"dag-1000", 1038},   {"dag-5000", 5178},
      {"mlp-2", 46},      {"mlp-8", 142},       {"mlp-32", 526}};
  for (const auto& [name, nodes] : graphs) {
    INFO(name);
    auto r = dsl::check_graph(kGraphs / (std::string(name) + ".graph"), standard_registry());
    INFO(dsl::render(r.diagnostics));
    REQUIRE(r.ok());
    CHECK(r.value->function_graph(false).num_nodes() == nodes);
  }
}

TEST_CASE("the standard registry builds the Ops the graph files name", "[ops]") {
  const OpRegistry& reg = standard_registry();
  CHECK(reg.make("dimshuffle", {{"order", std::vector<std::int64_t>{kNewAxis, 0}}})->to_string() ==
        "dimshuffle{order=(x,0)}");
  CHECK(reg.make("sum", {{"axis", std::monostate{}}})->to_string() == "sum{axis=none}");
  CHECK(reg.make("cast", {{"dtype", DType::Float64}})->to_string() == "cast{dtype=float64}");
  CHECK(reg.make("true_div")->name() == "true_div");
  CHECK(reg.find("deep_copy") != nullptr);
  CHECK(reg.find("view") != nullptr);
  // One Op value per spelling: the registry gives equal Ops for equal parameters.
  CHECK(*reg.make("add") == *reg.make("add"));
  CHECK_FALSE(*reg.make("add") == *reg.make("mul"));
}

TEST_CASE("the mlp-2 graph runs to the loss computed by hand", "[ops]") {
  const dsl::GraphFile g = dsl::load_graph(kGraphs / "mlp-2.graph", standard_registry());
  // Inputs in file order: X, Y, W0, W1, b0, b1.
  Rng rng(7);
  const std::int64_t n = 4, d = 3, h = 5, o = 2;
  const Tensor X = random_matrix(rng, n, d), Y = random_matrix(rng, n, o);
  const Tensor W0 = random_matrix(rng, d, h), W1 = random_matrix(rng, h, o);
  const Tensor b0 = rng.uniform({h}, -1.0, 1.0), b1 = rng.uniform({o}, -1.0, 1.0);
  std::vector<In> ins(g.inputs.begin(), g.inputs.end());
  auto f = function(ins, g.outputs);
  const Tensor args[] = {X, Y, W0, W1, b0, b1};
  const std::vector<Tensor> out = f.call(args);

  double loss = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    double hidden[5];
    for (std::int64_t j = 0; j < h; ++j) {
      double s = b0.at({j});
      for (std::int64_t k = 0; k < d; ++k) s += X.at({i, k}) * W0.at({k, j});
      hidden[j] = std::tanh(s);
    }
    for (std::int64_t j = 0; j < o; ++j) {
      double s = b1.at({j});
      for (std::int64_t k = 0; k < h; ++k) s += hidden[k] * W1.at({k, j});
      const double e = std::tanh(s) - Y.at({i, j});
      loss += e * e;
    }
  }
  loss /= static_cast<double>(n * o);
  REQUIRE(out.size() == 5);
  CHECK(out[0].ndim() == 0);
  CHECK(out[0].item<double>() == Approx(loss).epsilon(1e-12));
  // The gradients PyTensor built: of W0, W1, b0, b1 in that order.
  CHECK(out[1].shape() == Shape{d, h});
  CHECK(out[2].shape() == Shape{h, o});
  CHECK(out[3].shape() == Shape{h});
  CHECK(out[4].shape() == Shape{o});
}

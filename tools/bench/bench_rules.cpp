// Benchmarks of the standard rule library: loading it (parse, check, compile,
// register) and the default mode on the reference graphs.
//   bench_rules [graphs-dir]   (default /work/shared/bench/graphs)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "rw/rw.hpp"

int main(int argc, char** argv) {
  const rw::OpRegistry& ops = rw::standard_registry();
  std::size_t n = 0;
  const double load = rw::bench::median_time(
      [&] {
        auto db = rw::make_standard_db();
        const rw::dsl::PredicateRegistry predicates;
        n = rw::load_standard_rules_into(*db, ops, predicates).take().size();
      },
      9, 2);
  rw::bench::report("load_standard_rules", static_cast<long long>(n), load);

  const std::filesystem::path dir = argc > 1 ? argv[1] : "/work/shared/bench/graphs";
  for (const char* name : {"chain-100", "chain-1000", "chain-5000", "dag-100", "dag-1000",
                           "dag-5000", "mlp-2", "mlp-8", "mlp-32"}) {
    const std::filesystem::path file = dir / (std::string(name) + ".graph");
    if (!std::filesystem::exists(file)) continue;
    const rw::dsl::GraphFile g = rw::dsl::load_graph(file, ops);
    const rw::Mode mode = rw::default_mode();
    const rw::GraphRewriterPtr pass = mode.rewriter();
    // The clone of the loaded graph is made outside the timed region.
    std::size_t before = 0, after = 0;
    std::vector<double> times;
    for (int run = 0; run < 6; ++run) {
      rw::FunctionGraph fg = g.function_graph();
      before = fg.num_nodes();
      const double t = rw::bench::time_once([&] { pass->rewrite(fg); });
      if (run > 0) times.push_back(t);  // the first run warms up
      after = fg.num_nodes();
    }
    std::sort(times.begin(), times.end());
    const double t = times[times.size() / 2];
    rw::bench::report(std::string("default_mode_") + name, static_cast<long long>(before), t,
                      fmt::format(" nodes_after={}", after));
  }
  return 0;
}

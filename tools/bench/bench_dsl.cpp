// bench_dsl: parsing and checking a generated rule file of 10,000 rules, and
// loading the nine benchmark graph files (parse + build through make_node).
//
//   build/tools/bench_dsl                                # graphs from /work/shared/bench/graphs
//   build/tools/bench_dsl path/to/graphs [rule count]
#include <cstdlib>
#include <filesystem>
#include <rw/rw.hpp>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "engine/dsl/parse.hpp"
#include "support/pt_ops.hpp"

namespace {

namespace fs = std::filesystem;

// A rule file of `n` rules cycling through shapes that exercise the checker:
// operators, calls with literal and variable parameters, guards of each kind.
std::string generate_rules(int n) {
  static const char* kTemplates[] = {
      "rule r{0}: log(1 + x) * {0} => log1p(x) * {0} where float(x)\n",
      "rule r{0}: sum(c * x, axis=?a) => c * sum(x, axis=a) where scalar(c) and value(c) > {0}\n",
      "rule r{0} priority {1}: dimshuffle(exp(x), order=(x, 0)) => exp(dimshuffle(x, "
      "order=(x, 0))) where rank(x) == 1\n",
      "rule r{0}: (x * y) / y => x where float(y) and not constant(y) or dtype(x) == float64\n",
      "rule r{0} tags(extra): cast(cast(x, dtype=d), dtype=float64) => cast(x, dtype=float64) "
      "where shape(x, 0) >= {1}\n",
      "rule r{0}: exp(log(x)) - -{0}.5 => x + {0}.5 where one_client(x) or broadcastable(x, 0)\n",
      "rule r{0}: maximum(x, x) ** 2 => sqr(x)  # comment {0}\n",
      "rule r{0}:\n  true_div(sum{{axis=(0, 1)}}(x), shape(x)) =>\n  x where known_shape(x)\n",
  };
  std::string out = "declare add: commutative, associative\ndeclare mul: commutative\n";
  for (int i = 0; i < n; ++i) {
    if (i % 1000 == 0) out += fmt::format("ruleset set{} tags(canonicalize, fast_run)\n", i / 1000);
    out += fmt::format(fmt::runtime(kTemplates[i % std::size(kTemplates)]), i, i % 7);
  }
  return out;
}

void bench_rules(int n) {
  const std::string text = generate_rules(n);
  const rw::OpRegistry& ops = rw::test::pt_registry();
  const rw::dsl::PredicateRegistry predicates;
  const rw::dsl::RuleLoadOptions options{std::make_shared<rw::dsl::MemoryResolver>(), {}};

  std::size_t statements = 0;
  const double parse_s = rw::bench::median_time([&] {
    auto parsed = rw::dsl::parse(rw::dsl::SourceFile::make("bench.rules", text));
    if (!parsed.ok()) std::abort();
    statements = parsed.ast.statements.size();
  });
  std::size_t rules = 0;
  const double check_s = rw::bench::median_time([&] {
    auto r = rw::dsl::check_rules_text("bench.rules", text, ops, predicates, options);
    if (!r.ok()) {
      std::fputs(rw::dsl::render(r.diagnostics).c_str(), stderr);
      std::abort();
    }
    rules = r.value->rules.size();
  });
  if (rules != static_cast<std::size_t>(n) || statements < rules) std::abort();
  rw::bench::report("rules_parse", n, parse_s,
                    fmt::format(" bytes={} rules_per_s={:.0f}", text.size(), n / parse_s));
  rw::bench::report("rules_parse_check", n, check_s,
                    fmt::format(" bytes={} rules_per_s={:.0f}", text.size(), n / check_s));
}

void bench_graphs(const fs::path& dir) {
  const rw::OpRegistry& ops = rw::test::pt_registry();
  for (const char* name : {"chain-100", "chain-1000", "chain-5000", "dag-100", "dag-1000",
                           "dag-5000", "mlp-2", "mlp-8", "mlp-32"}) {
    std::string why;
    const auto text = rw::dsl::read_file(dir / (std::string(name) + ".graph"), why);
    if (!text) {
      std::fprintf(stderr, "bench_dsl: %s\n", why.c_str());
      std::exit(1);
    }
    const double s = rw::bench::median_time([&] {
      if (!rw::dsl::check_graph_text(name, *text, ops).ok()) std::abort();
    });
    const std::size_t nodes =
        rw::dsl::load_graph_text(name, *text, ops).function_graph(false).num_nodes();
    rw::bench::report(fmt::format("graph_load_{}", name), static_cast<long long>(nodes), s,
                      fmt::format(" bytes={} nodes_per_s={:.0f}", text->size(), nodes / s));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path graphs = argc > 1 ? argv[1] : "/work/shared/bench/graphs";
  const int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  bench_rules(n);
  bench_graphs(graphs);
}

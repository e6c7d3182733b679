// bench_rewrite: the fast_run pipeline on the nine reference graphs of
// ../shared/bench/graphs/, against PyTensor 2.34's FAST_RUN rewrite time.
//
//   build/tools/bench_rewrite [GRAPH_DIR] [--only NAME] [--runs N] [--profile]
//
// `--only chain-1000` keeps one graph (for profilers: callgrind, perf),
// `--runs N` times N runs after the warm-up (default 7), and `--profile`
// prints, after each graph's line, the rewrite profile of one more run: time
// and node counts per pass and rewriter.
//
// One line per graph: rewrite time (median of 7 runs after a warm-up, each on
// a fresh copy of the loaded graph; loading and copying are not timed) as wall
// time and as the thread's CPU time (`cpu_s`, what load on a shared machine
// does not inflate), the node counts before and after, PyTensor's figures and
// the speed-up over its rewrite time.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <rw/rewrite.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace {

/// A reference graph and PyTensor's figures for it (the graphs' README).
struct Reference {
  const char* file;
  const char* family;
  long long n;
  double pytensor_s;
  std::size_t pytensor_nodes_after;
};

constexpr Reference kGraphs[] = {
    {"chain-100.graph", "chain", 100, 0.16, 1},  {"chain-1000.graph", "chain", 1000, 1.98, 1},
    {"chain-5000.graph", "chain", 5000, 10.3, 1}, {"dag-100.graph", "dag", 100, 0.19, 1},
    {"dag-1000.graph", "dag", 1000, 1.72, 1},     {"dag-5000.graph", "dag", 5000, 13.2, 1},
    {"mlp-2.graph", "mlp", 2, 0.08, 39},          {"mlp-8.graph", "mlp", 8, 0.19, 93},
    {"mlp-32.graph", "mlp", 32, 0.67, 309},
};

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

int main(int argc, char** argv) {
  std::filesystem::path dir = RW_BENCH_GRAPH_DIR;
  std::string only;
  int runs = 7;
  bool profile = false;
  std::vector<std::string> exclude;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--only" && i + 1 < argc) only = argv[++i];
    else if (arg == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--profile") profile = true;
    else if (arg == "--exclude" && i + 1 < argc) {
      // Comma-separated rewrite names or tags, left out of the default mode:
      // what one rewriter costs is the difference with and without it.
      std::string list = argv[++i];
      for (std::size_t at = 0; at <= list.size();) {
        const std::size_t comma = std::min(list.find(',', at), list.size());
        if (comma > at) exclude.push_back(list.substr(at, comma - at));
        at = comma + 1;
      }
    }
    else if (!arg.empty() && arg[0] != '-') dir = arg;
    else {
      std::fprintf(stderr, "usage: %s [GRAPH_DIR] [--only NAME] [--runs N] [--profile] [--exclude NAME,...]\n", argv[0]);
      return 2;
    }
  }
  const rw::OpRegistry& ops = rw::standard_registry();
  const rw::Mode mode = rw::default_mode().excluding(exclude);
  for (const Reference& ref : kGraphs) {
    if (!only.empty() && only + ".graph" != ref.file) continue;
    const auto path = dir / ref.file;
    const rw::dsl::GraphFile graph = rw::dsl::load_graph_text(path.string(), read_text(path), ops);
    std::size_t before = 0;
    std::size_t after = 0;
    const rw::GraphRewriterPtr pass = mode.rewriter();
    std::vector<double> times;
    std::vector<double> cpu_times;
    for (int run = 0; run <= runs; ++run) {
      rw::FunctionGraph fgraph = graph.function_graph(/*clone=*/true);
      before = fgraph.num_nodes();
      const double c0 = rw::bench::thread_cpu_seconds();
      const double t = rw::bench::time_once([&] { pass->rewrite(fgraph); });
      const double cpu = rw::bench::thread_cpu_seconds() - c0;
      after = fgraph.num_nodes();
      if (run > 0) {  // the first run is the warm-up
        times.push_back(t);
        cpu_times.push_back(cpu);
      }
    }
    std::sort(times.begin(), times.end());
    std::sort(cpu_times.begin(), cpu_times.end());
    const double median = times[times.size() / 2];
    const double cpu_median = cpu_times[cpu_times.size() / 2];
    char extra[256];
    std::snprintf(extra, sizeof extra,
                  " cpu_s=%.6g nodes_before=%zu nodes_after=%zu pytensor_s=%g "
                  "pytensor_nodes_after=%zu speedup=%.0f",
                  cpu_median, before, after, ref.pytensor_s, ref.pytensor_nodes_after,
                  ref.pytensor_s / cpu_median);  // PyTensor's figures are CPU seconds
    rw::bench::report(std::string("rewrite_") + ref.family, ref.n, median, extra);
    if (profile) {
      rw::FunctionGraph fgraph = graph.function_graph(/*clone=*/true);
      rw::RewriteProfile prof;
      rw::RewriteContext ctx;
      ctx.profile = &prof;
      pass->rewrite(fgraph, ctx);
      std::printf("%s\n", prof.table().c_str());
    }
  }
}

// bench_graph: building and importing large graphs, replacement throughput and
// toposort, on chains and random DAGs of 10^4 .. 10^6 Apply nodes.
//
//   build/tools/bench_graph            # all sizes
//   build/tools/bench_graph 100000     # one size
#include <rw/rw.hpp>

#include <cstdlib>
#include <random>

#include <fmt/format.h>

#include "bench_util.hpp"

namespace {

/// An elementwise op whose output has its first input's type.
class Elem final : public rw::Op {
 public:
  explicit Elem(std::string name) : name_(std::move(name)) {}
  std::string_view name() const override { return name_; }
  rw::ApplyRef make_node(std::span<const rw::Var> in) const override {
    const rw::TypePtr t = in[0]->type();
    return rw::Apply::create(ptr(), in, std::span(&t, 1));
  }

 private:
  std::string name_;
};

struct Ops {
  rw::OpPtr un1 = std::make_shared<Elem>("exp");
  rw::OpPtr un2 = std::make_shared<Elem>("neg");
  rw::OpPtr bin = std::make_shared<Elem>("add");
};

rw::Var chain(const Ops& ops, const rw::Var& x, long long n) {
  rw::Var v = x;
  for (long long i = 0; i < n; ++i) v = (*((i & 1) ? ops.un1 : ops.un2))({v});
  return v;
}

// Node i adds node i-1 and a uniformly random earlier variable: every node is
// an ancestor of the last one.
rw::Var dag(const Ops& ops, const rw::Var& x, long long n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<rw::Var> vs{x};
  vs.reserve(static_cast<std::size_t>(n) + 1);
  for (long long i = 0; i < n; ++i) {
    const auto j = std::uniform_int_distribution<std::size_t>(0, vs.size() - 1)(rng);
    vs.push_back((*ops.bin)({vs.back(), vs[j]}));
  }
  return vs.back();
}

void run(long long n) {
  using rw::bench::median_time;
  using rw::bench::report;
  using rw::bench::time_once;
  const Ops ops;
  auto vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  const rw::Var x = rw::Variable::make(vec, "x");
  const int runs = n >= 1'000'000 ? 3 : 5;

  for (const char* family : {"chain", "dag"}) {
    auto build = [&] { return family[0] == 'c' ? chain(ops, x, n) : dag(ops, x, n, 7); };
    std::vector<double> b, imp;
    for (int r = 0; r < runs + 1; ++r) {
      rw::Var out;
      const double tb = time_once([&] { out = build(); });
      double ti = 0;
      {
        std::optional<rw::FunctionGraph> fg;
        ti = time_once([&] { fg.emplace(std::vector<rw::Var>{x}, std::vector<rw::Var>{out}, false); });
      }
      if (r > 0) {  // the first run warms up
        b.push_back(tb);
        imp.push_back(ti);
      }
    }
    std::sort(b.begin(), b.end());
    std::sort(imp.begin(), imp.end());
    const double mb = b[b.size() / 2], mi = imp[imp.size() / 2];
    report(fmt::format("graph_build_import_{}", family), n, mb + mi,
           fmt::format(" build_s={:.4g} import_s={:.4g} ns_per_node={:.1f}", mb, mi,
                       (mb + mi) * 1e9 / static_cast<double>(n)));

    const rw::Var out = build();
    rw::FunctionGraph fg({x}, {out}, false);
    const double topo = median_time([&] { (void)fg.toposort(); }, runs);
    report(fmt::format("graph_toposort_{}", family), n, topo,
           fmt::format(" ns_per_node={:.1f}", topo * 1e9 / static_cast<double>(n)));
  }

  // Replacement throughput: replace every node of a chain, in order, by a node
  // of another op on the same input (one import and one prune each).
  std::vector<double> ts;
  for (int r = 0; r < runs + 1; ++r) {
    const rw::Var out = chain(ops, x, n);
    rw::FunctionGraph fg({x}, {out}, false);
    const auto order = fg.toposort();
    const double t = time_once([&] {
      for (rw::Apply* node : order) {
        const rw::Var in = node->input(0);
        const rw::OpPtr& other = node->op().name() == "exp" ? ops.un2 : ops.un1;
        fg.replace(node->output(0), (*other)({in}), "bench");
      }
    });
    if (r > 0) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  const double t = ts[ts.size() / 2];
  report("graph_replace_chain", n, t,
         fmt::format(" replacements_per_s={:.3g}", static_cast<double>(n) / t));
}

// Replacement where one variable has n clients: x feeds n nodes un1(x), summed
// by a chain; each un1(x) is replaced by un2(x), pruning a client of x.
void run_fanout(long long n) {
  const Ops ops;
  auto vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  const rw::Var x = rw::Variable::make(vec, "x");
  std::vector<double> ts;
  for (int r = 0; r < 4; ++r) {
    std::vector<rw::Var> users;
    rw::Var acc = x;
    for (long long i = 0; i < n; ++i) {
      users.push_back((*ops.un1)({x}));
      acc = (*ops.bin)({acc, users.back()});
    }
    rw::FunctionGraph fg({x}, {acc}, false);
    const double t = rw::bench::time_once([&] {
      for (const rw::Var& u : users) fg.replace(u, (*ops.un2)({x}), "bench");
    });
    if (r > 0) ts.push_back(t);
  }
  std::sort(ts.begin(), ts.end());
  const double t = ts[ts.size() / 2];
  rw::bench::report("graph_replace_fanout", n, t,
                    fmt::format(" replacements_per_s={:.3g}", static_cast<double>(n) / t));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    run(std::atoll(argv[1]));
    run_fanout(std::atoll(argv[1]));
    return 0;
  }
  for (long long n : {10'000LL, 100'000LL, 1'000'000LL}) run(n);
  for (long long n : {1'000LL, 10'000LL, 100'000LL}) run_fanout(n);
  return 0;
}

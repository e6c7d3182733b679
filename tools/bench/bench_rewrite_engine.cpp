// bench_rewrite_engine: the rewrite engine on synthetic graphs of small
// elementwise ops at 10^3 .. 10^5 nodes, under a handful of C++ node
// rewriters (x * 1 -> x, x + 0 -> x, -(-x) -> x), merging and constant
// folding; also the cost of a trace nobody listens to, and of profiling.
//
//   build/tools/bench_rewrite_engine            # 1000, 10000, 100000 nodes
//   build/tools/bench_rewrite_engine 5000       # one size
//   build/tools/bench_rewrite_engine 5000 dag   # one size, benchmarks whose name has "dag"
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>
#include <rw/rewrite.hpp>

#include <fmt/format.h>

#include "bench_util.hpp"

namespace {

using rw::Var;

/// An elementwise float64 op: the output has the type of its first non-0-d
/// input (or of its first input).
class Elem final : public rw::Op {
 public:
  Elem(std::string name, int arity, double (*f1)(double), double (*f2)(double, double))
      : name_(std::move(name)), arity_(arity), f1_(f1), f2_(f2) {}
  std::string_view name() const override { return name_; }
  rw::ApplyRef make_node(std::span<const Var> in) const override {
    if (static_cast<int>(in.size()) != arity_) throw rw::TypeError("wrong arity for " + name_);
    rw::TypePtr t = in[0]->type();
    for (const Var& v : in)
      if (v->tensor_type()->ndim() > 0) t = v->type();
    return rw::Apply::create(ptr(), in, std::span(&t, 1));
  }
  void perform(const rw::Apply&, std::span<const rw::Tensor> in,
               std::span<rw::Tensor> out) const override {
    const rw::Tensor a = in[0].contiguous();
    const rw::Tensor b = arity_ == 2 ? in[1].contiguous() : a;
    const rw::Tensor& big = a.size() >= b.size() ? a : b;
    rw::Tensor r = rw::Tensor::empty(rw::DType::Float64, big.shape());
    const double* x = a.data<double>();
    const double* y = b.data<double>();
    double* z = r.data<double>();
    for (std::int64_t i = 0; i < r.size(); ++i)
      z[i] = f1_ ? f1_(x[a.size() == 1 ? 0 : i]) : f2_(x[a.size() == 1 ? 0 : i], y[b.size() == 1 ? 0 : i]);
    out[0] = r;
  }

 private:
  std::string name_;
  int arity_;
  double (*f1_)(double);
  double (*f2_)(double, double);
};

struct Ops {
  rw::OpPtr add = std::make_shared<Elem>("add", 2, nullptr, [](double a, double b) { return a + b; });
  rw::OpPtr mul = std::make_shared<Elem>("mul", 2, nullptr, [](double a, double b) { return a * b; });
  rw::OpPtr neg = std::make_shared<Elem>("neg", 1, [](double a) { return -a; }, nullptr);
  rw::OpPtr exp = std::make_shared<Elem>("exp", 1, [](double a) { return std::exp(a); }, nullptr);
};

const Ops& ops() {
  static const Ops o;
  return o;
}
Var add(const Var& a, const Var& b) { return (*ops().add)({a, b}); }
Var mul(const Var& a, const Var& b) { return (*ops().mul)({a, b}); }
Var neg(const Var& a) { return (*ops().neg)({a}); }
Var exp(const Var& a) { return (*ops().exp)({a}); }
Var konst(double v) { return rw::Constant::scalar(v); }

std::optional<double> value_of(const Var& v) {
  const rw::Constant* c = v->as_constant();
  return c ? c->scalar_value() : std::nullopt;
}

// The rewriters, as a user of the library would write them.
rw::NodeRewriterPtr mul_one() {
  return rw::make_node_rewriter(
      "mul_one", {"mul"},
      [](rw::FunctionGraph&, rw::Apply& n, const rw::RewriteContext&) {
        if (value_of(n.input(1)) == 1.0 && n.input(0)->type()->equals(*n.output_var(0).type()))
          return rw::RewriteResult::replace_output(n.input(0));
        if (value_of(n.input(0)) == 1.0 && n.input(1)->type()->equals(*n.output_var(0).type()))
          return rw::RewriteResult::replace_output(n.input(1));
        return rw::RewriteResult::fail("no factor is 1");
      },
      0);
}
rw::NodeRewriterPtr add_zero() {
  return rw::make_node_rewriter(
      "add_zero", {"add"},
      [](rw::FunctionGraph&, rw::Apply& n, const rw::RewriteContext&) {
        if (value_of(n.input(1)) == 0.0 && n.input(0)->type()->equals(*n.output_var(0).type()))
          return rw::RewriteResult::replace_output(n.input(0));
        return rw::RewriteResult::fail("the second term is not 0");
      },
      0);
}
rw::NodeRewriterPtr neg_neg() {
  return rw::make_node_rewriter(
      "neg_neg", {"neg"},
      [](rw::FunctionGraph&, rw::Apply& n, const rw::RewriteContext&) {
        const rw::Apply* inner = n.input(0)->owner();
        if (inner && inner->op().name() == "neg")
          return rw::RewriteResult::replace_output(inner->input(0));
        return rw::RewriteResult::fail("not a double negation");
      },
      1);
}

std::shared_ptr<rw::EquilibriumRewriter> canonicalize(bool with_merge = true) {
  auto eq = std::make_shared<rw::EquilibriumRewriter>(
      "canonicalize", std::vector<rw::NodeRewriterPtr>{mul_one(), add_zero(), neg_neg(),
                                                       std::make_shared<rw::ConstantFolding>()});
  if (with_merge) eq->add_cleanup(std::make_shared<rw::MergeOptimizer>("merge"));
  return eq;
}

// ---------------------------------------------------------------------------
// Graph families. Each returns the output; `x` is the input.

/// n nodes, every one of which a rewriter removes: (((x*1)+0) then --) …
Var chain_removable(const Var& x, long long n) {
  Var v = x;
  for (long long i = 0; i < n;) {
    switch (i % 4) {
      case 0: v = mul(v, konst(1)); ++i; break;
      case 1: v = add(v, konst(0)); ++i; break;
      default: v = neg(neg(v)); i += 2; break;
    }
  }
  return v;
}

/// n nodes of which half are removable: exp(x * 1) repeated.
Var chain_half(const Var& x, long long n) {
  Var v = x;
  for (long long i = 0; i < n; i += 2) v = exp(mul(v, konst(1)));
  return v;
}

/// n nodes where nothing applies: exp and neg alternating with products of x.
Var chain_inert(const Var& x, long long n) {
  Var v = x;
  for (long long i = 0; i < n; ++i) v = (i % 2) ? exp(v) : mul(v, x);
  return v;
}

/// A random DAG: each node combines recent values; a fifth of the nodes are
/// removable, a fifth are constant subexpressions, and every subexpression is
/// built twice (so merge halves the graph).
Var dag_mixed(const Var& x, long long n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Var> vs{x};
  vs.reserve(static_cast<std::size_t>(n));
  auto recent = [&] {
    const std::size_t k = std::min<std::size_t>(vs.size(), 16);
    return vs[vs.size() - 1 - std::uniform_int_distribution<std::size_t>(0, k - 1)(rng)];
  };
  long long made = 0;
  while (made < n) {
    const int kind = std::uniform_int_distribution<int>(0, 4)(rng);
    Var a = recent(), b = recent();
    for (int copy = 0; copy < 2; ++copy) {
      switch (kind) {
        case 0: vs.push_back(mul(a, konst(1))); made += 1; break;
        case 1: vs.push_back(add(mul(konst(2), konst(3)), a)); made += 2; break;
        case 2: vs.push_back(add(a, b)); made += 1; break;
        case 3: vs.push_back(exp(neg(a))); made += 2; break;
        default: vs.push_back(mul(a, b)); made += 1; break;
      }
    }
  }
  Var out = vs.back();
  for (std::size_t i = 1; i + 1 < vs.size(); i += 7) out = add(out, vs[i]);
  return out;
}

// ---------------------------------------------------------------------------

struct Outcome {
  double median_s;
  std::size_t before, after, applications;
};

/// Builds a fresh graph for each run (untimed) and times `rewriter` on it.
Outcome measure(const std::function<Var(const Var&)>& build, const rw::GraphRewriter& rewriter,
                rw::RewriteContext& ctx, int runs) {
  std::vector<double> ts;
  Outcome o{};
  auto vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  for (int r = 0; r < runs + 1; ++r) {
    const Var x = rw::Variable::make(vec, "x");
    const Var out = build(x);
    rw::FunctionGraph fg({x}, {out}, /*clone=*/false);
    rewriter.add_requirements(fg);
    o.before = fg.num_nodes();
    rw::PassReport rep;
    const double t = rw::bench::time_once([&] { rep = rewriter.run(fg, ctx); });
    if (!rep.ok()) {
      std::fprintf(stderr, "rewriting stopped early: %s", rep.problems().c_str());
      std::exit(1);
    }
    o.after = fg.num_nodes();
    o.applications = rep.applications;
    for (const auto& c : rep.children) o.applications += c.applications;
    if (r > 0) ts.push_back(t);  // the first run warms up
  }
  std::sort(ts.begin(), ts.end());
  o.median_s = ts[ts.size() / 2];
  return o;
}

/// Benchmarks whose name contains this run (all when empty).
std::string g_filter;
bool wanted(const std::string& name) { return name.find(g_filter) != std::string::npos; }

void print(const std::string& name, long long n, const Outcome& o, const std::string& extra = {}) {
  rw::bench::report(name, n, o.median_s,
                    fmt::format(" nodes_before={} nodes_after={} applications={} ns_per_node={:.1f}{}",
                                o.before, o.after, o.applications,
                                o.median_s * 1e9 / static_cast<double>(o.before), extra));
}

/// Counts events, as the cheapest possible listener.
class CountingListener final : public rw::TraceListener {
 public:
  std::size_t events = 0;
  void on_event(const rw::TraceEvent&) override { ++events; }
};

void run(long long n) {
  const int runs = n >= 100000 ? 5 : 9;
  using Build = std::function<Var(const Var&)>;
  auto bench = [&](const std::string& name, const Build& build, const rw::GraphRewriter& rewriter,
                   rw::RewriteContext& ctx, const std::function<std::string()>& extra = {}) {
    if (!wanted(name)) return;
    const Outcome o = measure(build, rewriter, ctx, runs);
    print(name, n, o, extra ? extra() : std::string());
  };
  const Build removable = [&](const Var& x) { return chain_removable(x, n); };
  auto eq = canonicalize();
  rw::RewriteContext silent;

  bench("rewrite_chain_removable", removable, *eq, silent);
  auto eq_plain = canonicalize(false);
  bench("rewrite_chain_removable_nomerge", removable, *eq_plain, silent);
  bench("rewrite_chain_half", [&](const Var& x) { return chain_half(x, n); }, *eq, silent);
  bench("rewrite_chain_inert", [&](const Var& x) { return chain_inert(x, n); }, *eq, silent);
  bench("rewrite_dag_mixed", [&](const Var& x) { return dag_mixed(x, n, 7); }, *eq, silent);
  rw::MergeOptimizer merge("merge");
  bench("rewrite_dag_merge_only", [&](const Var& x) { return dag_mixed(x, n, 7); }, merge, silent);
  auto walk = rw::in2out("walk", {mul_one(), add_zero(), neg_neg()});
  bench("rewrite_chain_removable_in2out", removable, *walk, silent);

  // The cost of seeing what happened, measured interleaved with a silent run
  // (same graph, alternating) so that load on the machine affects both alike:
  // a trace nobody listens to, a listener that only counts, a profile.
  if (wanted("rewrite_observe")) {
    rw::Trace empty;
    rw::Trace counted;
    auto counter = std::make_shared<CountingListener>();
    counted.subscribe(counter);
    rw::RewriteProfile profile;
    struct Variant {
      const char* name;
      rw::RewriteContext ctx;
      std::vector<double> times;
    };
    std::vector<Variant> variants;
    variants.push_back({"silent", {}, {}});
    variants.push_back({"trace_nobody", {.trace = &empty}, {}});
    variants.push_back({"trace_counting", {.trace = &counted}, {}});
    variants.push_back({"profiled", {.profile = &profile}, {}});
    const int rounds = n >= 100000 ? 5 : (n >= 10000 ? 11 : 31);
    auto vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
    for (int r = 0; r < rounds + 1; ++r)
      for (Variant& v : variants) {
        const Var x = rw::Variable::make(vec, "x");
        rw::FunctionGraph fg({x}, {chain_removable(x, n)}, /*clone=*/false);
        eq->add_requirements(fg);
        const double t = rw::bench::time_once([&] { eq->run(fg, v.ctx); });
        if (r > 0) v.times.push_back(t);
      }
    auto median = [](std::vector<double> ts) {
      std::sort(ts.begin(), ts.end());
      return ts[ts.size() / 2];
    };
    const double base = median(variants[0].times);
    for (const Variant& v : variants) {
      const double m = median(v.times);
      std::string extra = fmt::format(" vs_silent={:.3f}", m / base);
      if (std::string(v.name) == "trace_counting")
        extra += fmt::format(" events_per_run={}", counter->events / static_cast<std::size_t>(rounds + 1));
      rw::bench::report(fmt::format("rewrite_observe_{}", v.name), n, m, extra);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2) g_filter = argv[2];
  if (argc > 1) {
    run(std::atoll(argv[1]));
    return 0;
  }
  for (long long n : {1000LL, 10000LL, 100000LL}) run(n);
  return 0;
}

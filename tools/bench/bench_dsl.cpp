// bench_dsl: parsing, checking, compiling and registering a generated rule
// file of 10,000 rules; rewriting a chain of 1000 toy-op nodes to a fixed
// point with six rules (and with the same rewrites written in C++); the cost
// of one rule attempt; and loading the nine benchmark graph files (parse +
// build through make_node).
//
//   build/tools/bench_dsl                                # graphs from /work/shared/bench/graphs
//   build/tools/bench_dsl path/to/graphs [rule count] [chain length]
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <rw/rewrite.hpp>
#include <rw/rules.hpp>
#include <time.h>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "support/pt_ops.hpp"
#include "support/toy_ops.hpp"

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

  // Compiling the checked rules into pattern rewriters and registering them
  // in a fresh standard database, all or nothing; then the whole load.
  const rw::dsl::RuleModule checked =
      rw::dsl::check_rules_text("bench.rules", text, ops, predicates, options).take();
  std::vector<double> compile_ts;
  for (int i = 0; i < 6; ++i) {
    rw::dsl::RuleModule module = checked;  // copied outside the timing
    auto db = rw::make_standard_db();
    double t = rw::bench::time_once([&] {
      auto r = rw::dsl::register_rules(*db, std::move(module), ops);
      if (!r.ok() || r.value->size() != static_cast<std::size_t>(n)) std::abort();
    });
    if (i > 0) compile_ts.push_back(t);  // the first run warms up
  }
  std::sort(compile_ts.begin(), compile_ts.end());
  const double compile_s = compile_ts[compile_ts.size() / 2];
  rw::bench::report("rules_compile_register", n, compile_s,
                    fmt::format(" rules_per_s={:.0f}", n / compile_s));
  std::shared_ptr<rw::SequenceDB> db;
  const double load_s = rw::bench::median_time([&] {
    db = rw::make_standard_db();
    auto r = rw::dsl::check_rules_text_into(*db, "bench.rules", text, ops, predicates, options);
    if (!r.ok()) std::abort();
  });
  rw::bench::report("rules_load_into_db", n, load_s,
                    fmt::format(" parse_check_s={:.4f} compile_register_s={:.4f} goal_s=1",
                                check_s, compile_s));
  const double build_s = rw::bench::median_time([&] {
    if (!rw::Mode::fast_run(db).rewriter()) std::abort();
  });
  rw::bench::report("rules_build_pipeline", n, build_s);
}

// ---------------------------------------------------------------------------
// Rewriting with rules.

using rw::Var;
namespace toy = rw::test;

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

const rw::OpRegistry& toy_ops() {
  static const rw::OpRegistry registry = [] {
    rw::OpRegistry r = toy::toy_registry();
    r.add_alias("true_div", "div");
    return r;
  }();
  return registry;
}

constexpr const char* kChainRules = R"(
ruleset bench tags(canonicalize, fast_run)
rule mul_one:    x * 1       => x
rule one_mul:    1 * x       => x
rule add_zero:   x + 0       => x
rule zero_add:   0 + x       => x
rule div_one:    x / 1       => x
rule div_cancel: (x * y) / y => x
)";

/// A chain of about `n` toy nodes over input x (and y): removable links of
/// each rule's shape, and an inert exp every seventh link, which are what
/// the fixed point keeps (counted in `inert`).
Var chain(const Var& x, const Var& y, long long n, std::size_t& inert) {
  Var v = x;
  inert = 0;
  for (long long i = 0, link = 0; i < n; ++link) {
    switch (link % 7) {
      case 0: v = toy::mul(v, toy::fconst(1)); ++i; break;
      case 1: v = toy::mul(toy::fconst(1), v); ++i; break;
      case 2: v = toy::add(v, toy::fconst(0)); ++i; break;
      case 3: v = toy::add(toy::fconst(0), v); ++i; break;
      case 4: v = toy::div(v, toy::fconst(1)); ++i; break;
      case 5: v = toy::div(toy::mul(v, y), y); i += 2; break;
      default: v = toy::exp(v); ++i; ++inert; break;
    }
  }
  return v;
}

/// The same six rewrites written in C++ against the toy ops, for comparison.
std::vector<rw::NodeRewriterPtr> chain_cpp() {
  auto value = [](const Var& v) -> std::optional<double> {
    const rw::Constant* c = v->as_constant();
    return c ? c->scalar_value() : std::nullopt;
  };
  auto fits = [](const rw::Apply& n, const Var& v) {
    return n.output_var(0).type()->is_super(*v->type());
  };
  auto by_constant = [=](const char* name, const char* op, std::size_t slot, double k) {
    return rw::make_node_rewriter(
        name, rw::Tracks(std::vector<std::string>{op}),
        [=](rw::FunctionGraph&, rw::Apply& n, const rw::RewriteContext&) {
          const Var& other = n.input(1 - slot);
          if (value(n.input(slot)) == k && fits(n, other)) return rw::RewriteResult::replace_output(other);
          return rw::RewriteResult::fail("no");
        },
        0);
  };
  return {by_constant("mul_one", "mul", 1, 1.0), by_constant("one_mul", "mul", 0, 1.0),
          by_constant("add_zero", "add", 1, 0.0), by_constant("zero_add", "add", 0, 0.0),
          by_constant("div_one", "div", 1, 1.0),
          rw::make_node_rewriter(
              "div_cancel", {"div"},
              [](rw::FunctionGraph& fg, rw::Apply& n, const rw::RewriteContext&) {
                const rw::Apply* num = n.input(0)->owner();
                if (num && num->op().name() == "mul" && num->input(1) == n.input(1) &&
                    fg.num_clients(*n.input(0)) == 1)
                  return rw::RewriteResult::replace_output(num->input(0));
                return rw::RewriteResult::fail("no");
              },
              1)};
}

/// Median time of `eq` on fresh chains (built untimed); checks the result.
double time_chain(const rw::EquilibriumRewriter& eq, long long n, std::size_t& before,
                  std::size_t& after) {
  std::vector<double> ts;
  for (int run = 0; run < 12; ++run) {
    Var x = toy::fvec("x"), y = toy::fvec("y");
    std::size_t inert = 0;
    rw::FunctionGraph fg({x, y}, {chain(x, y, n, inert)}, false);
    before = fg.num_nodes();
    rw::RewriteContext ctx;
    rw::PassReport report;
    const double t = rw::bench::time_once([&] { report = eq.rewrite(fg, ctx); });
    after = fg.num_nodes();
    if (!report.ok() || after != inert) {
      std::fprintf(stderr, "bench_dsl: the chain did not reach its fixed point (%zu nodes)\n", after);
      std::abort();
    }
    if (run >= 2) ts.push_back(t);  // two warm-up runs
  }
  std::sort(ts.begin(), ts.end());
  return ts[ts.size() / 2];
}

void bench_rewriting(long long n) {
  auto db = rw::make_standard_db();
  const rw::dsl::LoadedRules rules =
      rw::dsl::load_rules_text_into(*db, "chain.rules", kChainRules, toy_ops(), {});
  std::vector<rw::NodeRewriterPtr> rewriters;
  for (const auto& r : rules.rules()) rewriters.push_back(r.rewriter);
  std::size_t before = 0, after = 0;
  const rw::EquilibriumRewriter with_rules("rules", rewriters);
  const double rules_s = time_chain(with_rules, n, before, after);
  rw::bench::report("rules_chain_fixed_point", static_cast<long long>(before), rules_s,
                    fmt::format(" rules={} nodes_after={} ns_per_node={:.0f} goal_s=0.002",
                                rewriters.size(), after, rules_s * 1e9 / static_cast<double>(before)));
  const rw::EquilibriumRewriter with_cpp("cpp", chain_cpp());
  const double cpp_s = time_chain(with_cpp, n, before, after);
  rw::bench::report("cpp_chain_fixed_point", static_cast<long long>(before), cpp_s,
                    fmt::format(" rewriters=6 nodes_after={} rules_over_cpp={:.2f}", after,
                                rules_s / cpp_s));

  // One attempt of one rule on one node, nobody listening: failing at the
  // root's input (div_cancel on exp(x) / y), failing at a literal (x * 1 on
  // x * y), and succeeding (x * 1 on x * 1.0: match, build, type check).
  Var x = toy::fvec("x"), y = toy::fvec("y");
  rw::FunctionGraph fg({x, y}, {toy::div(toy::exp(x), y), toy::mul(x, y), toy::mul(x, toy::fconst(1))});
  const rw::RewriteContext silent;
  auto attempt = [&](const char* bench, const char* rule, std::size_t output, bool applies) {
    const rw::NodeRewriter& r = *rules.find(rule)->rewriter;
    rw::Apply& node = *fg.outputs()[output]->owner();
    constexpr long long kIters = 1'000'000;
    // Thread CPU time beside wall time: the build machine is shared.
    std::vector<double> cpu;
    const double s = rw::bench::median_time([&] {
      const double c0 = thread_cpu_seconds();
      for (long long i = 0; i < kIters; ++i)
        if (r.transform(fg, node, silent).applied() != applies) std::abort();
      cpu.push_back(thread_cpu_seconds() - c0);
    }, 7);
    std::sort(cpu.begin(), cpu.end());
    const double cpu_s = cpu[cpu.size() / 2];
    rw::bench::report(bench, kIters, s,
                      fmt::format(" ns_per_attempt={:.1f} cpu_ns_per_attempt={:.1f}", s * 1e9 / kIters,
                                  cpu_s * 1e9 / kIters));
  };
  attempt("rule_attempt_fail_deep", "div_cancel", 0, false);
  attempt("rule_attempt_fail_literal", "mul_one", 1, false);
  attempt("rule_attempt_apply", "mul_one", 2, true);
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
  const long long chain_n = argc > 3 ? std::atoll(argv[3]) : 1000;
  bench_rules(n);
  bench_rewriting(chain_n);
  bench_graphs(graphs);
}

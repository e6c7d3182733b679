// bench_unify: the miniKanren benchmark problems of shared/bench/kanren/README.md
// (appendo, zebra, unify+reify of binary trees, a one-step rewrite relation on
// expr200.sexp), and the graph matcher's cost per node.
//
//   build/tools/bench_unify                      # every row
//   build/tools/bench_unify zebra                # rows whose name contains "zebra"
//   build/tools/bench_unify all path/to/expr200.sexp
//
// Beyond the README's rows: unify_reify_phases (the unify+reify problem timed
// phase by phase, thread CPU time), match_fail_root / match_fail_deep / match_ok (one
// pattern against one node, a million times), match_comm_fail_deep /
// match_comm_ok (the same with a commutative product) and match_sweep (six rules at
// every node of a 1000-node graph), for the rewrite engine's hot path.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <rw/kanren.hpp>
#include <rw/rewrite.hpp>
#include <sstream>
#include <time.h>

#include "bench_util.hpp"

namespace {

using namespace rw;
using namespace rw::kanren;
using rw::bench::report;

double thread_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Wall-clock and CPU-time medians of `runs` calls after `warmup` ones (the
/// machine is shared: CPU time shows what a run costs when others preempt it).
struct Timing {
  double wall, cpu;
};
template <class F> Timing median_times(F&& f, int runs, int warmup) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> wall, cpu;
  for (int i = 0; i < runs; ++i) {
    const double c0 = thread_cpu_seconds();
    wall.push_back(rw::bench::time_once(f));
    cpu.push_back(thread_cpu_seconds() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

std::string cpu_key(const Timing& t) {
  char buf[64];
  std::snprintf(buf, sizeof buf, " cpu_s=%.6g", t.cpu);
  return buf;
}

// --- appendo -----------------------------------------------------------------

void bench_appendo(int n) {
  std::vector<Term> items;
  for (int i = 0; i < n; ++i) items.push_back(i);
  const Term l = list(items);
  std::size_t answers = 0;
  const Timing t = median_times(
      [&] {
        const Term q = lvar("q");
        answers = run_all(q, fresh([q, l](Term x, Term y) {
                            return conj(eq(q, list({x, y})), appendo(x, y, l));
                          })).size();
      },
      n >= 100 ? 21 : 51, 3);
  report("appendo", n, t.wall, " answers=" + std::to_string(answers) + cpu_key(t));
}

// --- zebra -------------------------------------------------------------------

Goal righto(Term x, Term y, Term l) {
  return conde({{fresh([=](Term d) { return eq(cons(x, cons(y, d)), l); })},
                {fresh([=](Term a, Term d) { return conj(eq(cons(a, d), l), righto(x, y, d)); })}});
}
Goal nexto(Term x, Term y, Term l) { return conde({{righto(x, y, l)}, {righto(y, x, l)}}); }
Term house(Term a, Term b, Term c, Term d, Term e) { return tuple({a, b, c, d, e}); }

// Houses are 5-tuples (nationality, smoke, drink, pet, colour) of fresh variables.
Goal zebrao(Term hs) {
  auto _ = [] { return lvar(); };
  return conj({eq(list({_(), _(), house(_(), _(), "milk", _(), _()), _(), _()}), hs),
               fresh([hs, _](Term d) { return eq(cons(house("norwegian", _(), _(), _(), _()), d), hs); }),
               nexto(house("norwegian", _(), _(), _(), _()), house(_(), _(), _(), _(), "blue"), hs),
               righto(house(_(), _(), _(), _(), "ivory"), house(_(), _(), _(), _(), "green"), hs),
               membero(house("englishman", _(), _(), _(), "red"), hs),
               membero(house(_(), "kools", _(), _(), "yellow"), hs),
               membero(house("spaniard", _(), _(), "dog", _()), hs),
               membero(house(_(), _(), "coffee", _(), "green"), hs),
               membero(house("ukrainian", _(), "tea", _(), _()), hs),
               membero(house(_(), "lucky-strikes", "oj", _(), _()), hs),
               membero(house("japanese", "parliaments", _(), _(), _()), hs),
               membero(house(_(), "oldgolds", _(), "snails", _()), hs),
               nexto(house(_(), _(), _(), "horse", _()), house(_(), "kools", _(), _(), _()), hs),
               nexto(house(_(), _(), _(), "fox", _()), house(_(), "chesterfields", _(), _(), _()), hs),
               membero(house(_(), _(), "water", _(), _()), hs),
               membero(house(_(), _(), _(), "zebra", _()), hs)});
}

void bench_zebra() {
  std::size_t answers = 0;
  const Timing first = median_times([&] {
    const Term hs = lvar("houses");
    answers = run(1, hs, zebrao(hs)).size();
  }, 21, 2);
  report("zebra_first", 1, first.wall, " answers=" + std::to_string(answers) + cpu_key(first));
  const Timing all = median_times([&] {
    const Term hs = lvar("houses");
    answers = run_all(hs, zebrao(hs)).size();
  }, 21, 2);
  report("zebra_all", 1, all.wall, " answers=" + std::to_string(answers) + cpu_key(all));
}

// --- unify + reify -------------------------------------------------------------

// A complete binary tree f(l, r) with n nodes counted as compounds and leaves:
// (n + 1) / 2 leaves, split evenly at each level; leaves are fresh variables,
// or the integers 0.. from left to right.
Term tree(std::size_t lo, std::size_t hi, bool vars) {
  if (hi - lo == 1) return vars ? lvar() : Term(static_cast<std::int64_t>(lo));
  const std::size_t mid = lo + (hi - lo + 1) / 2;
  return compound("f", {tree(lo, mid, vars), tree(mid, hi, vars)});
}

void bench_unify_reify(std::size_t n) {
  const std::size_t leaves = (n + 1) / 2;
  const Term b = tree(0, leaves, false);
  std::vector<Term> answers;
  const Timing t = median_times([&] {
    const Term a = tree(0, leaves, true);
    const Term q = lvar("q");
    answers = run(1, q, conj(eq(q, a), eq(a, b)));
  }, n >= 100000 ? 11 : 31, 2);
  const bool ok = answers.size() == 1 && answers[0] == b;  // checked outside the timing
  report("unify_reify", static_cast<long long>(n), t.wall,
         std::string(" ok=") + (ok ? "1" : "0") + cpu_key(t));
}

// The same problem by phase, through the unifier's API rather than run (the
// substitution is built by unify_in, the answer by reify): where the time
// goes and how each phase grows. Medians of thread CPU time per phase.
void bench_unify_reify_phases(std::size_t n) {
  const std::size_t leaves = (n + 1) / 2;
  const Term b = tree(0, leaves, false);
  constexpr int kPhases = 7;
  const char* names[kPhases] = {"build", "occurs", "unify", "reify", "free_answer", "free_subst", "free_a"};
  std::vector<std::vector<double>> phase(kPhases);
  std::vector<double> wall, cpu;
  bool ok = true;
  const int runs = n >= 100000 ? 11 : 31;
  for (int r = 0; r < runs + 2; ++r) {
    double t[kPhases + 1];
    const auto w0 = std::chrono::steady_clock::now();
    t[0] = thread_cpu_seconds();
    Term a = tree(0, leaves, true);
    t[1] = thread_cpu_seconds();
    const Term q = lvar("q");
    Substitution s;
    ok = unify_in(q, a, s) && ok;  // binding q to A: the occurs check walks A
    t[2] = thread_cpu_seconds();
    ok = unify_in(a, b, s) && ok;
    t[3] = thread_cpu_seconds();
    Term answer = reify(q, s);
    t[4] = thread_cpu_seconds();
    ok = ok && answer == b;
    const double check_end = thread_cpu_seconds();  // the comparison is not timed
    answer = Term();
    t[5] = thread_cpu_seconds();
    s = Substitution();
    t[6] = thread_cpu_seconds();
    a = Term();
    t[7] = thread_cpu_seconds();
    const std::chrono::duration<double> w = std::chrono::steady_clock::now() - w0;
    if (r < 2) continue;  // warm-up
    for (int i = 0; i < kPhases; ++i)
      phase[i].push_back(i == 4 ? t[5] - check_end : t[i + 1] - t[i]);
    cpu.push_back(t[7] - t[0] - (check_end - t[4]));
    wall.push_back(w.count() - (check_end - t[4]));
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::string extra = std::string(" ok=") + (ok ? "1" : "0");
  char total[48];
  std::snprintf(total, sizeof total, " cpu_s=%.6g", median(cpu));
  extra += total;
  for (int i = 0; i < kPhases; ++i) {
    char buf[64];
    std::snprintf(buf, sizeof buf, " %s_cpu_s=%.6g", names[i], median(phase[i]));
    extra += buf;
  }
  report("unify_reify_phases", static_cast<long long>(n), median(wall), extra);
}

// --- rewriting -----------------------------------------------------------------

// The operator symbols, made once.
const Term kMul = "*", kAdd = "+", kDiv = "/";

// One-step rewrites: x*1, 1*x, x+0, 0+x, x/1 -> x, (x*y)/y -> x, and
// rewriting inside either argument of a binary node. The recursive calls are
// lazy: built when reached, as a Scheme closure would be.
Goal rewriteo(Term e, Term e2) {
  return conde({{eq(e, compound(kMul, e2, 1))},
                {eq(e, compound(kMul, 1, e2))},
                {eq(e, compound(kAdd, e2, 0))},
                {eq(e, compound(kAdd, 0, e2))},
                {eq(e, compound(kDiv, e2, 1))},
                {fresh([=](Term y) { return eq(e, compound(kDiv, compound(kMul, e2, y), y)); })},
                {fresh([=](Term op, Term a, Term b, Term a2) {
                  return conj(eq(e, compound(op, a, b)), eq(e2, compound(op, a2, b)),
                              lazy([a, a2] { return rewriteo(a, a2); }));
                })},
                {fresh([=](Term op, Term a, Term b, Term b2) {
                  return conj(eq(e, compound(op, a, b)), eq(e2, compound(op, a, b2)),
                              lazy([b, b2] { return rewriteo(b, b2); }));
                })}});
}

// The same relation as a clause table: its patterns are built once, and a
// call unifies them with the arguments instead of building the conde.
Goal rewriteo_table(Term e, Term e2);
const ClauseTable& rewrite_table() {
  static const ClauseTable table = [] {
    const Term e = lvar("e"), e2 = lvar("e2"), y = lvar("y"), op = lvar("op"), a = lvar("a"),
               b = lvar("b"), a2 = lvar("a2"), b2 = lvar("b2");
    // Environments: e, e2, then the clause's fresh variables in order.
    return ClauseTable({e, e2},
                       {{{}, {{e, compound(kMul, e2, 1)}}, {}},
                        {{}, {{e, compound(kMul, 1, e2)}}, {}},
                        {{}, {{e, compound(kAdd, e2, 0)}}, {}},
                        {{}, {{e, compound(kAdd, 0, e2)}}, {}},
                        {{}, {{e, compound(kDiv, e2, 1)}}, {}},
                        {{y}, {{e, compound(kDiv, compound(kMul, e2, y), y)}}, {}},
                        {{op, a, b, a2},
                         {{e, compound(op, a, b)}, {e2, compound(op, a2, b)}},
                         [](ClauseEnv v) { return rewriteo_table(v[3], v[5]); }},
                        {{op, a, b, b2},
                         {{e, compound(op, a, b)}, {e2, compound(op, a, b2)}},
                         [](ClauseEnv v) { return rewriteo_table(v[4], v[5]); }}});
  }();
  return table;
}
Goal rewriteo_table(Term e, Term e2) { return rewrite_table()(std::move(e), std::move(e2)); }

// An s-expression list (op a b) becomes the compound op(a, b).
Term sexpr_to_term(const Term& t) {
  if (!t.is_pair()) return t;
  std::vector<Term> args;
  for (const Term* c = &t.cdr(); c->is_pair(); c = &c->cdr()) args.push_back(sexpr_to_term(c->car()));
  return compound(t.car(), args);
}

std::size_t count_nodes(const Term& t) {
  if (!t.is_compound()) return 1;
  std::size_t n = 1;
  for (const Term& a : t.args()) n += count_nodes(a);
  return n;
}

void bench_rewrite(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bench_unify: cannot read %s (rewrite rows skipped)\n", path.c_str());
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  // The expression repeats subtrees; interning makes each one node, so the
  // (x * y) / y rule finds the two y's equal by identity.
  TermTable table;
  const Term expr = table.intern(sexpr_to_term(parse_term(text.str())));
  const auto nodes = static_cast<long long>(count_nodes(expr));
  // The relation as a clause table (the main rows), and as a conde built on
  // every call (the _conde rows); both give the same answers in the same order.
  for (const bool use_table : {true, false}) {
    const auto rel = use_table ? rewriteo_table : rewriteo;
    const std::string suffix = use_table ? "" : "_conde";
    std::size_t answers = 0;
    const Timing all = median_times([&] {
      const Term q = lvar("q");
      answers = run_all(q, rel(expr, q)).size();
    }, 51, 5);
    report(("rewrite_all" + suffix).c_str(), nodes, all.wall,
           " answers=" + std::to_string(answers) + cpu_key(all));
    std::size_t steps = 0;
    const Timing nf = median_times([&] {
      Term e = expr;
      steps = 0;
      for (;;) {
        const Term q = lvar("q");
        auto next = run(1, q, rel(e, q));
        if (next.empty()) break;
        e = next[0];
        ++steps;
      }
    }, 51, 5);
    report(("rewrite_normal_form" + suffix).c_str(), nodes, nf.wall,
           " steps=" + std::to_string(steps) + cpu_key(nf));
  }
}

// --- matching graph nodes ---------------------------------------------------------

/// An elementwise op for the graph rows: its output has its first input's type.
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

void bench_match() {
  const OpPtr mul = std::make_shared<Elem>("mul"), add = std::make_shared<Elem>("add"),
              div = std::make_shared<Elem>("div"), exp = std::make_shared<Elem>("exp");
  const auto vec = TensorType::make(f64, {kUnknownDim});
  const Var a = Variable::make(vec, "a"), b = Variable::make(vec, "b");
  const Term x = lvar("x"), y = lvar("y");
  const Pattern cancel(compound(div, compound(mul, x, y), y));  // (x * y) / y
  const Var other = (*add)({a, b});
  const Var near = (*div)({(*mul)({a, b}), a});
  const Var fits = (*div)({(*mul)({a, b}), b});
  auto per_match = [&](const char* name, const Var& subject, bool expect,
                       const Pattern& pattern) {
    constexpr int kReps = 1'000'000;
    int found = 0;
    const Timing t = median_times([&] {
      found = 0;
      for (int i = 0; i < kReps; ++i) found += static_cast<bool>(match(pattern, subject));
    }, 7, 1);
    char extra[96];
    std::snprintf(extra, sizeof extra, " cpu_ns_per_match=%.1f as_expected=%d", t.cpu / kReps * 1e9,
                  found == (expect ? kReps : 0));
    report(name, kReps, t.wall, extra + cpu_key(t));
  };
  per_match("match_fail_root", other, false, cancel);
  per_match("match_fail_deep", near, false, cancel);
  per_match("match_ok", fits, true, cancel);
  // The same pattern with `mul` commutative: the product's operands are a
  // choice point (what `declare mul: commutative` costs a rule). Against
  // (a * b) / c both orders fail; against (b * a) / b the second one fits.
  Theory commutative;
  commutative.commutative("mul");
  const Pattern cancel_comm(compound(div, compound(mul, x, y), y), commutative);
  const Var c = Variable::make(vec, "c");
  per_match("match_comm_fail_deep", (*div)({(*mul)({a, b}), c}), false, cancel_comm);
  per_match("match_comm_ok", (*div)({(*mul)({b, a}), b}), true, cancel_comm);

  // Six rules tried at every node of a 1000-node random DAG of add/mul/div/exp
  // with constants 0 and 1 among the leaves: a rewriter's matching sweep.
  std::mt19937 rng(11);
  std::vector<Var> vs{a, b, Constant::scalar(0.0), Constant::scalar(1.0)};
  for (int i = 0; i < 1000; ++i) {
    auto pick = [&] { return vs[std::uniform_int_distribution<std::size_t>(0, vs.size() - 1)(rng)]; };
    const int k = static_cast<int>(rng() % 4);
    const OpPtr& op = k == 0 ? add : k == 1 ? mul : k == 2 ? div : exp;
    vs.push_back(k == 3 ? (*op)({pick()}) : (*op)({pick(), pick()}));
  }
  const Term z = lvar("z");
  const std::vector<Pattern> rules{
      Pattern(compound(mul, z, 1)), Pattern(compound(mul, 1, z)), Pattern(compound(add, z, 0)),
      Pattern(compound(add, 0, z)), Pattern(compound(div, z, 1)), cancel};
  std::size_t matches = 0;
  const Timing sweep = median_times([&] {
    matches = 0;
    for (const Var& v : vs)
      for (const Pattern& r : rules) matches += static_cast<bool>(match(r, v));
  }, 51, 3);
  report("match_sweep", 1000, sweep.wall,
         " patterns=6 matches=" + std::to_string(matches) + cpu_key(sweep));
}

}  // namespace

int main(int argc, char** argv) {
  const std::string only = argc > 1 && std::string(argv[1]) != "all" ? argv[1] : "";
  const std::string expr_path = argc > 2 ? argv[2] : "/work/shared/bench/kanren/expr200.sexp";
  auto wanted = [&](const char* name) { return only.empty() || std::string(name).find(only) != std::string::npos; };
  if (wanted("appendo"))
    for (int n : {20, 50, 100, 200}) bench_appendo(n);
  if (wanted("zebra")) bench_zebra();
  if (wanted("unify_reify"))
    for (std::size_t n : {10000, 100000}) bench_unify_reify(n);
  if (wanted("unify_reify_phases"))
    for (std::size_t n : {10000, 100000}) bench_unify_reify_phases(n);
  if (wanted("rewrite")) bench_rewrite(expr_path);
  if (wanted("match")) bench_match();
  return 0;
}

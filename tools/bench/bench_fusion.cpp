// bench_fusion: the workloads of shared/bench/runtime.md compiled with the
// standard pipeline plus fusion and in-place rewrites, each next to a
// hand-written fused C++ loop (or Eigen) doing the same work in the same run.
//
//   build/tools/bench_fusion                 # everything
//   build/tools/bench_fusion elemwise13 sum mlp3 call   # some groups
//
// Lines: `bench=NAME n=N median_s=X …`. elemwise13 is timed in alternation
// with its reference (`vec1_s`): one fused loop compiled with g++ -O3
// -march=native -ffast-math and vectorised through glibc's libmvec
// (elemwise13_ref.cpp), on one core; `ratio` is median_s / vec1_s,
// `pair_ratio` the median of the ratios within pairs, `cpu_s` the CPU seconds
// of a call on every thread, `load` the machine's load average,
// `consecutive_s` the median of 7 calls in a row (the pool's worker stays
// awake between them; `consecutive_ratio` is it over vec1_s), `hand_s` the
// same loop with the runtime's flags and tanh split over the threads. The function is
// compiled with rw::function's default mode (the standard rules, fusion,
// GEMM formation, in-place); `rules_s` is that mode without fusion, GEMM
// formation and in-place (the rules alone), `unfused_s` no rewrites at all. For the sums
// `read_s` is a STREAM-style read of the same bytes on every thread (the
// memory bandwidth bound), and `gbps` what the function reached. For mlp3
// (forward, then forward + gradient with rw::grad), `gemm_s` is the same
// matrix products alone through rw::gemm (Eigen), timed in alternation with
// the function (15 pairs): `gemm_ratio` is the ratio of the medians,
// `pair_ratio` the median of the ratios within pairs; `peak_intermediate_bytes`
// the profile's peak of intermediate buffers, `peak_total_bytes` that plus
// arguments and results, and `bound_bytes` 1.2 x (arguments + results + the
// two largest intermediates). Functions are compiled with allow_gc = false
// (profiled ones with true) and results dropped before the next call, as the
// reference loops write into preallocated memory.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <rw/rewrite.hpp>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "elemwise13_ref.hpp"
#include "ops/inplace.hpp"
#include "runtime/detail/fast_math.hpp"
#include "runtime/kernels/linalg.hpp"

namespace {

using rw::bench::median_time;
using rw::bench::report;

constexpr int kRuns = 7;
volatile double g_sink = 0;

rw::FunctionOptions fused_options(bool profile = false) {
  rw::FunctionOptions o;
  o.rewrite = [](rw::FunctionGraph& fg) { rw::default_mode().rewrite(fg); };
  // Profiled functions measure peak memory, so they free buffers as they go.
  o.allow_gc = profile;
  o.profile = profile;
  return o;
}

rw::FunctionOptions default_options() {
  rw::FunctionOptions o;
  o.rewrite = [](rw::FunctionGraph& fg) {
    rw::default_mode().excluding({"fusion", "gemm", "inplace"}).rewrite(fg);
  };
  o.allow_gc = false;
  return o;
}

rw::FunctionOptions unfused_options() {
  rw::FunctionOptions o;
  o.rewrite = [](rw::FunctionGraph&) {};
  o.allow_gc = false;
  return o;
}

rw::Tensor uniform(std::vector<std::int64_t> shape, std::uint64_t seed, double scale = 1.0) {
  rw::Rng rng(seed);
  return rng.uniform(std::move(shape), -scale, scale);
}

template <class F> void hand_parallel(std::int64_t n, F&& body) {
  const std::int64_t grain = std::max<std::int64_t>(65536, n / (4 * rw::num_threads()));
  rw::parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) { body(b, e); });
}

template <class Fn> double time_calls(Fn& f, const std::vector<rw::Tensor>& args) {
  decltype(f.call(args)) r;
  return median_time(
      [&] {
        r = {};
        r = f.call(args);
      },
      kRuns);
}

/// Medians of two workloads timed in alternation, and the median of the
/// ratio a/b within each pair: on a shared machine whose load drifts, the
/// pairs see the same load, so the ratio is steadier than either time. The
/// CPU seconds (every thread of the process) are medians too.
struct Paired {
  double a_s = 0, b_s = 0, ratio = 0, a_cpu_s = 0, b_cpu_s = 0;
};

template <class A, class B>
Paired paired_medians(A&& a, B&& b, int pairs = 15) {
  a();
  b();
  std::vector<double> ta, tb, ca, cb, ratios;
  auto timed = [](auto& f, std::vector<double>& wall, std::vector<double>& cpu) {
    const double c0 = rw::bench::process_cpu_seconds();
    wall.push_back(rw::bench::time_once(f));
    cpu.push_back(rw::bench::process_cpu_seconds() - c0);
  };
  for (int i = 0; i < pairs; ++i) {
    timed(a, ta, ca);
    timed(b, tb, cb);
    ratios.push_back(ta.back() / tb.back());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  return {median(ta), median(tb), median(ratios), median(ca), median(cb)};
}

// ---------------------------------------------------------------------------

void bench_elemwise13() {
  for (std::int64_t n : {1'000'000, 10'000'000}) {
    const rw::Tensor xs = uniform({n}, 1), ys = uniform({n}, 2);
    const rw::Var x = rw::vector("x"), y = rw::vector("y");
    const rw::Var out =
        rw::exp(-x) * y + rw::tanh(x) * (y - 1.5) / (1.0 + x * x) - rw::sqrt(rw::abs(y));
    rw::Function fused = rw::function({x, y}, out, fused_options());
    rw::Function unfused = rw::function({x, y}, out, unfused_options());
    rw::Function standard = rw::function({x, y}, out, default_options());
    const std::vector<rw::Tensor> args = {xs, ys};
    const double rules_s = time_calls(standard, args);
    const double unfused_s = time_calls(unfused, args);
    // Consecutive calls: the pool's worker stays awake between them.
    const double consecutive_s = time_calls(fused, args);
    rw::Tensor zs = rw::Tensor::empty(rw::f64, {n});
    const double* px = xs.data<double>();
    const double* py = ys.data<double>();
    double* pz = zs.data<double>();
    // The reference: one vectorised fused loop (libmvec) on this thread
    // alone, alternated with the function.
    decltype(fused.call(args)) r;
    const Paired p = paired_medians(
        [&] {
          r = {};
          r = fused.call(args);
        },
        [&] { rw::bench::elemwise13_reference(n, px, py, pz); });
    // The same loop built with the runtime's flags and tanh, on every thread.
    const double hand_s = median_time(
        [&] {
          hand_parallel(n, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t i = lo; i < hi; ++i) {
              const double a = px[i], b = py[i];
              pz[i] = std::exp(-a) * b + rw::detail::fast::tanh(a) * (b - 1.5) / (1.0 + a * a) -
                      std::sqrt(std::abs(b));
            }
          });
        },
        kRuns);
    g_sink = pz[n / 2];
    report("elemwise13", n, p.a_s,
           fmt::format(" cpu_s={:.6g} vec1_s={:.6g} vec1_cpu_s={:.6g} ratio={:.3f} "
                       "pair_ratio={:.3f} consecutive_s={:.6g} consecutive_ratio={:.3f} "
                       "hand_s={:.6g} rules_s={:.6g} unfused_s={:.6g} nodes={} threads={} "
                       "load={:.2f}",
                       p.a_cpu_s, p.b_s, p.b_cpu_s, p.a_s / p.b_s, p.ratio, consecutive_s,
                       consecutive_s / p.b_s, hand_s, rules_s, unfused_s, fused.schedule().size(),
                       rw::num_threads(), rw::bench::load_average()));
  }
}

// A STREAM-style read: every thread sums its part of the array.
double read_seconds(const rw::Tensor& t) {
  const double* p = t.data<double>();
  const std::int64_t n = t.size();
  return median_time(
      [&] {
        std::atomic<double> total{0};
        hand_parallel(n, [&](std::int64_t lo, std::int64_t hi) {
          double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
          std::int64_t i = lo;
          for (; i + 4 <= hi; i += 4) {
            a0 += p[i];
            a1 += p[i + 1];
            a2 += p[i + 2];
            a3 += p[i + 3];
          }
          for (; i < hi; ++i) a0 += p[i];
          double expected = total.load();
          while (!total.compare_exchange_weak(expected, expected + (a0 + a1 + a2 + a3))) {
          }
        });
        g_sink = total.load();
      },
      kRuns);
}

void bench_sum() {
  const std::int64_t n = 10'000'000;
  const rw::Tensor xs = uniform({n}, 3), ys = uniform({n}, 4);
  const rw::Var x = rw::vector("x"), y = rw::vector("y");
  rw::Function f = rw::function({x}, rw::sum(x), fused_options());
  const double fn_s = time_calls(f, {xs});
  const double read_s = read_seconds(xs);
  report("sum", n, fn_s,
         fmt::format(" read_s={:.6g} ratio={:.3f} gbps={:.1f}", read_s, fn_s / read_s,
                     8.0 * static_cast<double>(n) / fn_s / 1e9));

  rw::Function g = rw::function({x, y}, rw::sum(rw::exp(x) * y), fused_options());
  rw::Function g0 = rw::function({x, y}, rw::sum(rw::exp(x) * y), unfused_options());
  const double g_s = time_calls(g, {xs, ys});
  const double g0_s = time_calls(g0, {xs, ys});
  const double* px = xs.data<double>();
  const double* py = ys.data<double>();
  const double loop_s = median_time(
      [&] {
        std::atomic<double> total{0};
        hand_parallel(n, [&](std::int64_t lo, std::int64_t hi) {
          double a = 0;
          for (std::int64_t i = lo; i < hi; ++i) a += std::exp(px[i]) * py[i];
          double expected = total.load();
          while (!total.compare_exchange_weak(expected, expected + a)) {
          }
        });
        g_sink = total.load();
      },
      kRuns);
  report("sum_exp_mul", n, g_s,
         fmt::format(" ref_s={:.6g} ratio={:.3f} unfused_s={:.6g} nodes={}", loop_s, g_s / loop_s,
                     g0_s, g.schedule().size()));
}

void bench_mlp3() {
  const std::int64_t rows = 256, width = 512;
  const rw::Var X = rw::matrix("X"), Y = rw::matrix("Y");
  std::vector<rw::Var> params;
  std::vector<rw::In> ins = {X, Y};
  rw::Var h = X;
  for (int i = 0; i < 3; ++i) {
    const rw::Var W = rw::matrix(fmt::format("W{}", i)), b = rw::vector(fmt::format("b{}", i));
    params.insert(params.end(), {W, b});
    ins.insert(ins.end(), {W, b});
    h = rw::tanh(rw::dot(h, W) + b);
  }
  const rw::Var loss = rw::mean(rw::sqr(h - Y));
  std::vector<rw::Var> outputs = {loss};
  for (const rw::Var& g : rw::grad(loss, params)) outputs.push_back(g);

  std::vector<rw::Tensor> args = {uniform({rows, width}, 5), uniform({rows, width}, 6)};
  for (int i = 0; i < 3; ++i) {
    args.push_back(uniform({width, width}, 7 + i, 1.0 / std::sqrt(512.0)));
    args.push_back(uniform({width}, 17 + i, 0.1));
  }
  for (bool with_grad : {false, true}) {
    const std::vector<rw::Var> outs = with_grad ? outputs : std::vector<rw::Var>{loss};
    rw::Function f = rw::function(ins, outs, fused_options());
    rw::Function fp = rw::function(ins, outs, fused_options(/*profile=*/true));
    rw::Function f0 = rw::function(ins, outs, unfused_options());
    rw::Function fd = rw::function(ins, outs, default_options());
    const double fn0_s = time_calls(f0, args);
    const double fnd_s = time_calls(fd, args);
    std::vector<rw::Tensor> results;
    for (int r = 0; r < kRuns; ++r) results = fp.call(args);
    const rw::FunctionProfile& prof = *fp.profile();
    // RW_BENCH_PROFILE=1 prints where the time goes, node by node.
    if (std::getenv("RW_BENCH_PROFILE")) {
      std::printf("%s\n", prof.summary().c_str());
      rw::FunctionOptions o = default_options();
      o.profile = true;
      rw::Function fdp = rw::function(ins, outs, o);
      for (int r = 0; r < kRuns; ++r) fdp.call(args);
      std::printf("default mode:\n%s\n", fdp.profile()->summary().c_str());
    }

    // The products alone: 3 forward; with the gradient 3 for the weights
    // (h^T delta) and 2 for the deltas below (delta W^T).
    std::vector<rw::Tensor> act = {rw::Tensor::empty(rw::f64, {rows, width}),
                                   rw::Tensor::empty(rw::f64, {rows, width})};
    rw::Tensor dw = rw::Tensor::empty(rw::f64, {width, width});
    std::vector<rw::Tensor> r;
    const Paired paired = paired_medians(
        [&] {
          r = {};
          r = f.call(args);
        },
        [&] {
          rw::Tensor in = args[0];
          for (int i = 0; i < 3; ++i) {
            rw::gemm(act[i % 2], 1.0, in, args[2 + 2 * i], 0.0);
            in = act[i % 2];
          }
          if (!with_grad) return;
          for (int i = 2; i >= 0; --i) {
            rw::gemm(dw, 1.0, act[(i + 1) % 2].transpose(), act[i % 2], 0.0);
            if (i > 0)
              rw::gemm(act[(i + 1) % 2], 1.0, act[i % 2], args[2 + 2 * i].transpose(), 0.0);
          }
        });
    const double fn_s = paired.a_s, gemm_s = paired.b_s;
    std::size_t io_bytes = 0;
    for (const rw::Tensor& t : args) io_bytes += static_cast<std::size_t>(t.size()) * 8;
    for (const rw::Tensor& t : results) io_bytes += static_cast<std::size_t>(t.size()) * 8;
    // The largest intermediates are (rows, width) activations and deltas.
    const double two_largest = 2.0 * static_cast<double>(rows * width * 8);
    report(with_grad ? "mlp3_forward_grad" : "mlp3_forward", rows, fn_s,
           fmt::format(" gemm_s={:.6g} gemm_ratio={:.3f} pair_ratio={:.3f} rules_s={:.6g} "
                       "unfused_s={:.6g} nodes={} "
                       "peak_intermediate_bytes={} peak_total_bytes={} bound_bytes={:.0f}",
                       gemm_s, fn_s / gemm_s, paired.ratio, fnd_s, fn0_s, f.schedule().size(),
                       prof.last_peak_bytes, io_bytes + prof.last_peak_bytes,
                       1.2 * (static_cast<double>(io_bytes) + two_largest)));

    // NanGuard's price: the same fused function, every float output read
    // after each node (docs/debugging.md), against the unguarded one.
    rw::FunctionOptions guarded_options = fused_options();
    guarded_options.nan_guard = rw::NanGuard{};
    rw::Function guarded = rw::function(ins, outs, guarded_options);
    const Paired guard = paired_medians([&] { r = f.call(args); }, [&] { r = guarded.call(args); });
    report(with_grad ? "mlp3_forward_grad_nan_guard" : "mlp3_forward_nan_guard", rows, guard.b_s,
           fmt::format(" plain_s={:.6g} overhead={:.3f} cpu_s={:.6g} plain_cpu_s={:.6g}", guard.a_s,
                       1.0 / guard.ratio, guard.b_cpu_s, guard.a_cpu_s));
    // DebugMode's price: each node checked four ways and the whole compared
    // with the unrewritten graph (docs/debugging.md), against the plain function.
    rw::FunctionOptions debug_options = fused_options();
    debug_options.debug_mode = rw::DebugMode{};
    rw::Function debugged = rw::function(ins, outs, debug_options);
    const Paired debug = paired_medians([&] { r = f.call(args); }, [&] { r = debugged.call(args); });
    report(with_grad ? "mlp3_forward_grad_debug_mode" : "mlp3_forward_debug_mode", rows,
           debug.b_s,
           fmt::format(" plain_s={:.6g} overhead={:.3f} cpu_s={:.6g} plain_cpu_s={:.6g}", debug.a_s,
                       1.0 / debug.ratio, debug.b_cpu_s, debug.a_cpu_s));
  }
}

void bench_call() {
  const rw::Var a = rw::scalar("a");
  rw::Function f = rw::function({a}, a + 1.0, fused_options());
  const rw::Tensor v = rw::Tensor::scalar(2.0);
  constexpr int kCalls = 100'000;
  const double s = median_time(
      [&] {
        for (int i = 0; i < kCalls; ++i) g_sink = f(v).item<double>();
      },
      5);
  const double by_hand = median_time(
      [&] {
        for (int i = 0; i < kCalls; ++i) {
          rw::Tensor r = rw::Tensor::scalar(v.item<double>() + 1.0);
          g_sink = r.item<double>();
        }
      },
      5);
  report("call_overhead", kCalls, s / kCalls,
         fmt::format(" ref_s={:.6g} per_call_us={:.3f}", by_hand / kCalls, 1e6 * s / kCalls));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::pair<std::string, void (*)()>> groups = {{"elemwise13", bench_elemwise13},
                                                                  {"sum", bench_sum},
                                                                  {"mlp3", bench_mlp3},
                                                                  {"call", bench_call}};
  for (const auto& [name, fn] : groups) {
    bool on = argc == 1;
    for (int i = 1; i < argc; ++i) on = on || name == argv[i];
    if (on) fn();
  }
}

// bench_fusion: the workloads of shared/bench/runtime.md compiled with the
// standard pipeline plus fusion and in-place rewrites, each next to a
// hand-written fused C++ loop (or Eigen) doing the same work in the same run.
//
//   build/tools/bench_fusion                 # everything
//   build/tools/bench_fusion elemwise13 sum mlp3 call graphs   # some groups
//
// Lines: `bench=NAME n=N median_s=X ref_s=Y ratio=X/Y …`. `unfused_s` is the
// same function compiled without rewrites (one node per operation). For the
// sums `read_s` is a STREAM-style read of the same bytes on every thread (the
// memory bandwidth bound), and `gbps` what the function reached. For mlp3,
// `gemm_s` is Eigen's three products alone, `peak_bytes` the profile's peak
// of intermediate buffers and `bound_bytes` 1.2 x the two largest
// intermediates. Functions are compiled with allow_gc = false and results
// dropped before the next call, as the reference loops write into
// preallocated memory.
#include <atomic>
#include <cmath>
#include <cstring>
#include <rw/rw.hpp>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include "bench_util.hpp"
#include "engine/dsl/graph_file.hpp"
#include "ops/inplace.hpp"

namespace {

using rw::bench::median_time;
using rw::bench::report;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kRuns = 7;
volatile double g_sink = 0;

std::shared_ptr<rw::SequenceDB> fast_db() {
  static const auto db = [] {
    auto d = rw::make_standard_db();
    rw::register_fast_run_rewrites(*d);
    return d;
  }();
  return db;
}

rw::FunctionOptions fused_options(bool profile = false) {
  rw::FunctionOptions o;
  o.rewrite = [](rw::FunctionGraph& fg) { rw::Mode::fast_run(fast_db()).rewrite(fg); };
  // Profiled functions measure peak memory, so they free buffers as they go.
  o.allow_gc = profile;
  o.profile = profile;
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

// ---------------------------------------------------------------------------

void bench_elemwise13() {
  for (std::int64_t n : {1'000'000, 10'000'000}) {
    const rw::Tensor xs = uniform({n}, 1), ys = uniform({n}, 2);
    const rw::Var x = rw::vector("x"), y = rw::vector("y");
    const rw::Var out =
        rw::exp(-x) * y + rw::tanh(x) * (y - 1.5) / (1.0 + x * x) - rw::sqrt(rw::abs(y));
    rw::Function fused = rw::function({x, y}, out, fused_options());
    rw::Function unfused = rw::function({x, y}, out, unfused_options());
    const std::vector<rw::Tensor> args = {xs, ys};
    const double fused_s = time_calls(fused, args);
    const double unfused_s = time_calls(unfused, args);
    rw::Tensor zs = rw::Tensor::empty(rw::f64, {n});
    const double* px = xs.data<double>();
    const double* py = ys.data<double>();
    double* pz = zs.data<double>();
    const double loop_s = median_time(
        [&] {
          hand_parallel(n, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t i = lo; i < hi; ++i) {
              const double a = px[i], b = py[i];
              pz[i] = std::exp(-a) * b + std::tanh(a) * (b - 1.5) / (1.0 + a * a) -
                      std::sqrt(std::abs(b));
            }
          });
        },
        kRuns);
    g_sink = pz[n / 2];
    report("elemwise13", n, fused_s,
           fmt::format(" ref_s={:.6g} ratio={:.3f} unfused_s={:.6g} nodes={}", loop_s,
                       fused_s / loop_s, unfused_s, fused.schedule().size()));
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
  std::vector<rw::Var> W, b;
  rw::Var h = X;
  for (int i = 0; i < 3; ++i) {
    W.push_back(rw::matrix(fmt::format("W{}", i)));
    b.push_back(rw::vector(fmt::format("b{}", i)));
    h = rw::tanh(rw::dot(h, W[i]) + b[i]);
  }
  const rw::Var loss = rw::mean(rw::sqr(h - Y));
  std::vector<rw::In> ins = {X, Y};
  for (int i = 0; i < 3; ++i) ins.insert(ins.end(), {W[i], b[i]});
  rw::Function f = rw::function(ins, loss, fused_options());
  rw::Function fp = rw::function(ins, loss, fused_options(/*profile=*/true));
  rw::Function f0 = rw::function(ins, loss, unfused_options());
  std::vector<rw::Tensor> args = {uniform({rows, width}, 5), uniform({rows, width}, 6)};
  for (int i = 0; i < 3; ++i) {
    args.push_back(uniform({width, width}, 7 + i, 1.0 / std::sqrt(512.0)));
    args.push_back(uniform({width}, 17 + i, 0.1));
  }
  const double fn_s = time_calls(f, args);
  const double fn0_s = time_calls(f0, args);
  fp.call(args);
  const rw::FunctionProfile& prof = *fp.profile();

  // Eigen: the three products alone, then the whole forward pass by hand.
  std::vector<rw::Tensor> tmp = {rw::Tensor::empty(rw::f64, {rows, width}),
                                 rw::Tensor::empty(rw::f64, {rows, width})};
  auto map = [](rw::Tensor& t) {
    return Eigen::Map<RowMajor>(t.data<double>(), t.shape()[0], t.shape()[1]);
  };
  const double gemm_s = median_time(
      [&] {
        rw::Tensor in = args[0];
        for (int i = 0; i < 3; ++i) {
          rw::Tensor& out = tmp[i % 2];
          rw::Tensor w = args[2 + 2 * i];
          rw::gemm(out, 1.0, in, w, 0.0);
          in = out;
        }
      },
      kRuns);
  const double ref_s = median_time(
      [&] {
        rw::Tensor in = args[0];
        for (int i = 0; i < 3; ++i) {
          rw::Tensor& out = tmp[i % 2];
          rw::gemm(out, 1.0, in, args[2 + 2 * i], 0.0);
          const double* pb = args[3 + 2 * i].data<double>();
          double* po = out.data<double>();
          hand_parallel(rows * width, [&](std::int64_t lo, std::int64_t hi) {
            for (std::int64_t k = lo; k < hi; ++k) po[k] = std::tanh(po[k] + pb[k % width]);
          });
          in = out;
        }
        auto m = map(in);
        const double* py = args[1].data<double>();
        double s = 0;
        for (std::int64_t k = 0; k < rows * width; ++k) {
          const double d = m.data()[k] - py[k];
          s += d * d;
        }
        g_sink = s / static_cast<double>(rows * width);
      },
      kRuns);
  const double inter = static_cast<double>(rows * width * 8);
  report("mlp3_forward", rows, fn_s,
         fmt::format(" ref_s={:.6g} ratio={:.3f} gemm_s={:.6g} gemm_ratio={:.3f} unfused_s={:.6g} "
                     "nodes={} peak_bytes={} bound_bytes={:.0f} grad=no",
                     ref_s, fn_s / ref_s, gemm_s, fn_s / gemm_s, fn0_s, f.schedule().size(),
                     prof.last_peak_bytes, 1.2 * 2 * inter));
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

void bench_graphs() {
  for (const char* name : {"chain-100", "chain-1000", "dag-100", "dag-1000", "mlp-2", "mlp-8",
                           "mlp-32"}) {
    const std::string path = std::string(RW_SHARED_GRAPHS) + "/" + name + ".graph";
    rw::dsl::GraphFile file;
    try {
      file = rw::dsl::load_graph(path, rw::standard_registry());
    } catch (const std::exception& e) {
      std::printf("bench=graph_%s skipped: %s\n", name, e.what());
      continue;
    }
    std::size_t before = 0, after = 0;
    const double s = median_time(
        [&] {
          rw::FunctionGraph fg = file.function_graph();
          before = fg.num_nodes();
          rw::Mode::fast_run(fast_db()).rewrite(fg);
          after = fg.num_nodes();
        },
        3);
    report(fmt::format("graph_{}", name), static_cast<long long>(before), s,
           fmt::format(" nodes_after={}", after));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::pair<std::string, void (*)()>> groups = {
      {"elemwise13", bench_elemwise13}, {"sum", bench_sum},     {"mlp3", bench_mlp3},
      {"call", bench_call},             {"graphs", bench_graphs}};
  for (const auto& [name, fn] : groups) {
    bool on = argc == 1;
    for (int i = 1; i < argc; ++i) on = on || name == argv[i];
    if (on) fn();
  }
}

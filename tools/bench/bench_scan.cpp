// Benchmarks of Scan on the workloads of shared/bench/scan.md: an RNN forward
// and with its BPTT gradients at two sizes and two lengths, a scalar
// cumulative sum (the per-step overhead), and a while-loop. Each line gives
// the median wall and process CPU time of a call, the compile time of the
// function (the first call included: the body compiles then), and PyTensor
// 2.34's CPU time for the same call on this machine kind.
#include <rw/rw.hpp>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"

namespace {

using rw::Tensor;
using rw::Var;

using Timing = rw::bench::WallAndCpu;

/// Medians of wall and process CPU time over `runs` calls after a warm-up.
template <class F> Timing measure(F&& f, int runs) {
  return rw::bench::median_wall_and_cpu(f, runs, rw::bench::process_cpu_seconds);
}

void report(const std::string& name, long long n, const std::string& size, const Timing& t,
            double compile_s, double pytensor_s, std::int64_t steps) {
  rw::bench::report(name, n, t.wall,
                    fmt::format(" size={} cpu_s={:.6g} us_per_step={:.4g} compile_s={:.4g} "
                                "pytensor_s={:.6g} speedup_cpu={:.1f} load={:.1f}",
                                size, t.cpu, 1e6 * t.cpu / static_cast<double>(steps), compile_s,
                                pytensor_s, pytensor_s / t.cpu, rw::bench::load_average()));
}

struct Rnn {
  Var x, h0, W, U, b, h;  // h: every step's state
};

Rnn rnn_graph() {
  Rnn r;
  r.x = rw::tensor("x", rw::DType::Float64, {rw::kUnknownDim, rw::kUnknownDim, rw::kUnknownDim});
  r.h0 = rw::matrix("h0");
  r.W = rw::matrix("W");
  r.U = rw::matrix("U");
  r.b = rw::vector("b");
  r.h = rw::scan(
            [](std::span<const Var> a) {
              return rw::tanh(rw::matmul(a[1], a[2]) + rw::matmul(a[0], a[3]) + a[4]);
            },
            {r.x}, {r.h0}, {r.W, r.U, r.b}, {.name = "rnn"})
            .output();
  return r;
}

void bench_rnn(bool bptt, std::int64_t batch, std::int64_t n_in, std::int64_t hidden,
               std::int64_t T, double pytensor_s) {
  const Rnn g = rnn_graph();
  const Var last = rw::subtensor(g.h, {-1});
  std::vector<Var> outs;
  if (bptt) {
    const Var loss = rw::sum(rw::sqr(last));
    outs = {loss};
    for (const Var& v : rw::grad(loss, {g.W, g.U, g.b})) outs.push_back(v);
  } else {
    outs = {rw::sum(last)};
  }
  rw::Rng rng(1);
  const Tensor x = rng.normal({T, batch, n_in}, 0, 0.5), h0 = Tensor::zeros({batch, hidden});
  const Tensor W = rng.normal({hidden, hidden}, 0, 1.0 / std::sqrt(double(hidden)));
  const Tensor U = rng.normal({n_in, hidden}, 0, 1.0 / std::sqrt(double(n_in)));
  const Tensor b = rng.normal({hidden}, 0, 0.1);
  rw::Function<> f;
  const double compile_s = rw::bench::time_once([&] {
    f = rw::function({g.x, g.h0, g.W, g.U, g.b}, outs);
    (void)f(x, h0, W, U, b);
  });
  const int runs = batch * hidden * T > 10'000'000 ? 3 : 7;
  const Timing t = measure([&] { (void)f(x, h0, W, U, b); }, runs);
  report(bptt ? "rnn_bptt" : "rnn_fwd", T, fmt::format("b{}_h{}", batch, hidden), t, compile_s,
         pytensor_s, T);
}

void bench_scalar_loop(std::int64_t n, double pytensor_s) {
  Var x = rw::vector("x"), s0 = rw::scalar("s0");
  const Var s =
      rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {x}, {s0}, {}, {.name = "cumsum"})
          .output();
  const Tensor xs = rw::Rng(2).normal({n});
  rw::Function<Tensor> f;
  const double compile_s = rw::bench::time_once([&] {
    f = rw::function({x, s0}, s);
    (void)f(xs, Tensor::scalar(0.0));
  });
  const Timing t = measure([&] { (void)f(xs, Tensor::scalar(0.0)); }, 7);
  report("scalar_loop", n, "scalar", t, compile_s, pytensor_s, n);
}

void bench_while_loop() {
  Var x0 = rw::scalar("x0");
  const Var xs = rw::scan(
                     [](std::span<const Var> a) {
                       Var next = a[0] / 2.0;
                       return rw::ScanStep({next}, {}, rw::lt(next, 1e-3));
                     },
                     {}, {x0}, {}, {.name = "halve"})
                     .output();
  rw::Function<Tensor> f;
  const double compile_s = rw::bench::time_once([&] {
    f = rw::function({x0}, xs);
    (void)f(Tensor::scalar(1e6));
  });
  const std::int64_t steps = f(Tensor::scalar(1e6)).dim(0);
  // One call is a few microseconds: time batches of calls.
  constexpr int kBatch = 1000;
  Timing t = measure(
      [&] {
        for (int i = 0; i < kBatch; ++i) (void)f(Tensor::scalar(1e6));
      },
      7);
  t.wall /= kBatch;
  t.cpu /= kBatch;
  report("while_loop", steps, "scalar", t, compile_s, 0.000065, steps);
}

}  // namespace

int main(int argc, char** argv) {
  // bench_scan [WORKLOAD [SIZE]]: e.g. `bench_scan rnn_bptt b1`.
  const std::string only = argc > 1 ? argv[1] : "";
  const std::string size = argc > 2 ? argv[2] : "";
  auto want = [&](const char* name) { return only.empty() || only == name; };
  for (const bool bptt : {false, true}) {
    if (!want(bptt ? "rnn_bptt" : "rnn_fwd")) continue;
    if (size.empty() || size == "b1") {
      bench_rnn(bptt, 1, 16, 64, 100, bptt ? 0.0015 : 0.00048);
      bench_rnn(bptt, 1, 16, 64, 1000, bptt ? 0.0136 : 0.0041);
    }
    if (size.empty() || size == "b32") {
      bench_rnn(bptt, 32, 64, 256, 100, bptt ? 0.298 : 0.107);
      bench_rnn(bptt, 32, 64, 256, 1000, bptt ? 3.15 : 1.17);
    }
  }
  if (want("scalar_loop")) {
    bench_scalar_loop(10'000, 0.0076);
    bench_scalar_loop(100'000, 0.073);
  }
  if (want("while_loop")) bench_while_loop();
  return 0;
}

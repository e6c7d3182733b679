// bench_runtime: standard Ops run through rw::function, each next to a
// hand-written C++ loop or a direct Eigen call doing the same work in the
// same run.
//
//   build/tools/bench_runtime              # everything
//   build/tools/bench_runtime elemwise     # one group: elemwise, reduce, gemm, mlp, call
//
// Each line: `bench=NAME n=N median_s=X ref_s=Y ratio=X/Y`. `median_s` is one
// call of the compiled function; `ref_s` the reference: for elementwise Ops
// and sums a loop split over the runtime's threads as its kernels are
// (`loop1_s`: the same loop on one thread), for GEMM and the MLP Eigen's own
// product on the same memory. `call` reports seconds per call of a function
// of 0-d tensors, against creating the 0-d result tensor by hand, with the
// calling thread's CPU time per call beside the wall time (`cpu_per_call_us`).
//
// Functions are compiled with allow_gc = false and results dropped before the
// next call, so that a call writes into the buffer of the previous one, as
// the reference loops write into a preallocated output. To add a figure, add
// a function below and a line to `kGroups`.
#include <atomic>
#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <rw/rw.hpp>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include "bench_util.hpp"

namespace {

using rw::bench::median_time;
using rw::bench::report;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kRuns = 7;

// Keeps reference results alive so that the compiler cannot drop their loops.
volatile double g_sink = 0;

rw::Tensor uniform(std::vector<std::int64_t> shape, std::uint64_t seed, double scale = 1.0) {
  // A simple LCG keeps the benchmark independent of the library's Rng.
  rw::Tensor t = rw::Tensor::empty(rw::f64, shape);
  double* p = t.data<double>();
  std::uint64_t s = seed;
  for (std::int64_t i = 0; i < t.size(); ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = (static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0) * scale;
  }
  return t;
}

Eigen::Map<RowMajor> as_eigen(rw::Tensor& t) {
  return {t.data<double>(), t.shape()[0], t.shape()[1]};
}

// Splits [0, n) over the runtime's threads like the kernels do.
template <class F> void hand_parallel(std::int64_t n, F&& body) {
  const std::int64_t grain = std::max<std::int64_t>(65536, n / (4 * rw::num_threads()));
  rw::parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) { body(b, e); });
}

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// Median wall time and median CPU time of this thread over kRuns runs of f:
// on a shared machine the second does not count time spent waiting for a core.
template <class F> std::pair<double, double> wall_and_cpu(F&& f) {
  f();
  std::vector<double> wall, cpu;
  for (int r = 0; r < kRuns; ++r) {
    const double c0 = thread_cpu_seconds();
    wall.push_back(rw::bench::time_once(f));
    cpu.push_back(thread_cpu_seconds() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {wall[wall.size() / 2], cpu[cpu.size() / 2]};
}

rw::FunctionOptions reuse_buffers() {
  rw::FunctionOptions o;
  o.allow_gc = false;
  return o;
}

void line(const std::string& name, std::int64_t n, double median_s, double ref_s,
          const std::string& extra = {}) {
  report(name, n, median_s, fmt::format(" ref_s={:.6g} ratio={:.3f}{}", ref_s, median_s / ref_s, extra));
}

// One elementwise Op over n float64 elements.
void bench_elemwise_op(const char* name, std::int64_t n) {
  const rw::Tensor x = uniform({n}, 1), y = uniform({n}, 2);
  auto a = rw::vector("a"), b = rw::vector("b");
  const std::string op = name;
  const rw::Var out = op == "add" ? a + b : op == "mul" ? a * b : rw::exp(a);
  const std::vector<rw::In> ins = op == "exp" ? std::vector<rw::In>{a} : std::vector<rw::In>{a, b};
  rw::Function f = rw::function(ins, out, reuse_buffers());
  const std::vector<rw::Tensor> args =
      op == "exp" ? std::vector<rw::Tensor>{x} : std::vector<rw::Tensor>{x, y};
  rw::Tensor r;
  const double fn_s = median_time(
      [&] {
        r = rw::Tensor();
        r = f.call(args);
      },
      kRuns);
  rw::Tensor z = rw::Tensor::empty(rw::f64, {n});
  const double* px = x.data<double>();
  const double* py = y.data<double>();
  double* pz = z.data<double>();
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    if (op == "add")
      for (std::int64_t i = lo; i < hi; ++i) pz[i] = px[i] + py[i];
    else if (op == "mul")
      for (std::int64_t i = lo; i < hi; ++i) pz[i] = px[i] * py[i];
    else
      for (std::int64_t i = lo; i < hi; ++i) pz[i] = std::exp(px[i]);
  };
  const double loop_s = median_time([&] { hand_parallel(n, body); }, kRuns);
  const double loop1_s = median_time([&] { body(0, n); }, kRuns);
  line(fmt::format("fn_{}_f64", op), n, fn_s, loop_s, fmt::format(" loop1_s={:.6g}", loop1_s));
}

void bench_elemwise() {
  for (std::int64_t n : {1'000'000, 10'000'000})
    for (const char* op : {"add", "mul", "exp"}) bench_elemwise_op(op, n);
}

void bench_reduce() {
  const std::int64_t n = 10'000'000;
  const rw::Tensor x = uniform({n}, 3);
  auto a = rw::vector("a");
  rw::Function f = rw::function({a}, rw::sum(a), reuse_buffers());
  const double fn_s = median_time([&] { (void)f(x); }, kRuns);
  const double* p = x.data<double>();
  // Per-chunk partial sums combined at the end, as a parallel reduction does.
  auto chunk_sum = [&](std::int64_t lo, std::int64_t hi) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    const std::int64_t end4 = lo + (hi - lo) / 4 * 4;
    std::int64_t i = lo;
    for (; i < end4; i += 4) {
      s0 += p[i];
      s1 += p[i + 1];
      s2 += p[i + 2];
      s3 += p[i + 3];
    }
    for (; i < hi; ++i) s0 += p[i];
    return (s0 + s1) + (s2 + s3);
  };
  const double loop_s = median_time(
      [&] {
        std::vector<double> parts(static_cast<std::size_t>(rw::num_threads()) * 8, 0.0);
        std::atomic<std::size_t> k{0};
        hand_parallel(n, [&](std::int64_t lo, std::int64_t hi) {
          parts[k++ % parts.size()] += chunk_sum(lo, hi);
        });
        double s = 0;
        for (double v : parts) s += v;
        g_sink = s;
      },
      kRuns);
  const double loop1_s = median_time([&] { g_sink = chunk_sum(0, n); }, kRuns);
  line("fn_sum_f64", n, fn_s, loop_s, fmt::format(" loop1_s={:.6g}", loop1_s));
}

void bench_gemm() {
  const std::int64_t n = 512;
  rw::Tensor a = uniform({n, n}, 4), b = uniform({n, n}, 5);
  auto x = rw::matrix("x"), y = rw::matrix("y");
  rw::Function f = rw::function({x, y}, rw::dot(x, y), reuse_buffers());
  rw::Tensor r;
  const double fn_s = median_time(
      [&] {
        r = rw::Tensor();
        r = f(a, b);
      },
      kRuns);
  rw::Tensor c = rw::Tensor::empty(rw::f64, {n, n});
  auto ea = as_eigen(a), eb = as_eigen(b), ec = as_eigen(c);
  const double eigen_s = median_time([&] { ec.noalias() = ea * eb; }, kRuns);
  line("fn_gemm_512_f64", n * n * n, fn_s, eigen_s);
}

// tanh(h @ W + b), three layers, batch 256, width 512.
void bench_mlp() {
  const std::int64_t batch = 256, width = 512;
  constexpr int kLayers = 3;
  rw::Tensor x = uniform({batch, width}, 6);
  std::vector<rw::Tensor> ws, bs;
  for (int l = 0; l < kLayers; ++l) {
    ws.push_back(uniform({width, width}, 10 + l, 1.0 / std::sqrt(double(width))));
    bs.push_back(uniform({width}, 20 + l, 0.1));
  }
  auto in = rw::matrix("x");
  std::vector<rw::In> ins{in};
  rw::Var h = in;
  for (int l = 0; l < kLayers; ++l) {
    auto w = rw::matrix(fmt::format("w{}", l)), b = rw::vector(fmt::format("b{}", l));
    ins.push_back(w);
    ins.push_back(b);
    h = rw::tanh(rw::dot(h, w) + b);
  }
  rw::Function f = rw::function(ins, h, reuse_buffers());
  std::vector<rw::Tensor> args{x};
  for (int l = 0; l < kLayers; ++l) {
    args.push_back(ws[static_cast<std::size_t>(l)]);
    args.push_back(bs[static_cast<std::size_t>(l)]);
  }
  rw::Tensor r;
  const double fn_s = median_time(
      [&] {
        r = rw::Tensor();
        r = f.call(args);
      },
      kRuns);
  RowMajor h0(batch, width), h1(batch, width);
  auto ex = as_eigen(x);
  const double eigen_s = median_time(
      [&] {
        const RowMajor* cur = nullptr;
        for (int l = 0; l < kLayers; ++l) {
          RowMajor& out = l % 2 == 0 ? h0 : h1;
          auto w = as_eigen(ws[static_cast<std::size_t>(l)]);
          Eigen::Map<const Eigen::RowVectorXd> bias(bs[static_cast<std::size_t>(l)].data<double>(),
                                                    width);
          if (cur) out.noalias() = *cur * w;
          else out.noalias() = ex * w;
          out.rowwise() += bias;
          out = out.array().tanh();
          cur = &out;
        }
      },
      kRuns);
  line("fn_mlp_256x512x3_tanh", batch * width * width * kLayers, fn_s, eigen_s);
}

// Seconds per call of f(a) = a + 1 on 0-d tensors.
void bench_call() {
  const int calls = 100'000;
  auto a = rw::scalar("a");
  rw::Function f = rw::function({a}, a + 1, reuse_buffers());
  const rw::Tensor arg = rw::Tensor::scalar(2.0);
  rw::Tensor r;
  const auto [fn_s, fn_cpu] = wall_and_cpu([&] {
    for (int i = 0; i < calls; ++i) {
      r = rw::Tensor();
      r = f(arg);
    }
  });
  double v = 2.0;
  const auto [ref_s, ref_cpu] = wall_and_cpu([&] {
    for (int i = 0; i < calls; ++i) {
      r = rw::Tensor();
      r = rw::Tensor::scalar(v + 1.0);
    }
  });
  line("fn_call_scalar_add", calls, fn_s / calls, ref_s / calls,
       fmt::format(" per_call_us={:.3f} cpu_per_call_us={:.3f} ref_cpu_per_call_us={:.3f}",
                   fn_s / calls * 1e6, fn_cpu / calls * 1e6, ref_cpu / calls * 1e6));
}

struct Group {
  const char* name;
  void (*run)();
};
constexpr Group kGroups[] = {{"elemwise", bench_elemwise},
                             {"reduce", bench_reduce},
                             {"gemm", bench_gemm},
                             {"mlp", bench_mlp},
                             {"call", bench_call}};

}  // namespace

int main(int argc, char** argv) {
  for (const Group& g : kGroups)
    if (argc < 2 || std::strcmp(argv[1], g.name) == 0) g.run();
  return 0;
}

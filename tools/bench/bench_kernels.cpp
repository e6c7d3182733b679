// bench_kernels: runtime kernels against hand-written C++ loops (and GEMM
// against a direct Eigen call) doing the same work, in the same run.
//
//   build/tools/bench_kernels              # everything
//   build/tools/bench_kernels elemwise     # one group: elemwise, reduce, gemm, calls
//
// Each line: `bench=NAME n=N median_s=X loop_s=Y ratio=X/Y …`. `median_s` is
// the kernel writing into a preallocated output; `alloc_s` the same call
// allocating its result. `loop_s` is the hand-written loop split over the same
// threads (rw::parallel_for, same chunks); `loop1_s` the loop on one thread.
// GEMM: `eigen_s` is Eigen's own product on the same memory, `t1_s` rw::gemm
// restricted to one thread.
#include <cmath>
#include <cstring>
#include <rw/rewrite.hpp>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <fmt/format.h>

#include "bench_util.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/linalg.hpp"

namespace {

using rw::bench::median_time;
using rw::bench::report;

constexpr int kRuns = 7;

rw::Tensor uniform(std::int64_t n, std::uint64_t seed) {
  // A simple LCG keeps the benchmark independent of the library's Rng.
  rw::Tensor t = rw::Tensor::empty(rw::f64, {n});
  double* p = t.data<double>();
  std::uint64_t s = seed;
  for (std::int64_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    p[i] = static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  return t;
}

// Splits [0, n) over the runtime's threads like the kernels do.
template <class F> void hand_parallel(std::int64_t n, F&& body) {
  const std::int64_t grain = std::max<std::int64_t>(65536, n / (4 * rw::num_threads()));
  rw::parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) { body(b, e); });
}

void line(const std::string& name, std::int64_t n, double kernel_s, double loop_s, double loop1_s,
          const std::string& extra = {}) {
  report(name, n, kernel_s,
         fmt::format(" loop_s={:.6g} loop1_s={:.6g} ratio={:.3f}{}", loop_s, loop1_s,
                     kernel_s / loop_s, extra));
}

void bench_single(const char* name, rw::ScalarOp op, std::int64_t n) {
  const rw::Tensor x = uniform(n, 1), y = uniform(n, 2);
  const int arity = rw::scalar_op_arity(op);
  std::vector<rw::Tensor> in = {x};
  if (arity == 2) in.push_back(y);
  rw::Tensor out = rw::Tensor::empty(rw::f64, {n});
  const double kernel_s = median_time([&] { rw::elemwise_into(op, in, out); }, kRuns);
  const double alloc_s = median_time([&] { (void)rw::elemwise(op, in); }, kRuns);
  const double* a = x.data<double>();
  const double* b = y.data<double>();
  double* o = out.data<double>();
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    switch (op) {
      case rw::ScalarOp::Add:
        for (std::int64_t i = lo; i < hi; ++i) o[i] = a[i] + b[i];
        break;
      case rw::ScalarOp::Mul:
        for (std::int64_t i = lo; i < hi; ++i) o[i] = a[i] * b[i];
        break;
      default:
        for (std::int64_t i = lo; i < hi; ++i) o[i] = std::exp(a[i]);
        break;
    }
  };
  const double loop_s = median_time([&] { hand_parallel(n, body); }, kRuns);
  const double loop1_s = median_time([&] { body(0, n); }, kRuns);
  line(name, n, kernel_s, loop_s, loop1_s, fmt::format(" alloc_s={:.6g}", alloc_s));
}

// exp(-x) * y + tanh(x) * (y - 1.5) / (1.0 + x * x) - sqrt(abs(y))
rw::ScalarProgram elemwise13() {
  using rw::ScalarOp;
  rw::ScalarProgram p;
  const rw::Reg x = p.input(rw::f64), y = p.input(rw::f64);
  auto ap = [&](ScalarOp op, std::initializer_list<rw::Reg> args) { return p.apply(op, args); };
  const rw::Reg t1 = ap(ScalarOp::Mul, {ap(ScalarOp::Exp, {ap(ScalarOp::Neg, {x})}), y});
  const rw::Reg t2 = ap(
      ScalarOp::Mul, {ap(ScalarOp::Tanh, {x}), ap(ScalarOp::Sub, {y, p.constant(1.5, rw::f64)})});
  const rw::Reg t3 = ap(ScalarOp::Add, {p.constant(1.0, rw::f64), ap(ScalarOp::Mul, {x, x})});
  const rw::Reg t4 = ap(ScalarOp::Add, {t1, ap(ScalarOp::TrueDiv, {t2, t3})});
  p.output(ap(ScalarOp::Sub, {t4, ap(ScalarOp::Sqrt, {ap(ScalarOp::Abs, {y})})}));
  return p;
}

void bench_fused(std::int64_t n) {
  const rw::Tensor x = uniform(n, 3), y = uniform(n, 4);
  const rw::ScalarProgram p = elemwise13();
  const std::vector<rw::Tensor> in = {x, y};
  std::vector<rw::Tensor> out = {rw::Tensor::empty(rw::f64, {n})};
  const double kernel_s = median_time([&] { rw::run_elemwise(p, in, out); }, kRuns);
  const double alloc_s = median_time([&] { (void)rw::run_elemwise(p, in); }, kRuns);
  const double* a = x.data<double>();
  const double* b = y.data<double>();
  double* o = out[0].data<double>();
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    for (std::int64_t i = lo; i < hi; ++i) {
      const double xv = a[i], yv = b[i];
      o[i] = std::exp(-xv) * yv + std::tanh(xv) * (yv - 1.5) / (1.0 + xv * xv) -
             std::sqrt(std::fabs(yv));
    }
  };
  const double loop_s = median_time([&] { hand_parallel(n, body); }, kRuns);
  const double loop1_s = median_time([&] { body(0, n); }, kRuns);
  line("elemwise13", n, kernel_s, loop_s, loop1_s,
       fmt::format(" alloc_s={:.6g} ns_per_elem={:.2f}", alloc_s, kernel_s / n * 1e9));
}

void bench_sum(std::int64_t n) {
  const rw::Tensor x = uniform(n, 5);
  const double kernel_s = median_time([&] { (void)rw::sum(x); }, kRuns);
  const double* a = x.data<double>();
  std::vector<double> parts(static_cast<std::size_t>(n / 65536 + 1));
  // Four running sums per chunk: a hand-written loop that is not bound by
  // the latency of one dependent add chain.
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::int64_t i = lo;
    for (; i + 4 <= hi; i += 4) {
      s0 += a[i];
      s1 += a[i + 1];
      s2 += a[i + 2];
      s3 += a[i + 3];
    }
    for (; i < hi; ++i) s0 += a[i];
    parts[static_cast<std::size_t>(lo / 65536)] = (s0 + s1) + (s2 + s3);
  };
  double total = 0;
  const double loop_s = median_time(
      [&] {
        rw::parallel_for(n, 65536, body);
        total = 0;
        for (double p : parts) total += p;
      },
      kRuns);
  const double loop1_s = median_time(
      [&] {
        rw::parallel_for(1, 1, [&](std::int64_t, std::int64_t) {
          for (std::int64_t b = 0; b < n; b += 65536) body(b, std::min(n, b + 65536));
        });
      },
      kRuns);
  line("sum", n, kernel_s, loop_s, loop1_s,
       fmt::format(" gbps={:.2f}", static_cast<double>(n) * 8 / kernel_s / 1e9));
}

// sum(exp(x) * y) in one pass against materialising exp(x) * y and summing.
void bench_fused_sum(std::int64_t n) {
  const rw::Tensor x = uniform(n, 6), y = uniform(n, 7);
  rw::ScalarProgram p;
  const rw::Reg xr = p.input(rw::f64), yr = p.input(rw::f64);
  p.output(p.apply(rw::ScalarOp::Mul, {p.apply(rw::ScalarOp::Exp, {xr}), yr}));
  const std::vector<rw::Tensor> in = {x, y};
  const double kernel_s =
      median_time([&] { (void)rw::reduce_program(rw::ReduceOp::Sum, p, in); }, kRuns);
  const double two_pass_s = median_time([&] { (void)rw::sum(rw::run_elemwise(p, in)[0]); }, kRuns);
  const double* a = x.data<double>();
  const double* b = y.data<double>();
  std::vector<double> parts(static_cast<std::size_t>(n / 65536 + 1));
  auto body = [&](std::int64_t lo, std::int64_t hi) {
    double s = 0;
    for (std::int64_t i = lo; i < hi; ++i) s += std::exp(a[i]) * b[i];
    parts[static_cast<std::size_t>(lo / 65536)] = s;
  };
  const double loop_s = median_time([&] { rw::parallel_for(n, 65536, body); }, kRuns);
  const double loop1_s = median_time(
      [&] {
        for (std::int64_t lo = 0; lo < n; lo += 65536) body(lo, std::min(n, lo + 65536));
      },
      kRuns);
  line("sum_exp_mul", n, kernel_s, loop_s, loop1_s, fmt::format(" two_pass_s={:.6g}", two_pass_s));
}

// n×n GEMM: rw::gemm into a preallocated c, against Eigen's product on the
// same memory (single-threaded: this Eigen is built without OpenMP).
void bench_gemm(std::int64_t n) {
  const rw::Tensor a = uniform(n * n, 8).reshape(std::vector<std::int64_t>{n, n});
  const rw::Tensor b = uniform(n * n, 9).reshape(std::vector<std::int64_t>{n, n});
  rw::Tensor c = rw::Tensor::zeros({n, n});
  const double kernel_s = median_time([&] { rw::gemm(c, 1.0, a, b, 0.0); }, kRuns);
  const double alloc_s = median_time([&] { (void)rw::matmul(a, b); }, kRuns);
  const int threads = rw::num_threads();
  rw::set_num_threads(1);
  const double t1_s = median_time([&] { rw::gemm(c, 1.0, a, b, 0.0); }, kRuns);
  rw::set_num_threads(threads);
  using M = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const M> A(a.data<double>(), n, n), B(b.data<double>(), n, n);
  Eigen::Map<M> C(c.data<double>(), n, n);
  const double eigen_s = median_time([&] { C.noalias() = A * B; }, kRuns);
  const double gflop = 2.0 * static_cast<double>(n * n * n) / 1e9;
  report("gemm", n, kernel_s,
         fmt::format(
             " eigen_s={:.6g} ratio={:.3f} t1_s={:.6g} ratio1={:.3f} alloc_s={:.6g} gflops={:.1f}",
             eigen_s, kernel_s / eigen_s, t1_s, t1_s / eigen_s, alloc_s, gflop / kernel_s));
}

// Per-call overhead on 0-d tensors, the cost a compiled function pays per Op:
// a prebuilt program into a preallocated output, elemwise() allocating its
// result, and a sum.
void bench_calls(std::int64_t calls) {
  const rw::Tensor a = rw::Tensor::scalar(1.5), b = rw::Tensor::scalar(2.0);
  rw::ScalarProgram p;
  p.output(p.apply(rw::ScalarOp::Add, {p.input(rw::f64), p.constant(1.0, rw::f64)}));
  const std::vector<rw::Tensor> in = {a};
  std::vector<rw::Tensor> out = {rw::Tensor::scalar(0.0)};
  const double program_s = median_time(
      [&] {
        for (std::int64_t i = 0; i < calls; ++i) rw::run_elemwise(p, in, out);
      },
      kRuns);
  const double elemwise_s = median_time(
      [&] {
        for (std::int64_t i = 0; i < calls; ++i) (void)rw::elemwise(rw::ScalarOp::Add, a, b);
      },
      kRuns);
  const double sum_s = median_time(
      [&] {
        for (std::int64_t i = 0; i < calls; ++i) (void)rw::sum(a);
      },
      kRuns);
  const auto us = [&](double s) { return s / static_cast<double>(calls) * 1e6; };
  report("call_program_0d", calls, program_s, fmt::format(" per_call_us={:.3f}", us(program_s)));
  report("call_elemwise_0d", calls, elemwise_s, fmt::format(" per_call_us={:.3f}", us(elemwise_s)));
  report("call_sum_0d", calls, sum_s, fmt::format(" per_call_us={:.3f}", us(sum_s)));
}

bool wants(int argc, char** argv, const char* group) {
  if (argc < 2) return true;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], group) == 0) return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  std::printf("# threads=%d\n", rw::num_threads());
  if (wants(argc, argv, "elemwise")) {
    for (std::int64_t n : {1000000LL, 10000000LL}) {
      bench_single("add", rw::ScalarOp::Add, n);
      bench_single("mul", rw::ScalarOp::Mul, n);
      bench_single("exp", rw::ScalarOp::Exp, n);
    }
    for (std::int64_t n : {1000000LL, 10000000LL}) bench_fused(n);
  }
  if (wants(argc, argv, "reduce")) {
    bench_sum(10000000);
    bench_fused_sum(10000000);
  }
  if (wants(argc, argv, "gemm")) bench_gemm(512);
  if (wants(argc, argv, "calls")) bench_calls(100000);
  return 0;
}

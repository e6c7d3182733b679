// bench_function: the cost of calling a compiled function, and of running a
// chain of elementwise toy ops through the VM against hand-written loops.
//
//   build/tools/bench_function
//
// call_overhead: f(a) = a + 1 with the toy add on a 0-d float64, default
// options; toy_add_perform: the toy add's perform alone, for subtracting;
// call_overhead_identity: f(a) = a (one deep copy); *_keep: buffers kept
// between calls; *_held: the caller keeps every result, so each call needs a
// new output buffer. chain_*: 8 elementwise ops on 10^6 float64, through the
// VM, as the same toy performs called by hand, and as hand-written loops.
// per_call_us is wall time; cpu_per_call_us the calling thread's CPU time.
#include <algorithm>
#include <cmath>
#include <rw/rewrite.hpp>
#include <time.h>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "support/toy_ops.hpp"

namespace {

using rw::Tensor;
using rw::bench::median_time;
using rw::bench::report;

constexpr int kRuns = 7;

volatile double g_sink = 0;  // keeps results observable

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Wall-clock median (the report's median_s) and the median of this thread's
// CPU time: on a shared machine the second is the one that does not count
// time spent waiting for a core.
template <class F> void bench_calls(const std::string& name, long long n, F&& call) {
  auto loop = [&] {
    for (long long i = 0; i < n; ++i) call();
  };
  loop();
  std::vector<double> wall, cpu;
  for (int r = 0; r < kRuns; ++r) {
    const double c0 = thread_cpu_seconds();
    wall.push_back(rw::bench::time_once(loop));
    cpu.push_back(thread_cpu_seconds() - c0);
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  const double w = wall[wall.size() / 2], c = cpu[cpu.size() / 2];
  const double per = 1e6 / static_cast<double>(n);
  report(name, n, w, fmt::format(" per_call_us={:.4f} cpu_per_call_us={:.4f}", w * per, c * per));
}

void call_overhead() {
  const long long n = 100000;
  const rw::Var a = rw::Variable::make(rw::TensorType::make(rw::f64, {}), "a");
  const rw::Var plus_one = rw::test::add(a, rw::test::fconst(1.0));
  const Tensor x = Tensor::scalar(1.5);

  auto f = rw::compile_function({a}, plus_one);
  bench_calls("call_overhead", n, [&] { g_sink = g_sink + f(x).item<double>(); });

  auto keep = rw::compile_function({a}, plus_one, {.allow_gc = false});
  bench_calls("call_overhead_keep", n, [&] { g_sink = g_sink + keep(x).item<double>(); });

  std::vector<Tensor> held;
  held.reserve(static_cast<std::size_t>(n) * (kRuns + 1));
  bench_calls("call_overhead_held", n, [&] { held.push_back(f(x)); });
  held.clear();

  // The toy op's own cost: perform on a reused output, as the VM calls it.
  const rw::Apply& node = *plus_one->owner();
  const Tensor inputs[] = {x, Tensor::scalar(1.0)};
  Tensor out[1];
  bench_calls("toy_add_perform", n, [&] {
    node.op().perform(node, inputs, out);
    g_sink = g_sink + out[0].item<double>();
  });

  auto identity = rw::compile_function({a}, a);
  bench_calls("call_overhead_identity", n, [&] { g_sink = g_sink + identity(x).item<double>(); });
  auto identity_keep = rw::compile_function({a}, a, {.allow_gc = false});
  bench_calls("call_overhead_identity_keep", n,
              [&] { g_sink = g_sink + identity_keep(x).item<double>(); });
}

// t ← exp(-t), four times: 8 toy ops whose values stay in (0, 1].
rw::Var toy_chain(const rw::Var& x) {
  rw::Var t = x;
  for (int i = 0; i < 4; ++i) t = rw::test::exp(rw::test::neg(t));
  return t;
}

void chain() {
  const long long n = 1'000'000;
  const int ops = 8;
  const rw::Var x = rw::test::fvec("x");
  std::vector<double> init(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) init[static_cast<std::size_t>(i)] = static_cast<double>(i % 1000) * 1e-3;
  const std::int64_t shape[] = {n};
  const Tensor input = Tensor::from_vector(init, shape);
  auto per_element = [&](double s) {
    return fmt::format(" ops={} ns_per_element={:.3f}", ops, s * 1e9 / static_cast<double>(n));
  };

  double check_vm = 0, check_hand = 0;
  for (bool gc : {true, false}) {
    auto f = rw::compile_function({x}, toy_chain(x), {.allow_gc = gc});
    const double t = median_time([&] { check_vm = f(input).at({n - 1}); }, kRuns, 1);
    report(gc ? "chain_vm" : "chain_vm_keep", n, t, per_element(t));
  }

  // The same toy performs called in order by hand, outputs reused: the VM's
  // own cost is chain_vm minus this.
  {
    auto f = rw::compile_function({x}, toy_chain(x));
    std::vector<const rw::Apply*> nodes(f.schedule().begin(), f.schedule().end());
    std::vector<Tensor> outs(nodes.size());
    const double t = median_time(
        [&] {
          const Tensor* in = &input;
          for (std::size_t k = 0; k < nodes.size(); ++k) {
            nodes[k]->op().perform(*nodes[k], std::span(in, 1), std::span(&outs[k], 1));
            in = &outs[k];
          }
        },
        kRuns, 1);
    report("chain_toy_performs", n, t, per_element(t));
  }

  // The same eight passes by hand over two preallocated buffers.
  std::vector<double> a(init), b(static_cast<std::size_t>(n));
  const double t_hand = median_time(
      [&] {
        const double* src = init.data();
        for (int r = 0; r < 4; ++r) {
          for (long long i = 0; i < n; ++i) b[static_cast<std::size_t>(i)] = -src[i];
          for (long long i = 0; i < n; ++i) a[static_cast<std::size_t>(i)] = std::exp(b[static_cast<std::size_t>(i)]);
          src = a.data();
        }
        check_hand = a[static_cast<std::size_t>(n - 1)];
      },
      kRuns, 1);
  report("chain_hand_passes", n, t_hand, per_element(t_hand));

  // One fused pass: what an elementwise fusion kernel can reach.
  const double t_fused = median_time(
      [&] {
        for (long long i = 0; i < n; ++i) {
          double v = init[static_cast<std::size_t>(i)];
          for (int r = 0; r < 4; ++r) v = std::exp(-v);
          a[static_cast<std::size_t>(i)] = v;
        }
        g_sink = g_sink + a[static_cast<std::size_t>(n - 1)];
      },
      kRuns, 1);
  report("chain_hand_fused", n, t_fused, per_element(t_fused));
  if (std::abs(check_vm - check_hand) > 1e-12)
    fmt::print(stderr, "bench_function: the VM and the hand loop disagree ({} vs {})\n",
               check_vm, check_hand);
}

}  // namespace

int main() {
  call_overhead();
  chain();
  return 0;
}

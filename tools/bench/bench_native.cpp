// The native backend against the interpreter, side by side in one run:
//
//   build/tools/bench_native                 # every group
//   build/tools/bench_native elemwise13 call # some groups
//
// Lines: `bench=NAME n=N median_s=X …` (median of 7 calls after a warm-up).
// elemwise13 (bench_fusion's workload) is compiled with rw::function's
// default mode three ways: the interpreter (`median_s`), native code
// (`native_s`), and the vectorised reference loop of elemwise13_ref.cpp on
// one core (`vec1_s`); `*_cpu_s` are the CPU seconds of a call on every
// thread. `sum`, `sum_mul` and `sum_exp` are sum(x), sum(x * 2) and
// sum(exp(x)) (one CompositeReduce) on the interpreter (`median_s`) and in
// native code (`native_s`; `same=1`: equal bit for bit). `compile` is a cold build of one kernel
// (`median_s`, compiling) and the load of the cached one (`load_s`: key,
// stat, dlopen, key check). `call` is the time of a call on one element,
// interpreter and native (`overhead_us`: what native adds per call). The
// compile directory is a fresh temporary one, removed at the end; `load`
// is the machine's load average.
#include <filesystem>
#include <rw/rewrite.hpp>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "bench_util.hpp"
#include "elemwise13_ref.hpp"
#include "runtime/native_module.hpp"

namespace {

using rw::bench::median_wall_and_cpu;
using rw::bench::process_cpu_seconds;
using rw::bench::report;

constexpr int kRuns = 7;

std::filesystem::path g_dir;

rw::FunctionOptions options(rw::Native mode) {
  rw::FunctionOptions o;
  o.rewrite = [](rw::FunctionGraph& fg) { rw::default_mode().rewrite(fg); };
  o.allow_gc = false;
  o.native.mode = mode;
  o.native.compile_dir = g_dir;
  return o;
}

rw::Tensor uniform(std::int64_t n, std::uint64_t seed) {
  rw::Rng rng(seed);
  return rng.uniform({n}, -1.0, 1.0);
}

template <class Fn> rw::bench::WallAndCpu time_calls(Fn& f, const std::vector<rw::Tensor>& args) {
  decltype(f.call(args)) r;
  return median_wall_and_cpu(
      [&] {
        r = {};
        r = f.call(args);
      },
      kRuns, process_cpu_seconds);
}

rw::Var elemwise13(const rw::Var& x, const rw::Var& y) {
  return rw::exp(-x) * y + rw::tanh(x) * (y - 1.5) / (1.0 + x * x) - rw::sqrt(rw::abs(y));
}

void bench_elemwise13() {
  for (std::int64_t n : {1'000'000, 10'000'000}) {
    const rw::Tensor xs = uniform(n, 1), ys = uniform(n, 2);
    const rw::Var x = rw::vector("x"), y = rw::vector("y");
    rw::Function interp = rw::function({x, y}, elemwise13(x, y), options(rw::Native::Off));
    rw::Function native = rw::function({x, y}, elemwise13(x, y), options(rw::Native::Sync));
    if (native.native_status().state != rw::NativeStatus::State::Ready) {
      std::fprintf(stderr, "native code not ready: %s\n", native.native_status().error.c_str());
      return;
    }
    const std::vector<rw::Tensor> args = {xs, ys};
    const auto i = time_calls(interp, args);
    const auto nt = time_calls(native, args);
    rw::Tensor z = rw::Tensor::empty(rw::f64, {n});
    const auto ref = median_wall_and_cpu(
        [&] { rw::bench::elemwise13_reference(n, xs.data<double>(), ys.data<double>(), z.data<double>()); },
        kRuns, process_cpu_seconds);
    report("elemwise13", n, i.wall,
           fmt::format(" native_s={:.6g} vec1_s={:.6g} native_ratio={:.3f} vec1_ratio={:.3f} "
                       "cpu_s={:.6g} native_cpu_s={:.6g} vec1_cpu_s={:.6g} threads={} load={:.2f}",
                       nt.wall, ref.wall, nt.wall / i.wall, nt.wall / ref.wall, i.cpu, nt.cpu,
                       ref.cpu, rw::num_threads(), rw::bench::load_average()));
  }
}

void bench_sum() {
  const std::int64_t n = 10'000'000;
  const rw::Tensor xs = uniform(n, 3);
  const rw::Var x = rw::vector("x");
  const std::pair<const char*, rw::Var> sums[] = {
      {"sum", rw::sum(x)}, {"sum_mul", rw::sum(x * 2.0)}, {"sum_exp", rw::sum(rw::exp(x))}};
  for (const auto& [name, out] : sums) {
    rw::Function interp = rw::function({x}, out, options(rw::Native::Off));
    rw::Function native = rw::function({x}, out, options(rw::Native::Sync));
    if (native.native_status().state != rw::NativeStatus::State::Ready) {
      std::fprintf(stderr, "native code not ready: %s\n", native.native_status().error.c_str());
      return;
    }
    const auto i = time_calls(interp, {xs});
    const auto nt = time_calls(native, {xs});
    // The native reduction accumulates in the interpreter's order.
    const bool same = interp(xs).data<double>()[0] == native(xs).data<double>()[0];
    report(name, n, i.wall,
           fmt::format(" cpu_s={:.6g} native_s={:.6g} native_cpu_s={:.6g} native_ratio={:.3f} "
                       "native_nodes={} same={} threads={} load={:.2f}",
                       i.cpu, nt.wall, nt.cpu, nt.wall / i.wall,
                       native.native_status().native_nodes, same ? 1 : 0, rw::num_threads(),
                       rw::bench::load_average()));
  }
}

/// A kernel's source as the linker writes it, made unique by `salt` so that
/// each build is cold.
std::string kernel_source(int salt) {
  const rw::Var x = rw::vector("x"), y = rw::vector("y");
  rw::FunctionOptions o = options(rw::Native::Off);
  o.native.mode = rw::Native::Async;
  o.native.compiler = "/nonexistent/bench-no-compiler";  // the source only
  o.native.on_warning = [](const std::string&) {};
  auto f = rw::function({x, y}, elemwise13(x, y) + static_cast<double>(salt), o);
  f.wait_native();
  return f.native_source();
}

void bench_compile() {
  std::vector<double> cold;
  std::string last;
  for (int salt = 0; salt < 3; ++salt) {
    last = kernel_source(getpid() * 10 + salt);
    const rw::NativeBuild b = rw::build_native_module(last, {.directory = g_dir});
    if (!b.module) {
      std::fprintf(stderr, "build failed: %s\n", b.error.c_str());
      return;
    }
    cold.push_back(b.compile_seconds);
  }
  std::sort(cold.begin(), cold.end());
  const double load_s = rw::bench::median_time(
      [&] {
        const rw::NativeBuild b = rw::build_native_module(last, {.directory = g_dir});
        if (!b.cached) std::fprintf(stderr, "not cached: %s\n", b.error.c_str());
      },
      kRuns);
  report("compile", 1, cold[cold.size() / 2],
         fmt::format(" load_s={:.6g} source_bytes={} load={:.2f}", load_s, last.size(),
                     rw::bench::load_average()));
}

void bench_call() {
  const rw::Var x = rw::vector("x");
  const rw::Var out = rw::exp(x) * 2.0 + 1.0;
  rw::Function interp = rw::function({x}, out, options(rw::Native::Off));
  rw::Function native = rw::function({x}, out, options(rw::Native::Sync));
  const std::vector<rw::Tensor> args = {rw::Tensor::from({0.5})};
  constexpr int kCalls = 100000;
  auto per_call = [&](auto& f) {
    return rw::bench::median_time(
               [&] {
                 for (int i = 0; i < kCalls; ++i) f.call(args);
               },
               kRuns) /
           kCalls;
  };
  const double i = per_call(interp), nt = per_call(native);
  report("call", 1, i,
         fmt::format(" native_s={:.6g} overhead_us={:.3f} native_nodes={} load={:.2f}", nt,
                     (nt - i) * 1e6, native.native_status().native_nodes,
                     rw::bench::load_average()));
}

}  // namespace

int main(int argc, char** argv) {
  g_dir = std::filesystem::temp_directory_path() / fmt::format("rw-bench-native-{}", getpid());
  std::filesystem::create_directories(g_dir);
  const std::pair<const char*, void (*)()> groups[] = {{"elemwise13", bench_elemwise13},
                                                       {"sum", bench_sum},
                                                       {"compile", bench_compile},
                                                       {"call", bench_call}};
  for (const auto& [name, fn] : groups) {
    bool on = argc == 1;
    for (int i = 1; i < argc; ++i) on = on || std::string(name) == argv[i];
    if (on) fn();
  }
  std::filesystem::remove_all(g_dir);
}

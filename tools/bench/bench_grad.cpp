// Benchmarks of automatic differentiation and OpFromGraph: compiling a graph
// that repeats one 50-node block 200 times, inlined or as an OpFromGraph;
// building the gradient of a 32-layer MLP and of a 1000-op elementwise chain;
// the Jacobian of a vector of unknown length (one MapOp) against a static
// length (one gradient per row, stacked).
#include <array>
#include <optional>
#include <rw/rewrite.hpp>
#include <string>
#include <vector>

#include "bench_util.hpp"

namespace {

using rw::Var;

/// One block of exactly 50 elementwise nodes: h, y -> h'.
Var block(Var h, const Var& y) {
  const Var half = rw::constant(0.5);
  for (int k = 0; k < 50; ++k) {
    switch (k % 5) {
      case 0: h = h * y; break;
      case 1: h = h + half; break;
      case 2: h = rw::tanh(h); break;
      case 3: h = h - y; break;
      default: h = rw::sin(h); break;
    }
  }
  return h;
}

rw::GraphRewrite standard_mode() {
  const rw::Mode mode = rw::Mode::fast_run(rw::make_standard_db());
  return [mode](rw::FunctionGraph& fg) { mode.rewrite(fg); };
}

void bench_repeated_blocks() {
  constexpr int kBlocks = 200;
  const rw::GraphRewrite rewrite = standard_mode();
  Var x = rw::vector("x"), y = rw::vector("y");
  Var plain = x;
  for (int b = 0; b < kBlocks; ++b) plain = block(plain, y);
  Var hi = rw::vector("h"), yi = rw::vector("y");
  auto op = rw::op_from_graph({hi, yi}, {block(hi, yi)}, {.name = "block", .rewrite = rewrite});
  Var wrapped = x;
  for (int b = 0; b < kBlocks; ++b) wrapped = (*op)({wrapped, y});

  const double t_plain = rw::bench::median_time(
      [&] { (void)rw::compile_function({x, y}, plain, {.rewrite = rewrite}); }, 3, 1);
  const double t_ofg = rw::bench::median_time(
      [&] { (void)rw::compile_function({x, y}, wrapped, {.rewrite = rewrite}); }, 3, 1);
  rw::bench::report("compile_repeated_block_plain", kBlocks * 50, t_plain, " nodes=10000");
  rw::bench::report("compile_repeated_block_ofg", kBlocks, t_ofg,
                    " nodes=200 ratio_plain_over_ofg=" + std::to_string(t_plain / t_ofg));
  // The Op's inner function is compiled once, on its first call: compile and
  // a first call on one element (so that running costs little), each with a
  // fresh Op so that nothing is cached.
  const rw::Tensor x1 = rw::Tensor::full(std::vector<std::int64_t>{1}, 0.3);
  const rw::Tensor xv = rw::Tensor::full(std::vector<std::int64_t>{1000}, 0.3);
  const rw::Tensor yv = rw::Tensor::full(std::vector<std::int64_t>{1000}, 0.9);
  const double t_ofg_first = rw::bench::median_time(
      [&] {
        auto fresh = rw::op_from_graph({hi, yi}, {block(hi, yi)}, {.name = "block", .rewrite = rewrite});
        Var h = x;
        for (int b = 0; b < kBlocks; ++b) h = (*fresh)({h, y});
        (void)rw::compile_function({x, y}, h, {.rewrite = rewrite})(x1, x1);
      },
      3, 1);
  rw::bench::report("compile_and_first_call_ofg", kBlocks, t_ofg_first,
                    " ratio_plain_compile_over_this=" + std::to_string(t_plain / t_ofg_first));
  auto f_plain = rw::compile_function({x, y}, plain, {.rewrite = rewrite});
  auto f_ofg = rw::compile_function({x, y}, wrapped, {.rewrite = rewrite});
  rw::bench::report("run_repeated_block_plain", 1000,
                    rw::bench::median_time([&] { (void)f_plain(xv, yv); }));
  rw::bench::report("run_repeated_block_ofg", 1000,
                    rw::bench::median_time([&] { (void)f_ofg(xv, yv); }));
}

void bench_grad_mlp() {
  constexpr int kLayers = 32;
  Var x = rw::matrix("x");
  std::vector<Var> params;
  Var h = x;
  for (int l = 0; l < kLayers; ++l) {
    Var w = rw::matrix("w" + std::to_string(l)), b = rw::vector("b" + std::to_string(l));
    params.push_back(w);
    params.push_back(b);
    h = rw::tanh(rw::dot(h, w) + b);
  }
  Var loss = rw::sum(rw::sqr(h));
  std::size_t nodes = 0;
  const double t = rw::bench::median_time([&] {
    auto g = rw::grad(loss, params);
    nodes = rw::io_toposort({}, g).size();
  });
  rw::bench::report("grad_build_mlp32", kLayers, t, " grad_nodes=" + std::to_string(nodes));
}

void bench_grad_chain() {
  constexpr int kOps = 1000;
  Var x = rw::vector("x");
  Var h = x;
  for (int k = 0; k < kOps; ++k) h = (k % 2 == 0) ? rw::sin(h) : h * x;
  Var cost = rw::sum(h);
  std::size_t nodes = 0;
  const double t = rw::bench::median_time([&] {
    Var g = rw::grad(cost, x);
    nodes = rw::io_toposort({}, std::vector<Var>{g}).size();
  });
  rw::bench::report("grad_build_chain1000", kOps, t, " grad_nodes=" + std::to_string(nodes));
}

/// jacobian(exp(x) * sum(x), x) for n = 64: build + compile, and a call.
void bench_jacobian() {
  constexpr std::int64_t kN = 64;
  std::vector<double> xs(kN);
  for (std::int64_t i = 0; i < kN; ++i) xs[static_cast<std::size_t>(i)] = 0.01 * static_cast<double>(i);
  const rw::Tensor xv = rw::Tensor::from_vector(xs, std::array<std::int64_t, 1>{kN});
  for (const bool unknown : {true, false}) {
    const std::string name = unknown ? "jacobian_map" : "jacobian_static";
    std::optional<rw::Function<rw::Tensor>> fn;
    Var x;
    const double t_build = rw::bench::median_time([&] {
      x = unknown ? rw::vector("x") : rw::vector("x", rw::DType::Float64, kN);
      fn.emplace(rw::function({x}, rw::jacobian(rw::exp(x) * rw::sum(x), x)));
      (void)(*fn)(xv);  // the map compiles its body on the first call
    }, 3, 1);
    const double t_run = rw::bench::median_time([&] { (void)(*fn)(xv); });
    rw::bench::report(name + "_build_compile_first_call", kN, t_build);
    rw::bench::report(name + "_call", kN, t_run);
  }
}

}  // namespace

int main() {
  bench_jacobian();
  bench_grad_chain();
  bench_grad_mlp();
  bench_repeated_blocks();
}

// The examples of docs/grad.md, docs/opfromgraph.md and docs/scan.md: each is run here,
// and the pages must show exactly the code between the markers.
#include <catch2/catch.hpp>
#include <rw/rw.hpp>

#include <cmath>

#include "support/doc_snippets.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/engine/grad/test_docs.cpp";

void require_on_page(const std::string& page, const std::string& name) {
  const std::string code = rw::test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = rw::test::markdown_cpp_blocks(RW_SOURCE_DIR "/" + page);
  INFO(page << " must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

}  // namespace

TEST_CASE("docs/grad.md: gradients, forward mode, checking", "[grad]") {
  // [doc:grad]
  auto x = rw::vector("x");
  auto w = rw::shared("w", rw::Tensor::from({0.5, -0.5}));
  auto cost = rw::sum(rw::tanh(x * w));
  auto g = rw::grad(cost, {x, w});                      // reverse mode, via each Op's L_op
  auto jv = rw::Rop(rw::tanh(x * w), x, rw::vector("v"));  // forward mode, via R_op
  rw::verify_grad([](std::span<const rw::Var> in) { return rw::tanh(in[0] * 3); },
                  std::vector{rw::Tensor::from({0.1, 0.2})});  // throws GradientCheckError if wrong
  // [/doc:grad]
  require_on_page("docs/grad.md", "grad");
  auto f = rw::function({x}, {g[0], g[1]});
  auto [gx, gw] = f(rw::Tensor::from({1.0, 2.0}));
  const double d0 = 1 - std::pow(std::tanh(0.5), 2), d1 = 1 - std::pow(std::tanh(-1.0), 2);
  CHECK(gx.at({0}) == Approx(0.5 * d0));
  CHECK(gw.at({1}) == Approx(2.0 * d1));
  CHECK(jv->tensor_type()->ndim() == 1);
}

TEST_CASE("docs/opfromgraph.md: wrapping a graph as an Op", "[grad]") {
  // [doc:ofg]
  auto x = rw::scalar("x"), y = rw::scalar("y"), z = rw::scalar("z");
  auto op = rw::op_from_graph({x, y, z}, {x + y * z}, {.name = "axpy"});
  auto e2 = (*op)({x, y, z}) + (*op)({z, y, x});
  auto d = rw::grad(e2, {x, y, z});
  auto fn = rw::function({x, y, z}, {e2, d[1]});
  auto [value, dy] = fn(rw::Tensor::scalar(2.0), rw::Tensor::scalar(3.0), rw::Tensor::scalar(4.0));
  // value: 24 (14 + 10); dy: 6 (z + x)
  // [/doc:ofg]
  require_on_page("docs/opfromgraph.md", "ofg");
  CHECK(value.item<double>() == 24.0);
  CHECK(dy.item<double>() == 6.0);
}

TEST_CASE("docs/grad.md: jacobian and hessian of a vector of unknown length", "[grad]") {
  // [doc:jacobian]
  auto x = rw::vector("x");                          // length known only at run time
  auto j = rw::jacobian(rw::exp(x) * rw::sum(x), x);  // f64[?,?]: a MapOp named `jacobian`
  auto h = rw::hessian(rw::sum(rw::exp(x)) * rw::sum(x), x);
  auto f = rw::function({x}, {j, h});
  auto [jx, hx] = f(rw::Tensor::from({0.5, -1.0, 2.0}));
  // jx[i][k] = [i == k] exp(x_i) S + exp(x_i), S = sum(x)
  // hx[i][k] = [i == k] exp(x_i) S + exp(x_i) + exp(x_k)
  // [/doc:jacobian]
  require_on_page("docs/grad.md", "jacobian");
  CHECK(j->owner()->op().name() == "jacobian");
  const double xs[] = {0.5, -1.0, 2.0}, s = 1.5;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t k = 0; k < 3; ++k) {
      const double ei = std::exp(xs[i]), ek = std::exp(xs[k]);
      CHECK(jx.at({i, k}) == Approx((i == k ? ei * s : 0.0) + ei));
      CHECK(hx.at({i, k}) == Approx((i == k ? ei * s : 0.0) + ei + ek));
    }
}

TEST_CASE("docs/scan.md: loops, their gradients and their updates", "[grad][scan]") {
  // [doc:scan_rnn]
  auto x = rw::tensor("x", rw::DType::Float64, {rw::kUnknownDim, 1, 3});  // (T, batch, n_in)
  auto h0 = rw::matrix("h0"), W = rw::matrix("W"), U = rw::matrix("U");
  auto b = rw::vector("b");
  // h_t = tanh(h_{t-1} @ W + x_t @ U + b): the body gets x_t, h_{t-1}, then W, U, b.
  rw::ScanResult r = rw::scan(
      [](std::span<const rw::Var> a) {
        return rw::tanh(rw::matmul(a[1], a[2]) + rw::matmul(a[0], a[3]) + a[4]);
      },
      /*sequences=*/{x}, /*outputs_info=*/{h0}, /*non_sequences=*/{W, U, b});
  rw::Var h = r.output();                               // every step's state: (T, batch, hidden)
  rw::Var loss = rw::sum(rw::sqr(rw::subtensor(h, {-1})));
  std::vector<rw::Var> g = rw::grad(loss, {W, U, b});  // back-propagation through time
  auto f = rw::function({x, h0, W, U, b}, {loss, g[0], g[1], g[2]});
  // [/doc:scan_rnn]
  require_on_page("docs/scan.md", "scan_rnn");
  rw::Rng rng(1);
  const auto out = f(rng.normal({4, 1, 3}), rw::Tensor::zeros({1, 2}), rng.normal({2, 2}),
                     rng.normal({3, 2}), rng.normal({2}));
  CHECK(out[0].item<double>() > 0);
  CHECK(out[1].shape() == rw::Shape{2, 2});

  // [doc:scan_while]
  auto v0 = rw::scalar("v0");
  auto halves = rw::scan(
      [](std::span<const rw::Var> a) {
        rw::Var next = a[0] / 2.0;
        return rw::ScanStep({next}, /*updates=*/{}, /*until=*/rw::lt(next, 1e-3));
      },
      {}, {v0});
  auto steps = rw::function({v0}, rw::shape_i(halves.output(), 0));
  // steps(1e6): 30 — the loop stops after the step that makes the condition true
  // [/doc:scan_while]
  require_on_page("docs/scan.md", "scan_while");
  CHECK(steps(rw::Tensor::scalar(1e6)).item<std::int64_t>() == 30);

  // [doc:scan_shared]
  auto seen = rw::shared("seen", rw::Tensor::scalar(0.0));
  auto xs = rw::vector("xs");
  auto doubled = rw::scan(
      [&](std::span<const rw::Var> a) {
        return rw::ScanStep({a[0] * 2.0}, {{seen, seen + a[0]}});  // seen += x_t at each step
      },
      {xs});
  auto run = rw::function({xs}, doubled.output(), {.updates = doubled.updates});
  run(rw::Tensor::from({1.0, 2.0, 3.0}));  // [2, 4, 6]; seen is now 6
  // [/doc:scan_shared]
  require_on_page("docs/scan.md", "scan_shared");
  CHECK(seen.get_value().item<double>() == 6.0);
}

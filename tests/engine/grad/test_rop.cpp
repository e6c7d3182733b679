// Forward mode (Rop), Lop, jacobian and hessian, the gradient Ops, and
// gradients through the umbrella (DESIGN.md's example, the standard rewrites).
#include <cmath>
#include <rw/rewrite.hpp>

#include <catch2/catch.hpp>

namespace {

using rw::DType;
using rw::Tensor;
using rw::Var;

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.size());
}

std::vector<Tensor> run(std::vector<rw::In> inputs, std::vector<Var> outputs,
                        std::vector<Tensor> args, rw::GraphRewrite rewrite = {}) {
  auto f = rw::compile_function(std::move(inputs), std::move(outputs),
                                {.rewrite = std::move(rewrite),
                                 .on_unused_input = rw::UnusedInput::Ignore});
  return f.call(args);
}

}  // namespace

TEST_CASE("Rop gives J v, Lop gives u^T J", "[grad]") {
  Var w = rw::matrix("w"), x = rw::vector("x"), v = rw::vector("v"), u = rw::vector("u");
  Var y = rw::tanh(rw::dot(w, x));
  Var jv = rw::Rop(y, x, v);
  Var uj = rw::Lop(y, x, u);
  const Tensor W = Tensor::from({{1.0, 2.0}, {-1.0, 0.5}, {0.3, 0.0}});
  const Tensor X = Tensor::from({0.2, -0.4}), V = Tensor::from({1.0, 3.0}), U = Tensor::from({1.0, -2.0, 0.5});
  auto out = run({w, x, v, u}, {jv, uj}, {W, X, V, U});
  // Independently: d = 1 - tanh(Wx)^2; J = diag(d) W.
  const auto wv = values(W), xv = values(X), vv = values(V), uv = values(U);
  std::vector<double> d(3), jv_ref(3), uj_ref(2, 0.0);
  for (int i = 0; i < 3; ++i) {
    const double wx = wv[2 * i] * xv[0] + wv[2 * i + 1] * xv[1];
    d[i] = 1 - std::tanh(wx) * std::tanh(wx);
    jv_ref[i] = d[i] * (wv[2 * i] * vv[0] + wv[2 * i + 1] * vv[1]);
    for (int k = 0; k < 2; ++k) uj_ref[k] += uv[i] * d[i] * wv[2 * i + k];
  }
  for (int i = 0; i < 3; ++i) CHECK(values(out[0])[i] == Approx(jv_ref[i]));
  for (int k = 0; k < 2; ++k) CHECK(values(out[1])[k] == Approx(uj_ref[k]));
}

TEST_CASE("Rop refuses eval points that do not fit, and disconnected outputs", "[grad]") {
  Var x = rw::vector("x"), y = rw::vector("y");
  CHECK_THROWS_WITH(rw::Rop(rw::exp(x), x, rw::matrix("m")),
                    "`Rop`: eval point 0 has type `f64[?,?]`, but `x` has type `f64[?]`");
  CHECK_THROWS_WITH(rw::Rop(rw::exp(y), x, rw::vector("v")),
                    "`Rop`: output 0 (`exp(y)`) does not depend on any of the variables; "
                    "pass disconnected = ignore or warn if this is expected");
  Var z = rw::Rop(rw::exp(y), x, rw::vector("v"), rw::DisconnectedInputs::Ignore);
  CHECK(values(run({y}, {z}, {Tensor::from({1.0, 2.0})})[0]) == std::vector<double>{0.0, 0.0});
}

TEST_CASE("jacobian and hessian", "[grad]") {
  Var x = rw::vector("x", DType::Float64, 3);
  Var j = rw::jacobian(x * x, x);
  Var h = rw::hessian(rw::sum(x * x * x), x);
  auto out = run({x}, {j, h}, {Tensor::from({1.0, 2.0, 3.0})});
  CHECK(out[0].shape() == rw::Shape{3, 3});
  CHECK(values(out[0]) == std::vector<double>{2, 0, 0, 0, 4, 0, 0, 0, 6});
  CHECK(values(out[1]) == std::vector<double>{6, 0, 0, 0, 12, 0, 0, 0, 18});
  // A vector of unknown length: tests/engine/compile/test_jacobian.cpp.
}

TEST_CASE("zero_grad, disconnected_grad, grad_clip and grad_scale", "[grad]") {
  Var x = rw::vector("x");
  const Tensor X = Tensor::from({1.0, -2.0});
  // Forward, each is x.
  auto fwd = run({x}, {rw::zero_grad(x), rw::disconnected_grad(x), rw::grad_clip(x, -1, 1),
                       rw::grad_scale(x, 3)},
                 {X});
  for (const Tensor& t : fwd) CHECK(values(t) == values(X));
  Var cost_zero = rw::sum(rw::zero_grad(x) * x);  // d/dx = zero_grad(x) = x
  CHECK(values(run({x}, {rw::grad(cost_zero, x)}, {X})[0]) == values(X));
  Var cost_stop = rw::sum(rw::stop_gradient(x) * 2);
  CHECK_THROWS_AS(rw::grad(cost_stop, x), rw::DisconnectedInputError);
  Var cost_clip = rw::sum(rw::grad_clip(x, -1, 1) * 5);
  CHECK(values(run({x}, {rw::grad(cost_clip, x)}, {X})[0]) == std::vector<double>{1.0, 1.0});
  Var cost_scale = rw::sum(rw::grad_scale(x, 3) * x);
  CHECK(values(run({x}, {rw::grad(cost_scale, x)}, {X})[0]) == std::vector<double>{4.0, -8.0});
  CHECK_THROWS_WITH(rw::grad_clip(x, 1, -1),
                    "`grad_clip`: the lower bound 1 is above the upper bound -1");
  // Forward mode: zero through zero_grad, unchanged through grad_clip.
  Var v = rw::vector("v");
  auto r = run({x, v}, {rw::Rop(rw::zero_grad(x) * 2, x, v, rw::DisconnectedInputs::Ignore),
                        rw::Rop(rw::grad_clip(x, 0, 0) * 2, x, v)},
               {X, Tensor::from({1.0, 1.0})});
  CHECK(values(r[0]) == std::vector<double>{0.0, 0.0});
  CHECK(values(r[1]) == std::vector<double>{2.0, 2.0});
}

TEST_CASE("DESIGN.md's example with rw::grad", "[grad]") {
  auto x = rw::vector("x", rw::f64);
  auto w = rw::shared("w", rw::Tensor::zeros({3}));
  auto loss = rw::sum(rw::log(1 + rw::exp(x * w)));
  auto g = rw::grad(loss, {w});
  rw::Function f = rw::function({x}, {loss, g[0]});  // standard rewrites + linker
  auto [l, gw] = f(rw::Tensor::from({1.0, 2.0, 3.0}));
  // w = 0: loss = 3 log 2; d/dw_i = x_i * sigmoid(0) = x_i / 2.
  CHECK(l.item<double>() == Approx(3 * std::log(2.0)));
  CHECK(values(gw) == std::vector<double>{0.5, 1.0, 1.5});
}

TEST_CASE("an MLP's gradient is the same with and without the standard rewrites", "[grad]") {
  rw::Rng rng(3);
  Var x = rw::matrix("x"), y = rw::matrix("y");
  std::vector<Var> params;
  std::vector<Tensor> values_in{rng.uniform({4, 5}, -1, 1), rng.uniform({4, 3}, 0, 1)};
  Var h = x;
  const std::int64_t widths[] = {5, 6, 6, 3};
  for (int l = 0; l < 3; ++l) {
    Var w = rw::matrix("w" + std::to_string(l)), b = rw::vector("b" + std::to_string(l));
    params.push_back(w);
    params.push_back(b);
    values_in.push_back(rng.uniform({widths[l], widths[l + 1]}, -0.5, 0.5));
    values_in.push_back(rng.uniform({widths[l + 1]}, -0.1, 0.1));
    h = rw::dot(h, w) + b;
    if (l < 2) h = rw::tanh(h);
  }
  Var loss = -rw::mean(rw::sum(y * rw::log_softmax(h), {1}));
  std::vector<Var> grads = rw::grad(loss, params);
  std::vector<rw::In> ins{x, y};
  for (const Var& p : params) ins.push_back(p);
  std::vector<Var> outs{loss};
  outs.insert(outs.end(), grads.begin(), grads.end());
  // What rw::function runs: the standard rules, fusion, GEMM, in place.
  const rw::Mode mode = rw::default_mode();
  auto plain = run(ins, outs, values_in);
  auto rewritten = run(ins, outs, values_in, [mode](rw::FunctionGraph& fg) { mode.rewrite(fg); });
  REQUIRE(plain.size() == rewritten.size());
  for (std::size_t k = 0; k < plain.size(); ++k) {
    INFO("output " << k);
    const auto a = values(plain[k]), b = values(rewritten[k]);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]).epsilon(1e-12));
  }
  // And the gradient is right: checked numerically on the same graph shape.
  CHECK_NOTHROW(rw::verify_grad(
      [](std::span<const Var> in) {
        return -rw::mean(rw::sum(in[1] * rw::log_softmax(rw::tanh(rw::dot(in[0], in[2]))), {1}));
      },
      std::vector<Tensor>{rng.uniform({2, 3}, -1, 1), rng.uniform({2, 4}, 0, 1),
                          rng.uniform({3, 4}, -1, 1)}));
}

// Scan: the loop's semantics (sequences and taps, recurrent states, outputs
// not fed back, n_steps, go_backwards, while-loops, shared updates), its
// shapes, its derivatives, and the errors it gives.
#include <cmath>
#include <numeric>
#include <span>
#include <vector>

#include <catch2/catch.hpp>
#include <rw/rw.hpp>

using rw::DType;
using rw::ScanOutput;
using rw::ScanSequence;
using rw::Tensor;
using rw::Var;

namespace {

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.size());
}

Tensor vec(std::vector<double> v) {
  return Tensor::from_vector(v, std::vector<std::int64_t>{static_cast<std::int64_t>(v.size())});
}

const rw::ScanOp* scan_in(const rw::FunctionBase& f) {
  for (const rw::Apply* n : f.schedule())
    if (auto* s = dynamic_cast<const rw::ScanOp*>(&n->op())) return s;
  return nullptr;
}

}  // namespace

TEST_CASE("scan: a cumulative sum carries its state from step to step", "[scan]") {
  Var x = rw::vector("x"), s0 = rw::scalar("s0");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {x}, {s0});
  CHECK(r.outputs.size() == 1);
  CHECK(r.updates.empty());
  CHECK(r.output()->type()->to_string() == "f64[?]");
  rw::Function f = rw::function({x, s0}, r.output());
  CHECK(values(f(vec({1, 2, 3, 4}), Tensor::scalar(10.0))) == std::vector<double>{11, 13, 16, 20});
  // No step: no rows.
  CHECK(f(vec({}), Tensor::scalar(10.0)).shape() == rw::Shape{0});
}

TEST_CASE("scan: go_backwards walks the sequences from their end", "[scan]") {
  Var x = rw::vector("x"), s0 = rw::scalar("s0");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {x}, {s0}, {},
                    {.go_backwards = true});
  rw::Function f = rw::function({x, s0}, r.output());
  CHECK(values(f(vec({1, 2, 3, 4}), Tensor::scalar(0.0))) == std::vector<double>{4, 7, 9, 10});
}

TEST_CASE("scan: states with several taps, and sequences read around the step", "[scan]") {
  SECTION("Fibonacci: taps -2 and -1 read the two steps before") {
    Var init = rw::vector("init");
    auto r = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {},
                      {ScanOutput(init, {-2, -1})}, {}, {.n_steps = rw::constant(std::int64_t{6})});
    rw::Function f = rw::function({init}, r.output());
    CHECK(values(f(vec({0, 1}))) == std::vector<double>{1, 2, 3, 5, 8, 13});
    CHECK(r.output()->type()->to_string() == "f64[6]");
  }
  SECTION("taps given out of order reach the body in that order") {
    Var init = rw::vector("init");
    auto r = rw::scan([](std::span<const Var> a) { return a[0] - a[1]; }, {},
                      {ScanOutput(init, {-1, -2})}, {}, {.n_steps = rw::constant(std::int64_t{3})});
    rw::Function f = rw::function({init}, r.output());
    // s_t = s_{t-1} - s_{t-2}: 1 - 0 = 1, 1 - 1 = 0, 0 - 1 = -1
    CHECK(values(f(vec({0, 1}))) == std::vector<double>{1, 0, -1});
  }
  SECTION("a sequence with taps -1, 0 and +1 gives one step per full window") {
    Var x = rw::vector("x");
    auto r = rw::scan(
        [](std::span<const Var> a) { return a[0] + 10.0 * a[1] + 100.0 * a[2]; },
        {ScanSequence(x, {-1, 0, 1})});
    rw::Function f = rw::function({x}, r.output());
    CHECK(values(f(vec({1, 2, 3, 4}))) == std::vector<double>{321, 432});
  }
}

TEST_CASE("scan: outputs that are not fed back, and non-sequences", "[scan]") {
  Var x = rw::matrix("x"), w = rw::vector("w");
  auto r = rw::scan([](std::span<const Var> a) { return rw::dot(a[0], a[1]); }, {x}, {}, {w});
  rw::Function f = rw::function({x, w}, r.output());
  const Tensor xs = Tensor::from<double>({{1, 2}, {3, 4}, {5, 6}});
  CHECK(values(f(xs, vec({1, 10}))) == std::vector<double>{21, 43, 65});
}

TEST_CASE("scan: an RNN matches the loop written out", "[scan]") {
  Var x = rw::tensor("x", DType::Float64, {rw::kUnknownDim, 1, 3});
  Var h0 = rw::matrix("h0"), W = rw::matrix("W"), U = rw::matrix("U"), b = rw::vector("b");
  auto r = rw::scan(
      [](std::span<const Var> a) {
        return rw::tanh(rw::matmul(a[1], a[2]) + rw::matmul(a[0], a[3]) + a[4]);
      },
      {x}, {h0}, {W, U, b});
  rw::Function f = rw::function({x, h0, W, U, b}, rw::sum(rw::subtensor(r.output(), {-1})));
  rw::Rng rng(3);
  const Tensor xs = rng.normal({5, 1, 3}), h = Tensor::zeros({1, 2}), Wv = rng.normal({2, 2}),
               Uv = rng.normal({3, 2}), bv = rng.normal({2});
  std::vector<double> hv{0, 0};
  for (std::int64_t t = 0; t < 5; ++t) {
    std::vector<double> next(2);
    for (int j = 0; j < 2; ++j) {
      double acc = bv.at({j});
      for (int i = 0; i < 2; ++i) acc += hv[i] * Wv.at({i, j});
      for (int i = 0; i < 3; ++i) acc += xs.at({t, 0, i}) * Uv.at({i, j});
      next[j] = std::tanh(acc);
    }
    hv = next;
  }
  CHECK(f(xs, h, Wv, Uv, bv).item<double>() == Approx(hv[0] + hv[1]).epsilon(1e-12));
}

TEST_CASE("scan: a while-loop stops after the step that makes its condition true", "[scan]") {
  Var x0 = rw::scalar("x0");
  auto r = rw::scan(
      [](std::span<const Var> a) {
        Var next = a[0] / 2.0;
        return rw::ScanStep({next}, {}, rw::lt(next, 1e-3));
      },
      {}, {x0});
  rw::Function f = rw::function({x0}, r.output());
  const std::vector<double> v = values(f(Tensor::scalar(1e6)));
  REQUIRE(v.size() == 30);
  CHECK(v.back() < 1e-3);
  CHECK(v[v.size() - 2] >= 1e-3);
  // A bound on the steps still holds.
  auto bounded = rw::scan(
      [](std::span<const Var> a) {
        Var next = a[0] / 2.0;
        return rw::ScanStep({next}, {}, rw::lt(next, 1e-3));
      },
      {}, {x0}, {}, {.n_steps = rw::constant(std::int64_t{5})});
  rw::Function g = rw::function({x0}, bounded.output());
  CHECK(values(g(Tensor::scalar(1e6))).size() == 5);
}

TEST_CASE("scan: the body's updates of shared variables come back as updates", "[scan]") {
  rw::Shared count = rw::shared("count", Tensor::scalar(0.0));
  Var x = rw::vector("x");
  auto r = rw::scan(
      [&](std::span<const Var> a) {
        return rw::ScanStep({a[0] * 2.0}, {{count, count + 1.0}});
      },
      {x});
  REQUIRE(r.updates.size() == 1);
  CHECK(r.updates[0].first.get() == count.get());
  rw::Function f = rw::function({x}, r.output(), {.updates = r.updates});
  CHECK(values(f(vec({1, 2, 3}))) == std::vector<double>{2, 4, 6});
  CHECK(count.get_value().item<double>() == 3.0);
  f(vec({1, 2}));
  CHECK(count.get_value().item<double>() == 5.0);
}

TEST_CASE("scan: the gradient is back-propagation through time", "[scan][grad]") {
  SECTION("an RNN's loss against finite differences") {
    auto rnn = [](std::span<const Var> in) {
      auto r = rw::scan(
          [](std::span<const Var> a) {
            return rw::tanh(rw::matmul(a[1], a[2]) + rw::matmul(a[0], a[3]) + a[4]);
          },
          {in[0]}, {in[1]}, {in[2], in[3], in[4]});
      return rw::sum(rw::sqr(rw::subtensor(r.output(), {-1}))) + rw::sum(r.output());
    };
    rw::Rng rng(7);
    const Tensor pt[] = {rng.normal({4, 2, 3}), rng.normal({2, 2}), rng.normal({2, 2}, 0, 0.5),
                         rng.normal({3, 2}, 0, 0.5), rng.normal({2})};
    rw::verify_grad(rnn, pt);
  }
  SECTION("several taps, and a sequence read at two offsets") {
    auto fn = [](std::span<const Var> in) {
      auto r = rw::scan(
          [](std::span<const Var> a) { return a[0] * a[1] + rw::sin(a[2]) * a[3] + a[4] * a[4]; },
          {ScanSequence(in[0], {0, 1})}, {ScanOutput(in[1], {-2, -1})}, {in[2]});
      return rw::sum(r.output());
    };
    rw::Rng rng(1);
    const Tensor pt[] = {rng.normal({6}), rng.normal({2}), rng.normal({})};
    rw::verify_grad(fn, pt);
  }
}

TEST_CASE("scan: bad input is refused when the scan is built", "[scan]") {
  Var x = rw::vector("x"), s0 = rw::scalar("s0");
  auto add = [](std::span<const Var> a) { return a[0] + a[1]; };
  CHECK_THROWS_WITH(rw::scan(add, {}, {s0}),
                    Catch::Contains("`scan` has no sequence and no n_steps"));
  CHECK_THROWS_WITH(rw::scan(add, {rw::matrix("m")}, {s0}),
                    Catch::Contains("output 0 of the body") &&
                        Catch::Contains("is float64 of rank 1") &&
                        Catch::Contains("its initial value in outputs_info is float64 of rank 0"));
  CHECK_THROWS_WITH(
      rw::scan([](std::span<const Var> a) { return rw::ScanStep({a[0], a[0]}); }, {x}, {s0},
               {}, {.name = "twice"}),
      Catch::Contains("`twice`: the body returned 2 outputs, but outputs_info has 1 entry"));
  CHECK_THROWS_WITH(rw::scan(
                        [](std::span<const Var> a) {
                          return rw::ScanStep({a[0] + a[1]}, {}, a[0] + 1.0);
                        },
                        {x}, {s0}),
                    Catch::Contains("the stopping condition") && Catch::Contains("bool[]"));
  CHECK_THROWS_WITH(
      rw::scan(add, {}, {ScanOutput(rw::tensor("i", DType::Float64, {2}), {-3, -1})}, {},
               {.n_steps = rw::constant(std::int64_t{2})}),
      Catch::Contains("reads 3 steps back") && Catch::Contains("before the first element"));
  CHECK_THROWS_WITH(rw::scan(add, {x}, {ScanOutput(s0, {0})}),
                    Catch::Contains("recurrent state can only read earlier steps"));
  Var w = rw::scalar("w");
  CHECK_THROWS_WITH(rw::scan([&](std::span<const Var> a) { return a[0] * w + a[1]; }, {x}, {s0},
                             {}, {.strict = true}),
                    Catch::Contains("is strict, but its body reads `w`"));
}

TEST_CASE("scan: sequences of different lengths are refused at call time", "[scan]") {
  Var x = rw::vector("x"), y = rw::vector("y");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] * a[1]; }, {x, y});
  // Without rewrites: the rewritten graph multiplies x and y before the
  // loop (scan_push_out_seq), which refuses them itself.
  rw::Function f = rw::compile_function({x, y}, r.output());
  CHECK(values(f(vec({1, 2}), vec({3, 4}))) == std::vector<double>{3, 8});
  CHECK_THROWS_WITH(f(vec({1, 2, 3}), vec({3, 4})),
                    Catch::Contains("the sequences have different lengths"));
}

TEST_CASE("scan: the shape of its outputs is known without running the loop", "[scan]") {
  Var x = rw::matrix("x"), h0 = rw::vector("h0");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] * 2.0 + a[1]; }, {x}, {h0});
  rw::Function loop = rw::function({x, h0}, r.output());
  CHECK(scan_in(loop) != nullptr);
  const Var& h = r.output();
  rw::Function f = rw::function({x, h0}, rw::make_vector({rw::shape_i(h, 0), rw::shape_i(h, 1)}));
  INFO(rw::debugprint(f.fgraph()));
  CHECK(scan_in(f) == nullptr);
  CHECK(values(f(Tensor::zeros({4, 3}), Tensor::zeros({3}))) == std::vector<double>{4, 3});
}

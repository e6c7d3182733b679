// Scan: the loop's semantics (sequences and taps, recurrent states, outputs
// not fed back, n_steps, go_backwards, while-loops, shared updates), its
// shapes, its derivatives, and the errors it gives.
#include <cmath>
#include <numeric>
#include <rw/rewrite.hpp>
#include <span>
#include <vector>

#include <catch2/catch.hpp>

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
  CHECK_THROWS_WITH(rw::scan([](std::span<const Var> a) { return a[0] * 2.0; }, {}, {s0}),
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

namespace {

/// The loss of an RNN over x and its gradients with respect to W, U and b.
struct RnnGraph {
  Var x = rw::tensor("x", DType::Float64, {rw::kUnknownDim, 2, 3});
  Var h0 = rw::matrix("h0"), W = rw::matrix("W"), U = rw::matrix("U"), b = rw::vector("b");
  std::vector<Var> outputs;
  RnnGraph() {
    auto r = rw::scan(
        [](std::span<const Var> a) {
          return rw::tanh(rw::matmul(a[1], a[2]) + rw::matmul(a[0], a[3]) + a[4]);
        },
        {x}, {h0}, {W, U, b});
    const Var loss = rw::sum(rw::sqr(rw::subtensor(r.output(), {-1})));
    outputs = {loss};
    for (const Var& g : rw::grad(loss, {W, U, b})) outputs.push_back(g);
  }
  std::vector<Tensor> point() const {
    rw::Rng rng(11);
    return {rng.normal({6, 2, 3}), rng.normal({2, 4}), rng.normal({4, 4}, 0, 0.5),
            rng.normal({3, 4}, 0, 0.5), rng.normal({4})};
  }
};

void check_same(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (std::size_t k = 0; k < a.size(); ++k) {
    REQUIRE(a[k].shape() == b[k].shape());
    const auto va = values(a[k]), vb = values(b[k]);
    for (std::size_t i = 0; i < va.size(); ++i) CHECK(va[i] == Approx(vb[i]).epsilon(1e-10).margin(1e-12));
  }
}

std::vector<const rw::ScanOp*> scans_in(const rw::FunctionBase& f) {
  std::vector<const rw::ScanOp*> out;
  for (const rw::Apply* n : f.schedule())
    if (auto* s = dynamic_cast<const rw::ScanOp*>(&n->op())) out.push_back(s);
  return out;
}

}  // namespace

TEST_CASE("scan rewrites: an RNN's loss and BPTT gradients keep their values", "[scan][rewrite]") {
  const RnnGraph g;
  auto trace = std::make_shared<rw::TraceRecorder>(false);
  rw::Function rewritten =
      rw::function({g.x, g.h0, g.W, g.U, g.b}, g.outputs, {.rewrite_trace = trace});
  rw::Function plain = rw::compile_function({g.x, g.h0, g.W, g.U, g.b}, g.outputs);
  const std::vector<Tensor> pt = g.point();
  check_same(rewritten.call(pt), plain.call(pt));
  const std::string text = trace->text();
  for (const char* rewrite : {"scan_push_out_seq", "remove_constants_and_unused_inputs_scan",
                              "scan_save_mem", "scan_push_out_dot1"}) {
    INFO(rewrite << " in:\n" << text);
    CHECK(text.find(rewrite) != std::string::npos);
  }
  // The forward loop keeps every state (the backward one reads them). The
  // backward one carries the state's gradient and b's; W's and U's are each
  // one product after the loop, of h_{t-1} and x_t (sequences it already
  // has) by the step's delta: its outputs per step are the two deltas (one
  // per product, written differently by the gradient).
  const auto loops = scans_in(rewritten);
  REQUIRE(loops.size() == 2);
  CHECK(loops[0]->info().store_steps == std::vector<std::int64_t>{0});
  CHECK(loops[1]->info().n_states() == 2);
  CHECK(loops[1]->info().n_nit_sot == 2);
  // No step: the gradients are zeros, as without the rewrites.
  std::vector<Tensor> empty = pt;
  empty[0] = Tensor::zeros({0, 2, 3});
  CHECK_THROWS(plain.call(empty));  // h[-1] of no step
  CHECK_THROWS(rewritten.call(empty));
}

TEST_CASE("scan_push_out_non_seq computes what needs no step before the loop", "[scan][rewrite]") {
  Var x = rw::vector("x"), w = rw::scalar("w");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] * rw::exp(a[2]) + a[1]; }, {x},
                    {rw::constant(0.0)}, {w});
  auto trace = std::make_shared<rw::TraceRecorder>(false);
  rw::Function f = rw::function({x, w}, r.output(), {.rewrite_trace = trace});
  CHECK(trace->text().find("scan_push_out_non_seq") != std::string::npos);
  const auto loops = scans_in(f);
  REQUIRE(loops.size() == 1);
  for (const Var& v : rw::ancestors(loops[0]->inner_outputs()))
    CHECK_FALSE((v->owner() && v->owner()->op().name() == "exp"));
  CHECK(values(f(vec({1, 2, 3}), Tensor::scalar(0.0))) == std::vector<double>{1, 3, 6});
}

TEST_CASE("remove_constants_and_unused_inputs_scan and scan_merge_inouts", "[scan][rewrite]") {
  Var x = rw::vector("x"), unused = rw::vector("unused");
  // x twice, a constant non-sequence, and a non-sequence the body ignores.
  auto r = rw::scan([](std::span<const Var> a) { return a[0] * a[1] + a[2]; }, {x, x}, {},
                    {rw::constant(1.0), unused});
  auto trace = std::make_shared<rw::TraceRecorder>(false);
  // Without scan_push_out_seq, which would move the whole body out of the loop.
  rw::Function f = rw::function({x, unused}, r.output(),
                                {.rewrite_trace = trace, .on_unused_input = rw::UnusedInput::Ignore},
                                rw::default_mode().excluding({"scan_push_out_seq"}));
  const auto loops = scans_in(f);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0]->info().n_seqs == 1);
  CHECK(loops[0]->info().n_non_seqs == 0);
  CHECK(trace->text().find("scan_merge_inouts") != std::string::npos);
  CHECK(trace->text().find("remove_constants_and_unused_inputs_scan") != std::string::npos);
  CHECK(values(f(vec({1, 2, 3}), vec({}))) == std::vector<double>{2, 5, 10});
}

TEST_CASE("scan_save_mem keeps the last rows a while-loop's user reads", "[scan][rewrite]") {
  Var x0 = rw::scalar("x0");
  auto r = rw::scan(
      [](std::span<const Var> a) {
        Var next = a[0] / 2.0;
        return rw::ScanStep({next, next * 10.0}, {}, rw::lt(next, 1e-3));
      },
      {}, {x0, ScanOutput::none()});
  const Var last = rw::subtensor(r.outputs[0], {-1});
  const Var tail = rw::subtensor(r.outputs[1], {rw::slice(-2)});
  rw::Function f = rw::function({x0}, {last, tail});
  const auto loops = scans_in(f);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0]->info().store_steps == std::vector<std::int64_t>{1, 2});
  auto [l, t] = f(Tensor::scalar(1.0));
  CHECK(l.item<double>() == Approx(1.0 / 1024));
  CHECK(values(t) == std::vector<double>{10.0 / 512, 10.0 / 1024});
}

TEST_CASE("scan: truncate_gradient back-propagates through the last steps only", "[scan][grad]") {
  Var x = rw::vector("x"), w = rw::scalar("w");
  auto r = rw::scan([](std::span<const Var> a) { return a[1] * a[2] + a[0]; }, {x},
                    {rw::constant(0.0)}, {w}, {.truncate_gradient = 2});
  const Var gx = rw::grad(rw::subtensor(r.output(), {-1}), x);
  rw::Function f = rw::function({x, w}, gx);
  // s_T = sum_t w^(T-1-t) x_t: the last two steps give 1 and w; the rest 0.
  CHECK(values(f(vec({1, 2, 3, 4}), Tensor::scalar(3.0))) == std::vector<double>{0, 0, 3, 1});
}

TEST_CASE("scan: R_op carries each state's tangent beside it", "[scan][grad]") {
  auto fn = [](std::span<const Var> in) {
    auto r = rw::scan(
        [](std::span<const Var> a) { return rw::tanh(a[1] * a[2] + a[0]); }, {in[0]}, {in[1]},
        {in[2]});
    return r.output();
  };
  rw::Rng rng(5);
  const Tensor pt[] = {rng.normal({5, 3}), rng.normal({3}), rng.normal({3})};
  rw::verify_rop(fn, pt);
}

TEST_CASE("scan: nested loops, and loops inside OpFromGraph and back", "[scan][grad]") {
  // Row sums by an inner scan, accumulated by an outer one.
  auto nested = [](std::span<const Var> in) {
    auto outer = rw::scan(
        [](std::span<const Var> a) {
          auto inner = rw::scan([](std::span<const Var> b) { return b[0] * b[0] + b[1]; },
                                {a[0]}, {rw::constant(0.0)}, {}, {.name = "row"});
          return rw::subtensor(inner.output(), {-1}) + a[1];
        },
        {in[0]}, {rw::constant(0.0)}, {}, {.name = "rows"});
    return outer.output();
  };
  Var m = rw::matrix("m");
  rw::Function f = rw::function({m}, nested(std::vector<Var>{m}));
  CHECK(values(f(Tensor::from<double>({{1, 2}, {3, 4}}))) == std::vector<double>{5, 30});
  rw::Rng rng(2);
  rw::verify_grad(nested, std::vector<Tensor>{rng.normal({3, 4})});

  // A scan in an OpFromGraph's inner graph, and an OpFromGraph in a scan's body.
  Var v = rw::vector("v");
  auto cumsum = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {v},
                         {rw::constant(0.0)});
  auto op = rw::op_from_graph({v}, {cumsum.output()}, {.name = "cumsum"});
  rw::Function g = rw::function({v}, (*op)({v * 2.0}));
  CHECK(values(g(vec({1, 2, 3}))) == std::vector<double>{2, 6, 12});
  Var s = rw::scalar("s"), t = rw::scalar("t");
  auto axpy = rw::op_from_graph({s, t}, {s * 3.0 + t}, {.name = "axpy"});
  auto loop = rw::scan([&](std::span<const Var> a) { return (*axpy)({a[0], a[1]}); }, {v},
                       {rw::constant(0.0)});
  rw::Function h = rw::function({v}, loop.output());
  CHECK(values(h(vec({1, 1}))) == std::vector<double>{3, 6});
}

TEST_CASE("scan: the scalar loop and the general loop agree", "[scan]") {
  Var x = rw::vector("x"), y = rw::vector("y", DType::Int64);
  // s_t = s_{t-1} * 0.5 + x_t + y_t (an integer sequence cast on the way).
  auto scalar_body = [](std::span<const Var> a) { return a[2] * 0.5 + a[0] + rw::cast(a[1], DType::Float64); };
  // The same through a reduction, which the scalar loop does not take.
  auto general_body = [](std::span<const Var> a) {
    return rw::sum(rw::stack({a[2] * 0.5 + a[0] + rw::cast(a[1], DType::Float64)}));
  };
  auto a = rw::scan(scalar_body, {x, y}, {rw::constant(1.0)}, {}, {.go_backwards = true});
  auto b = rw::scan(general_body, {x, y}, {rw::constant(1.0)}, {}, {.go_backwards = true});
  rw::Function fa = rw::function({x, y}, a.output()), fb = rw::function({x, y}, b.output());
  const Tensor xs = rw::Rng(4).normal({9});
  const Tensor ys = rw::Rng(4).integers({9}, -3, 3);
  CHECK(values(fa(xs, ys)) == values(fb(xs, ys)));
  REQUIRE(scans_in(fa).size() == 1);
  REQUIRE(scans_in(fb).size() == 1);
  CHECK(scans_in(fa)[0]->runs_on_scalars());
  CHECK_FALSE(scans_in(fb)[0]->runs_on_scalars());
}

TEST_CASE("scan: a shared variable the body reads is a non-sequence, with a gradient", "[scan][grad]") {
  rw::Shared w = rw::shared("w", Tensor::scalar(2.0));
  Var x = rw::vector("x");
  auto r = rw::scan([&](std::span<const Var> a) { return a[1] * w + a[0]; }, {x},
                    {rw::constant(0.0)});
  const Var gw = rw::grad(rw::subtensor(r.output(), {-1}), w);
  rw::Function f = rw::function({x}, {r.output(), gw});
  auto [s, g] = f(vec({1, 1, 1}));
  CHECK(values(s) == std::vector<double>{1, 3, 7});
  // d/dw (w^2 + w + 1) = 2w + 1
  CHECK(g.item<double>() == Approx(5.0));
}

TEST_CASE("scan_merge: two loops over the same sequence become one", "[scan][rewrite]") {
  Var x = rw::vector("x");
  auto sums = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {x}, {rw::constant(0.0)});
  auto prods = rw::scan([](std::span<const Var> a) { return a[0] * a[1]; }, {x}, {rw::constant(1.0)});
  // A third reads the first's result: it cannot join it.
  auto after = rw::scan([](std::span<const Var> a) { return a[0] - a[1]; }, {sums.output()},
                        {rw::constant(0.0)});
  auto trace = std::make_shared<rw::TraceRecorder>(false);
  const std::vector<Var> outs{sums.output(), prods.output(), after.output()};
  rw::Function f = rw::function({x}, outs, {.rewrite_trace = trace});
  CHECK(trace->text().find("scan_merge") != std::string::npos);
  const auto loops = scans_in(f);
  CHECK(loops.size() == 2);
  rw::Function plain = rw::compile_function({x}, outs);
  const Tensor xs = vec({1, 2, 3, 4});
  check_same(f.call(std::vector<Tensor>{xs}), plain.call(std::vector<Tensor>{xs}));
}

TEST_CASE("debugprint_expanded shows a scan's body after the graph", "[scan]") {
  Var x = rw::vector("x");
  auto r = rw::scan([](std::span<const Var> a) { return rw::exp(a[0]) + a[1]; }, {x},
                    {rw::constant(0.0)}, {}, {.name = "acc"});
  const std::string text = rw::debugprint_expanded(r.outputs);
  const auto at = text.find("inner graph of `acc`:");
  REQUIRE(at != std::string::npos);
  CHECK(text.find("exp", at) != std::string::npos);
  CHECK(text.find("x[t]", at) != std::string::npos);
}

TEST_CASE("scan: draws in the body advance their generator from step to step", "[scan][random]") {
  rw::RandomStream rs(7);
  Var x = rw::vector("x");
  auto noisy = [&] {
    return rw::scan([&](std::span<const Var> a) { return a[0] + rs.normal(0.0, 1.0); }, {x});
  };
  auto r = noisy();
  // The generator's update comes back, and is the function's default one.
  REQUIRE(r.updates.size() == 1);
  rw::Function f = rw::function({x}, r.output());
  const Tensor zeros = Tensor::zeros({4});
  const auto first = values(f(zeros)), second = values(f(zeros));
  CHECK(first != second);  // a call advances the generator
  for (std::size_t i = 1; i < first.size(); ++i) CHECK(first[i] != first[0]);  // so does a step
  // The same seed, the same stream.
  rw::RandomStream again(7);
  auto r2 = rw::scan([&](std::span<const Var> a) { return a[0] + again.normal(0.0, 1.0); }, {x});
  rw::Function g = rw::function({x}, r2.output(), {.updates = r2.updates});
  CHECK(values(g(zeros)) == first);
  // Two equal-looking loops with draws stay two.
  auto twice = rw::function({x}, {noisy().output(), noisy().output()});
  const auto both = twice(zeros);
  CHECK(values(both[0]) != values(both[1]));
}

TEST_CASE("scan_push_out_scan_output computes an output from the states after the loop", "[scan][rewrite]") {
  Var x = rw::matrix("x"), h0 = rw::vector("h0"), V = rw::matrix("V");
  // y_t = h_t @ V is not fed back: one product over every h after the loop.
  auto r = rw::scan(
      [](std::span<const Var> a) {
        Var h = a[1] * 0.5 + a[0];
        return std::vector<Var>{h, rw::matmul(h, a[2])};
      },
      {x}, {h0, ScanOutput::none()}, {V});
  auto trace = std::make_shared<rw::TraceRecorder>(false);
  rw::Function f = rw::function({x, h0, V}, r.outputs[1], {.rewrite_trace = trace});
  CHECK(trace->text().find("scan_push_out_scan_output") != std::string::npos);
  const auto loops = scans_in(f);
  REQUIRE(loops.size() == 1);
  CHECK(loops[0]->info().n_nit_sot == 0);
  rw::Function plain = rw::compile_function({x, h0, V}, r.outputs[1]);
  rw::Rng rng(9);
  const std::vector<Tensor> pt{rng.normal({5, 3}), rng.normal({3}), rng.normal({3, 2})};
  check_same({f.call(pt)}, {plain.call(pt)});
}

TEST_CASE("scan: an output not fed back has its shape from the body's shapes", "[scan]") {
  Var x = rw::tensor("x", DType::Float64, {rw::kUnknownDim, rw::kUnknownDim, rw::kUnknownDim});
  Var V = rw::matrix("V");
  auto r = rw::scan([](std::span<const Var> a) { return rw::tanh(rw::matmul(a[0], a[1])); }, {x},
                    {}, {V});
  const Var& y = r.output();
  // Without the scan rewrites (which would move the body out of the loop):
  // the shape comes from x's and V's.
  rw::Function f = rw::function(
      {x, V}, rw::make_vector({rw::shape_i(y, 0), rw::shape_i(y, 1), rw::shape_i(y, 2)}), {},
      rw::default_mode().excluding({"scan"}));
  CHECK(scans_in(f).empty());
  CHECK(values(f(Tensor::zeros({5, 2, 3}), Tensor::zeros({3, 4}))) == std::vector<double>{5, 2, 4});
}

TEST_CASE("scan: writing a graph with a loop to a graph file is refused, named", "[scan]") {
  Var x = rw::vector("x");
  auto r = rw::scan([](std::span<const Var> a) { return a[0] + a[1]; }, {x}, {rw::constant(0.0)},
                    {}, {.name = "running"});
  const Var in[] = {x};
  CHECK_THROWS_WITH(rw::graph_file_text(in, r.outputs, rw::standard_registry()),
                    Catch::Contains("running"));
}

// rw::grad: values against hand-derived gradients, accumulation,
// broadcasting, known_grads, consider_constant, disconnected and undefined
// gradients, and its error messages.
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

/// Evaluates `outputs` of `inputs` through a compiled function.
std::vector<Tensor> run(std::vector<rw::In> inputs, std::vector<Var> outputs,
                        std::vector<Tensor> args) {
  auto f = rw::compile_function(std::move(inputs), std::move(outputs),
                                {.on_unused_input = rw::UnusedInput::Ignore});
  return f.call(args);
}

/// An Op with a perform and no gradient, for the undefined-gradient paths.
class Opaque final : public rw::Op {
 public:
  std::string_view name() const override { return "opaque"; }
  rw::ApplyRef make_node(std::span<const Var> in) const override {
    const rw::TypePtr t = in[0]->type();
    return rw::Apply::create(ptr(), in, std::span(&t, 1));
  }
  void perform(const rw::Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    out[0] = in[0].copy();
  }
};

Var opaque(const Var& x) { return (*std::make_shared<Opaque>())({x}); }

}  // namespace

TEST_CASE("grad of elementwise expressions matches the derivative", "[grad]") {
  Var x = rw::vector("x");
  Var cost = rw::sum(x * x + rw::exp(x) * 3);
  Var g = rw::grad(cost, x);
  const Tensor xv = Tensor::from({0.5, -1.0, 2.0});
  const auto got = values(run({x}, {g}, {xv})[0]);
  const auto xs = values(xv);
  REQUIRE(got.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) CHECK(got[i] == Approx(2 * xs[i] + 3 * std::exp(xs[i])));
}

TEST_CASE("a variable used several times accumulates its gradients in one add", "[grad]") {
  Var x = rw::scalar("x");
  Var a = rw::sin(x), b = rw::cos(x), c = x * x;
  Var g = rw::grad(a + b + c + x, x);
  // d/dx = cos - sin + 2x + 1: five terms (x * x gives one per use), summed
  // by one variadic add.
  REQUIRE(g->owner() != nullptr);
  CHECK(g->owner()->op().name() == "add");
  CHECK(g->owner()->num_inputs() == 5);
  const double xv = 0.7;
  CHECK(values(run({x}, {g}, {Tensor::scalar(xv)})[0])[0] ==
        Approx(std::cos(xv) - std::sin(xv) + 2 * xv + 1));
}

TEST_CASE("gradients are summed back over broadcast axes", "[grad]") {
  Var col = rw::tensor("col", DType::Float64, {rw::kUnknownDim, 1});
  Var row = rw::vector("row");
  Var m = rw::matrix("m");
  Var cost = rw::sum(col * m + row);
  auto g = rw::grad(cost, {col, row});
  CHECK(g[0]->tensor_type()->shape() == rw::StaticShape{rw::kUnknownDim, 1});
  CHECK(g[1]->tensor_type()->ndim() == 1);
  const Tensor mv = Tensor::from({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  auto out = run({col, row, m}, {g[0], g[1]},
                 {Tensor::from({{1.0}, {1.0}}), Tensor::from({0.0, 0.0, 0.0}), mv});
  CHECK(values(out[0]) == std::vector<double>{6.0, 15.0});  // row sums of m
  CHECK(values(out[1]) == std::vector<double>{2.0, 2.0, 2.0});  // two rows
  CHECK(out[0].shape() == rw::Shape{2, 1});
}

TEST_CASE("float32 gradients stay float32", "[grad]") {
  Var x = rw::vector("x", DType::Float32);
  Var g = rw::grad(rw::sum(rw::tanh(x) * 2), x);
  CHECK(g->tensor_type()->dtype() == DType::Float32);
}

TEST_CASE("known_grads start the backward pass from inner variables", "[grad]") {
  Var x = rw::vector("x");
  Var h = rw::exp(x);
  Var gh = rw::vector("gh");
  Var g = rw::grad(Var(), {x}, {.known_grads = {{h, gh}}})[0];
  auto out = run({x, gh}, {g}, {Tensor::from({0.0, 1.0}), Tensor::from({2.0, 3.0})});
  CHECK(values(out[0])[0] == Approx(2.0));
  CHECK(values(out[0])[1] == Approx(3.0 * std::exp(1.0)));
  // A known gradient of the wrong rank is refused, naming the variable.
  Var bad = rw::matrix("bad");
  CHECK_THROWS_WITH(rw::grad(Var(), {x}, {.known_grads = {{h, bad}}}),
                    "`grad`: the known gradient of `exp(x)` has type `f64[?,?]`, which "
                    "does not fit its type `f64[?]`");
}

TEST_CASE("consider_constant stops the gradient at a variable", "[grad]") {
  Var x = rw::scalar("x");
  Var y = x * x;
  Var cost = y * x;
  Var g_all = rw::grad(cost, x);                                    // 3x^2
  Var g_const = rw::grad(cost, x, {.consider_constant = {y}});  // y = x^2
  auto out = run({x}, {g_all, g_const}, {Tensor::scalar(2.0)});
  CHECK(values(out[0])[0] == Approx(12.0));
  CHECK(values(out[1])[0] == Approx(4.0));
}

TEST_CASE("disconnected inputs: raise, warn or ignore", "[grad]") {
  Var x = rw::vector("x"), y = rw::vector("y");
  Var cost = rw::sum(x * 2);
  CHECK_THROWS_AS(rw::grad(cost, {x, y}), rw::DisconnectedInputError);
  CHECK_THROWS_WITH(rw::grad(cost, {x, y}),
                    "`grad`: the cost does not depend on `y` (wrt 1), or only through inputs that "
                    "are not connected to it; pass disconnected_inputs = ignore or warn if this "
                    "is expected");
  std::vector<std::string> warnings;
  auto g = rw::grad(cost, {x, y},
                    {.disconnected_inputs = rw::DisconnectedInputs::Warn,
                     .warn = [&](const std::string& m) { warnings.push_back(m); }});
  CHECK(warnings.size() == 1);
  auto out = run({x, y}, {g[1]}, {Tensor::from({1.0}), Tensor::from({5.0, 6.0})});
  CHECK(values(out[0]) == std::vector<double>{0.0, 0.0});
  auto none = rw::grad(cost, {y}, {.disconnected_inputs = rw::DisconnectedInputs::Ignore,
                                   .return_disconnected = rw::ReturnDisconnected::None});
  CHECK(!none[0]);
  auto marker = rw::grad(cost, {y}, {.disconnected_inputs = rw::DisconnectedInputs::Ignore,
                                     .return_disconnected = rw::ReturnDisconnected::Disconnected});
  CHECK(rw::is_disconnected_grad(marker[0]));
  // Only through an input its Op does not connect (shape): still disconnected.
  Var z = rw::vector("z");
  CHECK_THROWS_AS(rw::grad(rw::sum(rw::cast(rw::shape(z), DType::Float64)), z),
                  rw::DisconnectedInputError);
}

TEST_CASE("an Op without a gradient makes only what depends on it undefined", "[grad]") {
  Var x = rw::vector("x"), y = rw::vector("y");
  Var cost = rw::sum(x * 3) + rw::sum(opaque(y));
  // The gradient of x does not go through the opaque Op.
  auto out = run({x, y}, {rw::grad(cost, x, {})}, {Tensor::from({1.0}), Tensor::from({1.0})});
  CHECK(values(out[0]) == std::vector<double>{3.0});
  CHECK_THROWS_AS(rw::grad(cost, y), rw::NullGradientError);
  CHECK_THROWS_WITH(rw::grad(cost, y),
                    "`grad`: the gradient with respect to `y` (wrt 0) is undefined: `opaque` "
                    "input 0: op `opaque` is not differentiable (it has no grad)");
  Var null = rw::grad(cost, y, {.null_gradients = rw::NullGradients::Return});
  CHECK(rw::is_null_grad(null));
}

TEST_CASE("grad refuses a cost that is not 0-d and a null wrt", "[grad]") {
  Var x = rw::vector("x");
  CHECK_THROWS_WITH(rw::grad(x * 2, x), "`grad`: the cost must be a 0-d tensor, not `f64[?]`");
  CHECK_THROWS_WITH(rw::grad(rw::sum(x), Var()), "`grad`: wrt 0 is null");
}

TEST_CASE("integer variables get float zeros", "[grad]") {
  Var i = rw::vector("i", DType::Int64);
  Var x = rw::vector("x");
  auto g = rw::grad(rw::sum(rw::cast(i, DType::Float64) * x), {i, x});
  CHECK(g[0]->tensor_type()->dtype() == DType::Float64);
  auto out = run({i, x}, {g[0], g[1]}, {Tensor::from<std::int64_t>({2, 3}), Tensor::from({1.0, 1.0})});
  CHECK(values(out[0]) == std::vector<double>{0.0, 0.0});
  CHECK(values(out[1]) == std::vector<double>{2.0, 3.0});
}

TEST_CASE("verify_grad reports a wrong gradient with both values", "[grad]") {
  // sign is piecewise constant: the analytic gradient (0) misses the jump at 0.
  const Tensor pt[] = {Tensor::from({-0.5, 0.0, 0.5})};
  try {
    rw::verify_grad([](std::span<const Var> in) { return rw::sign(in[0]); }, pt);
    FAIL("verify_grad accepted a wrong gradient");
  } catch (const rw::GradientCheckError& e) {
    const std::string m = e.what();
    CHECK(m.starts_with("`verify_grad`: the gradient with respect to input 0 (`f64[?]`) is wrong "
                        "at (1): analytic 0, numeric "));
    CHECK(m.find("analytic: [0. 0. 0.]") != std::string::npos);
  }
  CHECK_THROWS_WITH(rw::verify_grad([](std::span<const Var> in) { return rw::lt(in[0], 0.0); }, pt),
                    "`verify_grad`: the function's output must be a float tensor, not `bool[?]`");
}

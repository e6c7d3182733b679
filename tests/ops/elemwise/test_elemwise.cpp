// Elementwise Ops run through rw::function against hand-written loops:
// broadcasting, empty and size-1 axes, reversed (negative-stride) arguments,
// dtype promotion, Python's integer division, in-place variants, fill.
#include <cmath>

#include <catch2/catch.hpp>

#include "ops/elemwise/elemwise.hpp"
#include "rw/rewrite.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::bcast_at;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

namespace {

// out[i] = f(a[i], b[i]) over the broadcast shape, by loops.
Tensor ref_binary(const Tensor& a, const Tensor& b, std::vector<std::int64_t> shape,
                  double (*f)(double, double), DType dtype) {
  return make_tensor(shape, [&](const Idx& i) { return f(bcast_at(a, i), bcast_at(b, i)); },
                     dtype);
}

}  // namespace

TEST_CASE("binary arithmetic broadcasts (3,1) with (4,) as NumPy does", "[ops]") {
  auto a = rw::tensor("a", f64, {kUnknownDim, 1});
  auto b = rw::vector("b");
  rw::Function f = rw::function({a, b}, {a + b, a - b, a * b, a / b, rw::maximum(a, b),
                                         rw::minimum(a, b), rw::pow(a, b)});
  const Tensor va = lcg_tensor({3, 1}, 1, 0.5, 2.0), vb = lcg_tensor({4}, 2, 0.5, 2.0);
  auto [add, sub, mul, div, mx, mn, pw] = f(va, vb);
  const std::vector<std::int64_t> s{3, 4};
  require_same(add, ref_binary(va, vb, s, [](double x, double y) { return x + y; }, f64));
  require_same(sub, ref_binary(va, vb, s, [](double x, double y) { return x - y; }, f64));
  require_same(mul, ref_binary(va, vb, s, [](double x, double y) { return x * y; }, f64));
  require_same(div, ref_binary(va, vb, s, [](double x, double y) { return x / y; }, f64));
  require_same(mx, ref_binary(va, vb, s, [](double x, double y) { return std::fmax(x, y); }, f64));
  require_same(mn, ref_binary(va, vb, s, [](double x, double y) { return std::fmin(x, y); }, f64));
  const Tensor want_pow =
      ref_binary(va, vb, s, [](double x, double y) { return std::pow(x, y); }, f64);
  CHECK(allclose(pw, want_pow, 1e-15, 0));
}

TEST_CASE("unary functions match the C library elementwise", "[ops]") {
  auto x = rw::vector("x");
  struct Case {
    Var out;
    double (*ref)(double);
  };
  const Case cases[] = {
      {rw::exp(x), [](double v) { return std::exp(v); }},
      {rw::exp2(x), [](double v) { return std::exp2(v); }},
      {rw::expm1(x), [](double v) { return std::expm1(v); }},
      {rw::log(x), [](double v) { return std::log(v); }},
      {rw::log2(x), [](double v) { return std::log2(v); }},
      {rw::log10(x), [](double v) { return std::log10(v); }},
      {rw::log1p(x), [](double v) { return std::log1p(v); }},
      {rw::sqrt(x), [](double v) { return std::sqrt(v); }},
      {rw::sqr(x), [](double v) { return v * v; }},
      {rw::reciprocal(x), [](double v) { return 1 / v; }},
      {rw::neg(x), [](double v) { return -v; }},
      {rw::abs(-x), [](double v) { return v; }},
      {rw::sin(x), [](double v) { return std::sin(v); }},
      {rw::cos(x), [](double v) { return std::cos(v); }},
      {rw::tan(x), [](double v) { return std::tan(v); }},
      {rw::sinh(x), [](double v) { return std::sinh(v); }},
      {rw::cosh(x), [](double v) { return std::cosh(v); }},
      {rw::tanh(x), [](double v) { return std::tanh(v); }},
      {rw::arcsin(x / 2), [](double v) { return std::asin(v / 2); }},
      {rw::arccos(x / 2), [](double v) { return std::acos(v / 2); }},
      {rw::arctan(x), [](double v) { return std::atan(v); }},
      {rw::sigmoid(x), [](double v) { return 1 / (1 + std::exp(-v)); }},
      {rw::softplus(x), [](double v) { return std::log1p(std::exp(v)); }},
      {rw::erf(x), [](double v) { return std::erf(v); }},
      {rw::erfc(x), [](double v) { return std::erfc(v); }},
      {rw::floor(x * 3), [](double v) { return std::floor(v * 3); }},
      {rw::ceil(x * 3), [](double v) { return std::ceil(v * 3); }},
      {rw::sign(x - 1), [](double v) { return double((v > 1) - (v < 1)); }},
  };
  const Tensor vx = lcg_tensor({17}, 3, 0.1, 1.9);
  for (const Case& c : cases) {
    INFO(c.out->owner()->op().to_string());
    rw::Function f = rw::function({x}, c.out);
    const Tensor got = f(vx);
    const Tensor want = make_tensor({17}, [&](const Idx& i) { return c.ref(vx.at(i)); });
    CHECK(allclose(got, want, 1e-14, 1e-15));
  }
  rw::Function r = rw::function({x}, rw::round(x));
  require_same(r(Tensor::from({0.5, 1.5, 2.5, -0.5, -1.7})),
               Tensor::from({0.0, 2.0, 2.0, -0.0, -2.0}));
}

TEST_CASE("empty and size-1 axes; reversed arguments with negative strides", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  rw::Function f = rw::function({a, b}, a * b + 1);
  const Tensor e = f(Tensor::zeros({0, 3}), Tensor::zeros({0, 3}));
  CHECK(e.shape() == Shape{0, 3});
  const Tensor one = f(Tensor::from({{2.0}}), Tensor::from({{5.0}}));
  CHECK(one.at({0, 0}) == 11.0);
  // Reversed and transposed views as arguments.
  const Tensor base = lcg_tensor({4, 3}, 5);
  const Tensor rev = base.slice(0, 3, -5, -1);  // rows in reverse order
  const Tensor tr = lcg_tensor({3, 4}, 6).transpose();
  const Tensor got = f(rev, tr);
  const Tensor want = make_tensor({4, 3}, [&](const Idx& i) {
    return base.at({3 - i[0], i[1]}) * tr.at(i) + 1;
  });
  require_same(got, want);
}

TEST_CASE("dtypes promote as NumPy's; integer division and modulo follow Python", "[ops]") {
  auto i = rw::vector("i", i8), u = rw::vector("u", u8), g = rw::vector("g", f32);
  CHECK((i + u)->tensor_type()->dtype() == i16);
  CHECK((i + g)->tensor_type()->dtype() == f32);
  CHECK((i / i)->tensor_type()->dtype() == f32);  // true_div of int8: float_result
  CHECK(rw::exp(i)->tensor_type()->dtype() == f32);
  CHECK(rw::cast(g, i64)->tensor_type()->dtype() == i64);
  auto p = rw::vector("p", i32), q = rw::vector("q", i32);
  rw::Function f = rw::function({p, q}, {rw::int_div(p, q), rw::mod(p, q)});
  auto [d, m] = f(Tensor::from({-7, 7, -7, 7}), Tensor::from({2, -2, -2, 2}));
  require_same(d, Tensor::from({-4, -4, 3, 3}));
  require_same(m, Tensor::from({1, -1, -1, 1}));
  rw::Function c = rw::function({g}, rw::cast(g, i8));
  require_same(c(Tensor::from({1.9f, -1.9f, 300.0f})), Tensor::from<std::int8_t>({1, -1, 127}));
}

TEST_CASE("comparisons, logic, switch, clip and identity", "[ops]") {
  auto x = rw::vector("x"), y = rw::vector("y");
  auto k = rw::vector("k", i32);
  rw::Function f = rw::function(
      {x, y, k}, {x < y, x >= y, rw::eq(x, y), rw::neq(x, y), rw::where(x < y, x, y),
                  rw::clip(x, 0.0, 1.5), rw::xor_(rw::and_(k, 6), 1), ~(x < y), rw::identity(x)});
  const Tensor vx = Tensor::from({0.0, 1.0, 2.0, -1.0}), vy = Tensor::from({1.0, 1.0, 1.0, 1.0});
  const auto out = f(vx, vy, Tensor::from({1, 2, 7, -1}));
  require_same(out[0], Tensor::from<bool>({true, false, false, true}));
  require_same(out[1], Tensor::from<bool>({false, true, true, false}));
  require_same(out[2], Tensor::from<bool>({false, true, false, false}));
  require_same(out[3], Tensor::from<bool>({true, false, true, true}));
  require_same(out[4], Tensor::from({0.0, 1.0, 1.0, -1.0}));
  require_same(out[5], Tensor::from({0.0, 1.0, 1.5, 0.0}));
  require_same(out[6], Tensor::from({1, 3, 7, 7}));
  require_same(out[7], Tensor::from<bool>({false, true, true, false}));
  require_same(out[8], vx);
}

TEST_CASE("fill broadcasts its second input to the first's shape with its dtype", "[ops]") {
  auto a = rw::matrix("a"), b = rw::scalar("b", i32);
  rw::Function f = rw::function({a, b}, rw::fill(a, b));
  require_same(f(Tensor::zeros({2, 3}), Tensor::scalar(std::int32_t{4})),
               Tensor::full(std::vector<std::int64_t>{2, 3}, 4, i32));
}

TEST_CASE("an in-place Elemwise writes its output into the input it names", "[ops]") {
  const auto op = std::make_shared<Elemwise>(ScalarOp::Add, std::nullopt, 0);
  CHECK(op->to_string() == "add{inplace=0}");
  CHECK(op->destroy_map() == IoMap{{0, 0}});
  CHECK(*op != *elemwise_op(ScalarOp::Add));
  auto a = rw::vector("a"), b = rw::vector("b");
  const ApplyRef node = op->make_node(std::vector<Var>{a, b});
  const Tensor va = Tensor::from({1.0, 2.0}), vb = Tensor::from({10.0, 20.0});
  std::vector<Tensor> in{va, vb}, out(1);
  op->perform(*node, in, out);
  CHECK(out[0].raw_data() == va.raw_data());  // the same buffer
  require_same(va, Tensor::from({11.0, 22.0}));
  // An input that cannot hold the output is refused at make_node.
  auto s = rw::tensor("s", f64, {1});
  CHECK_THROWS_WITH(op->make_node(std::vector<Var>{s, rw::vector("v", f64, 3)}),
                    "`add{inplace=0}`: input 0 (`s`) of type f64[1] cannot hold output 0 of type "
                    "f64[3] (an in-place output needs an input of its dtype and shape)");
}

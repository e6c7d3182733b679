// Elementwise kernels against hand-written loops: broadcasting, layouts,
// dtypes, integer and float semantics, in-place outputs, threading, errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/thread_pool.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::bcast_at;
using rw::testing::for_each_index;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;
using rw::testing::require_within_ulps;
using V = std::vector<std::int64_t>;

namespace {

// The expected result of a binary op by the obvious loop over the broadcast
// shape, in double.
Tensor ref_binary(const Tensor& a, const Tensor& b, const V& shape, DType dtype,
                  double (*f)(double, double)) {
  return make_tensor(
      shape, [&](const Index& i) { return f(bcast_at(a, i), bcast_at(b, i)); }, dtype);
}

V shape_of(const Tensor& t) {
  return V(t.shape().begin(), t.shape().end());
}

// A 1-d tensor of int64 values.
Tensor i64s(std::vector<std::int64_t> v) {
  const V shape = {static_cast<std::int64_t>(v.size())};
  return Tensor::from_vector(v, shape);
}

}  // namespace

TEST_CASE("binary ops broadcast over every shape combination", "[runtime]") {
  struct Case {
    V a, b, out;
  };
  const std::vector<Case> cases = {
      {{2, 3}, {3}, {2, 3}},
      {{2, 1}, {1, 3}, {2, 3}},
      {{4, 1, 3}, {2, 1}, {4, 2, 3}},
      {{}, {5}, {5}},
      {{5}, {}, {5}},
      {{}, {}, {}},
      {{1, 1}, {1}, {1, 1}},
      {{0, 3}, {3}, {0, 3}},
      {{0}, {1}, {0}},
      {{3, 1, 4, 1}, {1, 5, 1, 2}, {3, 5, 4, 2}},
      {{7, 1}, {7, 300}, {7, 300}},
      {{1000, 3}, {3}, {1000, 3}},
      {{2, 3, 4, 5, 6, 7}, {7}, {2, 3, 4, 5, 6, 7}},
  };
  for (const Case& c : cases) {
    const Tensor a = lcg_tensor(c.a, 1), b = lcg_tensor(c.b, 2);
    INFO("a " << shape_to_string(c.a) << " b " << shape_to_string(c.b));
    require_same(elemwise(ScalarOp::Add, a, b),
                 ref_binary(a, b, c.out, f64, [](double x, double y) { return x + y; }));
    require_same(elemwise(ScalarOp::Sub, b, a),
                 ref_binary(b, a, c.out, f64, [](double x, double y) { return x - y; }));
    require_same(elemwise(ScalarOp::Mul, a, b),
                 ref_binary(a, b, c.out, f64, [](double x, double y) { return x * y; }));
  }
}

TEST_CASE("inputs of any layout are read correctly", "[runtime]") {
  const Tensor m = lcg_tensor({6, 8}, 3);
  const Tensor col = lcg_tensor({6, 1}, 4);
  const std::vector<Tensor> views = {
      m.transpose(),                          // (8, 6), strides (1, 8)
      m.slice(1, 7, -9, -2),                  // negative step
      m.slice(0, 1, 6, 2).slice(1, 0, 8, 3),  // strided both ways
      col.broadcast_to(V{6, 8}),              // stride 0
      m.slice(0, 5, -7, -1).transpose().slice(0, 2, 7, 1),
  };
  for (const Tensor& v : views) {
    const V shape = shape_of(v);
    INFO("view " << shape_to_string(shape) << " strides " << shape_to_string(v.strides()));
    const Tensor other = lcg_tensor(shape, 5);
    require_same(elemwise(ScalarOp::Mul, v, other),
                 ref_binary(v, other, shape, f64, [](double x, double y) { return x * y; }));
    require_same(elemwise(ScalarOp::Sub, other, v),
                 ref_binary(other, v, shape, f64, [](double x, double y) { return x - y; }));
    // exp is SLEEF's, within 2 ulp of the C library's.
    require_within_ulps(elemwise(ScalarOp::Exp, v),
                        make_tensor(shape, [&](const Index& i) { return std::exp(v.at(i)); }), 2);
  }
}

TEST_CASE("large inputs run on the pool and match the serial loop", "[runtime]") {
  // Above the threading threshold, non-contiguous, broadcast: every path.
  const Tensor a = lcg_tensor({700, 300}, 6).transpose();  // (300, 700) strided
  const Tensor b = lcg_tensor({700}, 7);
  const Tensor got = elemwise(ScalarOp::Add, a, b);
  const double* g = got.data<double>();
  bool ok = true;
  for (std::int64_t i = 0; i < 300; ++i)
    for (std::int64_t j = 0; j < 700; ++j) ok = ok && g[i * 700 + j] == a.at({i, j}) + b.at({j});
  REQUIRE(ok);
  // The same with one thread gives bit-identical results.
  const int threads = num_threads();
  set_num_threads(1);
  const Tensor serial = elemwise(ScalarOp::Add, a, b);
  set_num_threads(threads);
  REQUIRE(serial.equal(got));
}

TEST_CASE("dtypes promote and results have the signature's dtype", "[runtime]") {
  const Tensor i = Tensor::from({1, -2, 3});  // int32
  const Tensor f = Tensor::from({0.5f, 0.25f, -1.0f});
  const Tensor s = elemwise(ScalarOp::Add, i, f);
  REQUIRE(s.dtype() == f64);
  require_same(s, Tensor::from({1.5, -1.75, 2.0}));
  const Tensor u = Tensor::from({std::uint8_t{200}, std::uint8_t{1}});
  const Tensor k = Tensor::from({std::int8_t{-100}, std::int8_t{-1}});
  const Tensor uk = elemwise(ScalarOp::Add, u, k);
  REQUIRE(uk.dtype() == i16);
  require_same(uk, Tensor::from({std::int16_t{100}, std::int16_t{0}}));
  const Tensor bt = Tensor::from({true, false, true}), bf = Tensor::from({false, false, true});
  require_same(elemwise(ScalarOp::Add, bt, bf), Tensor::from({true, false, true}));
  require_same(elemwise(ScalarOp::Mul, bt, bf), Tensor::from({false, false, true}));
  require_same(elemwise(ScalarOp::Lt, i, f), Tensor::from({false, true, false}));
  REQUIRE(elemwise(ScalarOp::TrueDiv, i, i).dtype() == f64);
  REQUIRE(elemwise(ScalarOp::Exp, Tensor::from({std::int16_t{1}})).dtype() == f32);
}

TEST_CASE("integer division and modulo floor like Python", "[runtime]") {
  const Tensor a = Tensor::from({7, -7, 7, -7, 0, 5, -5, std::numeric_limits<int>::min()});
  const Tensor b = Tensor::from({2, 2, -2, -2, 3, 0, 0, -1});
  // Python: 7//2=3, -7//2=-4, 7//-2=-4, -7//-2=3; 7%2=1, -7%2=1, 7%-2=-1, -7%-2=-1.
  require_same(elemwise(ScalarOp::IntDiv, a, b),
               Tensor::from({3, -4, -4, 3, 0, 0, 0, std::numeric_limits<int>::min()}));
  require_same(elemwise(ScalarOp::Mod, a, b), Tensor::from({1, 1, -1, -1, 0, 0, 0, 0}));
  const Tensor x = Tensor::from({7.5, -7.5, 7.5, -7.5, 1.0, -1.0, 0.0});
  const Tensor y = Tensor::from({2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 0.0});
  const Tensor q = elemwise(ScalarOp::IntDiv, x, y);
  const Tensor r = elemwise(ScalarOp::Mod, x, y);
  for (std::int64_t k = 0; k < 4; ++k) {
    const double xv = x.at({k}), yv = y.at({k});
    REQUIRE(q.at({k}) == std::floor(xv / yv));
    REQUIRE(r.at({k}) == xv - std::floor(xv / yv) * yv);
  }
  REQUIRE(q.at({4}) == std::numeric_limits<double>::infinity());
  REQUIRE(q.at({5}) == -std::numeric_limits<double>::infinity());
  REQUIRE(std::isnan(q.at({6})));
  REQUIRE(std::isnan(r.at({4})));
  // Modulo takes the divisor's sign, also for a zero result.
  REQUIRE(std::signbit(elemwise(ScalarOp::Mod, Tensor::from({4.0}), Tensor::from({-2.0})).at({0})));
}

TEST_CASE("integer arithmetic wraps and pow is exact", "[runtime]") {
  const Tensor a = Tensor::from({std::int8_t{127}, std::int8_t{-128}, std::int8_t{100}});
  const Tensor one = Tensor::from({std::int8_t{1}, std::int8_t{1}, std::int8_t{2}});
  require_same(elemwise(ScalarOp::Add, a, one),
               Tensor::from({std::int8_t{-128}, std::int8_t{-127}, std::int8_t{102}}));
  require_same(elemwise(ScalarOp::Mul, a, one),
               Tensor::from({std::int8_t{127}, std::int8_t{-128}, std::int8_t{-56}}));
  require_same(elemwise(ScalarOp::Abs, a),
               Tensor::from({std::int8_t{127}, std::int8_t{-128}, std::int8_t{100}}));
  require_same(elemwise(ScalarOp::Neg, a),
               Tensor::from({std::int8_t{-127}, std::int8_t{-128}, std::int8_t{-100}}));
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  require_same(elemwise(ScalarOp::Add, Tensor::from({big}), Tensor::from({std::int64_t{1}})),
               Tensor::from({std::numeric_limits<std::int64_t>::min()}));
  const Tensor base = i64s({3, 2, -2, 1, -1, -1, 5, 0, 3});
  const Tensor ex = i64s({4, 62, 3, -5, -3, -4, -1, 0, 41});
  // 3^41 wraps modulo 2^64: computed by repeated multiplication in uint64.
  std::uint64_t p41 = 1;
  for (int k = 0; k < 41; ++k) p41 *= 3;
  const Tensor pw = elemwise(ScalarOp::Pow, base, ex);
  require_same(pw.slice(0, 0, 8), i64s({81, std::int64_t{1} << 62, -8, 1, -1, 1, 0, 1}));
  std::int64_t got = 0;
  const std::int64_t* pv = pw.data<std::int64_t>();
  got = pv[8];
  REQUIRE(static_cast<std::uint64_t>(got) == p41);
  require_same(elemwise(ScalarOp::Sign, Tensor::from({-5, 0, 9})), Tensor::from({-1, 0, 1}));
  require_same(elemwise(ScalarOp::Sqr, Tensor::from({std::int16_t{300}})),
               Tensor::from({std::int16_t{24464}}));  // 90000 mod 2^16
}

// tanh is not here: the kernel's own branch-free tanh is within 2 ulp of the
// C library's, checked in runtime/detail/test_fast_math.cpp. The functions
// that run on SLEEF's vector math are within 3 ulp of the C library's
// (runtime/detail/test_vector_math.cpp measures them against long double).
TEST_CASE("float ops match the C library and handle NaN and infinity", "[runtime]") {
  const std::vector<double> vals = {-3.5, -1.0, -0.25, 0.0, 0.3, 0.9, 2.0, 7.25};
  const Tensor x = Tensor::from_vector(vals, V{8});
  const Tensor xf = x.astype(f32);
  struct Unary {
    ScalarOp op;
    double (*f)(double);
    float (*ff)(float);
  };
  const std::vector<Unary> ops = {
      {ScalarOp::Exp, [](double v) { return std::exp(v); }, [](float v) { return std::exp(v); }},
      {ScalarOp::Exp2, [](double v) { return std::exp2(v); }, [](float v) { return std::exp2(v); }},
      {ScalarOp::Expm1, [](double v) { return std::expm1(v); },
       [](float v) { return std::expm1(v); }},
      {ScalarOp::Log, [](double v) { return std::log(v); }, [](float v) { return std::log(v); }},
      {ScalarOp::Log2, [](double v) { return std::log2(v); }, [](float v) { return std::log2(v); }},
      {ScalarOp::Log10, [](double v) { return std::log10(v); },
       [](float v) { return std::log10(v); }},
      {ScalarOp::Log1p, [](double v) { return std::log1p(v); },
       [](float v) { return std::log1p(v); }},
      {ScalarOp::Sqrt, [](double v) { return std::sqrt(v); }, [](float v) { return std::sqrt(v); }},
      {ScalarOp::Sin, [](double v) { return std::sin(v); }, [](float v) { return std::sin(v); }},
      {ScalarOp::Cos, [](double v) { return std::cos(v); }, [](float v) { return std::cos(v); }},
      {ScalarOp::Tan, [](double v) { return std::tan(v); }, [](float v) { return std::tan(v); }},
      {ScalarOp::Sinh, [](double v) { return std::sinh(v); }, [](float v) { return std::sinh(v); }},
      {ScalarOp::Cosh, [](double v) { return std::cosh(v); }, [](float v) { return std::cosh(v); }},
      {ScalarOp::ArcSin, [](double v) { return std::asin(v); },
       [](float v) { return std::asin(v); }},
      {ScalarOp::ArcCos, [](double v) { return std::acos(v); },
       [](float v) { return std::acos(v); }},
      {ScalarOp::ArcTan, [](double v) { return std::atan(v); },
       [](float v) { return std::atan(v); }},
      {ScalarOp::Erf, [](double v) { return std::erf(v); }, [](float v) { return std::erf(v); }},
      {ScalarOp::Erfc, [](double v) { return std::erfc(v); }, [](float v) { return std::erfc(v); }},
      {ScalarOp::Floor, [](double v) { return std::floor(v); },
       [](float v) { return std::floor(v); }},
      {ScalarOp::Ceil, [](double v) { return std::ceil(v); }, [](float v) { return std::ceil(v); }},
      {ScalarOp::Reciprocal, [](double v) { return 1.0 / v; }, [](float v) { return 1.0f / v; }},
      {ScalarOp::Abs, [](double v) { return std::fabs(v); }, [](float v) { return std::fabs(v); }},
      {ScalarOp::Neg, [](double v) { return -v; }, [](float v) { return -v; }},
      {ScalarOp::Sqr, [](double v) { return v * v; }, [](float v) { return v * v; }},
  };
  for (const Unary& u : ops) {
    INFO(scalar_op_name(u.op));
    std::vector<double> want;
    std::vector<float> wantf;
    for (double v : vals) {
      want.push_back(u.f(v));
      wantf.push_back(u.ff(static_cast<float>(v)));
    }
    require_within_ulps(elemwise(u.op, x), Tensor::from_vector(want, V{8}), 3);
    require_within_ulps(elemwise(u.op, xf), Tensor::from_vector(wantf, V{8}), 3);
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor special = Tensor::from({nan, inf, -inf, 1.0});
  const Tensor mx = elemwise(ScalarOp::Maximum, special, Tensor::from({0.0, 0.0, 0.0, nan}));
  REQUIRE(std::isnan(mx.at({0})));
  REQUIRE(mx.at({1}) == inf);
  REQUIRE(mx.at({2}) == 0.0);
  REQUIRE(std::isnan(mx.at({3})));
  const Tensor mn = elemwise(ScalarOp::Minimum, Tensor::from({0.0, nan}), Tensor::from({nan, 0.0}));
  REQUIRE(std::isnan(mn.at({0})));
  REQUIRE(std::isnan(mn.at({1})));
  const Tensor sg = elemwise(ScalarOp::Sign, special);
  REQUIRE(std::isnan(sg.at({0})));
  REQUIRE(sg.at({1}) == 1.0);
  REQUIRE(sg.at({2}) == -1.0);
  require_same(elemwise(ScalarOp::Neq, special, special),
               Tensor::from({true, false, false, false}));
  require_same(elemwise(ScalarOp::Round, Tensor::from({0.5, 1.5, 2.5, -0.5, -1.5, 2.4999, -2.6})),
               Tensor::from({0.0, 2.0, 2.0, -0.0, -2.0, 2.0, -3.0}));
}

TEST_CASE("sigmoid, softplus, log1p and expm1 are stable at the extremes", "[runtime]") {
  const Tensor x = Tensor::from({-1000.0, -40.0, -1e-20, 0.0, 1e-20, 40.0, 1000.0});
  const Tensor s = elemwise(ScalarOp::Sigmoid, x);
  REQUIRE(s.at({0}) == 0.0);
  REQUIRE(s.at({1}) == Approx(std::exp(-40.0)).epsilon(1e-12));  // 1/(1+e^40), not 0
  REQUIRE(s.at({3}) == 0.5);
  REQUIRE(s.at({5}) == Approx(1.0 / (1.0 + std::exp(-40.0))));
  REQUIRE(s.at({6}) == 1.0);
  const Tensor sp = elemwise(ScalarOp::Softplus, x);
  REQUIRE(sp.at({0}) == 0.0);
  REQUIRE(sp.at({1}) == Approx(std::exp(-40.0)).epsilon(1e-12));  // log(1+e^-40) ≈ e^-40
  REQUIRE(sp.at({3}) == Approx(std::log(2.0)));
  REQUIRE(sp.at({5}) == Approx(40.0));
  REQUIRE(sp.at({6}) == 1000.0);  // no overflow
  REQUIRE(elemwise(ScalarOp::Log1p, x).at({4}) == 1e-20);
  REQUIRE(elemwise(ScalarOp::Expm1, x).at({4}) == 1e-20);
  const Tensor sf = elemwise(ScalarOp::Sigmoid, x.astype(f32));
  REQUIRE(sf.dtype() == f32);
  REQUIRE(sf.at({6}) == 1.0);
  REQUIRE(sf.at({0}) == 0.0);
}

TEST_CASE("logic, switch, clip and cast", "[runtime]") {
  const Tensor p = Tensor::from({true, true, false, false}),
               q = Tensor::from({true, false, true, false});
  require_same(elemwise(ScalarOp::And, p, q), Tensor::from({true, false, false, false}));
  require_same(elemwise(ScalarOp::Or, p, q), Tensor::from({true, true, true, false}));
  require_same(elemwise(ScalarOp::Xor, p, q), Tensor::from({false, true, true, false}));
  require_same(elemwise(ScalarOp::Not, p), Tensor::from({false, false, true, true}));
  require_same(elemwise(ScalarOp::And, Tensor::from({12, 10}), Tensor::from({10, 6})),
               Tensor::from({8, 2}));
  require_same(elemwise(ScalarOp::Not, Tensor::from({std::uint8_t{0}, std::uint8_t{15}})),
               Tensor::from({std::uint8_t{255}, std::uint8_t{240}}));
  const Tensor cond = Tensor::from({true, false, true});
  require_same(elemwise(ScalarOp::Switch, cond, Tensor::from({1, 2, 3}), Tensor::from({0.5})),
               Tensor::from({1.0, 0.5, 3.0}));
  require_same(elemwise(ScalarOp::Clip, Tensor::from({-5.0, 0.5, 5.0}), Tensor::scalar(0.0),
                        Tensor::scalar(1.0)),
               Tensor::from({0.0, 0.5, 1.0}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor f = Tensor::from({1.9, -1.9, nan, 1e30, -1e30, 0.0});
  require_same(cast(f, i32), Tensor::from({1, -1, 0, std::numeric_limits<int>::max(),
                                           std::numeric_limits<int>::min(), 0}));
  require_same(cast(f, b8), Tensor::from({true, true, true, true, true, false}));
  require_same(cast(Tensor::from({true, false}), f32), Tensor::from({1.0f, 0.0f}));
  require_same(cast(Tensor::from({300, -1}), u8),
               Tensor::from({std::uint8_t{44}, std::uint8_t{255}}));
  const Tensor same = Tensor::from({1.0});
  REQUIRE(cast(same, f64).shares_storage(same));
  // astype and copy convert the same way.
  require_same(f.astype(i8), Tensor::from({std::int8_t{1}, std::int8_t{-1}, std::int8_t{0},
                                           std::int8_t{127}, std::int8_t{-128}, std::int8_t{0}}));
}

TEST_CASE("a fused program with constants and several outputs", "[runtime]") {
  // out0 = (x * 2 + y) as f64, out1 = x < y, out2 = y (an input passed through).
  ScalarProgram p;
  const Reg x = p.input(f32), y = p.input(i64);
  const Reg t = p.apply(ScalarOp::Add, {p.apply(ScalarOp::Mul, {x, p.constant(2.0, f32)}), y});
  p.output(t);
  p.output(p.apply(ScalarOp::Lt, {x, y}));
  p.output(y);
  const Tensor xs = lcg_tensor({5, 4}, 8, -3, 3, f32);
  const Tensor ys = i64s({-1, 0, 1, 2});
  const std::vector<Tensor> in = {xs, ys};
  const std::vector<Tensor> out = run_elemwise(p, in);
  REQUIRE(out.size() == 3);
  REQUIRE(out[0].dtype() == f64);
  REQUIRE(out[1].dtype() == b8);
  REQUIRE(out[2].dtype() == i64);
  require_same(out[0], make_tensor({5, 4}, [&](const Index& i) {
                 return static_cast<double>(static_cast<float>(xs.at(i)) * 2.0f) + ys.at({i[1]});
               }));
  require_same(out[1], make_tensor(
                           {5, 4}, [&](const Index& i) { return xs.at(i) < ys.at({i[1]}); }, b8));
  require_same(out[2], ys.broadcast_to(V{5, 4}).copy());
}

TEST_CASE("outputs are written in place, also when they alias an input", "[runtime]") {
  // x = exp(x) * 2 + x, written over x: the instruction that computes the
  // output is the last to read x, so it may write straight into x.
  ScalarProgram p;
  const Reg x = p.input(f64);
  const Reg e = p.apply(ScalarOp::Exp, {x});
  p.output(p.apply(ScalarOp::Add, {p.apply(ScalarOp::Mul, {e, p.constant(2.0, f64)}), x}));
  Tensor a = lcg_tensor({300, 301}, 9);
  const Tensor before = a.copy();
  std::vector<Tensor> out = {a};
  run_elemwise(p, std::vector<Tensor>{a}, out);
  REQUIRE(out[0].shares_storage(a));
  // exp through the same kernel (it is not what this test is about).
  const Tensor exp_before = elemwise(ScalarOp::Exp, before);
  require_same(a, make_tensor({300, 301}, [&](const Index& i) {
                 return exp_before.at(i) * 2.0 + before.at(i);
               }));

  // Two outputs, the first aliasing the input that a later instruction reads.
  ScalarProgram q;
  const Reg xi = q.input(f64);
  q.output(q.apply(ScalarOp::Neg, {xi}));
  q.output(q.apply(ScalarOp::Mul, {xi, xi}));
  Tensor b = lcg_tensor({5000}, 10);
  const Tensor b0 = b.copy();
  std::vector<Tensor> outs = {b, Tensor()};
  run_elemwise(q, std::vector<Tensor>{b}, outs);
  require_same(b, make_tensor({5000}, [&](const Index& i) { return -b0.at(i); }));
  require_same(outs[1], make_tensor({5000}, [&](const Index& i) { return b0.at(i) * b0.at(i); }));

  // An output overlapping an input any other way (reversed) sees the old input.
  Tensor c = Tensor::from({1.0, 2.0, 3.0, 4.0});
  Tensor rev = c.slice(0, -1, -5, -1);
  elemwise_into(ScalarOp::Add, std::vector<Tensor>{c, Tensor::scalar(10.0)}, rev);
  require_same(c, Tensor::from({14.0, 13.0, 12.0, 11.0}));

  // A strided output (every other column) is written element by element.
  Tensor buf = Tensor::zeros({3, 6});
  Tensor cols = buf.slice(1, 0, 6, 2);
  elemwise_into(ScalarOp::Add,
                std::vector<Tensor>{Tensor::ones({3, 3}), Tensor::from({1.0, 2.0, 3.0})}, cols);
  require_same(buf, Tensor::from({{2.0, 0.0, 3.0, 0.0, 4.0, 0.0},
                                  {2.0, 0.0, 3.0, 0.0, 4.0, 0.0},
                                  {2.0, 0.0, 3.0, 0.0, 4.0, 0.0}}));
}

TEST_CASE("bad calls are refused before anything is written", "[runtime]") {
  const Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({4});
  REQUIRE_THROWS_WITH(elemwise(ScalarOp::Add, a, b), "shapes (2, 3) and (4,) cannot be broadcast");
  REQUIRE_THROWS_WITH(elemwise(ScalarOp::Sub, Tensor::from({true}), Tensor::from({false})),
                      "`sub` is not defined for bool operands; use `xor`");
  REQUIRE_THROWS_WITH(elemwise(ScalarOp::Add, a, Tensor()), "`add`: operand 1 is null");

  ScalarProgram p;
  p.output(p.apply(ScalarOp::Exp, {p.input(f64)}));
  Tensor out = Tensor::full(V{2, 3}, 7.0);
  const Tensor before = out.copy();
  std::vector<Tensor> outs = {out};
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a.astype(f32)}, outs),
                      "input 0 is float32, the program expects float64");
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{}, outs),
                      "the program takes 1 input, got 0");
  std::vector<Tensor> two(2);
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a}, two),
                      "the program has 1 output, got 2 output tensors");
  std::vector<Tensor> wrong_shape = {Tensor::zeros({3, 2})};
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a}, wrong_shape),
                      "shapes (2, 3) and (3, 2) cannot be broadcast");
  std::vector<Tensor> small = {Tensor::zeros({3})};
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a}, small),
                      "output 0 has shape (3,), the operands broadcast to (2, 3)");
  std::vector<Tensor> wrong_dtype = {Tensor::zeros({2, 3}, f32)};
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a}, wrong_dtype),
                      "output 0 is float32, the program computes float64");
  std::vector<Tensor> bcast = {Tensor::zeros({3}).broadcast_to(V{2, 3})};
  REQUIRE_THROWS_WITH(run_elemwise(p, std::vector<Tensor>{a}, bcast),
                      "output 0 is broadcast along axis 0 (stride 0) and cannot be written");
  Tensor wrong = Tensor::zeros({2, 3}, f32);
  REQUIRE_THROWS_WITH(elemwise_into(ScalarOp::Add, std::vector<Tensor>{a, a}, wrong),
                      "`add` computes float64, the output is float32");
  REQUIRE(out.equal(before));
}

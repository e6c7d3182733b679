// Reductions through rw::function against loops: axis sets, all axes,
// keepdims, negative axes, empty inputs, dtypes, argmax/argmin, logsumexp, median, var and std.
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

TEST_CASE("sum, prod, max, min and mean over axis sets match loops", "[ops]") {
  auto x = rw::tensor("x", f64, {kUnknownDim, kUnknownDim, kUnknownDim});
  rw::Function f = rw::function(
      {x}, {rw::sum(x, {0, 2}), rw::prod(x, {1}), rw::max(x, {-1}), rw::min(x),
            rw::mean(x, {0}, true)});
  const Tensor v = lcg_tensor({2, 3, 4}, 11, 0.5, 1.5);
  auto [s, p, mx, mn, mean] = f(v);
  // Float sums are pairwise: equal to the loop up to rounding.
  CHECK(allclose(s, make_tensor({3}, [&](const Idx& i) {
                   double acc = 0;
                   for (std::int64_t a = 0; a < 2; ++a)
                     for (std::int64_t c = 0; c < 4; ++c) acc += v.at({a, i[0], c});
                   return acc;
                 }), 1e-15, 0));
  CHECK(allclose(p, make_tensor({2, 4}, [&](const Idx& i) {
                   double acc = 1;
                   for (std::int64_t b = 0; b < 3; ++b) acc *= v.at({i[0], b, i[1]});
                   return acc;
                 }), 1e-15, 0));
  require_same(mx, make_tensor({2, 3}, [&](const Idx& i) {
                 double m = -INFINITY;
                 for (std::int64_t c = 0; c < 4; ++c) m = std::max(m, v.at({i[0], i[1], c}));
                 return m;
               }));
  double lo = INFINITY;
  rw::testing::for_each_index({2, 3, 4}, [&](const Idx& i) { lo = std::min(lo, v.at(i)); });
  CHECK(mn.ndim() == 0);
  CHECK(mn.item<double>() == lo);
  CHECK(mean.shape() == Shape{1, 3, 4});
  CHECK(mean.at({0, 1, 2}) == Approx((v.at({0, 1, 2}) + v.at({1, 1, 2})) / 2).epsilon(1e-15));
}

TEST_CASE("reductions of empty tensors and of integers and bools", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::sum(x, {0}), rw::prod(x, {0}), rw::any(x, {0})});
  auto [s, p, a] = f(Tensor::zeros({0, 2}));
  require_same(s, Tensor::from({0.0, 0.0}));
  require_same(p, Tensor::from({1.0, 1.0}));
  require_same(a, Tensor::from<bool>({false, false}));
  auto k = rw::vector("k", i8);
  CHECK(rw::sum(k)->tensor_type()->dtype() == i64);  // no int8 overflow
  CHECK(rw::mean(k)->tensor_type()->dtype() == f64);
  rw::Function g = rw::function({k}, {rw::sum(k), rw::all(k)});
  auto [ks, ka] = g(Tensor::from<std::int8_t>({100, 100, 100}));
  CHECK(ks.item<std::int64_t>() == 300);
  CHECK(ka.item<bool>());
}

TEST_CASE("argmax and argmin give the first extreme, along an axis or flattened", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::argmax(x, 1), rw::argmin(x, 0), rw::argmax(x),
                                      rw::argmax(x, 0, true)});
  const Tensor v = Tensor::from({{1.0, 5.0, 5.0}, {7.0, -1.0, 7.0}});
  auto [a1, b0, flat, keep] = f(v);
  require_same(a1, Tensor::from<std::int64_t>({1, 0}));
  require_same(b0, Tensor::from<std::int64_t>({0, 1, 0}));
  CHECK(flat.item<std::int64_t>() == 3);
  CHECK(keep.shape() == Shape{1, 3});
}

TEST_CASE("logsumexp over axes: no overflow, -inf for an empty group", "[ops]") {
  auto m = rw::matrix("m");
  rw::Function f = rw::function({m}, {rw::logsumexp(m), rw::logsumexp(m, {1}),
                                      rw::logsumexp(m, {0}, /*keepdims=*/true)});
  const Tensor vm = Tensor::from({{0.0, std::log(3.0)}, {1000.0, 1000.0}});
  const auto out = f(vm);
  // Row 0: log(1 + 3); row 1: 1000 + log 2, where exp(1000) alone overflows.
  CHECK(allclose(out[1], Tensor::from({std::log(4.0), 1000.0 + std::log(2.0)}), 1e-15, 0));
  CHECK(out[0].item<double>() == Approx(1000.0 + std::log(2.0)).epsilon(1e-15));
  CHECK(out[2].shape() == Shape{1, 2});
  CHECK(out[2].at({0, 0}) == Approx(1000.0).epsilon(1e-15));
  // An infinite maximum shifts by 0: inf stays inf, and -inf everywhere is -inf.
  const double inf = std::numeric_limits<double>::infinity();
  const auto edge = f(Tensor::from({{inf, 1.0}, {-inf, -inf}}));
  CHECK(edge[1].at({0}) == inf);
  CHECK(edge[1].at({1}) == -inf);
  CHECK(f(Tensor::empty(f64, {2, 0}))[1].equal(Tensor::from({-inf, -inf})));
  CHECK_THROWS_WITH(rw::logsumexp(rw::vector("i", i64)),
                    "`logsumexp{axis=none}`: input 0 (`i`) is i64[?], expected float32 or float64");
  CHECK_THROWS_AS(rw::logsumexp(m, {2}), TypeError);
  CHECK(rw::logsumexp(rw::matrix("h", f32, 3, 4), {0})->tensor_type()->to_string() == "f32[4]");
}

TEST_CASE("median over axes: odd and even counts, NaN, empty groups, its gradient", "[ops]") {
  auto x = rw::tensor("x", f64, {kUnknownDim, kUnknownDim});
  rw::Function f = rw::function({x}, {rw::median(x), rw::median(x, {1}), rw::median(x, {0}, true)});
  // NumPy: median of all six is 2.5; rows give 3 and 2 (odd counts); columns
  // average their two values.
  auto out = f(Tensor::from({{5.0, 1.0, 3.0}, {2.0, 4.0, 0.0}}));
  CHECK(out[0].item<double>() == 2.5);
  require_same(out[1], Tensor::from({3.0, 2.0}));
  require_same(out[2], Tensor::from({{3.5, 2.5, 1.5}}));
  // A NaN makes its group's median NaN; an empty group's is NaN too.
  out = f(Tensor::from({{1.0, std::nan(""), 2.0}, {1.0, 2.0, 3.0}}));
  CHECK(std::isnan(out[0].item<double>()));
  CHECK(std::isnan(out[1].at({0})));
  CHECK(out[1].at({1}) == 2.0);
  out = f(Tensor::empty(f64, {2, 0}));
  CHECK(std::isnan(out[0].item<double>()));
  CHECK(std::isnan(out[1].at({1})));
  CHECK(out[2].shape() == Shape{1, 0});
  // Integers give a float64 median; int8 a float32 one, as mean.
  auto i = rw::vector("i", i64);
  rw::Function fi = rw::function({i}, rw::median(i));
  CHECK(fi(Tensor::from<std::int64_t>({7, 1, 4, 2})).item<double>() == 3.0);
  CHECK(rw::median(i)->tensor_type()->dtype() == f64);
  CHECK(rw::median(rw::vector("b", i8))->tensor_type()->dtype() == f32);
  CHECK(rw::median(rw::tensor("t", f32, {2, 3, 4}), {0, 2})->tensor_type()->to_string() == "f32[3]");
  CHECK_THROWS_WITH(rw::median(x, {2}), "`median{axis=(2)}`: axis 2 is out of range for input 0 (`x`) of rank 2");

  // The gradient: all of g to the middle element (odd), half to each of the
  // two middle ones (even).
  auto v = rw::vector("v");
  rw::Function g = rw::function({v}, rw::grad(rw::median(v) * 4, v));
  require_same(g(Tensor::from({5.0, 1.0, 3.0})), Tensor::from({0.0, 0.0, 4.0}));
  require_same(g(Tensor::from({4.0, 1.0, 3.0, 2.0})), Tensor::from({0.0, 0.0, 2.0, 2.0}));
  rw::Function gm = rw::function({x}, rw::grad(rw::sum(rw::median(x, {0})), x));
  require_same(gm(Tensor::from({{5.0, 1.0}, {2.0, 4.0}, {0.0, 3.0}})),
               Tensor::from({{0.0, 0.0}, {1.0, 0.0}, {0.0, 1.0}}));
}

TEST_CASE("var and std over axes, with ddof", "[ops]") {
  auto m = rw::matrix("m");
  rw::Function f = rw::function({m}, {rw::var(m, {1}), rw::var(m, {1}, 1), rw::var(m),
                                      rw::std(m, {0}, 0, /*keepdims=*/true)});
  const auto out = f(Tensor::from({{1.0, 2.0, 3.0}, {4.0, 6.0, 8.0}}));
  // Rows: means 2 and 6, squared deviations 2 and 8 over 3 (ddof 0) or 2 (ddof 1).
  CHECK(allclose(out[0], Tensor::from({2.0 / 3, 8.0 / 3}), 1e-15, 0));
  CHECK(allclose(out[1], Tensor::from({1.0, 4.0}), 1e-15, 0));
  // All: mean 4, squared deviations 9 + 4 + 1 + 0 + 4 + 16 = 34 over 6.
  CHECK(out[2].item<double>() == Approx(34.0 / 6).epsilon(1e-15));
  // Columns: deviations ±1.5, ±2, ±2.5.
  CHECK(allclose(out[3], Tensor::from({{1.5, 2.0, 2.5}}), 1e-15, 0));
  CHECK(rw::var(rw::vector("i", i32))->tensor_type()->dtype() == f64);
  CHECK(rw::std(rw::vector("h", f32))->tensor_type()->dtype() == f32);
}

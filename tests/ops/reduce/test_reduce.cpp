// Reductions through rw::function against loops: axis sets, all axes,
// keepdims, negative axes, empty inputs, dtypes, argmax/argmin, logsumexp, var and std.
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

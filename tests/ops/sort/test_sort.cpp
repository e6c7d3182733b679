// sort, argsort, topk, argtopk, searchsorted, bincount and unique through rw::function
// against std::sort / loops: stability, NaNs last, axes, sides, empty input.
#include <algorithm>
#include <cmath>
#include <numeric>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::lcg_tensor;
using rw::testing::require_same;

namespace {

Tensor ivec(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_vector(v, std::span(&n, 1));
}

}  // namespace

TEST_CASE("sort and argsort order each line, stably, NaNs last", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::sort(x), rw::argsort(x), rw::sort(x, 0),
                                      rw::argsort(x, std::nullopt)});
  const double nan = std::nan("");
  const Tensor vx = Tensor::from({{3.0, nan, 1.0, 3.0, -2.0}, {0.5, 0.5, nan, -1.0, 0.5}});
  const auto out = f(vx);
  require_same(out[0], Tensor::from({{-2.0, 1.0, 3.0, 3.0, nan}, {-1.0, 0.5, 0.5, 0.5, nan}}));
  // Equal values keep their order.
  require_same(out[1], Tensor::from<std::int64_t>({{4, 2, 0, 3, 1}, {3, 0, 1, 4, 2}}));
  require_same(out[2], Tensor::from({{0.5, 0.5, 1.0, -1.0, -2.0}, {3.0, nan, nan, 3.0, 0.5}}));
  std::vector<std::int64_t> flat(10);
  std::iota(flat.begin(), flat.end(), 0);
  auto at = [&](std::int64_t k) { return vx.at({k / 5, k % 5}); };
  std::stable_sort(flat.begin(), flat.end(), [&](std::int64_t i, std::int64_t j) {
    return !std::isnan(at(i)) && (std::isnan(at(j)) || at(i) < at(j));
  });
  require_same(out[3], ivec(flat));
  // Integers, 3-d along a middle axis, and an empty axis.
  auto t = rw::tensor("t", i16, {kUnknownDim, kUnknownDim, kUnknownDim});
  rw::Function g = rw::function({t}, rw::sort(t, 1));
  const Tensor vt = rw::cast(lcg_tensor({2, 5, 3}, 9, -50, 50), i16);
  const Tensor st = g(vt);
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t k = 0; k < 3; ++k) {
      std::vector<double> line, got;
      for (std::int64_t j = 0; j < 5; ++j) {
        line.push_back(vt.at({i, j, k}));
        got.push_back(st.at({i, j, k}));
      }
      std::sort(line.begin(), line.end());
      CHECK(got == line);
    }
  CHECK(g(Tensor::empty(i16, {2, 0, 3})).shape() == Shape{2, 0, 3});
  CHECK(rw::argsort(rw::matrix("m", f32, 2, 3), std::nullopt)->tensor_type()->to_string() == "i64[6]");
  CHECK_THROWS_WITH(rw::sort(x, 2), "`sort{axis=2}`: axis 2 is out of range for input 0 (`x`) of rank 2");
  CHECK_THROWS_AS(rw::sort(rw::scalar("s")), TypeError);
}

TEST_CASE("topk and argtopk: the head of a full sort, largest or smallest first", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::topk(x, 2), rw::argtopk(x, 2), rw::topk(x, -2),
                                      rw::argtopk(x, -2)});
  const double nan = std::nan("");
  // NaNs count as the largest; equal values keep their order.
  const auto out = f(Tensor::from({{3.0, nan, 1.0, 3.0, -2.0}, {0.5, 0.5, nan, -1.0, 0.5}}));
  require_same(out[0], Tensor::from({{nan, 3.0}, {nan, 0.5}}));
  require_same(out[1], Tensor::from<std::int64_t>({{1, 0}, {2, 0}}));
  require_same(out[2], Tensor::from({{-2.0, 1.0}, {-1.0, 0.5}}));
  require_same(out[3], Tensor::from<std::int64_t>({{4, 2}, {3, 0}}));

  // Along axis 0 of a random tensor: the first |k| of sort, or its last k reversed.
  auto t = rw::tensor("t", f64, {kUnknownDim, kUnknownDim, kUnknownDim});
  rw::Function g = rw::function({t}, {rw::topk(t, -3, 0), rw::topk(t, 2, 0), rw::sort(t, 0)});
  const Tensor vt = lcg_tensor({5, 2, 3}, 21);
  const auto r = g(vt);
  REQUIRE(r[0].shape() == Shape{3, 2, 3});
  REQUIRE(r[1].shape() == Shape{2, 2, 3});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      for (std::int64_t k = 0; k < 3; ++k) CHECK(r[0].at({k, i, j}) == r[2].at({k, i, j}));
      for (std::int64_t k = 0; k < 2; ++k) CHECK(r[1].at({k, i, j}) == r[2].at({4 - k, i, j}));
    }

  // The gradient goes to the chosen elements.
  auto v = rw::vector("v");
  const Var w = rw::constant(Tensor::from({10.0, 1.0}));
  rw::Function d = rw::function({v}, rw::grad(rw::sum(rw::topk(v, 2) * w), v));
  require_same(d(Tensor::from({0.2, 0.9, -0.4, 0.5})), Tensor::from({0.0, 10.0, 0.0, 1.0}));

  CHECK(rw::topk(rw::matrix("s", f32, 2, 7), -3)->tensor_type()->to_string() == "f32[2,3]");
  CHECK_THROWS_WITH(rw::topk(rw::matrix("s", f64, 2, 3), 4),
                    "`topk{k=4,axis=-1}`: input 0 (`s`) has extent 3 on axis -1, fewer than |k| = 4");
  CHECK_THROWS_WITH(rw::argtopk(x, 0), "`argtopk{k=0,axis=-1}`: k is 0, expected a nonzero count");
  CHECK_THROWS_AS(rw::topk(rw::scalar("z"), 1), TypeError);
  // An extent known only at run time.
  CHECK_THROWS_AS(f(Tensor::from({{1.0}, {2.0}})), ExecutionError);
}

TEST_CASE("searchsorted finds insertion points on either side of equal values", "[ops]") {
  auto a = rw::vector("a");
  auto v = rw::matrix("v");
  rw::Function f = rw::function({a, v}, {rw::searchsorted(a, v), rw::searchsorted(a, v, "right")});
  const double nan = std::nan("");
  const Tensor va = Tensor::from({1.0, 2.0, 2.0, 5.0, nan});
  const Tensor vv = Tensor::from({{0.0, 2.0, 3.0}, {5.0, 9.0, nan}});
  const auto out = f(va, vv);
  require_same(out[0], Tensor::from<std::int64_t>({{0, 1, 3}, {3, 4, 4}}));
  require_same(out[1], Tensor::from<std::int64_t>({{0, 3, 3}, {4, 4, 5}}));
  CHECK(f(Tensor::empty(f64, {0}), vv)[0].shape() == Shape{2, 3});
  // An integer haystack with a number.
  auto ai = rw::vector("ai", i32);
  rw::Function g = rw::function({ai}, rw::searchsorted(ai, 4));
  CHECK(g(Tensor::from<std::int32_t>({1, 4, 4, 7})).item<std::int64_t>() == 1);
  CHECK_THROWS_WITH(rw::searchsorted(v, a),
                    "`searchsorted{side=left}`: input 0 (`v`) (the sorted values) is f64[?,?], expected a vector");
  CHECK_THROWS_WITH(rw::searchsorted(a, v, "middle"), "`searchsorted`: side `middle` is not `left` or `right`");
}

TEST_CASE("bincount counts values or sums weights", "[ops]") {
  auto x = rw::vector("x", i64);
  auto w = rw::vector("w", f32);
  rw::Function f = rw::function({x, w}, {rw::bincount(x), rw::bincount(x, w), rw::bincount(x, Var(), 6)});
  const auto out = f(ivec({1, 3, 1, 0, 3, 3}), Tensor::from({0.5f, 1.0f, 2.0f, 4.0f, -1.0f, 0.25f}));
  require_same(out[0], Tensor::from<std::int64_t>({1, 2, 0, 3}));
  require_same(out[1], Tensor::from({4.0f, 2.5f, 0.0f, 0.25f}));
  require_same(out[2], Tensor::from<std::int64_t>({1, 2, 0, 3, 0, 0}));
  const auto none = f(ivec({}), Tensor::empty(f32, {0}));
  CHECK(none[0].shape() == Shape{0});
  CHECK(none[2].shape() == Shape{6});
  CHECK_THROWS_AS(f(ivec({1, -1}), Tensor::from({1.0f, 1.0f})), ExecutionError);
  CHECK_THROWS_AS(f(ivec({1, 2}), Tensor::from({1.0f})), ExecutionError);
  CHECK(rw::bincount(x, rw::vector("wi", i32))->tensor_type()->dtype() == f64);
  CHECK_THROWS_WITH(rw::bincount(rw::vector("r")), "`bincount{minlength=0}`: input 0 (`r`) is f64[?], expected a vector of integers");
  CHECK_THROWS_AS(rw::bincount(rw::vector("n", i64, 3), rw::vector("m", f64, 4)), TypeError);
}

TEST_CASE("unique gives sorted distinct values and their counts", "[ops]") {
  auto x = rw::matrix("x");
  const auto [values, counts] = rw::unique_counts(x);
  rw::Function f = rw::function({x}, {values, counts, rw::unique(x)});
  const double nan = std::nan("");
  const auto out = f(Tensor::from({{3.0, nan, 1.0}, {3.0, nan, -0.5}}));
  require_same(out[0], Tensor::from({-0.5, 1.0, 3.0, nan}));
  require_same(out[1], Tensor::from<std::int64_t>({1, 1, 2, 2}));
  require_same(out[2], out[0]);
  const auto empty = f(Tensor::empty(f64, {0, 3}));
  CHECK(empty[0].shape() == Shape{0});
  CHECK(empty[1].shape() == Shape{0});
  CHECK(rw::unique(rw::vector("i", i8))->tensor_type()->to_string() == "i8[?]");
}

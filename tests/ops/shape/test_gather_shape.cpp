// repeat, tile and roll through rw::function against loops, and the
// dimshuffle-built squeeze, swapaxes, moveaxis with broadcast_to over alloc.
#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

namespace {

Tensor int_vector(std::vector<std::int64_t> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_vector(v, std::span(&n, 1));
}

}  // namespace

TEST_CASE("repeat repeats slices a fixed or per-slice number of times", "[ops]") {
  auto x = rw::matrix("x");
  auto k = rw::scalar("k", i64);
  auto r = rw::vector("r", i64);
  rw::Function f = rw::function({x, k, r}, {rw::repeat(x, k, 1), rw::repeat(x, r, 0),
                                            rw::repeat(x, k), rw::repeat(x, r, -2)});
  const Tensor vx = lcg_tensor({3, 2}, 1);
  const auto out = f(vx, Tensor::scalar(std::int64_t{2}), int_vector({0, 3, 1}));
  require_same(out[0], make_tensor({3, 4}, [&](const Idx& i) { return vx.at({i[0], i[1] / 2}); }));
  const std::int64_t rows[] = {1, 1, 1, 2};
  require_same(out[1], make_tensor({4, 2}, [&](const Idx& i) { return vx.at({rows[i[0]], i[1]}); }));
  require_same(out[2], make_tensor({12}, [&](const Idx& i) {
                 const std::int64_t e = i[0] / 2;
                 return vx.at({e / 2, e % 2});
               }));
  require_same(out[3], out[1]);
  // Zero repeats and an empty axis.
  const auto none = f(Tensor::empty(f64, {0, 2}), Tensor::scalar(std::int64_t{0}), int_vector({}));
  CHECK(none[0].shape() == Shape{0, 0});
  CHECK(none[1].shape() == Shape{0, 2});
  CHECK_THROWS_AS(f(vx, Tensor::scalar(std::int64_t{-1}), int_vector({0, 3, 1})), ExecutionError);
  CHECK_THROWS_AS(f(vx, Tensor::scalar(std::int64_t{1}), int_vector({1, 1})), ExecutionError);

  CHECK(rw::repeat(rw::matrix("m", f64, 2, 3), 3, 1)->tensor_type()->shape() == StaticShape{2, 9});
  CHECK(rw::repeat(rw::matrix("m", f64, 2, 3), 3)->tensor_type()->shape() == StaticShape{18});
  CHECK_THROWS_WITH(rw::repeat(x, 2, 2), "`repeat{axis=2}`: axis 2 is out of range for input 0 (`x`) of rank 2");
  CHECK_THROWS_WITH(rw::repeat(x, rw::scalar("q")),
                    "`repeat{axis=none}`: input 1 (`q`) (repeats) is f64[], expected a 0-d or 1-d integer");
  CHECK_THROWS_AS(rw::repeat(x, -2, 0), TypeError);
}

TEST_CASE("tile repeats the whole tensor along each axis", "[ops]") {
  auto x = rw::matrix("x", i32);
  rw::Function f = rw::function({x}, {rw::tile(x, {2, 3}), rw::tile(x, {2, 1, 1}), rw::tile(x, {2}),
                                      rw::tile(x, {0, 1})});
  const Tensor vx = Tensor::from<std::int32_t>({{1, 2}, {3, 4}, {5, 6}});
  const auto out = f(vx);
  require_same(out[0], make_tensor({6, 6}, [&](const Idx& i) { return vx.at({i[0] % 3, i[1] % 2}); }).astype(i32));
  require_same(out[1], make_tensor({2, 3, 2}, [&](const Idx& i) { return vx.at({i[1], i[2]}); }).astype(i32));
  require_same(out[2], make_tensor({3, 4}, [&](const Idx& i) { return vx.at({i[0], i[1] % 2}); }).astype(i32));
  CHECK(out[3].shape() == Shape{0, 2});
  CHECK(!out[1].shares_storage(vx));
  CHECK(rw::tile(rw::matrix("m", f64, 2, kUnknownDim), {3, 0})->tensor_type()->shape() ==
        StaticShape{6, 0});
  CHECK_THROWS_WITH(rw::tile(x, {1, -1}), "`tile{reps=(1,-1)}`: a repetition count is negative");
}

TEST_CASE("roll shifts with wrap-around along an axis or the flattened tensor", "[ops]") {
  auto x = rw::matrix("x");
  auto s = rw::scalar("s", i64);
  rw::Function f = rw::function({x, s}, {rw::roll(x, s, 1), rw::roll(x, s), rw::roll(x, s, -2)});
  const Tensor vx = lcg_tensor({2, 3}, 4);
  for (std::int64_t shift : {0, 1, -1, 4, -7, 300}) {
    INFO("shift " << shift);
    const auto out = f(vx, Tensor::scalar(shift));
    auto wrap = [](std::int64_t i, std::int64_t n) { return ((i % n) + n) % n; };
    require_same(out[0], make_tensor({2, 3}, [&](const Idx& i) {
                   return vx.at({i[0], wrap(i[1] - shift, 3)});
                 }));
    require_same(out[1], make_tensor({2, 3}, [&](const Idx& i) {
                   const std::int64_t e = wrap(i[0] * 3 + i[1] - shift, 6);
                   return vx.at({e / 3, e % 3});
                 }));
    require_same(out[2], make_tensor({2, 3}, [&](const Idx& i) {
                   return vx.at({wrap(i[0] - shift, 2), i[1]});
                 }));
  }
  CHECK(f(Tensor::empty(f64, {2, 0}), Tensor::scalar(std::int64_t{3}))[0].shape() == Shape{2, 0});
  CHECK_THROWS_WITH(rw::roll(x, 1.5), "`roll{axis=none}`: input 1 (shift) is f64[], expected a 0-d integer");
  CHECK_THROWS_AS(rw::roll(x, 1, 3), TypeError);
}

TEST_CASE("squeeze, swapaxes, moveaxis and broadcast_to", "[ops]") {
  auto t = rw::tensor("t", f64, {2, 1, kUnknownDim, 1});
  CHECK(rw::squeeze(t)->tensor_type()->shape() == StaticShape{2, kUnknownDim});
  CHECK(rw::squeeze(t, std::vector<std::int64_t>{-1})->tensor_type()->shape() ==
        StaticShape{2, 1, kUnknownDim});
  CHECK(rw::swapaxes(t, 0, -2)->tensor_type()->shape() == StaticShape{kUnknownDim, 1, 2, 1});
  CHECK(rw::moveaxis(t, 0, -1)->tensor_type()->shape() == StaticShape{1, kUnknownDim, 1, 2});
  CHECK(rw::moveaxis(t, 3, 1)->tensor_type()->shape() == StaticShape{2, 1, 1, kUnknownDim});
  // An axis of unknown extent is checked at run time.
  rw::Function f = rw::function({t}, rw::squeeze(t, std::vector<std::int64_t>{2}));
  CHECK(f(Tensor::zeros({2, 1, 1, 1})).shape() == Shape{2, 1, 1});
  CHECK_THROWS_AS(f(Tensor::zeros({2, 1, 3, 1})), ExecutionError);
  CHECK_THROWS_WITH(rw::squeeze(t, std::vector<std::int64_t>{0}),
                    "`squeeze`: axis 0 of f64[2,1,?,1] has extent 2, expected 1");
  CHECK_THROWS_AS(rw::swapaxes(t, 0, 4), TypeError);

  auto v = rw::vector("v", f64, 3);
  auto n = rw::scalar("n", i64);
  rw::Function g = rw::function({v, n}, rw::broadcast_to(v, {n, 3}));
  const Tensor vv = Tensor::from({1.0, 2.0, 3.0});
  require_same(g(vv, Tensor::scalar(std::int64_t{2})),
               make_tensor({2, 3}, [&](const Idx& i) { return vv.at({i[1]}); }));
}

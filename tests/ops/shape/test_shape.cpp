// Shape and structure Ops through rw::function: dimshuffle, reshape, flatten,
// alloc, zeros/ones_like, shape, shape_i, make_vector, join, split, stack,
// specify_shape.
#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

TEST_CASE("dimshuffle transposes, adds and drops broadcastable axes as a view", "[ops]") {
  auto x = rw::tensor("x", f64, {kUnknownDim, 1, kUnknownDim});
  const Var d = rw::dimshuffle(x, {2, kNewAxis, 0});
  CHECK(d->type()->to_string() == "f64[?,1,?]");
  rw::Function f = rw::function({x}, d);
  const Tensor v = lcg_tensor({2, 1, 3}, 1);
  require_same(f(v), make_tensor({3, 1, 2}, [&](const Idx& i) { return v.at({i[2], 0, i[0]}); }));
  CHECK(d->owner()->op().view_map() == IoMap{{0, 0}});
  CHECK_THROWS_WITH(rw::dimshuffle(rw::matrix("m"), {0}),
                    Catch::Contains("dimshuffle{order=(0)}") && Catch::Contains("`m`"));
}

TEST_CASE("reshape with -1, flatten, shape and shape_i", "[ops]") {
  auto x = rw::matrix("x");
  auto n = rw::scalar("n", i64);
  rw::Function f = rw::function(
      {x, n}, {rw::reshape(x, {n, -1}), rw::flatten(x), rw::shape(x), rw::shape_i(x, 1)});
  const Tensor v = lcg_tensor({4, 6}, 2);
  auto [r, fl, s, s1] = f(v, Tensor::scalar(std::int64_t{3}));
  CHECK(r.shape() == Shape{3, 8});
  CHECK(r.at({2, 7}) == v.at({3, 5}));
  CHECK(fl.shape() == Shape{24});
  CHECK(fl.at({13}) == v.at({2, 1}));
  require_same(s, Tensor::from<std::int64_t>({4, 6}));
  CHECK(s1.item<std::int64_t>() == 6);
  // A reshape to another number of elements fails at run time, naming the op.
  CHECK_THROWS_AS(f(v, Tensor::scalar(std::int64_t{5})), ExecutionError);
  // Known statically: refused when the node is built.
  CHECK_THROWS_WITH(rw::reshape(rw::matrix("m", f64, 2, 3), {4, 2}),
                    "`reshape{ndim=2}`: cannot reshape input 0 (`m`) of shape (2, 3) (6 elements) "
                    "to (4, 2)");
}

TEST_CASE("alloc, fill, zeros_like and ones_like", "[ops]") {
  auto v = rw::tensor("v", f32, {1, kUnknownDim});
  auto n = rw::scalar("n", i64);
  rw::Function f = rw::function({v, n}, {rw::alloc(v, {n, 3}), rw::zeros_like(v),
                                         rw::ones_like(v, i8)});
  auto [a, z, o] = f(Tensor::from({{1.0f, 2.0f, 3.0f}}), Tensor::scalar(std::int64_t{2}));
  require_same(a, Tensor::from({{1.0f, 2.0f, 3.0f}, {1.0f, 2.0f, 3.0f}}));
  require_same(z, Tensor::from({{0.0f, 0.0f, 0.0f}}));
  require_same(o, Tensor::from<std::int8_t>({{1, 1, 1}}));
}

TEST_CASE("make_vector, join, split and stack", "[ops]") {
  auto a = rw::scalar("a", i32), b = rw::scalar("b", i64);
  auto x = rw::matrix("x"), y = rw::matrix("y", f32);
  const std::vector<Var> pieces = rw::split(x, {1, 2}, 1);
  rw::Function f = rw::function(
      {a, b, x, y}, {rw::make_vector({a, b, 7}), rw::concatenate({x, y}, 1), pieces[0], pieces[1],
                     rw::stack({x, x}, 2)});
  const Tensor vx = lcg_tensor({2, 3}, 3), vy = lcg_tensor({2, 1}, 4, -1, 1, f32);
  const auto out = f(Tensor::scalar(std::int32_t{5}), Tensor::scalar(std::int64_t{6}), vx, vy);
  require_same(out[0], Tensor::from<std::int64_t>({5, 6, 7}));
  CHECK(out[1].dtype() == f64);
  require_same(out[1], make_tensor({2, 4}, [&](const Idx& i) {
                 return i[1] < 3 ? vx.at(i) : vy.at({i[0], 0});
               }));
  require_same(out[2], make_tensor({2, 1}, [&](const Idx& i) { return vx.at(i); }));
  require_same(out[3], make_tensor({2, 2}, [&](const Idx& i) { return vx.at({i[0], i[1] + 1}); }));
  require_same(out[4], make_tensor({2, 3, 2}, [&](const Idx& i) { return vx.at({i[0], i[1]}); }));
}

TEST_CASE("specify_shape types its output and checks the value", "[ops]") {
  auto x = rw::matrix("x");
  const Var s = rw::specify_shape(x, {kUnknownDim, 2});
  CHECK(s->type()->to_string() == "f64[?,2]");
  rw::Function f = rw::function({x}, s);
  CHECK(f(Tensor::zeros({5, 2})).shape() == Shape{5, 2});
  CHECK_THROWS_AS(f(Tensor::zeros({5, 3})), ExecutionError);
}

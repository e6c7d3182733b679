// cumsum, cumprod and diff through rw::function against loops: axes
// (negative, none), dtypes, empty axes, orders past the extent, bad input.
#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

TEST_CASE("cumsum and cumprod scan an axis or the flattened tensor", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::cumsum(x, 1), rw::cumprod(x, -2), rw::cumsum(x)});
  const Tensor vx = lcg_tensor({3, 4}, 2);
  const auto out = f(vx);
  require_same(out[0], make_tensor({3, 4}, [&](const Idx& i) {
                 double s = 0;
                 for (std::int64_t k = 0; k <= i[1]; ++k) s += vx.at({i[0], k});
                 return s;
               }));
  require_same(out[1], make_tensor({3, 4}, [&](const Idx& i) {
                 double p = 1;
                 for (std::int64_t k = 0; k <= i[0]; ++k) p *= vx.at({k, i[1]});
                 return p;
               }));
  require_same(out[2], make_tensor({12}, [&](const Idx& i) {
                 double s = 0;
                 for (std::int64_t k = 0; k <= i[0]; ++k) s += vx.at({k / 4, k % 4});
                 return s;
               }));
  CHECK(f(Tensor::empty(f64, {0, 4}))[2].shape() == Shape{0});
  // Integers and bools accumulate in int64, as sum does.
  auto b = rw::vector("b", DType::Bool);
  CHECK(rw::cumsum(b)->tensor_type()->to_string() == "i64[?]");
  CHECK(rw::cumprod(rw::matrix("m", i8, 2, 3))->tensor_type()->to_string() == "i64[6]");
  rw::Function g = rw::function({b}, rw::cumsum(b));
  require_same(g(Tensor::from({true, false, true, true})), Tensor::from<std::int64_t>({1, 1, 2, 3}));
  CHECK_THROWS_WITH(rw::cumsum(x, 2), "`cumsum{axis=2}`: axis 2 is out of range for input 0 (`x`) of rank 2");
}

TEST_CASE("diff takes n-th differences along an axis", "[ops]") {
  auto x = rw::matrix("x", i32);
  rw::Function f = rw::function({x}, {rw::diff(x), rw::diff(x, 2, 0), rw::diff(x, 0), rw::diff(x, 9)});
  const Tensor vx = Tensor::from<std::int32_t>({{1, 4, 9, 16}, {2, 3, 5, 8}, {0, 0, 1, 0}});
  const auto out = f(vx);
  require_same(out[0], Tensor::from<std::int32_t>({{3, 5, 7}, {1, 2, 3}, {0, 1, -1}}));
  // Second difference along rows: x[2] - 2 x[1] + x[0].
  require_same(out[1], make_tensor({1, 4}, [&](const Idx& i) {
                 return vx.at({2, i[1]}) - 2 * vx.at({1, i[1]}) + vx.at({0, i[1]});
               }).astype(i32));
  require_same(out[2], vx);
  CHECK(out[3].shape() == Shape{3, 0});
  CHECK(rw::diff(rw::matrix("m", f64, 5, 2), 2, 0)->tensor_type()->shape() == StaticShape{3, 2});
  CHECK(rw::diff(rw::matrix("m", f64, 5, 2), 4)->tensor_type()->shape() == StaticShape{5, 0});
  CHECK_THROWS_WITH(rw::diff(rw::vector("v", DType::Bool)),
                    "`diff{n=1,axis=-1}`: input 0 (`v`) is bool[?], expected numbers");
  CHECK_THROWS_AS(rw::diff(x, -1), TypeError);
  CHECK_THROWS_AS(rw::diff(rw::scalar("s")), TypeError);
}

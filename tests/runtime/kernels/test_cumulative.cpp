// Cumulative sums and products against running loops.
#include <catch2/catch.hpp>

#include <vector>

#include "runtime/kernels/cumulative.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

TEST_CASE("cumsum and cumprod run along any axis or the flattened tensor", "[runtime]") {
  const Tensor x = Tensor::from({{1, 2, 3}, {4, 5, 6}});
  require_same(cumsum(x, 0), Tensor::from({{1, 2, 3}, {5, 7, 9}}).astype(i64));
  require_same(cumsum(x, -1), Tensor::from({{1, 3, 6}, {4, 9, 15}}).astype(i64));
  require_same(cumprod(x, 1), Tensor::from({{1, 2, 6}, {4, 20, 120}}).astype(i64));
  const Tensor flat = cumsum(x);
  REQUIRE(flat.shape() == Shape{6});
  REQUIRE(flat.at({5}) == 21);
  // The flattened order is that of the view.
  REQUIRE(cumsum(x.transpose()).at({1}) == 5);  // 1, then 4
  REQUIRE(cumsum(Tensor::from({true, true, false})).dtype() == i64);
  // A large strided float case, in parallel, against the running loop.
  const Tensor big = lcg_tensor({300, 200}, 61).transpose();  // (200, 300)
  const Tensor got = cumsum(big, 0);
  std::vector<double> run(300, 0.0);
  const Tensor want = make_tensor({200, 300}, [&](const Index& i) {
    run[static_cast<std::size_t>(i[1])] += big.at(i);
    return run[static_cast<std::size_t>(i[1])];
  });
  require_same(got, want);
  const Tensor f = cumprod(Tensor::from({0.5f, 2.0f, 4.0f}));
  REQUIRE(f.dtype() == f32);
  require_same(f, Tensor::from({0.5f, 1.0f, 4.0f}));
  REQUIRE(cumsum(Tensor::zeros({0, 3}), 1).shape() == Shape{0, 3});
  REQUIRE(cumsum(Tensor::scalar(2.0)).shape() == Shape{1});
  REQUIRE_THROWS_WITH(cumsum(x, 2), "axis 2 is out of range for a tensor of 2 dimensions");
}

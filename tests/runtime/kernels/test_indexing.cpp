// Joining, splitting, gather, scatter and view writes against hand-written loops.
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/indexing.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::for_each_index;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;
using V = std::vector<std::int64_t>;

namespace {
Tensor i64s(std::vector<std::int64_t> v, V shape) {
  return Tensor::from_vector(v, shape);
}
Tensor i64s(std::vector<std::int64_t> v) {
  const V shape = {static_cast<std::int64_t>(v.size())};
  return Tensor::from_vector(v, shape);
}
}  // namespace

TEST_CASE("concatenate and stack join along any axis with promotion", "[runtime]") {
  const Tensor a = lcg_tensor({2, 3}, 41), b = lcg_tensor({4, 3}, 42).astype(f32);
  const Tensor b2 = b.slice(0, 0, 2);
  const Tensor c = concatenate(std::vector<Tensor>{a, b, Tensor::zeros({0, 3})}, 0);
  REQUIRE(c.dtype() == f64);
  require_same(c, make_tensor({6, 3}, [&](const Index& i) {
                 return i[0] < 2 ? a.at(i) : b.at({i[0] - 2, i[1]});
               }));
  const Tensor d = concatenate(std::vector<Tensor>{a, a.transpose().transpose()}, -1);
  require_same(d, make_tensor({2, 6}, [&](const Index& i) { return a.at({i[0], i[1] % 3}); }));
  const Tensor s = stack(std::vector<Tensor>{a, b2}, 1);
  REQUIRE(s.shape() == Shape{2, 2, 3});
  REQUIRE(s.at({1, 1, 2}) == b.at({1, 2}));
  REQUIRE(s.at({1, 0, 2}) == a.at({1, 2}));
  const Tensor st = stack(
      std::vector<Tensor>{Tensor::from({1, 2}), Tensor::from({3, 4}), Tensor::from({5, 6})}, 1);
  require_same(st, Tensor::from({{1, 3, 5}, {2, 4, 6}}));
  require_same(stack(std::vector<Tensor>{Tensor::from({1, 2}), Tensor::from({3, 4})}),
               Tensor::from({{1, 2}, {3, 4}}));
  REQUIRE_THROWS_WITH(
      concatenate(std::vector<Tensor>{a, Tensor::zeros({2, 4})}, 0),
      "`concatenate` along axis 0: tensor 1 has shape (2, 4) but tensor 0 has (2, 3); "
      "all other axes must match");
  REQUIRE_THROWS_WITH(concatenate(std::vector<Tensor>{a, Tensor::zeros({3})}, 0),
                      "`concatenate`: tensor 1 has 1 dimensions, tensor 0 has 2");
  REQUIRE_THROWS_WITH(concatenate(std::vector<Tensor>{a}, 2),
                      "axis 2 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(concatenate(std::vector<Tensor>{}),
                      "`concatenate` needs at least one tensor");
  REQUIRE_THROWS_WITH(
      stack(std::vector<Tensor>{Tensor::zeros({2}), Tensor::zeros({3})}),
      "`stack`: tensor 1 has shape (3,) but tensor 0 has (2,); stacked tensors need one shape");
}

TEST_CASE("split returns views of the pieces", "[runtime]") {
  const Tensor x = lcg_tensor({3, 7}, 43);
  const std::vector<std::int64_t> sizes = {2, 0, 5};
  const std::vector<Tensor> parts = split(x, sizes, 1);
  REQUIRE(parts.size() == 3);
  REQUIRE(parts[0].shape() == Shape{3, 2});
  REQUIRE(parts[1].shape() == Shape{3, 0});
  REQUIRE(parts[2].shares_storage(x));
  REQUIRE(parts[2].at({1, 0}) == x.at({1, 2}));
  require_same(concatenate(parts, 1), x);
  const std::vector<std::int64_t> bad = {2, 2};
  REQUIRE_THROWS_WITH(split(x, bad, 1), "`split`: sizes (2, 2) sum to 4, axis 1 has length 7");
}

TEST_CASE("take gathers along an axis with negative indices and any layout", "[runtime]") {
  const Tensor x = lcg_tensor({4, 5, 3}, 44);
  const Tensor idx = i64s({3, -1, 0, 3, 2, -5}, {2, 3});
  for (const Tensor& view :
       {x, x.transpose().copy().transpose(), x.slice(1, 4, -6, -1).copy().slice(1, 4, -6, -1)}) {
    const Tensor g = take(view, idx, 1);
    REQUIRE(g.shape() == Shape{4, 2, 3, 3});
    require_same(g, make_tensor({4, 2, 3, 3}, [&](const Index& i) {
                   auto k = static_cast<std::int64_t>(idx.at({i[1], i[2]}));
                   if (k < 0) k += 5;
                   return view.at({i[0], k, i[3]});
                 }));
  }
  const Tensor rows = take(Tensor::from({{1, 2}, {3, 4}, {5, 6}}), Tensor::from({2, 0, 2}));
  require_same(rows, Tensor::from({{5, 6}, {1, 2}, {5, 6}}));
  require_same(take(Tensor::from({10.0, 20.0, 30.0}), Tensor::from({std::uint8_t{2}}), -1),
               Tensor::from({30.0}));
  // Large enough to run in parallel: the last axis of a transposed tensor.
  const Tensor big = lcg_tensor({300, 400}, 45).transpose();
  const Tensor bi = i64s({299, 0, 7, 7});
  const Tensor bg = take(big, bi, 1);
  require_same(bg, make_tensor({400, 4}, [&](const Index& i) {
                 return big.at({i[0], static_cast<std::int64_t>(bi.at({i[1]}))});
               }));
  REQUIRE_THROWS_WITH(take(x, i64s({5}), 1), "index 5 is out of bounds for axis 1 with size 5");
  REQUIRE_THROWS_WITH(take(x, i64s({-6}), -2), "index -6 is out of bounds for axis 1 with size 5");
  REQUIRE_THROWS_WITH(take(x, Tensor::from({1.0}), 0),
                      "`take`: indices must be integers, got float64");
  REQUIRE_THROWS_WITH(take(x, Tensor::from({true}), 0),
                      "`take`: indices must be integers, got bool");
}

TEST_CASE("scatter_add accumulates repeated indices; scatter_set keeps the last", "[runtime]") {
  Tensor t = Tensor::zeros({4, 2});
  const Tensor idx = Tensor::from({0, 2, 0, -1});
  const Tensor vals = Tensor::from({{1.0, 2.0}, {3.0, 4.0}, {5.0, 6.0}, {7.0, 8.0}});
  scatter_add(t, idx, vals);
  require_same(t, Tensor::from({{6.0, 8.0}, {0.0, 0.0}, {3.0, 4.0}, {7.0, 8.0}}));
  scatter_set(t, idx, vals);
  require_same(t, Tensor::from({{5.0, 6.0}, {0.0, 0.0}, {3.0, 4.0}, {7.0, 8.0}}));
  // Along axis 1 of a strided target, values broadcast and converted.
  Tensor buf = Tensor::zeros({3, 8}, i32);
  Tensor target = buf.slice(1, 0, 8, 2);  // (3, 4), stride 2
  scatter_add(target, Tensor::from({3, 3, 1}), Tensor::scalar(1.5), 1);
  require_same(
      buf,
      Tensor::from({{0, 0, 1, 0, 0, 0, 2, 0}, {0, 0, 1, 0, 0, 0, 2, 0}, {0, 0, 1, 0, 0, 0, 2, 0}}));
  // The loop reference on a larger, parallel case.
  Tensor big = lcg_tensor({50, 600}, 46);
  const Tensor big0 = big.copy();
  const Tensor bidx = Tensor::from({49, 3, 49, 0, 3});
  const Tensor bvals = lcg_tensor({5, 600}, 47);
  scatter_add(big, bidx, bvals, 0);
  Tensor want = big0.copy();
  double* w = want.data<double>();
  for (std::int64_t j = 0; j < 5; ++j)
    for (std::int64_t i = 0; i < 600; ++i)
      w[static_cast<std::int64_t>(bidx.at({j})) * 600 + i] += bvals.at({j, i});
  require_same(big, want);
  // Refusals leave the target as it was.
  const Tensor before = t.copy();
  REQUIRE_THROWS_WITH(scatter_add(t, Tensor::from({4}), vals.slice(0, 0, 1)),
                      "index 4 is out of bounds for axis 0 with size 4");
  REQUIRE_THROWS_WITH(scatter_add(t, idx, Tensor::zeros({3})),
                      "`scatter_add`: a value of shape (3,) cannot be broadcast to (4, 2)");
  REQUIRE(t.equal(before));
}

TEST_CASE("copy_into and add_into write views; alloc and fill", "[runtime]") {
  Tensor x = Tensor::zeros({3, 4});
  Tensor rows = x.slice(0, 1, 3);
  copy_into(rows, Tensor::from({1, 2, 3, 4}));  // set_subtensor, broadcast and cast
  Tensor col = x.select(1, 0);
  add_into(col, Tensor::scalar(10.0));  // inc_subtensor on a strided view
  require_same(x,
               Tensor::from({{10.0, 0.0, 0.0, 0.0}, {11.0, 2.0, 3.0, 4.0}, {11.0, 2.0, 3.0, 4.0}}));
  Tensor ints = Tensor::from({1, 2});
  add_into(ints, Tensor::from({0.7, -0.7}));  // converted to int32 first: 0 and 0
  require_same(ints, Tensor::from({1, 2}));
  REQUIRE_THROWS_WITH(copy_into(rows, Tensor::zeros({3})),
                      "`copy_into`: a value of shape (3,) cannot be broadcast to (2, 4)");
  const Tensor a = alloc(Tensor::from({1.0, 2.0}), {3, 2});
  require_same(a, Tensor::from({{1.0, 2.0}, {1.0, 2.0}, {1.0, 2.0}}));
  REQUIRE(a.is_contiguous());
  REQUIRE_THROWS_WITH(alloc(Tensor::from({1.0, 2.0}), {3}),
                      "`alloc`: a value of shape (2,) cannot be broadcast to (3,)");
  Tensor f = Tensor::zeros({2, 3}, i8);
  Tensor fv = f.slice(1, 1, 3);
  fill(fv, 300.0);  // saturates like every conversion to int8
  require_same(f, Tensor::from({{std::int8_t{0}, std::int8_t{127}, std::int8_t{127}},
                                {std::int8_t{0}, std::int8_t{127}, std::int8_t{127}}}));
}

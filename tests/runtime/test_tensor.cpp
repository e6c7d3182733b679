// Tensor core: creation, views, copies, comparison, printing.
#include <catch2/catch.hpp>

#include "runtime/tensor.hpp"

using namespace rw;

TEST_CASE("tensors are created with dtype and shape", "[runtime]") {
  Tensor z = Tensor::zeros({2, 3});
  REQUIRE(z.dtype() == f64);
  REQUIRE(z.shape() == Shape{2, 3});
  REQUIRE(z.strides() == Strides{3, 1});
  REQUIRE(z.size() == 6);
  REQUIRE(z.is_contiguous());
  REQUIRE(Tensor::full(std::vector<std::int64_t>{2}, 7, i32).at({1}) == 7);
  REQUIRE(Tensor::scalar(2.5).item<double>() == 2.5);
  REQUIRE_THROWS_WITH(Tensor::empty(f64, {2, -1}), Catch::Contains("negative dimension"));
  REQUIRE_THROWS_WITH(z.data<float>(), Catch::Contains("holds float64 elements, not float32"));
}

TEST_CASE("views share storage and copies do not", "[runtime]") {
  Tensor m = Tensor::from({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor t = m.transpose();
  REQUIRE(t.shape() == Shape{3, 2});
  REQUIRE(t.shares_storage(m));
  REQUIRE_FALSE(t.is_contiguous());
  REQUIRE(t.at({2, 1}) == 6.0);
  Tensor c = t.copy();
  REQUIRE(c.is_contiguous());
  REQUIRE_FALSE(c.shares_storage(m));
  REQUIRE(c.equal(t));
  Tensor rev = m.slice(1, -1, -4, -1);  // columns reversed
  REQUIRE(rev.shape() == Shape{2, 3});
  REQUIRE(rev.at({0, 0}) == 3.0);
  REQUIRE(rev.at({1, 2}) == 4.0);
  Tensor step = m.slice(1, 0, 3, 2);
  REQUIRE(step.shape() == Shape{2, 2});
  REQUIRE(step.at({1, 1}) == 6.0);
  Tensor b = Tensor::from({1.0, 2.0}).expand_dims(1).broadcast_to(std::vector<std::int64_t>{2, 4});
  REQUIRE(b.strides()[1] == 0);
  REQUIRE(b.at({1, 3}) == 2.0);
  REQUIRE(m.reshape(std::vector<std::int64_t>{3, -1}).at({2, 1}) == 6.0);
  REQUIRE_THROWS_WITH(m.reshape(std::vector<std::int64_t>{4, -1}), Catch::Contains("cannot reshape"));
  REQUIRE(m.select(0, 1).at({2}) == 6.0);
}

TEST_CASE("dtype promotion follows NumPy", "[runtime]") {
  REQUIRE(promote(i32, f32) == f64);
  REQUIRE(promote(i16, f32) == f32);
  REQUIRE(promote(u8, i8) == i16);
  REQUIRE(promote(b8, i8) == i8);
  REQUIRE(promote(i64, f64) == f64);
  REQUIRE(promote(u8, i64) == i64);
  REQUIRE(parse_dtype("float32") == f32);
  REQUIRE(parse_dtype("i64") == i64);
  REQUIRE_FALSE(parse_dtype("complex"));
}

TEST_CASE("tensors print like NumPy and hash by content", "[runtime]") {
  REQUIRE(Tensor::from({{1.0, 2.5}, {3.0, 4.0}}).to_string() == "[[ 1. 2.5]\n [ 3.  4.]]");
  REQUIRE(Tensor::from({1, 2, 3}).to_string() == "[1 2 3]");
  Tensor a = Tensor::from({0.0, 1.0}), b = Tensor::from({-0.0, 1.0});
  REQUIRE(a.content_hash() == b.content_hash());
  REQUIRE(allclose(a, Tensor::from({1e-9, 1.0})));
  REQUIRE_FALSE(allclose(a, Tensor::from({1e-3, 1.0})));
}

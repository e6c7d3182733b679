// Tensor core: creation, views, copies, comparison, printing.
#include <algorithm>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/detail/asan.hpp"
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
  // Conversions are defined everywhere: saturating, NaN to 0.
  REQUIRE(Tensor::scalar(1e30).item<int>() == std::numeric_limits<int>::max());
  REQUIRE(Tensor::scalar(std::numeric_limits<double>::quiet_NaN()).item<std::int64_t>() == 0);
  REQUIRE(Tensor::full(std::vector<std::int64_t>{1}, -1e30, i8).at({0}) == -128);
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
  // A contiguous copy (whole, or a contiguous slice at an offset) is a new
  // block holding the same elements; changing it leaves the original alone.
  Tensor whole = m.copy();
  REQUIRE_FALSE(whole.shares_storage(m));
  REQUIRE(whole.equal(m));
  Tensor row = m.slice(0, 1, 2, 1);
  REQUIRE(row.is_contiguous());
  Tensor row_copy = row.copy();
  REQUIRE(row_copy.shape() == Shape{1, 3});
  REQUIRE(row_copy.at({0, 0}) == 4.0);
  row_copy.data<double>()[0] = -1.0;
  REQUIRE(m.at({1, 0}) == 4.0);
  REQUIRE(Tensor::empty(DType::Int32, {0, 3}).copy().shape() == Shape{0, 3});
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

TEST_CASE("tensors hash by content and compare exactly or approximately", "[runtime]") {
  Tensor a = Tensor::from({0.0, 1.0}), b = Tensor::from({-0.0, 1.0});
  REQUIRE(a.content_hash() == b.content_hash());
  REQUIRE(a.equal(b));
  REQUIRE(allclose(a, Tensor::from({1e-9, 1.0})));
  REQUIRE_FALSE(allclose(a, Tensor::from({1e-3, 1.0})));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor n = Tensor::from({nan, 1.0});
  REQUIRE_FALSE(n.equal(n));  // NaN never equals NaN
  REQUIRE_FALSE(allclose(n, n));
  REQUIRE(allclose(n, n, 1e-5, 1e-8, true));
  REQUIRE(allclose(Tensor::from({inf, 1.0}), Tensor::from({inf, 1.0})));
  REQUIRE_FALSE(allclose(Tensor::from({inf}), Tensor::from({-inf})));
  // rtol scales with the second operand: |a - b| <= atol + rtol |b|.
  REQUIRE(allclose(Tensor::from({100.0}), Tensor::from({100.0009}), 1e-5, 0.0));
  REQUIRE_FALSE(allclose(Tensor::from({100.0}), Tensor::from({100.002}), 1e-5, 0.0));
  // Dtypes may differ; shapes may not (no broadcasting); views compare by value.
  REQUIRE(allclose(Tensor::from({1, 2}), Tensor::from({1.0, 2.0})));
  REQUIRE_FALSE(allclose(Tensor::from({1.0}), Tensor::from({1.0, 1.0})));
  const Tensor m = Tensor::from({{1.0, 2.0}, {3.0, 4.0}});
  REQUIRE(m.transpose().equal(Tensor::from({{1.0, 3.0}, {2.0, 4.0}})));
  REQUIRE_FALSE(m.equal(m.astype(f32)));
  REQUIRE(allclose(Tensor::zeros({0}), Tensor::zeros({0})));
}

TEST_CASE("arange and nested lists build tensors", "[runtime]") {
  REQUIRE(Tensor::arange(5).equal(Tensor::arange(0, 5, 1, i64)));
  REQUIRE(Tensor::arange(5).at({4}) == 4);
  REQUIRE(Tensor::arange(5).dtype() == i64);
  REQUIRE(Tensor::arange(0).shape() == Shape{0});
  REQUIRE(Tensor::arange(-3).shape() == Shape{0});
  const Tensor f = Tensor::arange(0.0, 1.0, 0.25);
  REQUIRE(f.equal(Tensor::from({0.0, 0.25, 0.5, 0.75})));
  REQUIRE(Tensor::arange(1, 2, 0.1).size() == 10);  // ceil((2 - 1) / 0.1) as NumPy
  REQUIRE(Tensor::arange(10, 0, -3, i32).equal(Tensor::from({10, 7, 4, 1})));
  REQUIRE(Tensor::arange(0, 1, -1).size() == 0);
  REQUIRE(Tensor::arange(0, 3, 1, f32).dtype() == f32);
  REQUIRE_THROWS_WITH(Tensor::arange(0, 1, 0), "Tensor::arange: step must not be zero");
  REQUIRE_THROWS_WITH(Tensor::arange(0, std::numeric_limits<double>::infinity()),
                      "Tensor::arange: bounds must be finite, got start 0 stop inf step 1");

  REQUIRE(Tensor::eye(2, 3, 1).equal(Tensor::from({{0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}})));
  REQUIRE(Tensor::eye(3, 2, -1, i32).equal(Tensor::from({{0, 0}, {1, 0}, {0, 1}})));
  REQUIRE(Tensor::eye(2, 2, 5).equal(Tensor::zeros({2, 2})));
  REQUIRE_THROWS_WITH(Tensor::eye(-1, 2), "Tensor::eye: negative size -1 x 2");

  const Tensor t3 = Tensor::from({{{1, 2}, {3, 4}, {5, 6}}, {{7, 8}, {9, 10}, {11, 12}}});
  REQUIRE(t3.shape() == Shape{2, 3, 2});
  REQUIRE(t3.dtype() == i32);
  REQUIRE(t3.at({1, 2, 0}) == 11);
  REQUIRE(t3.at({0, 1, 1}) == 4);
  REQUIRE_THROWS_WITH(Tensor::from({{1.0, 2.0}, {3.0}}),
                      "Tensor::from: row 1 has 1 elements, row 0 has 2");
  REQUIRE_THROWS_WITH(Tensor::from({{{1, 2}}, {{3, 4}, {5, 6}}}),
                      "Tensor::from: block 1 has 2 rows, block 0 has 1");
  REQUIRE_THROWS_WITH(Tensor::from({{{1, 2}, {3}}}),
                      "Tensor::from: row 1 of block 0 has 1 elements, rows have 2");
}

TEST_CASE("a shape whose extents multiply beyond int64 is refused everywhere", "[runtime]") {
  const std::int64_t huge = (std::int64_t{1} << 62) + 1;
  const std::int64_t big = std::int64_t{1} << 32;
  // (4, 2^62 + 1) wraps to 4 elements, (2^32, 2^32) to 0.
  REQUIRE_THROWS_WITH(Tensor::empty(f64, {4, huge}),
                      Catch::Contains("(4, 4611686018427387905)") &&
                          Catch::Contains("too many elements"));
  REQUIRE_THROWS_WITH(Tensor::zeros({big, big}), Catch::Contains("too many elements"));
  REQUIRE_THROWS_WITH(Tensor::full(std::vector<std::int64_t>{big, big}, 1.0),
                      Catch::Contains("too many elements"));
  // A zero extent does not excuse the others.
  REQUIRE_THROWS_AS(Tensor::empty(f64, {0, big, big}), rw::ValueError);
  // Elements that fit an int64 but whose bytes do not fit a size_t.
  REQUIRE_THROWS_WITH(Tensor::empty(f64, {std::int64_t{1} << 61, 2}),
                      Catch::Contains("too many elements"));
  REQUIRE_THROWS_AS(shape_size(std::vector<std::int64_t>{big, big}), rw::ValueError);
  // Views: a broadcast of one element, a reshape.
  const Tensor one = Tensor::zeros({1, 1});
  REQUIRE_THROWS_WITH(one.broadcast_to(std::vector<std::int64_t>{big, big}),
                      Catch::Contains("too many elements"));
  const Tensor empty = Tensor::zeros({0});
  REQUIRE_THROWS_AS(empty.reshape(std::vector<std::int64_t>{0, big, big}), rw::ValueError);
  REQUIRE_THROWS_AS(empty.reshape(std::vector<std::int64_t>{-1, big, big}), rw::ValueError);
  // The largest shapes that fit are still counted exactly.
  REQUIRE(shape_size(std::vector<std::int64_t>{std::int64_t{1} << 31, std::int64_t{1} << 31}) ==
          std::int64_t{1} << 62);
  REQUIRE(shape_size(std::vector<std::int64_t>{}) == 1);
  REQUIRE(shape_size(std::vector<std::int64_t>{3, 0, 5}) == 0);
}

TEST_CASE("freed large storages are kept for the next of their size, up to a bound", "[runtime]") {
  release_cached_storage();
  REQUIRE(cached_storage_bytes() == 0);
  constexpr std::int64_t kMiB = 1 << 20;
  const void* first = nullptr;
  {
    Tensor a = Tensor::empty(DType::Float64, {6 * kMiB / 8});
    std::fill_n(a.data<double>(), a.size(), 1.0);
    first = a.raw_data();
  }
  REQUIRE(first != nullptr);
#ifdef RW_ASAN
  // AddressSanitizer builds keep nothing: a use after free stays visible.
  CHECK(cached_storage_bytes() == 0);
#else
  CHECK(cached_storage_bytes() == static_cast<std::size_t>(6 * kMiB));
  {
    // The same size takes the kept block; zeros() still zeroes it.
    const Tensor b = Tensor::zeros({6 * kMiB / 8}, DType::Float64);
    CHECK(b.raw_data() == first);
    CHECK(cached_storage_bytes() == 0);
    CHECK(std::all_of(b.data<double>(), b.data<double>() + b.size(),
                      [](double v) { return v == 0.0; }));
    // Another size does not.
    const Tensor c = Tensor::empty(DType::Float64, {8 * kMiB / 8});
    CHECK(c.raw_data() != first);
  }
  CHECK(cached_storage_bytes() == static_cast<std::size_t>(14 * kMiB));
  // Small storages are not kept.
  { const Tensor small = Tensor::empty(DType::Float64, {1000}); }
  CHECK(cached_storage_bytes() == static_cast<std::size_t>(14 * kMiB));
  // At most 512 MiB are kept, the oldest let go first (untouched blocks:
  // address space, not memory).
  {
    std::vector<Tensor> many;
    for (int i = 0; i < 9; ++i) many.push_back(Tensor::empty(DType::UInt8, {64 * kMiB}));
  }
  CHECK(cached_storage_bytes() == static_cast<std::size_t>(512 * kMiB));
  { const Tensor huge = Tensor::empty(DType::UInt8, {600 * kMiB}); }
  CHECK(cached_storage_bytes() == static_cast<std::size_t>(512 * kMiB));
#endif
  const std::size_t held = cached_storage_bytes();
  CHECK(release_cached_storage() == held);
  CHECK(cached_storage_bytes() == 0);
}

// SmallVec: growing past the inline capacity keeps the elements.
#include <catch2/catch.hpp>

#include "runtime/small_vec.hpp"

using rw::SmallVec;

TEST_CASE("a small vector keeps its elements when it outgrows its inline buffer", "[runtime]") {
  SmallVec<int, 4> v;
  for (int i = 0; i < 100; ++i) {
    v.push_back(i);
    REQUIRE(v.size() == static_cast<std::size_t>(i + 1));
  }
  for (int i = 0; i < 100; ++i) REQUIRE(v[i] == i);
  SmallVec<int, 4> moved = std::move(v);
  REQUIRE(moved.size() == 100);
  REQUIRE(moved[99] == 99);
  SmallVec<int, 2> w{1, 2};
  w.reserve(10);
  REQUIRE(w.size() == 2);
  REQUIRE(w[1] == 2);
  w.insert(w.begin(), 0);
  REQUIRE(w == SmallVec<int, 2>{0, 1, 2});
}

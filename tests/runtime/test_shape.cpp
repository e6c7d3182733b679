// Broadcasting and axis normalisation.
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/shape.hpp"

using namespace rw;

TEST_CASE("shapes broadcast as in NumPy", "[runtime]") {
  using V = std::vector<std::int64_t>;
  REQUIRE(broadcast_shapes(V{2, 3}, V{3}) == Shape{2, 3});
  REQUIRE(broadcast_shapes(V{2, 1}, V{1, 3}) == Shape{2, 3});
  REQUIRE(broadcast_shapes(V{}, V{4}) == Shape{4});
  REQUIRE(broadcast_shapes(V{0, 1}, V{1, 5}) == Shape{0, 5});
  REQUIRE(broadcast_shapes(V{4, 1, 3}, V{2, 1}) == Shape{4, 2, 3});
  REQUIRE_THROWS_WITH(broadcast_shapes(V{2, 3}, V{4}),
                      "shapes (2, 3) and (4,) cannot be broadcast");
  REQUIRE_THROWS_WITH(broadcast_shapes(V{0}, V{2}), "shapes (0,) and (2,) cannot be broadcast");
  const std::vector<Shape> many = {Shape{2, 1}, Shape{1, 3}, Shape{4}};
  REQUIRE_THROWS_WITH(broadcast_shapes(many), "shapes (1, 3) and (4,) cannot be broadcast");
  const std::vector<Shape> ok = {Shape{2, 1}, Shape{1, 3}, Shape{3}};
  REQUIRE(broadcast_shapes(ok) == Shape{2, 3});
}

TEST_CASE("axes are normalised and checked", "[runtime]") {
  REQUIRE(normalize_axis(-1, 3) == 2);
  REQUIRE(normalize_axis(0, 1) == 0);
  REQUIRE_THROWS_WITH(normalize_axis(3, 2), "axis 3 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(normalize_axis(-3, 2),
                      "axis -3 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(normalize_axis(0, 0), "axis 0 is out of range for a tensor of 0 dimensions");
  const std::vector<std::int64_t> axes = {1, -1};
  REQUIRE_THROWS_WITH(normalize_axes(axes, 2), "axis 1 appears twice in the axes (1, -1)");
  const std::vector<std::int64_t> good = {-1, 0};
  REQUIRE(normalize_axes(good, 3) == SmallVec<std::int64_t, 6>{2, 0});
}

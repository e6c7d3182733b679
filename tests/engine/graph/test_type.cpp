// TensorType and the type contract.
#include <catch2/catch.hpp>

#include "engine/graph/errors.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"

using namespace rw;

TEST_CASE("tensor types compare by dtype and static shape", "[graph]") {
  auto a = TensorType::make(f64, {kUnknownDim, 3});
  auto b = TensorType::make(f64, {kUnknownDim, 3});
  auto c = TensorType::make(f32, {kUnknownDim, 3});
  auto d = TensorType::make(f64, {2, 3});
  REQUIRE(*a == *b);
  REQUIRE(a->hash() == b->hash());
  REQUIRE_FALSE(*a == *c);
  REQUIRE_FALSE(*a == *d);
  REQUIRE(a->to_string() == "f64[?,3]");
  REQUIRE(TensorType::make(i32, {})->to_string() == "i32[]");
  REQUIRE_FALSE(*a == *DisconnectedType::make());
}

TEST_CASE("broadcastable axes are those of static extent 1", "[graph]") {
  auto t = TensorType::make(f64, {1, kUnknownDim, 1, 4});
  REQUIRE(t->broadcastable() == std::vector<bool>{true, false, true, false});
  REQUIRE_FALSE(t->shape_known());
  REQUIRE(TensorType::make(f64, {2, 3})->shape_known());
}

TEST_CASE("is_super relates general and specific types", "[graph]") {
  auto general = TensorType::make(f64, {kUnknownDim, 3});
  auto specific = TensorType::make(f64, {5, 3});
  REQUIRE(general->is_super(*specific));
  REQUIRE_FALSE(specific->is_super(*general));
  REQUIRE(general->is_super(*general));
  REQUIRE_FALSE(general->is_super(*TensorType::make(f32, {5, 3})));
  REQUIRE_FALSE(general->is_super(*TensorType::make(f64, {5})));
  Var v = Variable::make(specific, "v");
  REQUIRE(general->convert_variable(v) == v);
  REQUIRE_FALSE(specific->convert_variable(Variable::make(general)));
}

TEST_CASE("filter accepts, converts or refuses values with a reason", "[graph]") {
  auto t = TensorType::make(f64, {kUnknownDim, 2});
  Tensor ok = Tensor::zeros({3, 2});
  REQUIRE(t->filter(ok).shares_storage(ok));
  REQUIRE(t->is_valid_value(ok));

  Tensor ints = Tensor::zeros({3, 2}, i32);
  REQUIRE_FALSE(t->is_valid_value(ints));
  REQUIRE(t->filter(ints).dtype() == f64);  // int32 → float64 is lossless
  REQUIRE_THROWS_WITH(t->filter(ints, /*strict=*/true), Catch::Contains("dtype must match"));

  REQUIRE_THROWS_WITH(t->filter(Tensor::zeros({3, 3})),
                      Catch::Contains("axis 1 has length 3, not 2"));
  REQUIRE_THROWS_WITH(t->filter(Tensor::zeros({3})), Catch::Contains("1 dimensions instead of 2"));

  auto f32t = TensorType::make(f32, {kUnknownDim});
  REQUIRE_THROWS_WITH(f32t->filter(Tensor::zeros({2})), Catch::Contains("may lose precision"));
  REQUIRE(f32t->filter(Tensor::zeros({2}), false, /*allow_downcast=*/true).dtype() == f32);
}

TEST_CASE("gradient marker types hold no values", "[graph]") {
  auto n = NullType::make("integer output");
  REQUIRE(n->to_string() == "null(integer output)");
  REQUIRE(*n == *NullType::make("integer output"));
  REQUIRE_FALSE(*n == *NullType::make("other"));
  REQUIRE_THROWS_AS(n->filter(Tensor::zeros({1}), false, false), TypeError);
  REQUIRE_THROWS_AS(DisconnectedType::make()->filter(Tensor::zeros({1}), false, false),
                    TypeError);
}

TEST_CASE("a static shape whose extents multiply beyond int64 is refused", "[graph]") {
  const std::int64_t huge = (std::int64_t{1} << 62) + 1;
  REQUIRE_THROWS_AS(TensorType::make(DType::Float64, {4, huge}), TypeError);
  REQUIRE_THROWS_WITH(TensorType::make(DType::Float64, {4, huge}),
                      Catch::Contains("f64[4,4611686018427387905]") &&
                          Catch::Contains("too many elements"));
  // Unknown extents do not count; known ones that fit are fine.
  REQUIRE(TensorType::make(DType::Float64, {kUnknownDim, std::int64_t{1} << 62})->ndim() == 2);
  REQUIRE_THROWS_AS(TensorType::make(DType::Float64, {kUnknownDim, 1 << 20, 1 << 20, 1 << 30}),
                    TypeError);
}

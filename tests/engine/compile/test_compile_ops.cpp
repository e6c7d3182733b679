// deep_copy and view: nodes, perform, shapes, gradients, identity, registry.
#include <catch2/catch.hpp>

#include "engine/compile/compile_ops.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op_registry.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("deep_copy makes an independent copy of its input's type", "[compile]") {
  Var x = ftensor("x", {2, kUnknownDim});
  Var c = deep_copy(x);
  REQUIRE(c->type()->equals(*x->type()));
  REQUIRE(c->owner()->op() == *deep_copy_op());
  REQUIRE(*std::make_shared<DeepCopyOp>() == *deep_copy_op());
  REQUIRE(deep_copy_op()->to_string() == "deep_copy");
  REQUIRE(deep_copy_op()->props().empty());
  REQUIRE(deep_copy_op()->view_map().empty());
  REQUIRE(deep_copy_op()->destroy_map().empty());
  REQUIRE_FALSE(*deep_copy_op() == *view_op());
  REQUIRE_THROWS_WITH((*deep_copy_op())({x, x}), "`deep_copy` takes 1 input, got 2");

  const Tensor in = Tensor::from({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  Tensor out[1];
  deep_copy_op()->perform(*c->owner(), std::span(&in, 1), out);
  REQUIRE(out[0].equal(in));
  REQUIRE_FALSE(out[0].shares_storage(in));

  // A fitting buffer already in the output slot is written into.
  Tensor slot[1] = {Tensor::zeros({2, 3})};
  const void* buffer = slot[0].storage().get();
  deep_copy_op()->perform(*c->owner(), std::span(&in, 1), slot);
  REQUIRE(slot[0].storage().get() == buffer);
  REQUIRE(slot[0].equal(in));
  // A transposed (non-contiguous) input is copied element by element.
  const Tensor t = in.transpose();
  Tensor tslot[1] = {Tensor::zeros({3, 2})};
  deep_copy_op()->perform(*c->owner(), std::span(&t, 1), tslot);
  REQUIRE(tslot[0].at({0, 1}) == 4.0);
  REQUIRE(tslot[0].at({2, 0}) == 3.0);
  // One that does not fit is replaced.
  Tensor small[1] = {Tensor::zeros({1})};
  deep_copy_op()->perform(*c->owner(), std::span(&in, 1), small);
  REQUIRE(small[0].equal(in));
}

TEST_CASE("deep_copy has the input's shape and passes gradients through", "[compile]") {
  Var x = fvec("x");
  Var c = deep_copy(x);
  const ShapeVars shape{Variable::make(TensorType::make(i64, {}), "n")};
  const auto shapes = deep_copy_op()->infer_shape(*c->owner(), std::span(&shape, 1));
  REQUIRE(shapes.size() == 1);
  REQUIRE(shapes[0] == shape);
  const Var g = fvec("g");
  const std::vector<Var> grads = deep_copy_op()->grad(*c->owner(), std::vector<Var>{g});
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0] == g);
}

TEST_CASE("view returns its input, declares it, and passes gradients through", "[compile]") {
  Var x = fvec("x");
  Var v = view(x);
  REQUIRE(v->type()->equals(*x->type()));
  REQUIRE(view_op()->to_string() == "view");
  REQUIRE(view_op()->view_map() == IoMap{{0, 0}});
  REQUIRE(*std::make_shared<ViewOp>() == *view_op());

  const Tensor in = Tensor::from({1.0, 2.0});
  Tensor out[1];
  view_op()->perform(*v->owner(), std::span(&in, 1), out);
  REQUIRE(out[0].shares_storage(in));
  REQUIRE(out[0].equal(in));

  const ShapeVars shape{Variable::make(TensorType::make(i64, {}), "n")};
  REQUIRE(view_op()->infer_shape(*v->owner(), std::span(&shape, 1))[0] == shape);
  Var g = fvec("g");
  const auto grads = view_op()->grad(*v->owner(), std::vector<Var>{g});
  REQUIRE(grads.size() == 1);
  REQUIRE(grads[0] == g);
  REQUIRE(view_op()->L_op(*v->owner(), std::vector<Var>{g})[0] == g);
}

TEST_CASE("register_compile_ops makes both ops known by name", "[compile]") {
  OpRegistry registry;
  register_compile_ops(registry);
  REQUIRE(*registry.make("deep_copy") == *deep_copy_op());
  REQUIRE(*registry.make("view") == *view_op());
  REQUIRE(registry.all().size() == 2);
  REQUIRE(OpRegistry::arity_ok(*registry.find("view"), 1));
  REQUIRE_FALSE(OpRegistry::arity_ok(*registry.find("deep_copy"), 2));
  REQUIRE_THROWS_AS(registry.make("view", {{"axis", std::int64_t{0}}}), Error);
  REQUIRE_THROWS_AS(register_compile_ops(registry), rw::ValueError);
}

// PredicateRegistry: the built-in predicates and registering C++ ones.
#include <catch2/catch.hpp>

#include "engine/dsl/predicates.hpp"
#include "engine/graph/type.hpp"

using namespace rw;
using namespace rw::dsl;

TEST_CASE("a new registry holds the built-in predicates", "[dsl]") {
  const PredicateRegistry r;
  CHECK(r.names() == std::vector<std::string>{"bool", "broadcastable", "constant", "float", "int",
                                              "known_shape", "nonzero", "one_client", "same_type",
                                              "scalar"});
  const auto b = r.find("broadcastable");
  REQUIRE(b);
  CHECK(b->args == std::vector<PredicateArg>{PredicateArg::Tensor, PredicateArg::Int});
  CHECK_FALSE(b->doc.empty());
  CHECK(r.find("nope") == nullptr);
  CHECK(r.all().size() == 10);
}

TEST_CASE("registering a predicate, and what is refused", "[dsl]") {
  PredicateRegistry r;
  r.add("positive_rank", 1, "rank above zero", [](std::span<const Var> v, const FunctionGraph*) {
    return v[0]->tensor_type()->ndim() > 0;
  });
  const auto p = r.find("positive_rank");
  REQUIRE(p);
  CHECK(p->args == std::vector<PredicateArg>{PredicateArg::Tensor});
  const Var v = Variable::make(TensorType::make(DType::Float64, {2}));
  const Var vs[] = {v};
  CHECK(p->fn(PredicateInput{vs, {}, nullptr}));

  auto yes = [](const PredicateInput&) { return true; };
  CHECK_THROWS_WITH(r.add({"float", {PredicateArg::Tensor}, "", yes}),
                    "PredicateRegistry::add: predicate `float` is already registered");
  CHECK_THROWS_WITH(r.add({"rank", {PredicateArg::Tensor}, "", yes}),
                    "PredicateRegistry::add: `rank` is a query of the rules language");
  CHECK_THROWS_WITH(r.add({"is-ok", {}, "", yes}),
                    "PredicateRegistry::add: `is-ok` is not a valid predicate name");
  CHECK_THROWS_WITH(r.add({"", {}, "", yes}),
                    "PredicateRegistry::add: `` is not a valid predicate name");
  CHECK_THROWS_WITH(r.add({"empty", {}, "", nullptr}),
                    "PredicateRegistry::add: predicate `empty` has no function");
  CHECK(r.names().size() == 11);  // nothing refused was added
}

TEST_CASE("nonzero refuses only a constant that holds a zero", "[dsl]") {
  const PredicateRegistry r;
  const auto p = r.find("nonzero");
  REQUIRE(p);
  auto holds = [&](const Var& v) {
    const Var vs[] = {v};
    return p->fn(PredicateInput{vs, {}, nullptr});
  };
  const std::int64_t three[] = {3};
  CHECK(holds(Variable::make(TensorType::make(DType::Float64, {3}))));
  CHECK(holds(Constant::make(Tensor::from_vector(std::vector<double>{1, -2, 0.5}, three))));
  CHECK_FALSE(holds(Constant::make(Tensor::from_vector(std::vector<double>{1, 0, 3}, three))));
  CHECK_FALSE(holds(Constant::scalar(0.0, DType::Int32)));
}

// PredicateRegistry: the built-in predicates and registering C++ ones.
#include <limits>

#include <catch2/catch.hpp>

#include "engine/dsl/predicates.hpp"
#include "engine/graph/type.hpp"

using namespace rw;
using namespace rw::dsl;

TEST_CASE("a new registry holds the built-in predicates", "[dsl]") {
  const PredicateRegistry r;
  CHECK(r.names() == std::vector<std::string>{"bool", "broadcastable", "constant", "finite", "float", "int",
                                              "known_shape", "nonnegative", "nonzero", "one_client",
                                              "positive", "same_type", "scalar"});
  const auto b = r.find("broadcastable");
  REQUIRE(b);
  CHECK(b->args == std::vector<PredicateArg>{PredicateArg::Tensor, PredicateArg::Int});
  CHECK_FALSE(b->doc.empty());
  CHECK(r.find("nope") == nullptr);
  CHECK(r.all().size() == 13);
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
    CHECK_THROWS_WITH(
      r.add({"no_tensor", {PredicateArg::Int}, "", yes, PredicateReads::Types, ValueAssumption{}}),
      "PredicateRegistry::add: predicate `no_tensor` states a value assumption but has no "
      "tensor argument");
  CHECK_THROWS_WITH(r.add({"empty_range", {PredicateArg::Tensor}, "", yes, PredicateReads::Types,
                           ValueAssumption{.min = 1, .max = 0}}),
                    "PredicateRegistry::add: the value assumption of `empty_range` admits no value");
  CHECK_THROWS_WITH(r.add({"only_zero", {PredicateArg::Tensor}, "", yes, PredicateReads::Types,
                           ValueAssumption{.min = 0, .max = 0, .nonzero = true}}),
                    "PredicateRegistry::add: the value assumption of `only_zero` admits no value");
  CHECK(r.names().size() == 14);  // nothing refused was added
}

TEST_CASE("value assumptions refuse only constants that break them", "[dsl]") {
  const PredicateRegistry r;
  auto holds = [&](const char* name, const Var& v) {
    const auto p = r.find(name);
    REQUIRE(p);
    const Var vs[] = {v};
    return p->fn(PredicateInput{vs, {}, nullptr});
  };
  const std::int64_t three[] = {3};
  auto vec = [&](double a, double b, double c) {
    return Constant::make(Tensor::from_vector(std::vector<double>{a, b, c}, three));
  };
  const Var unknown = Variable::make(TensorType::make(DType::Float64, {3}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* name : {"nonzero", "positive", "nonnegative"}) CHECK(holds(name, unknown));

  CHECK(holds("nonzero", vec(1, -2, 0.5)));
  CHECK_FALSE(holds("nonzero", vec(1, 0, 3)));
  CHECK_FALSE(holds("nonzero", Constant::scalar(0.0, DType::Int32)));

  CHECK(holds("positive", vec(1, 2, 0.5)));
  CHECK_FALSE(holds("positive", vec(1, 0, 3)));
  CHECK_FALSE(holds("positive", vec(1, -1, 3)));
  CHECK_FALSE(holds("positive", vec(1, nan, 3)));

  CHECK(holds("nonnegative", vec(1, 0, 0.5)));
  CHECK_FALSE(holds("nonnegative", vec(1, -0.5, 3)));
  CHECK_FALSE(holds("nonnegative", vec(nan, 1, 3)));
}

TEST_CASE("a predicate's value assumption, and how two combine", "[dsl]") {
  const PredicateRegistry r;
  CHECK_FALSE(r.find("float")->assumes);
  CHECK(*r.find("nonzero")->assumes == ValueAssumption{.nonzero = true});
  CHECK(*r.find("positive")->assumes == ValueAssumption{.min = 0, .nonzero = true});
  CHECK(*r.find("nonnegative")->assumes == ValueAssumption{.min = 0});

  const ValueAssumption positive = *r.find("positive")->assumes;
  CHECK(positive.admits(0.25));
  CHECK_FALSE(positive.admits(0));
  CHECK_FALSE(positive.admits(-1));
  CHECK_FALSE(positive.admits(std::numeric_limits<double>::quiet_NaN()));
  const ValueAssumption both = ValueAssumption{.max = 1} & *r.find("nonzero")->assumes;
  CHECK(both == ValueAssumption{.max = 1, .nonzero = true});
  CHECK(both.admits(-3));
  CHECK_FALSE(both.admits(0));
  CHECK_FALSE(both.admits(1.5));
}

TEST_CASE("a registered value assumption refuses constants outside it itself", "[dsl]") {
  PredicateRegistry r;
  int asked = 0;
  r.add({"probability", {PredicateArg::Tensor}, "values in [0, 1]",
         [&](const PredicateInput&) {
           ++asked;
           return true;
         },
         PredicateReads::Types, ValueAssumption{.min = 0, .max = 1}});
  const auto p = r.find("probability");
  REQUIRE(p);
  auto holds = [&](const Var& v) {
    const Var vs[] = {v};
    return p->fn(PredicateInput{vs, {}, nullptr});
  };
  CHECK(holds(Constant::scalar(0.25, DType::Float64)));
  CHECK(asked == 1);
  CHECK_FALSE(holds(Constant::scalar(1.5, DType::Float64)));
  CHECK_FALSE(holds(Constant::scalar(-0.5, DType::Float32)));
  CHECK(asked == 1);  // decided without the function
  CHECK(holds(Variable::make(TensorType::make(DType::Float64, {2}))));
  CHECK(asked == 2);
}

// Op identity by properties, and the OpRegistry.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <thread>
#include <typeindex>
#include <unordered_set>
#include <vector>

#include "engine/graph/errors.hpp"
#include "engine/graph/op_registry.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("ops with equal properties are equal and hash equal", "[graph]") {
  OpPtr a = toy("add", 2, 7), b = toy("add", 2, 7), c = toy("add", 2, 8), d = toy("mul", 2, 7);
  REQUIRE(*a == *b);
  REQUIRE(a->hash() == b->hash());
  REQUIRE_FALSE(*a == *c);
  REQUIRE_FALSE(*a == *d);
  REQUIRE_FALSE(*a == *std::make_shared<ToyTwoOut>());
  std::unordered_set<OpPtr, OpHash, OpEqual> set{a, b, c, d};
  REQUIRE(set.size() == 3);
  REQUIRE(a->to_string() == "add{tag=7}");
  REQUIRE(std::make_shared<ToyTwoOut>()->to_string() == "two_out");
}

namespace {
/// An Op that only declares views and destroyed inputs.
class Viewing final : public Op {
 public:
  std::string_view name() const override { return "viewing"; }
  ApplyRef make_node(std::span<const Var>) const override {
    throw std::logic_error("`viewing` builds no nodes");
  }
  IoMap view_map() const override { return {{1, 0}}; }
  IoMap destroy_map() const override { return {{0, 1}}; }
};
}  // namespace

TEST_CASE("an op's properties are computed once and kept", "[graph]") {
  OpPtr a = toy("add", 2, 7);
  const Props& first = a->cached_props();
  CHECK(&first == &a->cached_props());
  CHECK(first == a->props());
  // Equal ops compare equal through their kept properties, unequal ones differ.
  CHECK(*a == *toy("add", 2, 7));
  CHECK_FALSE(*a == *toy("add", 2, 8));
  // Ops without properties share one empty list.
  OpPtr t1 = std::make_shared<ToyTwoOut>(), t2 = std::make_shared<ToyTwoOut>();
  CHECK(t1->cached_props().empty());
  CHECK(&t1->cached_props() == &t2->cached_props());
  // View and destroy maps are kept the same way.
  const auto viewing = std::make_shared<Viewing>();
  CHECK(viewing->cached_view_map() == IoMap{{1, 0}});
  CHECK(&viewing->cached_view_map() == &viewing->cached_view_map());
  CHECK(viewing->cached_destroy_map() == IoMap{{0, 1}});
  CHECK(t1->cached_view_map().empty());
  CHECK(&t1->cached_destroy_map() == &t2->cached_destroy_map());
  // Asked from several threads at once, every thread sees the same list.
  OpPtr b = toy("mul", 2, 3);
  std::vector<const Props*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i)
    threads.emplace_back([&, i] { seen[i] = &b->cached_props(); });
  for (auto& t : threads) t.join();
  for (const Props* p : seen) CHECK(p == seen[0]);
  CHECK(*seen[0] == b->props());
}

TEST_CASE("op kinds are equal exactly when op names are", "[graph]") {
  OpPtr add7 = toy("add", 2, 7), add8 = toy("add", 2, 8), mul = toy("mul", 2, 7);
  // Equal names, different properties: one kind; different names: two.
  REQUIRE(add7->kind() == add8->kind());
  REQUIRE_FALSE(add7->kind() == mul->kind());
  REQUIRE(add7->kind() == OpKind::of("add"));
  REQUIRE(mul->kind() == OpKind::of(std::string("mu") + "l"));
  REQUIRE(add7->kind().name() == "add");
  REQUIRE(mul->kind().name() == "mul");
  // Asking twice gives the same kind, whether cached in the Op or not.
  REQUIRE(add7->kind() == add7->kind());
  REQUIRE(add7->kind().index() != 0);
  REQUIRE(add7->kind().index() != mul->kind().index());
  REQUIRE_FALSE(static_cast<bool>(OpKind()));
  REQUIRE(OpKind().name().empty());
  REQUIRE(static_cast<bool>(OpKind::of("a kind no op has")));
  REQUIRE_FALSE(OpKind::of("a kind no op has") == OpKind());
}

TEST_CASE("op class indices are equal exactly when the classes are", "[graph]") {
  OpPtr add = toy("add", 2), mul = toy("mul", 2, 7);
  const OpPtr two = std::make_shared<ToyTwoOut>(), split = std::make_shared<ToySplit>();
  // One class, whatever the name or properties; another class, another index.
  REQUIRE(add->class_index() == mul->class_index());
  REQUIRE(add->class_index() == Op::class_index_of(typeid(ToyOp)));
  REQUIRE(two->class_index() == Op::class_index_of(typeid(ToyTwoOut)));
  REQUIRE(two->class_index() != add->class_index());
  REQUIRE(two->class_index() != split->class_index());
  REQUIRE(add->class_index() != 0);
  REQUIRE(Op::class_index_of(typeid(ToySplit)) == Op::class_index_of(typeid(ToySplit)));
  // By type_index (what Tracks keeps) the same number as by type_info.
  REQUIRE(Op::class_index_of(std::type_index(typeid(ToySplit))) == split->class_index());
  REQUIRE(Op::class_index_of(std::type_index(typeid(ToyOp))) == add->class_index());
  // Interned from several threads at once, every thread sees the same numbers.
  std::vector<std::uint32_t> seen(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] { seen[t] = std::make_shared<ToySum>(std::nullopt)->class_index(); });
  for (auto& th : threads) th.join();
  for (std::uint32_t c : seen) REQUIRE(c == Op::class_index_of(typeid(ToySum)));
}

TEST_CASE("op kinds interned from several threads agree", "[graph]") {
  // Each thread interns the same fresh names in another order; every thread
  // must see one kind per name, distinct between names.
  constexpr int kThreads = 4, kNames = 200;
  std::vector<std::vector<std::uint32_t>> seen(kThreads, std::vector<std::uint32_t>(kNames));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kNames; ++i) {
        const int n = t % 2 ? kNames - 1 - i : i;
        seen[t][n] = OpKind::of("threaded_kind_" + std::to_string(n)).index();
      }
    });
  for (auto& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) REQUIRE(seen[t] == seen[0]);
  std::unordered_set<std::uint32_t> distinct(seen[0].begin(), seen[0].end());
  REQUIRE(distinct.size() == kNames);
  REQUIRE(OpKind::of("threaded_kind_17").name() == "threaded_kind_17");
}

TEST_CASE("property values print as the rules language writes them", "[graph]") {
  REQUIRE(format_prop_value(std::monostate{}) == "none");
  REQUIRE(format_prop_value(true) == "true");
  REQUIRE(format_prop_value(std::int64_t{-3}) == "-3");
  REQUIRE(format_prop_value(2.0) == "2.0");
  REQUIRE(format_prop_value(0.5) == "0.5");
  REQUIRE(format_prop_value(std::vector<std::int64_t>{0, 2}) == "(0,2)");
  REQUIRE(format_prop_value(DType::Float32) == "float32");
}

TEST_CASE("unimplemented optional methods say which op lacks what", "[graph]") {
  Var x = fvec("x");
  Var e = (*toy("frob", 1))({x});
  const Op& op = e->owner()->op();
  REQUIRE_THROWS_WITH(op.grad(*e->owner(), {}), Catch::Contains("`frob` is not differentiable"));
  REQUIRE_THROWS_AS(op.infer_shape(*e->owner(), {}), NotImplementedError);
  REQUIRE_THROWS_AS(op.R_op(*e->owner(), {}), NotImplementedError);
  REQUIRE(op.connection_pattern(*e->owner()) == std::vector<std::vector<bool>>{{true}});
}

namespace {
OpRegistry make_registry() {
  OpRegistry r;
  r.add({.name = "add",
         .doc = "elementwise sum",
         .params = {{"tag", ParamKind::Int, PropValue{std::int64_t{0}}, false, "a tag"}},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props& p) {
           return toy("add", 2, std::get<std::int64_t>(p[0].value));
         }});
  r.add({.name = "sum",
         .doc = "reduction",
         .params = {{"axis", ParamKind::Ints, PropValue{std::monostate{}}, true, "axes"},
                    {"keepdims", ParamKind::Bool, PropValue{false}, false, ""},
                    {"scale", ParamKind::Float, std::nullopt, false, "required"}},
         .min_inputs = 1,
         .max_inputs = 1,
         .factory = [](const Props& p) {
           return toy("sum", 1, static_cast<std::int64_t>(std::get<double>(p[2].value)));
         }});
  r.add_alias("plus", "add");
  return r;
}
}  // namespace

TEST_CASE("the registry builds ops from names and parameters", "[graph]") {
  const OpRegistry r = make_registry();
  REQUIRE(*r.make("add") == *toy("add", 2, 0));
  REQUIRE(*r.make("plus", {{"tag", std::int64_t{3}}}) == *toy("add", 2, 3));
  REQUIRE(r.find("plus") == r.find("add"));
  REQUIRE(r.all().size() == 2);
  // Defaults are filled in, values coerced where lossless.
  const Props full = OpRegistry::complete_params(
      *r.find("sum"), {{"scale", std::int64_t{2}}, {"axis", std::int64_t{1}}});
  REQUIRE(full == Props{{"axis", std::vector<std::int64_t>{1}},
                        {"keepdims", false},
                        {"scale", 2.0}});
  REQUIRE(OpRegistry::arity_ok(*r.find("add"), 2));
  REQUIRE_FALSE(OpRegistry::arity_ok(*r.find("add"), 3));
}

TEST_CASE("the registry refuses bad requests naming what was wrong", "[graph]") {
  const OpRegistry r = make_registry();
  REQUIRE_THROWS_WITH(r.make("sun", {{"scale", 1.0}}),
                      Catch::Equals("unknown op `sun`; did you mean `sum`?"));
  REQUIRE_THROWS_WITH(r.make("sum", {{"axes", std::int64_t{0}}, {"scale", 1.0}}),
                      Catch::Contains("op `sum` has no parameter `axes`") &&
                          Catch::Contains("`axis`, `keepdims`, `scale`"));
  REQUIRE_THROWS_WITH(r.make("sum"), Catch::Contains("needs parameter `scale`"));
  REQUIRE_THROWS_WITH(r.make("sum", {{"scale", 1.0}, {"keepdims", std::int64_t{1}}}),
                      Catch::Contains("`keepdims` of op `sum` must be a bool, not `1`"));
  REQUIRE_THROWS_WITH(r.make("add", {{"tag", 1.5}}), Catch::Contains("must be an int"));
  REQUIRE_THROWS_WITH(r.make("add", {{"tag", std::monostate{}}}), Catch::Contains("not `none`"));
  REQUIRE_THROWS_WITH(r.make("add", {{"tag", std::int64_t{1}}, {"tag", std::int64_t{2}}}),
                      Catch::Contains("given twice"));
  OpRegistry r2 = make_registry();
  REQUIRE_THROWS_AS(r2.add({.name = "add", .factory = [](const Props&) { return OpPtr(); }}),
                    rw::ValueError);
  REQUIRE_THROWS_AS(r2.add_alias("x", "nope"), rw::ValueError);
}

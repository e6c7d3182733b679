// The shape interface of shape-only rewrites, its type-only implementation,
// and RequireFeature.
#include <catch2/catch.hpp>

#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/sequence.hpp"
#include "engine/rewrite/shape_feature.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// like(x, y): x, checked at run time to have y's shape (a shape-only op).
class Like final : public Op {
 public:
  std::string_view name() const override { return "like"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = in[0]->type();
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
};

/// like(x, y) -> x when the shapes are known to agree: asks the shape feature.
NodeRewriterPtr drop_like() {
  return make_node_rewriter(
      "drop_like", {"like"},
      [](FunctionGraph& fg, Apply& node, const RewriteContext&) {
        ShapeFeature* shapes = find_shape_feature(fg);
        if (!shapes) return RewriteResult::fail("no shape feature on the graph");
        if (!shapes->same_shape(*node.input(0), *node.input(1)))
          return RewriteResult::fail("the shapes are not known to agree");
        return RewriteResult::replace_output(node.input(0));
      },
      0);
}

}  // namespace

TEST_CASE("the static shape feature answers from types", "[rewrite]") {
  StaticShapeFeature s;
  Var a = ftensor("a", {2, 3}), b = ftensor("b", {2, 3}), c = ftensor("c", {2, kUnknownDim});
  REQUIRE(s.static_dim(*a, 1) == 3);
  REQUIRE(s.static_dim(*c, 1) == std::nullopt);
  REQUIRE(s.static_dim(*c, 7) == std::nullopt);
  REQUIRE(s.same_shape(*a, *b));
  REQUIRE(s.same_shape(*c, *c));
  REQUIRE_FALSE(s.same_shape(*a, *c));
  const Var d = s.dim(*a, 0);
  REQUIRE(d->is_constant());
  REQUIRE(d->as_constant()->value().dtype() == DType::Int64);
  REQUIRE(d->as_constant()->value().item<std::int64_t>() == 2);
  REQUIRE(s.dim(*c, 1) == nullptr);
}

TEST_CASE("shape-only rewrites ask the feature a pipeline attached", "[rewrite]") {
  auto like = std::make_shared<Like>();
  Var a = ftensor("a", {2, 3}), b = ftensor("b", {2, 3}), c = ftensor("c", {2, kUnknownDim});
  const Var out = add((*like)({a, b}), (*like)({a, c}));
  {
    FunctionGraph fg({a, b, c}, {out});
    EquilibriumRewriter("eq", {drop_like()}).rewrite(fg);
    REQUIRE(infix(fg) == "like(a, b) + like(a, c)");
  }
  {
    FunctionGraph fg({a, b, c}, {out});
    auto require = std::make_shared<RequireFeature>(
        "shape_feature", [] { return std::make_shared<StaticShapeFeature>(); });
    auto eq = std::make_shared<EquilibriumRewriter>("eq", std::vector<NodeRewriterPtr>{drop_like()});
    SequenceRewriter pipeline("pipeline", {require, eq});
    REQUIRE(pipeline.rewrite(fg).ok());
    REQUIRE(infix(fg) == "a + like(a, c)");
    REQUIRE(find_shape_feature(fg) != nullptr);
    pipeline.rewrite(fg);  // a second run does not attach a second feature
    REQUIRE(fg.features().size() == 1);
  }
  REQUIRE_THROWS_WITH(RequireFeature("f", nullptr), "`f` has no feature factory");
}

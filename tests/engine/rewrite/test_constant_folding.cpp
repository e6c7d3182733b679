// ConstantFolding: nodes of constants evaluated through Op::perform.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/walking.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// Elementwise negation that asks not to be folded.
class NoFold final : public Op {
 public:
  std::string_view name() const override { return "nofold"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = in[0]->type();
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
  void perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    out[0] = in[0].copy();
  }
  bool do_constant_folding(const Apply&) const override { return false; }
};

/// An op with no perform at all.
class Opaque final : public Op {
 public:
  std::string_view name() const override { return "opaque"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = in[0]->type();
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
};

std::vector<std::string> folding_trace(FunctionGraph& fg) {
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  EquilibriumRewriter("fold", {std::make_shared<ConstantFolding>()}).rewrite(fg, ctx);
  return rec->lines();
}

}  // namespace

TEST_CASE("constant subgraphs are evaluated and replaced by their value", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {add(mul(exp(fconst(2)), fconst(3)), x)});
  EquilibriumRewriter eq("fold", {std::make_shared<ConstantFolding>()});
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.applications == 2);
  REQUIRE(fg.num_nodes() == 1);
  const Var c = fg.outputs()[0]->owner()->input(0);
  REQUIRE(c->is_constant());
  REQUIRE(*constant_value(c) == Approx(std::exp(2.0) * 3.0).epsilon(1e-15));
  REQUIRE(c->type()->equals(*TensorType::make(DType::Float64, {})));
}

TEST_CASE("folding keeps the output's type and works on vectors", "[rewrite]") {
  Var x = fvec("x");
  const Var v = Constant::make(Tensor::from({1.0, 2.0, 4.0}),
                               TensorType::make(DType::Float64, {kUnknownDim}));
  FunctionGraph fg({x}, {add(x, log(v))});
  EquilibriumRewriter("fold", {std::make_shared<ConstantFolding>()}).rewrite(fg);
  const Var c = fg.outputs()[0]->owner()->input(1);
  REQUIRE(c->is_constant());
  REQUIRE(c->type()->to_string() == "f64[?]");
  const Tensor& value = c->as_constant()->value();
  REQUIRE(value.size() == 3);
  for (int i = 0; i < 3; ++i)
    REQUIRE(value.data<double>()[i] == std::log(std::vector<double>{1, 2, 4}[i]));
}

TEST_CASE("folding skips what it may not or cannot evaluate, saying why", "[rewrite]") {
  Var x = fvec("x");
  auto nofold = std::make_shared<NoFold>();
  auto opaque = std::make_shared<Opaque>();
  FunctionGraph fg({x}, {add(x, add((*nofold)({fconst(1)}), (*opaque)({fconst(2)})))});
  const std::string before = debugprint(fg);
  const auto lines = folding_trace(fg);
  REQUIRE(debugprint(fg) == before);
  auto has = [&](const std::string& l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  REQUIRE(has("constant_folding failed on nofold(1.0): op `nofold` asks not to be constant-folded"));
  REQUIRE(has("constant_folding failed on opaque(2.0): op `opaque` cannot be evaluated (it has "
              "no perform)"));
  REQUIRE(has("constant_folding failed on nofold(1.0) + opaque(2.0): an input is not a constant"));
}

TEST_CASE("folding and simplification meet at a fixed point", "[rewrite]") {
  Var x = fvec("x");
  // x * (3 - 2) folds to x * 1.0, which mul_one simplifies.
  FunctionGraph fg({x}, {mul(x, sub(fconst(3), fconst(2)))});
  EquilibriumRewriter eq("eq", {std::make_shared<ConstantFolding>(), mul_one()});
  REQUIRE(eq.rewrite(fg).ok());
  REQUIRE(infix(fg) == "x");
}

namespace {
/// A constant input broadcast to a static shape: what folding `alloc` of
/// constant extents would make. Counts its performs.
class Spread final : public Op {
 public:
  explicit Spread(StaticShape shape) : shape_(std::move(shape)) {}
  std::string_view name() const override { return "spread"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = TensorType::make(DType::Float64, shape_);
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
  void perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    ++performs;
    out[0] = in[0].broadcast_to(std::vector<std::int64_t>(shape_.begin(), shape_.end())).copy();
  }
  mutable int performs = 0;

 private:
  StaticShape shape_;
};

/// An op of unknown output shape whose evaluation runs out of memory.
class Hungry final : public Op {
 public:
  std::string_view name() const override { return "hungry"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = TensorType::make(DType::Float64, {kUnknownDim});
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
  void perform(const Apply&, std::span<const Tensor>, std::span<Tensor>) const override {
    throw std::bad_alloc();
  }
};
}  // namespace

TEST_CASE("folding refuses results above its size bound, saying why", "[rewrite]") {
  // 2^33 elements: evaluating it would take 64 GiB.
  auto huge = std::make_shared<Spread>(StaticShape{std::int64_t{1} << 17, std::int64_t{1} << 16});
  auto hungry = std::make_shared<Hungry>();
  Var x = fvec("x");
  FunctionGraph fg({x}, {add(x, add((*toy_sum(std::nullopt))({(*huge)({fconst(1)})}), (*hungry)({fconst(2)})))});
  const std::string before = debugprint(fg);
  const auto lines = folding_trace(fg);
  REQUIRE(debugprint(fg) == before);
  REQUIRE(huge->performs == 0);  // refused before anything is computed
  auto has = [&](const std::string& l) {
    return std::find(lines.begin(), lines.end(), l) != lines.end();
  };
  REQUIRE(has("constant_folding failed on spread(1.0): the result would have 8589934592 elements, "
              "more than folding makes (16777216)"));
  REQUIRE(has("constant_folding failed on hungry(2.0): evaluating `hungry` ran out of memory"));

  // The bound can be set; a result that turns out larger is dropped too.
  auto small = std::make_shared<Spread>(StaticShape{4, 4});
  FunctionGraph fg2({x}, {add(x, (*toy_sum(std::nullopt))({(*small)({fconst(1)})}))});
  auto tight = std::make_shared<ConstantFolding>("fold");
  tight->with_max_elements(8);
  REQUIRE(tight->max_elements() == 8);
  REQUIRE(EquilibriumRewriter("eq", {tight}).rewrite(fg2).applications == 0);
  REQUIRE(small->performs == 0);
  REQUIRE(ConstantFolding().max_elements() == kMaxFoldedElements);
}

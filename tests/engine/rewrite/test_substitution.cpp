// SubstitutionNodeRewriter (op1 -> op2) and RemovalNodeRewriter (op(x) -> x).
#include <catch2/catch.hpp>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/substitution.hpp"
#include "engine/rewrite/walking.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

/// hint(x): x with a more specific static shape (f64[?] -> f64[3]).
class ShapeHint final : public Op {
 public:
  std::string_view name() const override { return "hint"; }
  ApplyRef make_node(std::span<const Var> in) const override {
    TypePtr t = TensorType::make(DType::Float64, {3});
    return Apply::create(ptr(), in, std::span(&t, 1));
  }
};

std::vector<std::string> trace_of(GraphRewriter& g, FunctionGraph& fg) {
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  g.rewrite(fg, ctx);
  return rec->lines();
}

}  // namespace

TEST_CASE("substitution replaces op1 by op2 on the same inputs", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {add(div(x, y), add(y, x))});
  auto sub_for_add =
      std::make_shared<SubstitutionNodeRewriter>(toy("add", 2), toy("sub", 2));
  REQUIRE(sub_for_add->name() == "add->sub");
  REQUIRE(sub_for_add->describe() == "add(x…) -> sub(x…)");
  auto walk = in2out("subst", {sub_for_add});
  const PassReport r = walk->rewrite(fg);
  REQUIRE(r.applications == 2);
  REQUIRE(infix(fg) == "x / y - (y - x)");
  fg.check_integrity();
}

TEST_CASE("substitution leaves ops of the same name but other properties alone", "[rewrite]") {
  Var x = fvec("x");
  FunctionGraph fg({x}, {(*toy("exp", 1, 7))({(*toy("exp", 1))({x})})});
  auto r = std::make_shared<SubstitutionNodeRewriter>(toy("exp", 1, 7), toy("log", 1));
  auto walk = in2out("subst", {r});
  const auto lines = trace_of(*walk, fg);
  REQUIRE(infix(fg) == "log(exp(x))");
  REQUIRE(std::find(lines.begin(), lines.end(),
                    "exp{tag=7}->log failed on exp(x): op `exp` is not `exp{tag=7}`") !=
          lines.end());
}

TEST_CASE("a substitution whose op refuses the inputs is recorded, not applied", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {add(x, y)});
  const std::string before = debugprint(fg);
  auto r = std::make_shared<SubstitutionNodeRewriter>(toy("add", 2), toy("neg", 1));
  auto walk = in2out("subst", {r});
  const auto lines = trace_of(*walk, fg);
  REQUIRE(debugprint(fg) == before);
  REQUIRE(std::find(lines.begin(), lines.end(),
                    "add->neg threw on x + y: toy `neg` takes 1 inputs") != lines.end());
}

TEST_CASE("removal makes each output its input", "[rewrite]") {
  Var x = fvec("x");
  OpPtr id = toy("id", 1);
  FunctionGraph fg({x}, {(*id)({exp((*id)({x}))})});
  auto remove = std::make_shared<RemovalNodeRewriter>(id);
  REQUIRE(remove->name() == "remove_id");
  REQUIRE(remove->describe() == "id(x) -> x");
  EquilibriumRewriter eq("eq", {remove});
  const PassReport r = eq.rewrite(fg);
  REQUIRE(r.applications == 2);
  REQUIRE(infix(fg) == "exp(x)");
  REQUIRE(fg.num_nodes() == 1);
}

TEST_CASE("removal refuses to widen a type or to drop inputs", "[rewrite]") {
  Var x = fvec("x");
  auto hint = std::make_shared<ShapeHint>();
  FunctionGraph fg({x}, {exp((*hint)({x}))});
  auto walk = in2out("remove", {std::make_shared<RemovalNodeRewriter>(hint)});
  auto lines = trace_of(*walk, fg);
  REQUIRE(infix(fg) == "exp(hint(x))");
  REQUIRE(std::find(lines.begin(), lines.end(),
                    "remove_hint failed on hint(x): input 0 has type f64[?], less specific than "
                    "output type f64[3]") != lines.end());

  OpPtr add_op = toy("add", 2);
  FunctionGraph fg2({x}, {add(x, x)});
  auto walk2 = in2out("remove", {std::make_shared<RemovalNodeRewriter>(add_op)});
  lines = trace_of(*walk2, fg2);
  REQUIRE(std::find(lines.begin(), lines.end(),
                    "remove_add failed on x + x: `add` has 2 inputs and 1 outputs; removal needs "
                    "one input per output") != lines.end());
}

TEST_CASE("the generic rewriters refuse null ops", "[rewrite]") {
  REQUIRE_THROWS_WITH(RemovalNodeRewriter(nullptr), "RemovalNodeRewriter: the op is null");
  REQUIRE_THROWS_WITH(SubstitutionNodeRewriter(toy("add", 2), nullptr),
                      "SubstitutionNodeRewriter: the op is null");
}

// Building graph nodes from terms: type-checked through make_node, literals
// as constants, sharing kept, and failures as reasons.
#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/reify_graph.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

TEST_CASE("a term with Op heads becomes nodes made by make_node", "[unify]") {
  Var x = fvec("x"), y = fvec("y");
  Term a = lvar("a"), b = lvar("b");
  Substitution s;
  s.bind(a, x);
  s.bind(b, y);
  GraphResult r = reify_to_graph(compound(toy("add", 2), compound(toy("exp", 1), a), b), s);
  REQUIRE(r);
  REQUIRE(r.why.empty());
  REQUIRE(to_infix(r.var) == "exp(x) + y");
  REQUIRE(r.var->owner()->op() == *toy("add", 2));
  REQUIRE(r.var->owner()->input(1) == y);  // graph variables are used, not copied
  REQUIRE(r.var->type()->to_string() == "f64[?]");
  // A graph term on its own is itself.
  REQUIRE(reify_to_graph(Term(x)).var == x);
  REQUIRE(reify_to_graph(a, s).var == x);
}

TEST_CASE("literals become constants of the dtype of their application", "[unify]") {
  Var x = fvec("x");
  GraphResult r = reify_to_graph(compound(toy("mul", 2), Term(x), 2));
  REQUIRE(r);
  const Constant* c = r.var->owner()->input(1)->as_constant();
  REQUIRE(c);
  REQUIRE(c->value().dtype() == DType::Float64);
  REQUIRE(c->scalar_value() == 2.0);
  REQUIRE(to_infix(r.var) == "x * 2.0");
  // The literal may come first: the dtype is that of the first non-literal input.
  REQUIRE(to_infix(reify_to_graph(compound(toy("mul", 2), 0.5, Term(x))).var) == "0.5 * x");
  // On its own a literal takes its own kind's dtype.
  REQUIRE(reify_to_graph(Term(3)).var->as_constant()->value().dtype() == DType::Int64);
  REQUIRE(reify_to_graph(Term(3.5)).var->as_constant()->value().dtype() == DType::Float64);
  REQUIRE(reify_to_graph(Term::boolean(true)).var->as_constant()->value().dtype() == DType::Bool);
}

TEST_CASE("an application the Op refuses is a failure with the Op's reason", "[unify]") {
  Var x = fvec("x");
  Var i = Variable::make(TensorType::make(DType::Int32, {kUnknownDim}), "i");
  GraphResult r = reify_to_graph(compound(toy("add", 2), Term(x), Term(i)));
  REQUIRE_FALSE(r);
  REQUIRE(r.why == "`add` refused its inputs: toy `add` takes float64 tensors, got i32[?]");
  // Nested: the message says where.
  GraphResult nested = reify_to_graph(compound(toy("exp", 1), compound(toy("add", 2), Term(x), Term(i))));
  REQUIRE_FALSE(nested);
  REQUIRE(nested.why ==
          "input 0 of `exp`: `add` refused its inputs: toy `add` takes float64 tensors, got i32[?]");
  // A literal that does not fit its dtype exactly.
  GraphResult half = reify_to_graph(compound(toy("add", 2), Term(i), 0.5));
  REQUIRE_FALSE(half);
  REQUIRE(half.why == "input 1 of `add`: the literal 0.5 is not exactly a int32 value");
}

TEST_CASE("terms that are not graph values are refused, saying which", "[unify]") {
  Var x = fvec("x");
  Term a = lvar("a");
  CHECK(reify_to_graph(compound(toy("exp", 1), a)).why == "input 0 of `exp`: `?a` is not bound");
  CHECK(reify_to_graph(compound(toy("exp", 1), "x")).why ==
        "input 0 of `exp`: `x` (string) is not a graph value");
  CHECK(reify_to_graph(compound(toy("exp", 1), tuple({1}))).why ==
        "input 0 of `exp`: `[1]` (compound) is not a graph value");
  CHECK(reify_to_graph(compound(1, Term(x))).why == "`1` is not an op");
  CHECK(reify_to_graph(compound(lvar("f"), Term(x))).why == "the op `?f` is not bound");
  CHECK(reify_to_graph(compound("exp", Term(x))).why ==
        "`exp` names an op, but no op registry was given to build it");
  CHECK(reify_to_graph(Term()).why == "the null term is not a graph value");
}

TEST_CASE("symbols and op patterns are built through the registry", "[unify]") {
  const OpRegistry reg = toy_registry();
  const GraphBuildOptions opts{&reg};
  Var t = ftensor("t", {2, 3, 4});
  Term axes = lvar("axes");
  Substitution s;
  s.bind(axes, tuple({0, 2}));
  GraphResult r = reify_to_graph(compound(op_pattern("sum", {{"axis", axes}}), Term(t)), s, opts);
  REQUIRE(r);
  REQUIRE(r.var->owner()->op().to_string() == "sum{axis=(0,2),keepdims=false}");
  REQUIRE(r.var->type()->to_string() == "f64[3]");
  REQUIRE(to_infix(reify_to_graph(compound("exp", Term(t)), {}, opts).var) == "exp(t)");
  // The registry's own errors are the reasons.
  CHECK(reify_to_graph(compound("expp", Term(t)), {}, opts).why ==
        "unknown op `expp`; did you mean `exp`?");
  CHECK(reify_to_graph(compound(op_pattern("sum", {{"axis", lvar("free")}}), Term(t)), {}, opts)
            .why == "property `axis` of `sum` is `?free`, not a property value");
  // The list form (op arg…) builds the same node.
  REQUIRE(to_infix(reify_to_graph(list({"exp", Term(t)}), {}, opts).var) == "exp(t)");
}

TEST_CASE("a subterm used twice is built once", "[unify]") {
  Var x = fvec("x");
  Term e = compound(toy("exp", 1), Term(x));
  GraphResult r = reify_to_graph(compound(toy("add", 2), e, e));
  REQUIRE(r);
  REQUIRE(r.var->owner()->input(0) == r.var->owner()->input(1));
  // Through a variable too.
  Term v = lvar("v");
  Substitution s;
  s.bind(v, compound(toy("log", 1), Term(x)));
  GraphResult r2 = reify_to_graph(compound(toy("mul", 2), v, v), s);
  REQUIRE(r2.var->owner()->input(0) == r2.var->owner()->input(1));
}

TEST_CASE("reify a match's right side: the rewrite x * 1 -> x, and (x * y) / y -> x", "[unify]") {
  Var a = fvec("a"), b = fvec("b");
  Term x = lvar("x"), y = lvar("y");
  Pattern lhs(compound(toy("div", 2), compound(toy("mul", 2), x, y), y));
  MatchResult m = match(lhs, div(mul(exp(a), b), b));
  REQUIRE(m);
  GraphResult out = reify_to_graph(compound(toy("neg", 1), x), *m);
  REQUIRE(to_infix(out.var) == "-exp(a)");
}

TEST_CASE("building a million-deep term does not recurse", "[unify]") {
  Var x = fvec("x");
  Term t = Term(x);
  const Term e = Term(toy("exp", 1));
  for (int i = 0; i < 1'000'000; ++i) t = compound(e, t);
  GraphResult r = reify_to_graph(t);
  REQUIRE(r);
  int depth = 0;
  for (const Variable* v = r.var.get(); v->owner(); v = v->owner()->input(0).get()) ++depth;
  REQUIRE(depth == 1'000'000);
}

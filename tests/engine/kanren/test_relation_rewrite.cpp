// The relation-driven rewrite: a goal relating a node's output to its
// replacement; the first answer that builds a valid graph is used.
#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/kanren/relation_rewrite.hpp"
#include "engine/kanren/relations.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::kanren;
using namespace rw::test;

namespace {

// log(args…) -> exp(args…), as the example of Aesara's KanrenRelationSub.
Goal log_to_exp(const Term& in, const Term& out) {
  return fresh([in, out](Term args) {
    return conj(conso(toy("log", 1), args, in), conso(toy("exp", 1), args, out));
  });
}

// x * 1 -> x and 1 * x -> x, modulo nothing: two clauses.
Goal times_one(const Term& in, const Term& out) {
  return conde({{eq(in, compound(toy("mul", 2), out, 1))}, {eq(in, compound(toy("mul", 2), 1, out))}});
}

}  // namespace

TEST_CASE("a relation rewrites a node into its first answer", "[kanren]") {
  Var x = fvec("x");
  Var l = log(x);
  GraphResult r = rewrite_with_relation(log_to_exp, *l->owner());
  REQUIRE(r);
  REQUIRE(to_infix(r.var) == "exp(x)");
  REQUIRE(r.var->owner()->input(0) == x);
  // x * 1 and 1 * x both become x.
  REQUIRE(rewrite_with_relation(times_one, *mul(x, fconst(1.0))->owner()).var == x);
  REQUIRE(rewrite_with_relation(times_one, *mul(fconst(1.0), x)->owner()).var == x);
}

TEST_CASE("a relation that does not apply says why", "[kanren]") {
  Var x = fvec("x");
  CHECK(rewrite_with_relation(log_to_exp, *exp(x)->owner()).why == "the relation has no answer");
  CHECK(rewrite_with_relation(times_one, *mul(x, fconst(2.0))->owner()).why ==
        "the relation has no answer");
  // An answer with an unbound part.
  Relation loose = [](const Term&, const Term& out) { return eq(out, compound(toy("exp", 1), lvar("free"))); };
  CHECK(rewrite_with_relation(loose, *exp(x)->owner()).why ==
        "answer 0 (`exp(_0)`): input 0 of `exp`: `?free` is not bound");
  // An answer the Op refuses.
  Var i = Variable::make(TensorType::make(DType::Int32, {kUnknownDim}), "i");
  Relation bad = [i](const Term& in, const Term& out) { return eq(out, compound(toy("add", 2), in, Term(i))); };
  CHECK(rewrite_with_relation(bad, *exp(x)->owner()).why ==
        "answer 0 (`add(exp(x), i)`): `add` refused its inputs: toy `add` takes float64 tensors, got i32[?]");
  // The node itself is no rewrite.
  Relation same = [](const Term& in, const Term& out) { return eq(in, out); };
  CHECK(rewrite_with_relation(same, *exp(x)->owner()).why == "answer 0 is the node itself");
  // A search that never answers is cut short.
  std::function<Goal()> forever = [&forever] { return delay(forever); };
  Relation endless = [&forever](const Term&, const Term&) { return forever(); };
  CHECK(rewrite_with_relation(endless, *exp(x)->owner(), {.max_steps = 100}).why ==
        "the relation gave no answer within 100 steps");
  // A node with several outputs and no default output.
  ApplyRef two = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  CHECK(rewrite_with_relation(same, *two).why ==
        "`two_out` has 2 outputs and no default output; take one with output(i)");
}

TEST_CASE("with several answers allowed, the first that builds is used", "[kanren]") {
  Var x = fvec("x");
  Var i = Variable::make(TensorType::make(DType::Int32, {kUnknownDim}), "i");
  // First answer: ill-typed; second: the node itself; third: a real rewrite.
  Relation rel = [i](const Term& in, const Term& out) {
    return disj(eq(out, compound(toy("add", 2), in, Term(i))), eq(out, in),
                eq(out, compound(toy("neg", 1), in)));
  };
  CHECK_FALSE(rewrite_with_relation(rel, *exp(x)->owner()));
  GraphResult r = rewrite_with_relation(rel, *exp(x)->owner(), {.max_answers = 3});
  REQUIRE(r);
  REQUIRE(to_infix(r.var) == "-exp(x)");
  // Answers run out before one builds: the last reason is given.
  Relation two_bad = [i](const Term& in, const Term& out) {
    return disj(eq(out, compound(toy("add", 2), in, Term(i))), eq(out, in));
  };
  CHECK(rewrite_with_relation(two_bad, *exp(x)->owner(), {.max_answers = 5}).why ==
        "answer 1 is the node itself");
}

TEST_CASE("a relation may use commutativity through eq_mod, and build through the registry", "[kanren]") {
  const OpRegistry reg = toy_registry();
  Theory th;
  th.commutative("mul");
  // mul(?c, exp(?x)) -> ?c * exp(?x), with the symbol `mul` built by the registry.
  Relation rel = [th](const Term& in, const Term& out) {
    return fresh([=](Term c, Term x) {
      return conj(eq_mod(compound("mul", c, compound("exp", x)), in, th),
                  eq(out, compound("mul", c, compound("exp", x))));
    });
  };
  Var a = fvec("a"), k = fvec("k");
  GraphResult r = rewrite_with_relation(rel, *mul(exp(a), k)->owner(), {.registry = &reg});
  REQUIRE(r);
  REQUIRE(to_infix(r.var) == "k * exp(a)");
  REQUIRE_FALSE(rewrite_with_relation(rel, *mul(exp(a), k)->owner()));  // no registry for `mul`
}

// Compiling checked rules: the terms of each side, the theory a module
// declares, and what a compiled rule declares to the rewrite driver.
#include <catch2/catch.hpp>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/unify/print.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;

namespace {

RuleModule module_of(const std::string& text, const PredicateRegistry& predicates = {}) {
  return load_rules_text("t.rules", text, test::pt_registry(), predicates);
}

}  // namespace

TEST_CASE("each side of a rule becomes a term", "[dsl]") {
  const RuleModule m = module_of(R"(
rule scale: sum(c * x, axis=a) => c * sum(x, axis=a) where scalar(c)
rule dims:  dimshuffle(exp(v), order=(x, 0)) => exp(dimshuffle(v, order=(x, 0)))
rule cast:  cast(cast(x_, dtype=_), dtype=d) => cast(x_, dtype=d) - 1.5
)");
  const RuleTerms scale = rule_terms(m.rules[0]);
  // Ops without parameters are symbols on the left; parameter variables make
  // op patterns; literal parameters make Ops.
  CHECK(to_string(scale.lhs) == "sum{axis=?a}(mul(?c, ?x))");
  CHECK(to_string(scale.rhs) == "mul(?c, sum{axis=?a}(?x))");
  REQUIRE(scale.vars.size() == 3);
  CHECK(scale.rhs.arg(0).same(scale.vars[0]));  // one variable for both sides

  const RuleTerms dims = rule_terms(m.rules[1]);
  CHECK(to_string(dims.lhs) == "dimshuffle{order=(x,0)}(exp(?v))");
  CHECK(dims.lhs.head().kind() == TermKind::Op);
  CHECK(dims.lhs.arg(0).head().kind() == TermKind::String);
  CHECK(dims.rhs.arg(0).head().kind() == TermKind::Op);
  const RuleTerms cast = rule_terms(m.rules[2]);
  CHECK(to_string(cast.lhs).starts_with("cast{dtype=?d}(cast{dtype=?_"));  // `_`: unnamed
  CHECK(to_string(cast.rhs) == "sub(cast{dtype=?d}(?x_), 1.5)");
}

TEST_CASE("a module's declarations are the matching theory", "[dsl]") {
  const RuleModule m = module_of("declare add: commutative, associative\ndeclare mul: commutative\n"
                                 "declare mul: associative\ndeclare maximum: commutative\n");
  const Theory t = theory_of(m);
  CHECK(t.is_commutative("add"));
  CHECK(t.is_associative("add"));
  CHECK(t.is_associative("mul"));
  CHECK(t.is_commutative("maximum"));
  CHECK_FALSE(t.is_associative("maximum"));
  CHECK_FALSE(t.is_commutative("sub"));
  CHECK(theory_of(module_of("")).empty());
}

TEST_CASE("a compiled rule tracks its root op and reads as deep as its pattern and guard",
          "[dsl]") {
  PredicateRegistry predicates;
  predicates.add("analysed", 1, "an analysis of the whole graph says yes",
                 [](std::span<const Var>, const FunctionGraph*) { return true; });
  predicates.add("typed", 1, "reads types only",
                 [](std::span<const Var>, const FunctionGraph*) { return true; },
                 PredicateReads::Types);
  const RuleModule m = module_of(R"(
rule a priority 3: (x * y) / y => x
rule b: exp(log(x)) => x where analysed(x)
rule c: exp(log(x)) => x where typed(x) and rank(x) == 1
rule d multiple_clients: exp(log(x)) => x
)", predicates);
  const Theory t = theory_of(m);
  const auto a = compile_rule(m.rules[0], t, test::pt_registry());
  CHECK(a->name() == "a");
  CHECK(a->tracks().op_names() == std::vector<std::string>{"true_div"});
  CHECK(a->depth() == 1);
  CHECK(a->benefit() == 3);
  CHECK(a->reads_uses());
  CHECK(a->describe() == "x * y / y => x");
  CHECK(compile_rule(m.rules[1], t, test::pt_registry())->depth() == kAnyDepth);
  CHECK(compile_rule(m.rules[2], t, test::pt_registry())->depth() == 1);
  const auto d = compile_rule(m.rules[3], t, test::pt_registry());
  CHECK(d->allow_multiple_clients());
  CHECK_FALSE(d->reads_uses());
}

TEST_CASE("a compiled rule's guard reads the slots of the variables it names", "[dsl]") {
  const RuleModule m = module_of(R"(
rule r: (x * y) / y => x where float(y) and rank(x) == rank(y)
)");
  const auto r = compile_rule(m.rules[0], theory_of(m), test::pt_registry());
  const rw::Pattern& in = r->in_pattern();
  REQUIRE(in.guards().size() == 1);
  // x is bound first (slot 0), y second; the guard reads y, then x.
  CHECK(in.guards()[0].slots == std::vector<std::uint32_t>{1, 0});
  CHECK_THAT(in.listing(),
             Catch::EndsWith("guard `float(y) and rank(x) == rank(y)` reads slot 1 (?y), slot 0 (?x)\n"));
}

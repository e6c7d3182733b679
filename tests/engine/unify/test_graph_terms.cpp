// Graph variables as terms: unification walks into nodes lazily, Op
// properties unify, constants unify with literals by the documented dtype rules.
#include <set>

#include <catch2/catch.hpp>

#include "engine/kanren/goal.hpp"
#include "engine/kanren/relations.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/unify.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {
Var konst(double v, DType dt) { return Constant::make(Tensor::scalar(v, dt)); }
}  // namespace

TEST_CASE("an Apply node unifies as op(inputs…)", "[unify]") {
  Var x = fvec("x"), y = fvec("y");
  Var e = mul(exp(x), y);
  Term a = lvar("a"), b = lvar("b");
  // mul(?a, ?b): ?a is the exp node's output, ?b the input y.
  auto s = unify(compound(toy("mul", 2), a, b), e);
  REQUIRE(s);
  REQUIRE(s->walk(a).graph_var() == e->owner()->input(0).get());
  REQUIRE(s->walk(b).graph_var() == y.get());
  // Deeper: mul(exp(?a), ?b).
  auto s2 = unify(compound(toy("mul", 2), compound(toy("exp", 1), a), b), e);
  REQUIRE(s2);
  REQUIRE(s2->walk(a).graph_var() == x.get());
  // Wrong op, wrong arity, or a leaf where an application is expected.
  REQUIRE_FALSE(unify(compound(toy("add", 2), a, b), e));
  REQUIRE_FALSE(unify(compound(toy("mul", 2), a), e));
  REQUIRE_FALSE(unify(compound(toy("exp", 1), a), x));
  // A graph input is a leaf: it unifies with a variable, or with itself.
  REQUIRE(unify(a, x));
  REQUIRE(unify(Term(x), Term(x)));
  REQUIRE_FALSE(unify(Term(x), Term(y)));
  // The head may be a variable (bound to the Op) or a symbol naming the Op.
  Term f = lvar("f");
  auto s3 = unify(compound(f, a, b), e);
  REQUIRE(s3);
  REQUIRE(s3->walk(f).kind() == TermKind::Op);
  REQUIRE(*s3->walk(f).op() == *toy("mul", 2));
  REQUIRE(unify(compound("mul", a, b), e));
  REQUIRE_FALSE(unify(compound("add", a, b), e));
}

TEST_CASE("a symbol, short or long, unifies with the Ops of its name", "[unify]") {
  const OpPtr mul = toy("mul", 2), longer = toy("multiply", 2);
  REQUIRE(unify(Term("mul"), Term(mul)));
  REQUIRE(unify(Term(mul), Term("mul")));
  REQUIRE(unify(Term("multiply"), Term(longer)));
  REQUIRE(unify(Term(longer), Term("multiply")));
  REQUIRE_FALSE(unify(Term("mul"), Term(longer)));
  REQUIRE_FALSE(unify(Term("multiply"), Term(mul)));
  REQUIRE(unify(Term("mul"), op_pattern("mul")));
  REQUIRE(unify(op_pattern("multiply"), Term("multiply")));
  REQUIRE_FALSE(unify(Term("mul"), op_pattern("add")));
  REQUIRE_FALSE(unify(Term("mul"), Term("add")));
  REQUIRE_FALSE(unify(Term("mul"), Term(1)));
  // As the head of a compound matched against a graph node.
  Term a = lvar("a"), b = lvar("b");
  Var e = (*longer)({fvec("x"), fvec("y")});
  REQUIRE(unify(compound("multiply", a, b), e));
  REQUIRE_FALSE(unify(compound("mul", a, b), e));
}

TEST_CASE("unification walks only as deep as the pattern", "[unify]") {
  // A million-node chain: matching its top two levels touches two nodes.
  Var v = fvec("x");
  for (int i = 0; i < 1'000'000; ++i) v = exp(v);
  Term a = lvar("a");
  auto s = unify(compound(toy("exp", 1), compound(toy("exp", 1), a)), v);
  REQUIRE(s);
  REQUIRE(s->walk(a).graph_var() == v->owner()->input(0)->owner()->input(0).get());
  REQUIRE(s->size() == 1);
}

TEST_CASE("two variables computing the same expression unify", "[unify]") {
  Var x = fvec("x");
  Var a = exp(x), b = exp(x);  // distinct nodes, same structure
  REQUIRE_FALSE(a == b);
  REQUIRE(unify(Term(a), Term(b)));
  REQUIRE_FALSE(unify(Term(a), Term(log(x))));
  // The (x * y) / y shape, with the two y's distinct nodes.
  Term p = lvar("p"), q = lvar("q");
  Term pattern = compound(toy("div", 2), compound(toy("mul", 2), p, q), q);
  REQUIRE(unify(pattern, div(mul(x, exp(x)), exp(x))));
  REQUIRE_FALSE(unify(pattern, div(mul(x, exp(x)), log(x))));
  // Equal constants are equal; different dtypes are not.
  REQUIRE(unify(Term(fconst(2.0)), Term(fconst(2.0))));
  REQUIRE_FALSE(unify(Term(fconst(2.0)), Term(fconst(3.0))));
  REQUIRE_FALSE(unify(Term(fconst(2.0)), Term(konst(2.0, DType::Float32))));
}

TEST_CASE("op properties unify with property terms", "[unify]") {
  Var x = ftensor("x", {2, 3, 4});
  Var s = (*toy_sum(std::vector<std::int64_t>{0, 2}))({x});
  Term a = lvar("a"), k = lvar("k"), in = lvar("in");
  auto r = unify(compound(op_pattern("sum", {{"axis", a}}), in), s);
  REQUIRE(r);
  REQUIRE(to_string(r->walk(a)) == "[0, 2]");
  REQUIRE(r->walk(in).graph_var() == x.get());
  // Several properties, one fixed and one bound.
  REQUIRE(unify(compound(op_pattern("sum", {{"axis", tuple({0, 2})}, {"keepdims", k}}), in), s));
  REQUIRE_FALSE(unify(compound(op_pattern("sum", {{"axis", tuple({1})}}), in), s));
  // Partly open tuples, and a property the Op does not have.
  REQUIRE(unify(compound(op_pattern("sum", {{"axis", tuple({0, a})}}), in), s));
  REQUIRE_FALSE(unify(compound(op_pattern("sum", {{"axes", a}}), in), s));
  // none stands for an absent axis.
  Var all = (*toy_sum(std::nullopt))({x});
  REQUIRE(unify(compound(op_pattern("sum", {{"axis", Term::none()}}), in), all));
  // Property values read back as the values they were.
  REQUIRE(term_to_prop(prop_to_term(PropValue{std::vector<std::int64_t>{1, 2}})) ==
          PropValue{std::vector<std::int64_t>{1, 2}});
  REQUIRE(term_to_prop(prop_to_term(PropValue{DType::Int8})) == PropValue{DType::Int8});
  REQUIRE(term_to_prop(prop_to_term(PropValue{std::monostate{}})) == PropValue{std::monostate{}});
  REQUIRE_FALSE(term_to_prop(tuple({1, "a"})));
  REQUIRE_FALSE(term_to_prop(lvar()));
}

TEST_CASE("literals match scalar constants by value, per the dtype rules", "[unify]") {
  const Var vars[] = {konst(1.0, DType::Float64), konst(1.0, DType::Float32),
                      konst(1.0, DType::Int8),    konst(1.0, DType::Bool),
                      konst(0.1, DType::Float32), konst(0.5, DType::Float64),
                      konst(0.1, DType::Float64)};
  const Constant& one64 = *vars[0]->as_constant();
  const Constant& one32 = *vars[1]->as_constant();
  const Constant& one8 = *vars[2]->as_constant();
  const Constant& true8 = *vars[3]->as_constant();
  const Constant& tenth32 = *vars[4]->as_constant();
  const Constant& half64 = *vars[5]->as_constant();
  const Constant& tenth64 = *vars[6]->as_constant();
  // An integer literal matches integer and float constants of its value, never bool.
  REQUIRE(literal_matches_constant(1, one64));
  REQUIRE(literal_matches_constant(1, one32));
  REQUIRE(literal_matches_constant(1, one8));
  REQUIRE_FALSE(literal_matches_constant(1, true8));
  REQUIRE_FALSE(literal_matches_constant(2, one64));
  // A number matches floats after rounding to their dtype, integers when integral.
  REQUIRE(literal_matches_constant(1.0, one64));
  REQUIRE(literal_matches_constant(1.0, one8));
  REQUIRE(literal_matches_constant(0.1, tenth32));
  REQUIRE(literal_matches_constant(0.1, tenth64));
  REQUIRE(literal_matches_constant(0.5, half64));
  REQUIRE_FALSE(literal_matches_constant(0.5, one8));
  // A boolean matches bool constants only.
  REQUIRE(literal_matches_constant(Term::boolean(true), true8));
  REQUIRE_FALSE(literal_matches_constant(Term::boolean(true), one8));
  // Only single-element constants; any shape of one element will do.
  const Var ones2 = Constant::make(Tensor::ones({2})), ones11 = Constant::make(Tensor::ones({1, 1}));
  REQUIRE_FALSE(literal_matches_constant(1, *ones2->as_constant()));
  REQUIRE(literal_matches_constant(1, *ones11->as_constant()));
  // Through unification, in both directions, and never with a non-constant.
  REQUIRE(unify(Term(1), Term(fconst(1.0))));
  REQUIRE(unify(Term(fconst(1.0)), Term(1)));
  REQUIRE_FALSE(unify(Term(1), Term(fvec("x"))));
  Term a = lvar("a");
  REQUIRE(unify(compound(toy("mul", 2), a, 1), mul(fvec("x"), fconst(1.0))));
  REQUIRE_FALSE(unify(compound(toy("mul", 2), a, 1), mul(fvec("x"), fconst(2.0))));
}

TEST_CASE("a multi-output node reads as op(inputs…) through its default output only", "[unify]") {
  Var x = fvec("x");
  ApplyRef node = std::make_shared<ToySplit>()->make_node(std::vector<Var>{x});
  Term a = lvar("a");
  REQUIRE(has_term_view(*node->output(0)));
  REQUIRE_FALSE(has_term_view(*node->output(1)));
  REQUIRE(unify(compound("split", a), node->output(0)));
  REQUIRE_FALSE(unify(compound("split", a), node->output(1)));
  REQUIRE(to_string(expand_graph(node->output(0))) == "split(x)");
  REQUIRE_THROWS_AS(expand_graph(node->output(1)), TermError);
  REQUIRE_THROWS_AS(expand_graph(x), TermError);
}

TEST_CASE("conso takes a graph node apart as (op input…)", "[unify]") {
  using namespace kanren;
  Var x = fvec("x");
  Var e = log(exp(x));
  Term q = lvar("q");
  // The relation of Aesara's KanrenRelationSub example: log terms become exp terms.
  const auto answers = run_all(q, fresh([&](Term args) {
    return conj(conso(toy("log", 1), args, e), conso(toy("exp", 1), args, q));
  }));
  REQUIRE(answers.size() == 1);
  REQUIRE(to_string(answers[0]) == "(exp exp(x))");
  REQUIRE(run_all(q, fresh([&](Term args) { return conso(toy("exp", 1), args, e); })).empty());
}

TEST_CASE("eq_mod matches commutative graph nodes in either order", "[unify]") {
  using namespace kanren;
  Theory th;
  th.commutative("mul");
  Var x = fvec("x");
  Var e = mul(fconst(2.0), x);
  Term a = lvar("a"), q = lvar("q");
  REQUIRE(run_all(q, eq(compound(toy("mul", 2), a, 2), e)).empty());
  const auto answers = run_all(q, conj(eq_mod(compound(toy("mul", 2), a, 2), e, th), eq(q, a)));
  REQUIRE(answers.size() == 1);
  REQUIRE(answers[0].graph_var() == x.get());
}

TEST_CASE("eq_assoccomm generates the forms of a graph node, binary for a binary Op", "[unify]") {
  using namespace kanren;
  Theory th;
  th.ac("add");
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  Var e = add(add(a, b), c);
  Term q = lvar("q");
  // The node is read as a term; add takes two inputs, so its forms are the
  // binary trees over a, b, c in each order: 3! orders times 2 trees.
  const auto forms = run_all(q, eq_assoccomm(e, q, th));
  std::set<std::string> seen;
  for (const Term& f : forms) seen.insert(to_string(f));
  REQUIRE(forms.size() == 12);
  REQUIRE(seen.size() == 12);
  REQUIRE(seen.count("add(a, add(b, c))") == 1);
  REQUIRE(seen.count("add(add(c, b), a)") == 1);
  // Associativity alone keeps the order: the two groupings, the regrouping first.
  const auto assoc = run_all(q, eq_assoc(e, q, Theory().associative("add")));
  REQUIRE(assoc.size() == 2);
  REQUIRE(to_string(assoc[0]) == "add(a, add(b, c))");
  REQUIRE(to_string(assoc[1]) == "add(add(a, b), c)");
}

// NodeFilter: each check on its own (op kind, arity, computed inputs at a
// path, constants, literals), paths that imply their prefix, the check limit,
// the text form, refused checks; the filters PatternNodeRewriter and
// ConstantFolding declare; and drivers skipping `transform` on refused nodes
// while counting the attempt, unless someone listens to the trace.
#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

#include "engine/graph/printing.hpp"
#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"
#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/walking.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/theory.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

const Term kX = lvar("x"), kY = lvar("y");

Term t_mul(Term a, Term b) { return compound(toy("mul", 2), std::move(a), std::move(b)); }
Term t_div(Term a, Term b) { return compound(toy("div", 2), std::move(a), std::move(b)); }
Term t_add(Term a, Term b) { return compound(toy("add", 2), std::move(a), std::move(b)); }

const Apply& node_of(const Var& v) { return *v->owner(); }

/// A rewriter that counts its `transform` calls and never applies.
class Counting final : public NodeRewriter {
 public:
  Counting(std::string name, NodeFilter f) : NodeRewriter(std::move(name), Tracks{"mul"}, 0) {
    set_filter(std::move(f));
  }
  RewriteResult transform(FunctionGraph&, Apply& node, const RewriteContext&) const override {
    ++calls;
    seen.push_back(&node);
    return RewriteResult::fail("counting only");
  }
  mutable std::atomic<int> calls{0};
  mutable std::vector<const Apply*> seen;
};

}  // namespace

TEST_CASE("the empty filter accepts every node", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const NodeFilter f;
  CHECK(f.accepts_all());
  CHECK(f.to_string() == "any");
  CHECK(f.accepts(node_of(mul(x, y))));
  CHECK(f.accepts(node_of(exp(x))));
}

TEST_CASE("a filter checks the node's op kind, arity and constant inputs", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const NodeFilter kind = NodeFilter().op(OpKind::of("mul"));
  CHECK(kind.accepts(node_of(mul(x, y))));
  CHECK(kind.accepts(node_of(mul(x, y))));
  CHECK_FALSE(kind.accepts(node_of(add(x, y))));
  // A property does not change the kind.
  CHECK(kind.accepts(node_of((*toy("mul", 2, 5))({x, y}))));

  const NodeFilter two = NodeFilter().arity(2);
  CHECK(two.accepts(node_of(add(x, y))));
  CHECK_FALSE(two.accepts(node_of(exp(x))));

  const NodeFilter consts = NodeFilter().all_inputs_constant();
  CHECK(consts.accepts(node_of(add(fconst(1), fconst(2)))));
  CHECK_FALSE(consts.accepts(node_of(add(fconst(1), x))));
  CHECK_FALSE(consts.accepts(node_of(add(x, fconst(1)))));
  CHECK(consts.to_string() == "*=const");
  CHECK(NodeFilter().op(OpKind::of("mul")).arity(2).to_string() == "mul/2");
  CHECK(NodeFilter().arity(1).to_string() == "_/1");
}

TEST_CASE("a filter can ask for an input of one kind at any position", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const NodeFilter f = NodeFilter().some_input_computed(OpKind::of("exp"));
  CHECK(f.accepts(node_of(add(exp(x), y))));
  CHECK(f.accepts(node_of(add(y, exp(x)))));
  CHECK(f.accepts(node_of(add(exp(x), exp(y)))));
  CHECK_FALSE(f.accepts(node_of(add(x, y))));
  CHECK_FALSE(f.accepts(node_of(add(neg(exp(x)), y))));  // below an input does not count
  CHECK_FALSE(f.accepts(node_of(add(fconst(1), fconst(2)))));
  CHECK_FALSE(f.accepts_all());
  CHECK(f.to_string() == "[?]:exp");
  CHECK(NodeFilter().op(OpKind::of("add")).some_input_computed(OpKind::of("exp")).to_string() ==
        "add, [?]:exp");
  CHECK_THROWS_MATCHES(NodeFilter().some_input_computed(OpKind{}), RewriteError,
                       Catch::Message("a node filter needs an op kind for some_input_computed"));
}

TEST_CASE("a filter can ask for a constant, or a literal, at any position", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const NodeFilter one = NodeFilter().op(OpKind::of("mul")).arity(2).some_input_literal(std::int64_t{1});
  CHECK(one.accepts(node_of(mul(x, fconst(1)))));
  CHECK(one.accepts(node_of(mul(fconst(1), x))));
  CHECK_FALSE(one.accepts(node_of(mul(x, fconst(2)))));
  CHECK_FALSE(one.accepts(node_of(mul(x, y))));
  CHECK(one.to_string() == "mul/2, [?]=1");
  const NodeFilter some = NodeFilter().some_input_constant();
  CHECK(some.accepts(node_of(add(fconst(2), x))));
  CHECK(some.accepts(node_of(add(x, fconst(2)))));
  CHECK_FALSE(some.accepts(node_of(add(x, y))));
  CHECK(some.to_string() == "[?]=const");
  // Several ask each for its own: both must be found.
  const NodeFilter both = NodeFilter().some_input_computed(OpKind::of("exp")).some_input_literal(0.5);
  CHECK(both.accepts(node_of(add(fconst(0.5), exp(x)))));
  CHECK_FALSE(both.accepts(node_of(add(fconst(0.5), x))));
  CHECK_FALSE(both.accepts(node_of(add(y, exp(x)))));
  CHECK(both.to_string() == "[?]:exp, [?]=0.5");
}

TEST_CASE("a commutative root's filter asks for its operands at any position", "[rewrite]") {
  Theory comm;
  comm.commutative("mul");
  const Term kx = lvar("x");
  const PatternNodeRewriter one("one", Pattern(compound(toy("mul", 2), kx, Term::integer(1)), comm), kx);
  CHECK(one.filter().to_string() == "mul/2, [?]=1");
  Var x = fvec("x");
  CHECK(one.filter().accepts(node_of(mul(fconst(1), x))));
  CHECK(one.filter().accepts(node_of(mul(x, fconst(1)))));
  CHECK_FALSE(one.filter().accepts(node_of(mul(x, x))));
  const PatternNodeRewriter nested(
      "nested", Pattern(compound(toy("mul", 2), compound(toy("exp", 1), kx), lvar("y")), comm), kx);
  CHECK(nested.filter().to_string() == "mul/2, [?]:exp");
  // What both operands ask of their input is asked at both positions.
  const PatternNodeRewriter self("self", Pattern(compound(toy("mul", 2), kx, kx), comm), kx);
  CHECK(self.filter().to_string() == "mul/2, [1]==[0]");
  CHECK(self.filter().accepts(node_of(mul(x, x))));
  CHECK_FALSE(self.filter().accepts(node_of(mul(x, fvec("y")))));
  comm.commutative("add");
  const Term ka = lvar("a"), kb = lvar("b");
  const PatternNodeRewriter scaled(
      "scaled",
      Pattern(compound(toy("add", 2), compound(toy("mul", 2), ka, kx), compound(toy("mul", 2), kb, kx)),
              comm),
      kx);
  CHECK(scaled.filter().to_string() == "add/2, [?]:mul, [?]:mul, [0]:mul/2, [1]:mul/2");
  CHECK(scaled.filter().accepts(node_of(add(mul(x, fconst(2)), mul(fconst(3), x)))));
  CHECK_FALSE(scaled.filter().accepts(node_of(add(mul(x, fconst(2)), x))));
}

TEST_CASE("a filter compares the node's op properties", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  Var m = ftensor("m", {2, 3});
  const NodeFilter seven = NodeFilter().op(OpKind::of("add")).prop("tag", std::int64_t{7});
  CHECK(seven.accepts(node_of((*toy("add", 2, 7))({x, y}))));
  CHECK_FALSE(seven.accepts(node_of((*toy("add", 2, 8))({x, y}))));
  CHECK(seven.to_string() == "add{tag=7}");
  // An op without the property is refused, as the matcher refuses it.
  CHECK_FALSE(NodeFilter().prop("axis", std::int64_t{0}).accepts(node_of(exp(x))));
  // Tuples compare whole; a value of another kind is another value.
  const NodeFilter axis0 = NodeFilter().prop("axis", std::vector<std::int64_t>{0});
  CHECK(axis0.accepts(node_of((*toy_sum(std::vector<std::int64_t>{0}))({m}))));
  CHECK_FALSE(axis0.accepts(node_of((*toy_sum(std::vector<std::int64_t>{0, 1}))({m}))));
  CHECK_FALSE(axis0.accepts(node_of((*toy_sum(std::nullopt))({m}))));
  CHECK_FALSE(NodeFilter().prop("keepdims", std::int64_t{0}).accepts(node_of((*toy_sum(std::nullopt))({m}))));
  // An Op compared whole: its kind, then equality.
  const NodeFilter exact = NodeFilter().op_equal_to(toy("add", 2, 7));
  CHECK(exact.accepts(node_of((*toy("add", 2, 7))({x, y}))));
  CHECK_FALSE(exact.accepts(node_of((*toy("add", 2, 8))({x, y}))));
  CHECK_FALSE(exact.accepts(node_of((*toy("mul", 2, 7))({x, y}))));
  CHECK(exact.to_string() == "add=add{tag=7}");
  CHECK_THROWS_AS(NodeFilter().op_equal_to(nullptr), RewriteError);
  // Several properties must all hold, and the filter is no longer "any".
  const NodeFilter both = NodeFilter().prop("axis", PropValue{}).prop("keepdims", true);
  CHECK_FALSE(both.accepts_all());
  CHECK(both.accepts(node_of((*toy_sum(std::nullopt, true))({m}))));
  CHECK_FALSE(both.accepts(node_of((*toy_sum(std::nullopt, false))({m}))));
  CHECK(both.to_string() == "{axis=none,keepdims=true}");
}

TEST_CASE("a filter checks what computes the inputs at each path", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  // (_ * _) / _, with input 1 of the mul a constant.
  NodeFilter f;
  const std::uint32_t in0[] = {0}, in01[] = {0, 1};
  f.op(OpKind::of("div")).computed(in0, OpKind::of("mul"), 2).constant(in01);
  CHECK(f.to_string() == "div, [0]:mul/2, [0,1]=const");
  CHECK(f.accepts(node_of(div(mul(x, fconst(2)), y))));
  CHECK_FALSE(f.accepts(node_of(div(mul(x, y), y))));           // [0,1] is no constant
  CHECK_FALSE(f.accepts(node_of(div(add(x, fconst(2)), y))));   // [0] is an add
  CHECK_FALSE(f.accepts(node_of(div(x, y))));                   // [0] is an input
  CHECK_FALSE(f.accepts(node_of(div(fconst(3), y))));           // [0] is a constant
  CHECK_FALSE(f.accepts(node_of(div(exp(x), y))));              // [0] has one input

  // A check below an input implies that the input is computed.
  NodeFilter deep;
  deep.constant(in01);
  CHECK(deep.to_string() == "[0]:_, [0,1]=const");
  CHECK(deep.accepts(node_of(exp(add(x, fconst(1))))));
  CHECK_FALSE(deep.accepts(node_of(exp(x))));
  // A path past a node's last input refuses it.
  const std::uint32_t in3[] = {3};
  CHECK_FALSE(NodeFilter().computed(in3).accepts(node_of(add(exp(x), exp(y)))));
  // Stating the same node twice refines it.
  NodeFilter twice;
  twice.computed(in0).computed(in0, OpKind::of("exp"));
  CHECK(twice.to_string() == "[0]:exp");
}

TEST_CASE("a filter's glance needs what its checks on the node's inputs need", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const std::uint32_t in0[] = {0}, in1[] = {1}, in01[] = {0, 1}, in3[] = {3};
  auto admits = [](const NodeFilter& f, const Var& v) {
    return f.glance().admits(NodeFilter::glance_at(*v->owner()));
  };
  // What a node shows: its arity and what computes its first three inputs.
  const NodeFilter::NodeGlance g = NodeFilter::glance_at(*add(exp(x), fconst(1))->owner());
  CHECK(g.arity == 2);
  CHECK(g.input[0] == OpKind::of("exp").index());
  CHECK(g.input[1] == NodeFilter::kConstantInput);
  CHECK(g.input[2] == NodeFilter::kNoInput);
  CHECK(NodeFilter::glance_at(*exp(x)->owner()).input[0] == NodeFilter::kRootInput);

  NodeFilter f;
  f.arity(2).computed(in0, OpKind::of("mul")).constant(in01).literal(in1, std::int64_t{1});
  CHECK(admits(f, add(mul(x, y), fconst(1))));
  CHECK(admits(f, add(mul(x, y), fconst(2))));  // the value is the filter's to check
  CHECK_FALSE(f.accepts(*add(mul(x, y), fconst(2))->owner()));
  CHECK_FALSE(admits(f, add(mul(x, y), y)));          // input 1 is no constant
  CHECK_FALSE(admits(f, add(exp(x), fconst(1))));     // input 0 is no mul
  CHECK_FALSE(admits(f, add(x, fconst(1))));          // input 0 is an input
  CHECK_FALSE(admits(f, exp(mul(x, y))));             // one input
  // Any Op will do for a check below an input; nothing at all past the arity.
  NodeFilter deep;
  deep.constant(in01);
  CHECK(admits(deep, exp(add(x, y))));
  CHECK_FALSE(admits(deep, exp(fconst(2))));
  CHECK(admits(NodeFilter().computed(in3), add(x, y)));  // input 3: past what a glance sees
  CHECK(admits(NodeFilter(), exp(x)));
  // Every input constant: each input a glance sees is a constant or absent.
  const ConstantFolding folding;
  CHECK(admits(folding.filter(), add(fconst(1), fconst(2))));
  CHECK(admits(folding.filter(), exp(fconst(1))));
  CHECK_FALSE(admits(folding.filter(), add(fconst(1), x)));
  CHECK_FALSE(admits(folding.filter(), add(exp(x), fconst(1))));
}

TEST_CASE("a literal check matches constants as the matcher does", "[rewrite]") {
  Var x = fvec("x");
  // Each literal is compared as the matcher compares a pattern's literal.
  const std::uint32_t in1[] = {1};
  NodeFilter one;
  one.literal(in1, 1);
  CHECK(one.to_string() == "[1]=1");
  CHECK(one.accepts(node_of(mul(x, fconst(1.0)))));
  CHECK_FALSE(one.accepts(node_of(mul(x, fconst(2.0)))));
  CHECK_FALSE(one.accepts(node_of(mul(x, x))));
  NodeFilter half;
  half.literal(in1, 0.5);
  CHECK(half.accepts(node_of(mul(x, fconst(0.5)))));
  CHECK_FALSE(half.accepts(node_of(mul(x, fconst(1.0)))));
  // The filter's verdict is the matcher's, literal by literal.
  const std::pair<FilterLiteral, Term> literals[] = {
      {std::int64_t{1}, Term(1)}, {0.5, Term(0.5)}, {std::int64_t{-1}, Term(-1)},
      {true, Term::boolean(true)}, {2.0, Term(2.0)}};
  for (const auto& [lit, term] : literals)
    for (double value : {1.0, 0.5, -1.0, 2.0, 0.0}) {
      Var v = mul(x, fconst(value));
      NodeFilter f;
      f.literal(in1, lit);
      INFO("literal " << rw::to_string(term) << ", constant " << value);
      CHECK(f.accepts(node_of(v)) == static_cast<bool>(match(Pattern(t_mul(kX, term)), v)));
    }
}

TEST_CASE("a same-value check refuses what the matcher's binding check refuses", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  const std::uint32_t in0[] = {0}, in1[] = {1};
  NodeFilter same;
  same.same_value(in1, in0);
  CHECK(same.to_string() == "[1]==[0]");
  const Pattern square(t_mul(kX, kX));
  // Each case: the filter may only refuse what `x * x` does not match.
  const std::vector<std::pair<Var, bool>> cases = {
      {mul(x, x), true},                         // one variable
      {mul(fconst(2), fconst(2)), true},         // two constants
      {mul(fconst(2), fconst(3)), true},         // (the matcher compares values)
      {mul(exp(x), exp(x)), true},               // one kind: the matcher looks further
      {mul(exp(x), exp(y)), true},
      {mul(x, y), false},                        // two graph inputs
      {mul(exp(x), log(x)), false},              // two kinds
      {mul(x, exp(x)), false},                   // an input and a computed variable
      {mul(fconst(2), x), false},                // a constant and an input
      {mul(add(x, y), fconst(1)), false}};
  for (const auto& [v, accepted] : cases) {
    INFO(to_infix(v));
    CHECK(same.accepts(node_of(v)) == accepted);
    if (match(square, v)) CHECK(accepted);
  }
  CHECK(static_cast<bool>(match(square, mul(exp(x), exp(x)))));
  CHECK_FALSE(match(square, mul(exp(x), exp(y))));
  // Deeper paths: (x * y) / y.
  const std::uint32_t in01[] = {0, 1};
  NodeFilter cancel;
  cancel.same_value(in1, in01);
  CHECK(cancel.to_string() == "[0]:_, [1]==[0,1]");
  CHECK(cancel.accepts(node_of(div(mul(x, y), y))));
  CHECK_FALSE(cancel.accepts(node_of(div(mul(x, y), x))));
  CHECK_FALSE(cancel.accepts(node_of(div(x, y))));  // input 0 is not computed
}

TEST_CASE("a filter refuses checks that make no sense, naming them", "[rewrite]") {
  NodeFilter f;
  CHECK_THROWS_MATCHES(f.constant({}), RewriteError,
                       Catch::Message("a node filter check needs a path to an input"));
  CHECK_THROWS_MATCHES(f.computed({}), RewriteError,
                       Catch::Message("a node filter check needs a path to an input"));
  CHECK_THROWS_MATCHES(f.literal({}, 1), RewriteError,
                       Catch::Message("a node filter check needs a path to an input"));
  const std::uint32_t in0[] = {0};
  CHECK_THROWS_MATCHES(f.same_value(in0, {}), RewriteError,
                       Catch::Message("a node filter check needs a path to an input"));
  CHECK_THROWS_MATCHES(f.same_value({}, in0), RewriteError,
                       Catch::Message("a node filter check needs a path to an input"));
  // Nothing was added by the refused calls.
  CHECK(f.accepts_all());
}

TEST_CASE("checks beyond the limit are dropped, so the filter accepts more", "[rewrite]") {
  Var x = fvec("x");
  NodeFilter f;
  // Input 0 of input 0 of … : 20 levels; only kMaxChecks are kept.
  std::vector<std::uint32_t> path;
  for (int i = 0; i < 20; ++i) {
    path.push_back(0);
    f.computed(path, OpKind::of("exp"), 1);
  }
  Var deep = x;
  for (std::size_t i = 0; i <= NodeFilter::kMaxChecks; ++i) deep = exp(deep);
  CHECK(f.accepts(node_of(deep)));  // 17 exps: the 16 checks hold
  Var shallow = x;
  for (std::size_t i = 0; i < NodeFilter::kMaxChecks; ++i) shallow = exp(shallow);
  CHECK_FALSE(f.accepts(node_of(shallow)));  // the 16th check finds the input x
}

TEST_CASE("pattern rewriters and constant folding declare their filters", "[rewrite]") {
  const PatternNodeRewriter cancel("cancel", Pattern(t_div(t_mul(kX, kY), kY)), kX);
  // y is written twice: input 1 and input 1 of the mul must be able to be one value.
  CHECK(cancel.filter().to_string() == "div/2, [0]:mul/2, [1]==[0,1]");
  const PatternNodeRewriter mul_one("mul_one", Pattern(t_mul(kX, 1)), kX);
  CHECK(mul_one.filter().to_string() == "mul/2, [1]=1");
  const PatternNodeRewriter sym("sym", Pattern(compound(Term("exp"), compound(Term("log"), kX))), kX);
  CHECK(sym.filter().to_string() == "exp/1, [0]:log/1");
  // Literal checks come after the structural ones (they cost more).
  const PatternNodeRewriter sp(
      "sp", Pattern(compound(toy("log", 1), t_add(1, compound(toy("exp", 1), kX)))), kX);
  CHECK(sp.filter().to_string() == "log/1, [0]:add/2, [0,1]:exp/1, [0,0]=1");
  // Below a commutative op, operands may come in any order: no checks there
  // but its arity, which arranging does not change (flattening does).
  Theory comm;
  comm.commutative("add");
  const PatternNodeRewriter c("c", Pattern(t_div(t_add(kX, 1), kY), comm), kX);
  CHECK(c.filter().to_string() == "div/2, [0]:add/2");
  Theory assoc;
  assoc.associative("add");
  const PatternNodeRewriter a("a", Pattern(t_div(t_add(kX, 1), kY), assoc), kX);
  CHECK(a.filter().to_string() == "div/2, [0]:add");
  // A variable head: any op with that many inputs.
  const PatternNodeRewriter v("v", Pattern(compound(Term("exp"), compound(lvar("f"), kX, 1))), kX);
  CHECK(v.filter().to_string() == "exp/1, [0]:_/2, [0,1]=1");
  CHECK(ConstantFolding().filter().to_string() == "*=const");
  // Properties written as values are compared; a variable property is not.
  const Term axis0 = op_pattern("sum", {{"axis", tuple(std::vector<Term>{Term::integer(0)})}});
  const PatternNodeRewriter s0("s0", Pattern(compound(axis0, kX)), kX);
  CHECK(s0.filter().to_string() == "sum/1{axis=(0)}");
  const PatternNodeRewriter sa("sa", Pattern(compound(op_pattern("sum", {{"axis", lvar("a")}}), kX)), kX);
  CHECK(sa.filter().to_string() == "sum/1");
  // A variable the caller says every match binds to a constant (a guard's
  // `constant(y)`) is checked where the pattern first reads it.
  PatternRewriteOptions constant_y;
  constant_y.constant_vars = {kY};
  const PatternNodeRewriter by("by", Pattern(t_div(kX, kY)), kX, constant_y);
  CHECK(by.filter().to_string() == "div/2, [1]=const");
  Var x = fvec("x");
  CHECK(by.filter().accepts(node_of(div(x, fconst(2)))));
  CHECK_FALSE(by.filter().accepts(node_of(div(x, x))));
}

TEST_CASE("drivers skip transform on refused nodes unless the trace listens", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  Var keep = mul(x, fconst(2)), skip = mul(x, y);
  const std::uint32_t in1[] = {1};
  auto r = std::make_shared<Counting>("counting", NodeFilter().op(OpKind::of("mul")).constant(in1));

  SECTION("equilibrium, silent: only the accepted node reaches transform; both are tried") {
    FunctionGraph fg({x, y}, {add(keep, skip)});
    RewriteProfile profile;
    RewriteContext ctx{.profile = &profile};
    EquilibriumRewriter("eq", {r}).rewrite(fg, ctx);
    CHECK(r->calls == 1);
    REQUIRE(r->seen.size() == 1);
    CHECK(to_infix(r->seen[0]->output(0)) == "x * 2.0");
    const PassProfile* pass = profile.find("eq");
    REQUIRE(pass);
    REQUIRE(pass->find_rewriter("counting"));
    CHECK(pass->find_rewriter("counting")->attempts == 2);
  }
  SECTION("walking, silent") {
    FunctionGraph fg({x, y}, {add(keep, skip)});
    in2out("walk", {r})->rewrite(fg);
    CHECK(r->calls == 1);
  }
  SECTION("traced: every node reaches transform, so each failure has its reason") {
    FunctionGraph fg({x, y}, {add(keep, skip)});
    Trace trace;
    auto rec = std::make_shared<TraceRecorder>(/*attempts=*/true);
    trace.subscribe(rec);
    RewriteContext ctx{.trace = &trace};
    EquilibriumRewriter("eq", {r}).rewrite(fg, ctx);
    CHECK(r->calls == 2);
    std::size_t failed = 0;
    for (const std::string& line : rec->lines())
      if (line.find("counting only") != std::string::npos) ++failed;
    CHECK(failed == 2);
  }
}

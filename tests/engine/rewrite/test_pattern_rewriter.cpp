// PatternNodeRewriter: the Simplify example as two patterns, to a fixed point
// through a driver and through a database; what it declares (tracks, depth,
// uses); constraints and guards with their reasons; shared intermediates;
// right sides that do not build or do not fit; literals on the right; Ops
// built through the registry once; why-not; trace determinism.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/unify/print.hpp"
#include "support/alloc_count.hpp"
#include "support/rewrite_fixtures.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

const Term kX = lvar("x"), kY = lvar("y"), kZ = lvar("z");

Term t_mul(Term a, Term b) { return compound(toy("mul", 2), std::move(a), std::move(b)); }
Term t_div(Term a, Term b) { return compound(toy("div", 2), std::move(a), std::move(b)); }
Term t_add(Term a, Term b) { return compound(toy("add", 2), std::move(a), std::move(b)); }
Term t_sub(Term a, Term b) { return compound(toy("sub", 2), std::move(a), std::move(b)); }

/// (x * y) / y -> x and (x * y) / x -> y, as patterns.
std::vector<NodeRewriterPtr> simplify() {
  return {std::make_shared<PatternNodeRewriter>("div_cancel_y", Pattern(t_div(t_mul(kX, kY), kY)), kX),
          std::make_shared<PatternNodeRewriter>("div_cancel_x", Pattern(t_div(t_mul(kX, kY), kX)), kY)};
}

struct Traced {
  Trace trace;
  std::shared_ptr<TraceRecorder> rec;
  RewriteContext ctx;
  explicit Traced(bool attempts = false) : rec(std::make_shared<TraceRecorder>(attempts)) {
    trace.subscribe(rec);
    ctx.trace = &trace;
  }
  bool has(const std::string& line) const {
    return std::find(rec->lines().begin(), rec->lines().end(), line) != rec->lines().end();
  }
};

/// The reason `r` gives for not rewriting the node computing `out` in `fg`.
std::string reason(const PatternNodeRewriter& r, const FunctionGraph& fg, const Var& out) {
  const auto why = r.why_not(fg, *out->owner());
  REQUIRE(why);
  return *why;
}

}  // namespace

TEST_CASE("the Simplify example as two patterns, to a fixed point", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y"), z = fvec("z");
  check_rewrite(simplify(), {x, y}, div(mul(x, y), y), "x");
  check_rewrite(simplify(), {x, y}, div(mul(x, y), x), "y");
  check_rewrite(simplify(), {x, y, z}, div(mul(div(mul(x, y), y), z), z), "x");
  check_rewrite(simplify(), {x, y, z}, div(mul(x, y), z), "x * y / z");
  check_rewrite(simplify(), {x, y}, add(div(mul(x, y), x), div(mul(y, x), x)), "y + y");
  // A cancellation exposed by another one: ((x*y)/y * z) / x -> z needs x*z first.
  check_rewrite(simplify(), {x, y, z}, div(mul(div(mul(x, y), y), z), x), "z");
}

TEST_CASE("pattern rewriters registered in a database run through a mode", "[rewrite]") {
  auto db = make_standard_db();
  for (const NodeRewriterPtr& r : simplify())
    db->sub<EquilibriumDB>("canonicalize").add(r, {"fast_run", "fast_compile"});
  Var x = fvec("x"), y = fvec("y");
  // (x * y) / y * (3 - 2): the patterns, then constant folding.
  FunctionGraph fg({x, y}, {mul(div(mul(x, y), y), sub(fconst(3), fconst(2)))});
  const PassReport report = Mode::fast_run(db).rewrite(fg);
  CHECK(report.ok());
  CHECK(infix(fg) == "x * 1.0");
  FunctionGraph untouched({x, y}, {div(mul(x, y), y)});
  Mode::fast_run(db).excluding({"div_cancel_y"}).rewrite(untouched);
  CHECK(infix(untouched) == "x * y / y");
}

TEST_CASE("a pattern rewriter declares its root op, its depth and whether it reads uses",
          "[rewrite]") {
  const PatternNodeRewriter cancel("c", Pattern(t_div(t_mul(kX, kY), kY)), kX);
  CHECK(cancel.tracks().op_names() == std::vector<std::string>{"div"});
  CHECK(cancel.depth() == 1);
  CHECK(cancel.reads_uses());  // it refuses shared intermediates
  CHECK(cancel.describe() == "div(mul(?x, ?y), ?y) -> ?x");

  const PatternNodeRewriter shallow("s", Pattern(t_mul(kX, 1)), kX);
  CHECK(shallow.depth() == 0);
  CHECK_FALSE(shallow.reads_uses());  // nothing below the root to be shared

  const PatternNodeRewriter shared("m", Pattern(t_div(t_mul(kX, kY), kY)), kX,
                                   {.allow_multiple_clients = true, .benefit = 3});
  CHECK_FALSE(shared.reads_uses());
  CHECK(shared.benefit() == 3);

  Theory assoc;
  assoc.associative("add");
  const PatternNodeRewriter flat("f", Pattern(t_sub(t_add(kX, kY), kY), assoc), kX);
  CHECK(flat.depth() == kAnyDepth);  // flattening reads chains of any length

  const PatternNodeRewriter given("g", Pattern(t_mul(kX, 1)), kX, {.depth = 4});
  CHECK(given.depth() == 4);

  REQUIRE_THROWS_WITH(PatternNodeRewriter("v", Pattern(kX), kX),
                      "the input pattern `?x` must be an application of a named op: a rewriter "
                      "is dispatched on its root op");
  REQUIRE_THROWS_AS(PatternNodeRewriter("", Pattern(t_mul(kX, 1)), kX), RewriteError);
  REQUIRE_THROWS_WITH(PatternNodeRewriter("n", Pattern(t_mul(kX, 1)), Term()),
                      "`n`: the output pattern is the null term");
}

TEST_CASE("a pattern rewriter's listing shows what the driver reads off the program",
          "[rewrite]") {
  const PatternNodeRewriter cancel("c", Pattern(t_div(t_mul(kX, kY), kY)), kX);
  const std::string listing = cancel.program_listing();
  CHECK(listing.starts_with(cancel.in_pattern().listing()));
  CHECK_THAT(listing, Catch::EndsWith("build `?x`\n"
                                      "filter div/2, [0]:mul/2, [1]==[0,1]\n"
                                      "depth 1\n"
                                      "intermediates refused when shared: [0]\n"));

  const PatternNodeRewriter shared("m", Pattern(t_div(t_mul(kX, kY), kY)), kX,
                                   {.allow_multiple_clients = true});
  CHECK_THAT(shared.program_listing(),
             Catch::EndsWith("intermediates may have other uses (multiple_clients)\n"));
  const PatternNodeRewriter shallow("s", Pattern(t_mul(kX, 1)), kX);
  CHECK_THAT(shallow.program_listing(),
             Catch::EndsWith("filter mul/2, [1]=1\ndepth 0\nintermediates none\n"));

  // Arranged operands: no fixed path below the first commutative Op, so the
  // filter stops there and shared nodes are found from the match.
  Theory comm;
  comm.commutative("mul");
  const PatternNodeRewriter arranged("a", Pattern(t_div(t_mul(kX, kY), kY), comm), kX);
  CHECK_THAT(arranged.program_listing(),
             Catch::EndsWith("filter div/2, [0]:mul/2\n"
                             "depth 1\n"
                             "intermediates refused when shared: found from the match (arranged "
                             "operands)\n"));
}

TEST_CASE("a failed attempt says which subpattern, constraint or guard failed", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {div(mul(x, y), x), div(exp(x), y), div(mul(x, y), fconst(2))});
  const Var& swapped = fg.outputs()[0];
  const Var& no_product = fg.outputs()[1];
  const Var& constant = fg.outputs()[2];

  const PatternNodeRewriter cancel("c", Pattern(t_div(t_mul(kX, kY), kY)), kX);
  CHECK(reason(cancel, fg, no_product) == "input 0 of `div`: expected `mul`, got `exp`");
  CHECK(reason(cancel, fg, swapped) == "input 1 of `div`: `?y` stands for `y` here, got `x`");

  // A constraint on the denominator: checked when the matcher gets there.
  Pattern constrained(t_div(t_mul(kX, kY), kZ));
  constrained.constrain({1}, "constant", [](const Variable& v, const FunctionGraph* g) {
    CHECK(g != nullptr);  // the graph being rewritten
    return v.is_constant();
  });
  const PatternNodeRewriter by_constant("k", constrained, kX);
  CHECK(reason(by_constant, fg, swapped) == "input 1 of `div`: `x` does not satisfy `constant`");
  CHECK_FALSE(by_constant.why_not(fg, *constant->owner()));

  // A constraint on an application, and one whose path leads nowhere.
  Pattern on_product(t_div(t_mul(kX, kY), kZ));
  on_product.constrain({0}, "no", [](const Variable&, const FunctionGraph*) { return false; });
  CHECK(reason(PatternNodeRewriter("p", on_product, kX), fg, swapped) ==
        "input 0 of `div`: `x * y` does not satisfy `no`");
  REQUIRE_THROWS_AS(on_product.constrain({2}, "far", [](const Variable&, const FunctionGraph*) {
    return true;
  }), TermError);

  // A guard with an explanation, given the graph through its bindings.
  Pattern guarded(t_div(t_mul(kX, kY), kY));
  guarded.where(
      "x is y", [](const Bindings& b) { return b.fgraph() && b.graph(kX) == b.graph(kY); },
      [](const Bindings& b) { return "`" + to_infix(b.graph(kX)) + "` is not `" + to_infix(b.graph(kY)) + "`"; });
  FunctionGraph fg2({x, y}, {div(mul(x, y), y)});
  const PatternNodeRewriter g("g", guarded, kX);
  CHECK(reason(g, fg2, fg2.outputs()[0]) == "`x` is not `y`");
  // Without an explanation the guard is named.
  Pattern named(t_div(t_mul(kX, kY), kY));
  named.where("never", [](const Bindings&) { return false; });
  CHECK(reason(PatternNodeRewriter("n", named, kX), fg2, fg2.outputs()[0]) == "guard `never` failed");

  // Nobody listening: a reason that costs nothing to make.
  const RewriteResult silent = cancel.transform(fg, *no_product->owner(), RewriteContext{});
  CHECK_FALSE(silent.applied());
  CHECK(silent.reason() == "the pattern does not match");
  Traced t(/*attempts=*/true);
  const RewriteResult heard = cancel.transform(fg, *no_product->owner(), t.ctx);
  CHECK(heard.reason() == "input 0 of `div`: expected `mul`, got `exp`");
}

TEST_CASE("a match whose inner node has other uses is refused unless the rule allows it",
          "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  Var product = mul(x, y);
  const auto make_graph = [&] { return FunctionGraph({x, y}, {div(product, y), exp(product)}, false); };

  const auto refusing = std::make_shared<PatternNodeRewriter>("cancel", Pattern(t_div(t_mul(kX, kY), kY)), kX);
  {
    FunctionGraph fg = make_graph();
    CHECK(reason(*refusing, fg, fg.outputs()[0]) ==
          "`x * y`, matched below the root, has 2 uses: rewriting would compute it twice "
          "(multiple clients are not allowed)");
    EquilibriumRewriter eq("eq", {refusing});
    eq.rewrite(fg);
    CHECK(infix(fg) == "x * y / y ; exp(x * y)");
  }
  {
    FunctionGraph fg = make_graph();
    EquilibriumRewriter eq("eq", {std::make_shared<PatternNodeRewriter>(
                                     "cancel", Pattern(t_div(t_mul(kX, kY), kY)), kX,
                                     PatternRewriteOptions{.allow_multiple_clients = true})});
    eq.rewrite(fg);
    CHECK(infix(fg) == "x ; exp(x * y)");
  }
  {
    // Once the other use goes away, the refused rewrite applies: the driver
    // re-tries the division because the rewriter reads uses.
    Var u = fvec("u");
    FunctionGraph fg({x, y, u}, {div(product, y), mul(exp(product), div(u, u))}, false);
    const auto drop_other_use = std::make_shared<PatternNodeRewriter>(
        "drop", Pattern(t_mul(compound(toy("exp", 1), kZ), t_div(kX, kX))), kX);
    EquilibriumRewriter eq("eq", {refusing, drop_other_use});
    const PassReport report = eq.rewrite(fg);
    CHECK(report.ok());
    CHECK(infix(fg) == "x ; u");
  }
}

TEST_CASE("with commutative and associative ops the shared inner nodes are found by walking",
          "[rewrite]") {
  Theory th;
  th.ac("add");
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  // (x + y) - y -> x against (a + b) + c - c: x = a + b (an existing node).
  const auto rw = std::make_shared<PatternNodeRewriter>("cancel", Pattern(t_sub(t_add(kX, kY), kY), th), kX);
  {
    FunctionGraph fg({a, b, c}, {sub(add(add(a, b), c), c)});
    EquilibriumRewriter("eq", {rw}).rewrite(fg);
    CHECK(infix(fg) == "a + b");
  }
  {
    // The sum that the match consumed is used elsewhere: refused.
    Var abc = add(add(a, b), c);
    FunctionGraph fg({a, b, c}, {sub(abc, c), exp(abc)});
    CHECK(reason(*rw, fg, fg.outputs()[0]) ==
          "`a + b + c`, matched below the root, has 2 uses: rewriting would compute it twice "
          "(multiple clients are not allowed)");
    // The bound operand `a + b` may have other uses: it is not rewritten away.
    Var ab = add(a, b);
    FunctionGraph fg2({a, b, c}, {sub(add(ab, c), c), exp(ab)});
    EquilibriumRewriter("eq", {rw}).rewrite(fg2);
    CHECK(infix(fg2) == "a + b ; exp(a + b)");
  }
  {
    // A regrouping: (a + (b + c)) - c needs x = a + b, a new node.
    FunctionGraph fg({a, b, c}, {sub(add(a, add(b, c)), c)});
    EquilibriumRewriter("eq", {rw}).rewrite(fg);
    CHECK(infix(fg) == "a + b");
  }
}

TEST_CASE("a right side that does not build or does not fit is a failed match", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  Var v3 = ftensor("v", {3});
  OpRegistry ops = toy_registry();

  // sum over axis 1 of a vector: make_node refuses; the graph is unchanged.
  const auto bad_axis = std::make_shared<PatternNodeRewriter>(
      "bad_axis", Pattern(compound(toy("exp", 1), kX)),
      compound(op_pattern("sum", {{"axis", tuple({1})}}), kX), PatternRewriteOptions{.registry = &ops});
  FunctionGraph fg({x}, {exp(x)});
  Traced t(/*attempts=*/true);
  const PassReport report = EquilibriumRewriter("eq", {bad_axis}).rewrite(fg, t.ctx);
  CHECK(report.applications == 0);
  CHECK(infix(fg) == "exp(x)");
  INFO(t.rec->text());
  CHECK(t.has("bad_axis failed on exp(x): the right side cannot be built: "
              "`sum{axis=(1),keepdims=false}` refused its inputs: toy `sum`: axis 1 is out of "
              "range for f64[?]"));

  // An op the registry does not know, or no registry: refused when the
  // rewriter is made, not at each attempt.
  CHECK_THROWS_WITH(PatternNodeRewriter("unknown", Pattern(compound(toy("exp", 1), kX)),
                                        compound(op_pattern("lgo"), kX), {.registry = &ops}),
                    "`unknown`: the output pattern names the op `lgo`, which the registry does "
                    "not know; did you mean `log`?");
  CHECK_THROWS_WITH(PatternNodeRewriter("inner", Pattern(compound(toy("exp", 1), kX)),
                                        compound(toy("exp", 1), compound(Term::string("mul"), kX, kX))),
                    "`inner`: the output pattern names the op `mul`, but no op registry was given "
                    "to build it (PatternRewriteOptions::registry)");
  // A head bound by the match is resolved when it builds: a variable bound
  // to something that is not an Op fails the attempt.
  const Term f = lvar("f");
  const PatternNodeRewriter bound("bound", Pattern(compound(toy("exp", 1), kX)),
                                  compound(f, kX), {.registry = &ops});
  CHECK(reason(bound, fg, fg.outputs()[0]).starts_with("the right side cannot be built: "));

  // x * v where x is f64[?] and v is f64[3]: the product is f64[3]; x is less
  // specific and cannot replace it.
  FunctionGraph fg2({x, v3}, {mul(x, v3)});
  const PatternNodeRewriter first("first", Pattern(t_mul(kX, kY)), kX);
  CHECK(reason(first, fg2, fg2.outputs()[0]) ==
        "the right side `x` is f64[?], which cannot replace `x * v` of type f64[3]");
  (void)y;
}

TEST_CASE("literals on the right take their siblings' dtype or the replaced output's type",
          "[rewrite]") {
  Var x = fvec("x");
  Var v3 = ftensor("v", {3});
  // x + x -> 2 * x: the literal becomes a float64 constant beside x.
  check_rewrite({std::make_shared<PatternNodeRewriter>("twice", Pattern(t_add(kX, kX)), t_mul(2, kX))},
                {x}, add(x, x), "2.0 * x");
  // x - x -> 0, alone: a constant of the output's type, shape included.
  const auto zero = std::make_shared<PatternNodeRewriter>("zero", Pattern(t_sub(kX, kX)), Term(0));
  FunctionGraph fg({v3}, {exp(sub(v3, v3))});
  EquilibriumRewriter("eq", {zero}).rewrite(fg);
  const Var& inner = fg.outputs()[0]->owner()->input(0);
  REQUIRE(inner->is_constant());
  CHECK(inner->type()->to_string() == "f64[3]");
  CHECK(inner->as_constant()->value().size() == 3);
  // Of unknown shape, no constant can stand for it.
  FunctionGraph unknown({x}, {sub(x, x)});
  CHECK(reason(*zero, unknown, unknown.outputs()[0]) ==
        "the right side is the constant 0, but `x - x` is f64[?], whose shape is not known "
        "statically");
  // A literal that does not fit the dtype exactly.
  const PatternNodeRewriter half("half", Pattern(t_sub(kX, kX)), compound(toy("neg", 1), 0.5));
  FunctionGraph fg3({x}, {sub(x, x)});
  CHECK(half.why_not(fg3, *fg3.outputs()[0]->owner()).has_value());  // f64[] cannot replace f64[?]
}

TEST_CASE("ops whose parameters come from the match are built once per value", "[rewrite]") {
  OpRegistry ops = toy_registry();
  const Term a = lvar("a");
  // sum{axis=?a}(exp(x)) -> exp(sum{axis=?a}(x)) — not a true identity, but it
  // rebuilds sum with the bound axis.
  const auto swap = std::make_shared<PatternNodeRewriter>(
      "swap", Pattern(compound(op_pattern("sum", {{"axis", a}}), compound(toy("exp", 1), kX))),
      compound(toy("exp", 1), compound(op_pattern("sum", {{"axis", a}}), kX)),
      PatternRewriteOptions{.registry = &ops});
  Var m = ftensor("m", {kUnknownDim, kUnknownDim});
  Var w = ftensor("w", {kUnknownDim, kUnknownDim});
  FunctionGraph fg({m, w}, {(*toy_sum(std::vector<std::int64_t>{1}))({exp(m)}),
                            (*toy_sum(std::vector<std::int64_t>{1}))({exp(w)}),
                            (*toy_sum(std::vector<std::int64_t>{0}))({exp(w)})});
  EquilibriumRewriter("eq", {swap}).rewrite(fg);
  CHECK(infix(fg) ==
        "exp(sum{axis=(1),keepdims=false}(m)) ; exp(sum{axis=(1),keepdims=false}(w)) ; "
        "exp(sum{axis=(0),keepdims=false}(w))");
  CHECK(swap->op_cache().size() == 2);  // axis (1) and axis (0)
}

TEST_CASE("the trace of pattern rewriting is the same run after run", "[rewrite]") {
  auto run = [] {
    Var x = fvec("x"), y = fvec("y"), z = fvec("z");
    FunctionGraph fg({x, y, z}, {add(div(mul(div(mul(x, y), y), z), z), div(mul(y, z), y))});
    Traced t(/*attempts=*/true);
    EquilibriumRewriter("simplify", simplify()).rewrite(fg, t.ctx);
    return t.rec->text();
  };
  const std::string first = run();
  CHECK(first.find("replaced") != std::string::npos);
  CHECK(first.find("failed") != std::string::npos);
  for (int i = 0; i < 3; ++i) CHECK(run() == first);
}

TEST_CASE("a node with several outputs is matched through its default output", "[rewrite]") {
  Var x = fvec("x");
  auto split = std::make_shared<ToySplit>();
  ApplyRef node = split->make_node(std::vector<Var>{x});
  const PatternNodeRewriter r("r", Pattern(compound(Term("split"), kX)), compound(toy("neg", 1), kX));
  FunctionGraph fg({x}, {node->output(0), node->output(1)});
  const RewriteResult res = r.transform(fg, *fg.outputs()[0]->owner(), RewriteContext{});
  REQUIRE(res.applied());
  REQUIRE(res.pairs().size() == 1);
  CHECK(res.pairs()[0].first == fg.outputs()[0]);
  CHECK(to_infix(res.pairs()[0].second) == "-x");

  auto two = std::make_shared<ToyTwoOut>();
  FunctionGraph fg2({x}, {two->make_node(std::vector<Var>{x})->output(0)});
  const PatternNodeRewriter r2("r2", Pattern(compound(Term("two_out"), kX)), kX);
  CHECK(*r2.why_not(fg2, *fg2.outputs()[0]->owner()) == "`two_out` has 2 outputs and no default one");
}

TEST_CASE("a failed attempt allocates nothing when nobody listens", "[rewrite]") {
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {div(exp(x), y), mul(x, y), div(mul(x, y), x)});
  const auto rules = simplify();
  const PatternNodeRewriter mul_one("mul_one", Pattern(t_mul(kX, 1)), kX);
  const RewriteContext silent;
  const long before = allocations_on_this_thread();
  for (int i = 0; i < 100; ++i) {
    CHECK_FALSE(rules[0]->transform(fg, *fg.outputs()[0]->owner(), silent).applied());
    CHECK_FALSE(mul_one.transform(fg, *fg.outputs()[1]->owner(), silent).applied());
    CHECK_FALSE(rules[0]->transform(fg, *fg.outputs()[2]->owner(), silent).applied());
  }
  CHECK(allocations_on_this_thread() - before == 0);
  // Someone listening pays for the reason.
  Traced t(/*attempts=*/true);
  const long heard = allocations_on_this_thread();
  CHECK_FALSE(mul_one.transform(fg, *fg.outputs()[1]->owner(), t.ctx).applied());
  CHECK(allocations_on_this_thread() > heard);
}

// Rules loaded into a rewrite database: the Simplify example through a driver
// and through a mode; commutative and associative declarations; guards,
// one_client and multiple clients; priorities; right sides that fail;
// parameters and literals on the right; why-not; trace determinism; groups
// and all-or-nothing registration; values preserved by rewriting.
#include <cmath>
#include <random>
#include <rw/function.hpp>

#include <catch2/catch.hpp>

#include "engine/dsl/rule_registration.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "support/pt_ops.hpp"
#include "support/rule_fixtures.hpp"

using namespace rw;
using namespace rw::test;
using namespace rw::dsl;

namespace {

const char* const kSimplify = R"(
ruleset simplify tags(canonicalize, fast_run)
rule div_cancel_y: (x * y) / y => x
rule div_cancel_x: (x * y) / x => y
)";

Var pt_var(const std::string& name, DType dtype, StaticShape shape) {
  return Variable::make(TensorType::make(dtype, std::move(shape)), name);
}
Var pt(const char* op, std::vector<Var> inputs, Props params = {}) {
  return (*pt_registry().make(op, params))(inputs);
}
Var pt_const(double v, DType dtype) { return Constant::scalar(v, dtype); }

/// The reason rule `name` does not rewrite the node computing `out`.
std::string why_not(const LoadedInto& l, const std::string& name, const FunctionGraph& fg,
                    const Var& out) {
  const CompiledRule* r = l.rules.find(name);
  REQUIRE(r);
  const auto why = r->why_not(fg, *out->owner());
  REQUIRE(why);
  return *why;
}

}  // namespace

TEST_CASE("the Simplify example as two rules, through a driver and through a mode", "[dsl]") {
  const LoadedInto l = load_into(kSimplify, toy_rule_registry());
  CHECK(l.rules.names() == std::vector<std::string>{"div_cancel_y", "div_cancel_x"});
  CHECK(l.rules.per_group() == std::map<std::string, std::size_t>{{"canonicalize", 2}});
  Var x = fvec("x"), y = fvec("y"), z = fvec("z");
  CHECK(l.run({x, y}, {div(mul(x, y), y)}) == "x");
  CHECK(l.run({x, y, z}, {div(mul(div(mul(x, y), y), z), x)}) == "z");
  CHECK(l.run({x, y, z}, {div(mul(x, y), z)}) == "x * y / z");

  FunctionGraph fg({x, y, z}, {mul(div(mul(div(mul(x, y), y), z), x), sub(fconst(3), fconst(2)))});
  const PassReport report = Mode::fast_run(l.db).rewrite(fg);
  CHECK(report.ok());
  CHECK(infix(fg) == "z * 1.0");  // the rules, then constant folding
  CHECK(l.db->selected_names(Mode::fast_run(l.db).query()) ==
        std::vector<std::string>{"merge1", "useless", "merge1.1", "canonicalize",
                                 "canonicalize/constant_folding", "canonicalize/merge",
                                 "canonicalize/div_cancel_y", "canonicalize/div_cancel_x",
                                 "merge1.2", "stabilize", "stabilize/constant_folding",
                                 "specialize", "specialize/constant_folding", "uncanonicalize",
                                 "uncanonicalize/constant_folding", "merge2", "merge3"});
}

TEST_CASE("a commutative declaration makes x * 1 rewrite 1 * x", "[dsl]") {
  const std::string rules = "ruleset r tags(canonicalize)\nrule mul_one: x * 1 => x\n";
  Var x = fvec("x");
  const LoadedInto plain = load_into(rules, toy_rule_registry());
  CHECK(plain.run({x}, {mul(fconst(1), x)}) == "1.0 * x");
  const LoadedInto comm = load_into("declare mul: commutative\n" + rules, toy_rule_registry());
  CHECK(comm.run({x}, {mul(fconst(1), x)}) == "x");
  CHECK(comm.run({x}, {mul(x, fconst(1))}) == "x");
  CHECK(comm.rules.find("mul_one")->rewriter->depth() == 0);
}

TEST_CASE("an associative declaration matches regroupings", "[dsl]") {
  const LoadedInto l = load_into(R"(
declare add: commutative, associative
ruleset r tags(canonicalize)
rule cancel: (x + y) - y => x
)", toy_rule_registry());
  Var a = fvec("a"), b = fvec("b"), c = fvec("c");
  CHECK(l.run({a, b, c}, {sub(add(a, add(b, c)), c)}) == "a + b");  // x = a + b, a new node
  CHECK(l.run({a, b, c}, {sub(add(add(c, a), b), c)}) == "a + b");
  CHECK(l.run({a, b, c}, {sub(add(b, c), a)}) == "b + c - a");
  CHECK(l.rules.find("cancel")->rewriter->depth() == kAnyDepth);
}

TEST_CASE("guards decide with reasons", "[dsl]") {
  PredicateRegistry predicates;
  const LoadedInto l = load_into(R"(
ruleset g tags(canonicalize)
rule neg_neg: -(-x) => x where float(x)
rule mul_c: x * c => x where constant(c) and value(c) == 1
)", pt_registry(), predicates);
  Var f = pt_var("f", DType::Float32, {kUnknownDim});
  Var i = pt_var("i", DType::Int32, {kUnknownDim});
  CHECK(l.run({f}, {pt("neg", {pt("neg", {f})})}) == "f");
  CHECK(l.run({i}, {pt("neg", {pt("neg", {i})})}) == "--i");
  FunctionGraph fg({i, f}, {pt("neg", {pt("neg", {i})}), pt("mul", {f, pt_const(2, DType::Float32)}),
                           pt("mul", {f, f})});
  CHECK(why_not(l, "neg_neg", fg, fg.outputs()[0]) == "`float(x)` is false (`x` is i32[?])");
  CHECK(why_not(l, "mul_c", fg, fg.outputs()[1]) == "`value(c) == 1` is false: `value(c)` is 2.0");
  CHECK(why_not(l, "mul_c", fg, fg.outputs()[2]) == "`constant(c)` is false (`c` is f32[?])");
  CHECK(l.rules.find("neg_neg")->rewriter->depth() == 1);  // types only: the pattern's depth
}

TEST_CASE("one_client in a guard, and inner nodes with other uses", "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset u tags(canonicalize)
rule exp_log: exp(log(x)) => x where one_client(x)
)", toy_rule_registry());
  Var x = fvec("x"), y = fvec("y");
  CHECK(l.run({x}, {exp(log(x))}) == "x");
  CHECK(l.run({x}, {add(exp(log(x)), x)}) == "exp(log(x)) + x");
  // It reads uses, which the driver does not follow to graph inputs: swept.
  CHECK(l.rules.find("exp_log")->rewriter->depth() == kAnyDepth);

  const LoadedInto refusing = load_into(kSimplify, toy_rule_registry());
  const LoadedInto allowing = load_into(R"(
ruleset simplify tags(canonicalize, fast_run)
rule div_cancel_y multiple_clients: (x * y) / y => x
)", toy_rule_registry());
  CHECK_FALSE(refusing.rules.find("div_cancel_y")->rewriter->allow_multiple_clients());
  CHECK(allowing.rules.find("div_cancel_y")->rewriter->allow_multiple_clients());
  Var p = mul(x, y);
  CHECK(refusing.run({x, y}, {div(p, y), exp(p)}) == "x * y / y ; exp(x * y)");
  CHECK(allowing.run({x, y}, {div(p, y), exp(p)}) == "x ; exp(x * y)");
  FunctionGraph fg({x, y}, {div(p, y), exp(p)});
  CHECK(why_not(refusing, "div_cancel_y", fg, fg.outputs()[0]) ==
        "`x * y`, matched below the root, has 2 uses: rewriting would compute it twice "
        "(multiple clients are not allowed)");
}

TEST_CASE("priority orders the rules of a node", "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset p tags(canonicalize, p)
rule low: exp(log(x)) => x
rule high priority 5: exp(log(x)) => -(-x)
rule lowest priority -1: exp(log(x)) => log(exp(x))
)", toy_rule_registry());
  CHECK(l.rules.find("high")->rewriter->benefit() == 5);
  CHECK(l.rules.find("low")->rewriter->benefit() == 0);
  Var x = fvec("x");
  Traced t;
  CHECK(l.run({x}, {exp(log(x))}, &t.ctx) == "--x");
  CHECK(t.has("replaced exp(log(x)) by --x  [high]"));
  const auto eq = std::dynamic_pointer_cast<const EquilibriumRewriter>(
      l.db->sub<EquilibriumDB>("canonicalize").build(RewriteQuery{"p"}));
  REQUIRE(eq);
  std::vector<std::string> order;
  for (const auto& r : eq->rewriters()) order.push_back(r->name());
  CHECK(order == std::vector<std::string>{"high", "low", "lowest"});
}

TEST_CASE("a right side that fails type checking is a failed match; the graph is unchanged",
          "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset t tags(canonicalize)
rule transpose_exp: exp(x) => dimshuffle(x, order=(1, 0))
)", pt_registry());
  Var v = pt_var("v", DType::Float64, {kUnknownDim});
  Var m = pt_var("m", DType::Float64, {kUnknownDim, kUnknownDim});
  Traced t(/*attempts=*/true);
  CHECK(l.run({v}, {pt("exp", {v})}, &t.ctx) == "exp(v)");
  CHECK(t.has("transpose_exp failed on exp(v): the right side cannot be built: "
              "`dimshuffle{order=(1,0)}` refused its inputs: no axis 1 in an input of rank 1"));
  CHECK(l.run({m}, {pt("exp", {m})}) == "dimshuffle{order=(1,0)}(m)");
}

TEST_CASE("parameters bound on the left are rebuilt on the right", "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset s tags(canonicalize)
rule sum_of_scale: sum(c * x, axis=a) => c * sum(x, axis=a) where scalar(c)
)", pt_registry());
  Var m = pt_var("m", DType::Float64, {kUnknownDim, kUnknownDim});
  Var w = pt_var("w", DType::Float64, {kUnknownDim, kUnknownDim});
  Var two = pt_const(2, DType::Float64);
  auto sum = [](Var x, std::vector<std::int64_t> axis) { return pt("sum", {x}, {{"axis", axis}}); };
  CHECK(l.run({m, w}, {sum(pt("mul", {two, m}), {0}), sum(pt("mul", {two, w}), {0}),
                       sum(pt("mul", {two, w}), {1})}) ==
        "2.0 * sum{axis=(0)}(m) ; 2.0 * sum{axis=(0)}(w) ; 2.0 * sum{axis=(1)}(w)");
  CHECK(l.rules.find("sum_of_scale")->rewriter->op_cache().size() == 2);
  // The parameter is matched, not ignored: none (all axes) is a value too.
  CHECK(l.run({m}, {pt("sum", {pt("mul", {two, m})})}) == "2.0 * sum{axis=none}(m)");
}

TEST_CASE("literals: the left matches one-element constants; the right takes a dtype", "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset lit tags(canonicalize)
rule mul_one: x * 1 => x
rule twice: x + x => 2 * x
rule zero: x - x => 0
)", pt_registry());
  Var f = pt_var("f", DType::Float32, {kUnknownDim});
  Var i8 = pt_var("b", DType::Int8, {kUnknownDim});
  CHECK(l.run({f}, {pt("mul", {f, pt_const(1, DType::Float32)})}) == "f");
  CHECK(l.run({i8}, {pt("mul", {i8, pt_const(1, DType::Int8)})}) == "b");
  CHECK(l.run({f}, {pt("mul", {f, Constant::make(Tensor::ones({1}, DType::Float32))})}) == "f");
  // Three elements: the product is f32[3], whatever x was — not matched.
  Var ones3 = Constant::make(Tensor::ones({3}, DType::Float32));
  CHECK(l.run({f}, {pt("mul", {f, ones3})}) == "f * [1. 1. 1.]");

  FunctionGraph fg({f, i8}, {pt("add", {f, f}), pt("add", {i8, i8})});
  EquilibriumRewriter("rules", l.rewriters()).rewrite(fg);
  CHECK(infix(fg) == "2.0 * f ; 2 * b");
  const Variable& two_f = *fg.outputs()[0]->owner()->input(0);
  const Variable& two_b = *fg.outputs()[1]->owner()->input(0);
  CHECK(two_f.type()->to_string() == "f32[]");
  CHECK(two_b.type()->to_string() == "i8[]");
  CHECK(fg.outputs()[0]->type()->to_string() == "f32[?]");

  Var v3 = pt_var("v", DType::Float32, {3});
  FunctionGraph zero({v3}, {pt("exp", {pt("sub", {v3, v3})})});
  EquilibriumRewriter("rules", l.rewriters()).rewrite(zero);
  const Var& c = zero.outputs()[0]->owner()->input(0);
  REQUIRE(c->is_constant());
  CHECK(c->type()->to_string() == "f32[3]");
  FunctionGraph unknown({f}, {pt("sub", {f, f})});
  CHECK(why_not(l, "zero", unknown, unknown.outputs()[0]) ==
        "the right side is the constant 0, but `f - f` is f32[?], whose shape is not known "
        "statically");
}

TEST_CASE("why-not names the subpattern or the guard that failed", "[dsl]") {
  const LoadedInto l = load_into(R"(
ruleset w tags(canonicalize)
rule div_cancel: (x * y) / y => x where one_client(y)
)", toy_rule_registry());
  const CompiledRule* r = l.rules.find("div_cancel");
  REQUIRE(r);
  CHECK(r->pattern() == "div(x * y, y)");  // the toy family's `div` is not the operator `/`
  CHECK(r->group == "canonicalize");
  CHECK(r->rewriter->describe() == "div(x * y, y) => x where one_client(y)");
  CHECK(l.rules.find("nothing") == nullptr);
  Var x = fvec("x"), y = fvec("y");
  FunctionGraph fg({x, y}, {div(exp(x), y), div(mul(x, y), x), div(mul(x, y), y), mul(x, y), y});
  CHECK(why_not(l, "div_cancel", fg, fg.outputs()[0]) == "input 0 of `div`: expected `mul`, got `exp`");
  CHECK(why_not(l, "div_cancel", fg, fg.outputs()[1]) ==
        "input 1 of `div`: `?y` stands for `y` here, got `x`");
  CHECK(why_not(l, "div_cancel", fg, fg.outputs()[2]) ==
        "`one_client(y)` is false (`y` is f64[?])");
  CHECK(why_not(l, "div_cancel", fg, fg.outputs()[3]) == "expected `div`, got `mul`");
}

TEST_CASE("the trace of a rule run is the same run after run", "[dsl]") {
  auto run = [] {
    const LoadedInto l = load_into("declare mul: commutative\n" + std::string(kSimplify) +
                                       "rule mul_one: x * 1 => x\n",
                                   toy_rule_registry());
    Var x = fvec("x"), y = fvec("y"), z = fvec("z");
    Traced t(/*attempts=*/true);
    l.run({x, y, z},
          {add(div(mul(div(mul(x, y), y), z), z), mul(fconst(1), div(mul(y, z), y)))}, &t.ctx);
    return t.rec->text();
  };
  const std::string first = run();
  CHECK(first.find("replaced") != std::string::npos);
  for (int i = 0; i < 3; ++i) CHECK(run() == first);
}

TEST_CASE("a ruleset names exactly one group", "[dsl]") {
  auto diagnostics = [](const std::string& text) {
    auto db = make_standard_db();
    const auto before = db->selected_names(RewriteQuery{"canonicalize", "stabilize"});
    auto r = check_rules_text_into(*db, "groups.rules", text, toy_rule_registry(), {});
    CHECK_FALSE(r.ok());
    CHECK(db->selected_names(RewriteQuery{"canonicalize", "stabilize"}) == before);
    return render(r.diagnostics);
  };
  CHECK(diagnostics("ruleset none tags(fast_run)\nrule a: exp(log(x)) => x\n") ==
        "groups.rules:1:1: error: ruleset `none` names no rewrite group; one of its tags must "
        "name one (the groups of `optdb` are `canonicalize`, `specialize`, `stabilize` and "
        "`uncanonicalize`)\n"
        "ruleset none tags(fast_run)\n"
        "^~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
  CHECK(diagnostics("ruleset two tags(canonicalize, stabilize)\nrule a: exp(log(x)) => x\n"
                    "rule b: log(exp(x)) => x\n") ==
        "groups.rules:1:1: error: ruleset `two` names 2 rewrite groups, `canonicalize` and "
        "`stabilize`; its rules can belong to one only\n"
        "ruleset two tags(canonicalize, stabilize)\n"
        "^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n");
  CHECK(diagnostics("ruleset c tags(canonicalize)\nrule a tags(stabilize): exp(log(x)) => x\n") ==
        "groups.rules:2:6: error: rule `a` names the rewrite group `stabilize`, but its ruleset "
        "`c` places it in `canonicalize`; a rule belongs to one group only\n"
        "rule a tags(stabilize): exp(log(x)) => x\n"
        "     ^\n");
  CHECK(diagnostics("rule a: exp(log(x)) => x\n") ==
        "groups.rules:1:6: error: rules before the first `ruleset` header belong to ruleset "
        "`groups`, which names no rewrite group; start the file with a header such as `ruleset "
        "groups tags(canonicalize, fast_run)` (the groups of `optdb` are `canonicalize`, "
        "`specialize`, `stabilize` and `uncanonicalize`)\n"
        "rule a: exp(log(x)) => x\n"
        "     ^\n");
  // A group given by the rule itself.
  auto db = make_standard_db();
  const LoadedRules ok = load_rules_text_into(
      *db, "own.rules", "ruleset q tags(fast_run)\nrule a tags(stabilize): exp(log(x)) => x\n",
      toy_rule_registry(), {});
  CHECK(ok.find("a")->group == "stabilize");
  CHECK(ok.find("a")->tags == std::vector<std::string>{"fast_run"});
  CHECK(db->sub<EquilibriumDB>("stabilize").find("a")->tags ==
        std::vector<std::string>{"fast_run", "stabilize"});
  CHECK(rule_groups(*db) ==
        std::vector<std::string>{"canonicalize", "specialize", "stabilize", "uncanonicalize"});
  // An equilibrium database is a group itself.
  EquilibriumDB alone("mine");
  const LoadedRules mine = load_rules_text_into(
      alone, "m.rules", "ruleset m tags(mine)\nrule a: exp(log(x)) => x\n", toy_rule_registry(), {});
  CHECK(alone.contains("a"));
  CHECK(mine.per_group() == std::map<std::string, std::size_t>{{"mine", 1}});
}

TEST_CASE("registration is all or nothing", "[dsl]") {
  auto db = make_standard_db();
  db->sub<EquilibriumDB>("canonicalize").add(div_cancel(), {"fast_run"});
  const auto query = Mode::fast_run(db).query();
  const auto before = db->selected_names(query);
  const std::string text = R"(ruleset a tags(canonicalize, fast_run)
rule exp_log: exp(log(x)) => x
rule div_cancel: (x * y) / y => x
ruleset b tags(stabilize, fast_run)
rule log_exp: log(exp(x)) => x
rule fast_run: -(-x) => x
)";
  auto r = check_rules_text_into(*db, "clash.rules", text, toy_rule_registry(), {});
  REQUIRE_FALSE(r.ok());
  CHECK(render(r.diagnostics) ==
        "clash.rules:3:6: error: cannot register rule `div_cancel`: `canonicalize` already has "
        "an entry named `div_cancel`\n"
        "rule div_cancel: (x * y) / y => x\n"
        "     ^~~~~~~~~~\n"
        "clash.rules:6:6: error: cannot register rule `fast_run`: `stabilize`: the name "
        "`fast_run` collides with a tag of `constant_folding`; names and tags share one "
        "namespace\n"
        "rule fast_run: -(-x) => x\n"
        "     ^~~~~~~~\n");
  CHECK(db->selected_names(query) == before);
  CHECK_FALSE(db->sub<EquilibriumDB>("canonicalize").contains("exp_log"));
  CHECK_FALSE(db->sub<EquilibriumDB>("stabilize").contains("log_exp"));
  REQUIRE_THROWS_AS(load_rules_text_into(*db, "clash.rules", text, toy_rule_registry(), {}),
                    LoadError);
  CHECK(db->selected_names(query) == before);
  // A file with errors of its own registers nothing either.
  auto bad = check_rules_text_into(*db, "bad.rules", "ruleset a tags(canonicalize)\nrule r: lgo(x) => x\n",
                                   toy_rule_registry(), {});
  CHECK_FALSE(bad.ok());
  CHECK(render(bad.diagnostics).starts_with("bad.rules:2:9: error: unknown op `lgo`"));
  CHECK(db->selected_names(query) == before);
}

TEST_CASE("rewriting with rules preserves values", "[dsl]") {
  const LoadedInto l = load_into(R"(
declare mul: commutative, associative
declare add: commutative, associative
ruleset algebra tags(canonicalize, fast_run)
rule mul_one:    x * 1       => x
rule add_zero:   x + 0       => x
rule div_one:    x / 1       => x
rule div_cancel: (x * y) / y => x
rule sub_self:   x - x       => 0 * x
rule neg_neg:    -(-x)       => x
rule twice:      x + x       => 2 * x
rule exp_log:    exp(log(x)) => x
)", toy_rule_registry());
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> value(0.5, 2.0);
  std::uniform_int_distribution<int> pick(0, 11);
  for (int round = 0; round < 20; ++round) {
    Var a = fvec("a"), b = fvec("b"), c = fvec("c");
    std::vector<Var> pool{a, b, c, exp(log(a))};
    auto any = [&] { return pool[std::uniform_int_distribution<std::size_t>(0, pool.size() - 1)(rng)]; };
    for (int i = 0; i < 40; ++i) {
      Var p = any(), q = any();
      Var v;
      switch (pick(rng)) {
        case 0: v = mul(p, q); break;
        case 1: v = add(p, q); break;
        case 2: v = div(p, add(q, fconst(3))); break;
        case 3: v = sub(p, q); break;
        case 4: v = mul(fconst(1), p); break;
        case 5: v = add(p, fconst(0)); break;
        case 6: v = div(mul(p, q), q); break;
        case 7: v = neg(neg(p)); break;
        case 8: v = add(p, p); break;
        case 9: v = div(p, fconst(1)); break;
        case 10: v = sub(mul(p, fconst(0)), q); break;
        default: v = mul(add(p, q), sub(q, q)); break;
      }
      pool.push_back(v);
    }
    const std::vector<Var> outs(pool.end() - 3, pool.end());
    auto rewritten = rw::function(
        {a, b, c}, outs,
        {.rewrite = [&](FunctionGraph& fg) { CHECK(Mode::fast_run(l.db).rewrite(fg).ok()); },
         .on_unused_input = UnusedInput::Ignore});
    auto plain = rw::function({a, b, c}, outs, {.on_unused_input = UnusedInput::Ignore});
    CHECK(rewritten.fgraph().num_nodes() < plain.fgraph().num_nodes());
    std::vector<Tensor> args;
    for (int k = 0; k < 3; ++k) {
      std::vector<double> xs(5);
      for (double& e : xs) e = value(rng);
      args.push_back(Tensor::from_vector(xs, std::vector<std::int64_t>{5}));
    }
    const std::vector<Tensor> want = plain.call(args);
    const std::vector<Tensor> got = rewritten.call(args);
    REQUIRE(got.size() == want.size());
    for (std::size_t o = 0; o < want.size(); ++o) {
      INFO("round " << round << ", output " << o << ": " << to_infix(outs[o]) << "\nrewritten: "
                    << to_infix(rewritten.fgraph().outputs()[o]));
      const double* w = want[o].contiguous().data<double>();
      const double* g = got[o].contiguous().data<double>();
      for (std::int64_t e = 0; e < want[o].size(); ++e) {
        if (std::isnan(w[e])) {
          CHECK(std::isnan(g[e]));
        } else {
          CHECK(g[e] == Approx(w[e]).epsilon(1e-9).margin(1e-12));
        }
      }
    }
  }
}

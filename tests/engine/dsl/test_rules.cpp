// Checked rules: resolved ops and parameters, variables, literals, rulesets,
// priorities, declarations, and the faults that refuse a rule file.
#include <catch2/catch.hpp>

#include "engine/dsl/parse.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/graph/op.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
using rw::test::pt_registry;

namespace {

RuleModule load(const std::string& text, const std::string& name = "t.rules") {
  const PredicateRegistry predicates;
  auto r = check_rules_text(name, text, pt_registry(), predicates,
                            {std::make_shared<MemoryResolver>(), {}});
  INFO(render(r.diagnostics));
  REQUIRE(r.ok());
  REQUIRE(r.diagnostics.empty());
  return std::move(*r.value);
}

std::string errors_of(const std::string& text) {
  const PredicateRegistry predicates;
  auto r = check_rules_text("t.rules", text, pt_registry(), predicates,
                            {std::make_shared<MemoryResolver>(), {}});
  REQUIRE_FALSE(r.ok());
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.message + "\n";
  return out;
}

// The pattern as `kind:detail` per node, in stored order.
std::vector<std::string> nodes_of(const Pattern& p, const CheckedRule& r) {
  std::vector<std::string> out;
  for (const PatternNode& n : p.nodes) {
    switch (n.kind) {
      case PatternNode::Kind::Var:
        out.push_back("var:" + r.vars[index_of(n.var)].name);
        break;
      case PatternNode::Kind::Literal:
        out.push_back("lit:" + ast::format_number(n.literal));
        break;
      case PatternNode::Kind::Apply: {
        std::string s = "apply:" + n.op_info->name + "(";
        for (std::size_t i = 0; i < n.inputs.size(); ++i)
          s += (i ? "," : "") + std::to_string(n.inputs[i]);
        out.push_back(s + ")");
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a rule resolves its ops and stores its patterns in post-order", "[dsl]") {
  const RuleModule m = load(
      "ruleset stabilize tags(stabilize, fast_run)\n"
      "rule log1p_of_add: log(1 + x) => log1p(x)\n");
  REQUIRE(m.rules.size() == 1);
  const CheckedRule& r = m.rules[0];
  CHECK(r.name == "log1p_of_add");
  CHECK(r.ruleset == "stabilize");
  CHECK(r.tags == std::vector<std::string>{"stabilize", "fast_run"});
  CHECK(r.priority == 0);
  REQUIRE(r.vars.size() == 1);
  CHECK((r.vars[0].name == "x" && r.vars[0].kind == VarKind::Tensor && !r.vars[0].anonymous));
  CHECK(nodes_of(r.lhs, r) ==
        std::vector<std::string>{"lit:1", "var:x", "apply:add(0,1)", "apply:log(2)"});
  CHECK(nodes_of(r.rhs, r) == std::vector<std::string>{"var:x", "apply:log1p(0)"});
  CHECK(r.lhs.root().op_info == pt_registry().find("log"));
  REQUIRE(r.lhs.root().op);
  CHECK(*r.lhs.root().op == *pt_registry().make("log"));
  CHECK(r.to_string() == "rule log1p_of_add: log(1 + x) => log1p(x)");
  CHECK(r.file->slice(r.span) == "rule log1p_of_add: log(1 + x) => log1p(x)");
  CHECK(r.file->slice(r.lhs.nodes[2].span) == "1 + x");
}

TEST_CASE("each operator stands for its registry op", "[dsl]") {
  const RuleModule m = load(
      "rule ops: (a + b) - (c * d) / (e ** f) => (a < b) + (a > b) + (a <= b) + (a >= b) + "
      "(a == b) + (a != b) + -a\n");
  const CheckedRule& r = m.rules[0];
  std::vector<std::string> ops;
  for (const Pattern* p : {&r.lhs, &r.rhs})
    for (const PatternNode& n : p->nodes)
      if (n.kind == PatternNode::Kind::Apply) ops.push_back(n.op_info->name);
  CHECK(ops == std::vector<std::string>{"add", "mul", "pow", "true_div", "sub", "lt", "gt", "add",
                                        "le", "add", "ge", "add", "eq", "add", "neq", "add", "neg",
                                        "add"});
  CHECK(r.to_string() ==
        "rule ops: a + b - c * d / e ** f => (a < b) + (a > b) + (a <= b) + (a >= b) + "
        "(a == b) + (a != b) + -a");
}

TEST_CASE("a minus sign before a number is part of the literal", "[dsl]") {
  const RuleModule m = load("rule r: x * -1 => -x\nrule s: x + -(-2.5) => x - -inf\n");
  const CheckedRule& r = m.rules[0];
  CHECK(nodes_of(r.lhs, r) == std::vector<std::string>{"var:x", "lit:-1", "apply:mul(0,1)"});
  CHECK(std::get<std::int64_t>(r.lhs.nodes[1].literal) == -1);
  CHECK(nodes_of(r.rhs, r) == std::vector<std::string>{"var:x", "apply:neg(0)"});
  const CheckedRule& s = m.rules[1];
  CHECK(std::get<double>(s.lhs.nodes[1].literal) == 2.5);
  CHECK(nodes_of(s.rhs, s) == std::vector<std::string>{"var:x", "lit:-inf", "apply:sub(0,1)"});
  CHECK(s.to_string() == "rule s: x + 2.5 => x - -inf");
}

TEST_CASE("parameters: literals are converted, defaults filled, variables bound", "[dsl]") {
  const RuleModule m = load(
      "rule lit: sum(x, axis=0) => sum{axis=(0,)}(x)\n"
      "rule dflt: sum(x) => sum(x, axis=none)\n"
      "rule var: sum(c * x, axis=?a) => c * sum(x, axis=a) where scalar(c)\n"
      "rule cast_cast: cast(cast(x, dtype=d), dtype=float64) => cast(x, dtype=f64)\n"
      "rule anon: dimshuffle(x, order=_) => x\n");
  const CheckedRule& lit = m.rules[0];
  const PatternNode& s0 = lit.lhs.root();
  REQUIRE(s0.params.size() == 1);
  CHECK(s0.params[0].name == "axis");
  CHECK(*s0.params[0].value == PropValue{std::vector<std::int64_t>{0}});
  CHECK(s0.params[0].written);
  REQUIRE(s0.op);
  CHECK(*s0.op == *lit.rhs.root().op);  // `axis=0` and `{axis=(0,)}` are the same op

  const CheckedRule& dflt = m.rules[1];
  CHECK(*dflt.lhs.root().params[0].value == PropValue{std::monostate{}});
  CHECK_FALSE(dflt.lhs.root().params[0].written);
  CHECK(*dflt.lhs.root().op == *dflt.rhs.root().op);

  const CheckedRule& var = m.rules[2];
  REQUIRE(var.vars.size() == 3);
  const RuleVariable& a = var.vars[2];
  CHECK((a.name == "a" && a.kind == VarKind::Param && a.param_kind == ParamKind::Ints &&
         a.param_nullable));
  const PatternNode& sum = var.lhs.root();
  CHECK(sum.op == nullptr);  // built at rewrite time from the bound value
  CHECK((sum.params[0].var && index_of(*sum.params[0].var) == 2 && !sum.params[0].value));
  CHECK(var.rhs.nodes[2].params[0].var == sum.params[0].var);
  CHECK(var.find_var("a") == VarId{2});
  CHECK(var.to_string() == "rule var: sum(c * x, axis=?a) => c * sum(x, axis=?a) where scalar(c)");

  const CheckedRule& cc = m.rules[3];
  CHECK(cc.vars[1].param_kind == ParamKind::DType);
  CHECK(*cc.rhs.root().params[0].value == PropValue{DType::Float64});
  REQUIRE(cc.rhs.root().op);

  const CheckedRule& anon = m.rules[4];
  REQUIRE(anon.vars.size() == 2);
  CHECK(anon.vars[1].anonymous);
}

TEST_CASE("a variable used twice on the left must match the same thing", "[dsl]") {
  const RuleModule m = load("rule sub_self: x - x => 0 * x\nrule two_anon: _ + _ => 0\n");
  const CheckedRule& r = m.rules[0];
  CHECK(r.vars.size() == 1);
  CHECK(r.lhs.nodes[0].var == r.lhs.nodes[1].var);
  CHECK(m.rules[1].vars.size() == 2);  // each `_` is its own
  CHECK(m.rules[1].rhs.root().kind == PatternNode::Kind::Literal);
}

TEST_CASE("rulesets, tags, priorities and the default ruleset", "[dsl]") {
  const RuleModule m = load(
      "rule first: exp(log(x)) => x\n"
      "ruleset canon tags(canonicalize, fast_run)\n"
      "rule second tags(fast_run, extra) priority 10: x * 1 => x\n"
      "ruleset other\n"
      "rule third priority -2: x + 0 => x\n"
      "ruleset canon\n"
      "rule fourth: neg(neg(x)) => x\n",
      "dir/base.rules");
  REQUIRE(m.rulesets.size() == 3);
  CHECK(m.rulesets[0].name == "base");  // rules before any header: named after the file
  CHECK(m.rules[0].ruleset == "base");
  CHECK(m.rules[0].tags.empty());
  CHECK(m.rules[1].tags == std::vector<std::string>{"canonicalize", "fast_run", "extra"});
  CHECK(m.rules[1].priority == 10);
  CHECK(m.rules[2].ruleset == "other");
  CHECK(m.rules[2].priority == -2);
  CHECK(m.rules[3].ruleset == "canon");
  CHECK(m.rules[3].tags == std::vector<std::string>{"canonicalize", "fast_run"});
  CHECK(m.find_ruleset("canon")->tags.size() == 2);
  CHECK(m.rules_with_tag("fast_run").size() == 2);
  CHECK(m.rules_with_tag("extra").size() == 1);
  CHECK(m.find_rule("third") == &m.rules[2]);
  CHECK(m.find_rule("nope") == nullptr);
}

TEST_CASE("declarations resolve their op and merge", "[dsl]") {
  const RuleModule m = load(
      "declare add: commutative\ndeclare mul: commutative, associative\n"
      "declare add: associative\ndeclare div: commutative\n");
  REQUIRE(m.declarations.size() == 3);
  CHECK(m.is_commutative("add"));
  CHECK(m.is_associative("add"));
  CHECK(m.is_associative("mul"));
  CHECK(m.is_commutative("true_div"));  // declared through its alias
  CHECK_FALSE(m.is_associative("true_div"));
  CHECK_FALSE(m.is_commutative("sub"));
  CHECK(m.declaration("add")->info == pt_registry().find("add"));
}

TEST_CASE("guards are checked into predicates and comparisons", "[dsl]") {
  const RuleModule m = load(
      "rule g: x / y => x where float(x) and (rank(y) == 0 or constant(y)) and not "
      "value(y) == 0 and dtype(x) != int8 and shape(x, -1) >= 2 and broadcastable(y, 0)\n");
  const CheckedGuard& g = *m.rules[0].guard;
  CHECK(g.text() ==
        "float(x) and (rank(y) == 0 or constant(y)) and not value(y) == 0 and dtype(x) != int8 "
        "and shape(x, -1) >= 2 and broadcastable(y, 0)");
  const GuardNode& root = g.root();
  REQUIRE(root.kind == GuardNode::Kind::And);
  REQUIRE(root.children.size() == 6);
  for (std::size_t i = 0; i < g.nodes().size(); ++i)
    for (std::uint32_t c : g.nodes()[i].children) CHECK(c < i);
  const GuardNode& f = g.nodes()[root.children[0]];
  CHECK((f.kind == GuardNode::Kind::Predicate && f.predicate->name == "float"));
  CHECK(f.tensor_args == std::vector<VarId>{VarId{0}});
  CHECK(g.nodes()[root.children[1]].kind == GuardNode::Kind::Or);
  CHECK(g.nodes()[root.children[2]].kind == GuardNode::Kind::Not);
  const GuardNode& dt = g.nodes()[root.children[3]];
  CHECK((dt.kind == GuardNode::Kind::Compare && dt.op == ast::BinaryOp::Ne));
  CHECK((dt.lhs.kind == GuardOperand::Kind::DType &&
         dt.rhs.kind == GuardOperand::Kind::DTypeLiteral && dt.rhs.dtype == DType::Int8));
  const GuardNode& sh = g.nodes()[root.children[4]];
  CHECK((sh.lhs.kind == GuardOperand::Kind::Shape && sh.lhs.axis == -1 && sh.rhs.number == 2));
  const GuardNode& bc = g.nodes()[root.children[5]];
  CHECK((bc.predicate->name == "broadcastable" && bc.int_args == std::vector<std::int64_t>{0}));
}

TEST_CASE("faults that refuse a rule file", "[dsl]") {
  CHECK(errors_of("rule r: lgo(x) => x") == "unknown op `lgo`; did you mean `log`?\n");
  CHECK(errors_of("rule r: exp(x, x) => x") == "op `exp` takes 1 input, but 2 are given\n");
  CHECK(errors_of("rule r: add(x) => x") == "op `add` takes at least 2 inputs, but 1 is given\n");
  CHECK(errors_of("rule r: x => y") ==
        "the left side of a rule must be an operation, not a lone variable\n"
        "`y` is not bound on the left side\n");
  CHECK(errors_of("rule r: 1 => 2") ==
        "the left side of a rule must be an operation, not a number\n");
  CHECK(errors_of("rule r: exp(x) => log(y)") == "`y` is not bound on the left side\n");
  CHECK(errors_of("rule r: exp(xs) => log(x)") ==
        "`x` is not bound on the left side; did you mean `xs`?\n");
  CHECK(errors_of("rule r: exp(x) => _") ==
        "`_` matches anything on the left side; the right side cannot read it\n");
  CHECK(errors_of("rule r: exp(x) => exp") ==
        "`exp` is not bound on the left side (`exp` is an op: call it, `exp(…)`)\n");
  CHECK(errors_of("rule r: sum(x, axes=0) => x") ==
        "op `sum` has no parameter `axes`; did you mean `axis`?\n");
  CHECK(errors_of("rule r: exp(x, k=1) => x") ==
        "op `exp` has no parameter `k`; it takes no parameters\n");
  CHECK(errors_of("rule r: sum(x, axis=1.5) => x") ==
        "parameter `axis` of op `sum` must be a tuple of ints or none, not `1.5`\n");
  CHECK(errors_of("rule r: cast(x, dtype=\"f99\") => x") ==
        "parameter `dtype` of op `cast` must be a dtype, not `f99`\n");
  CHECK(errors_of("rule r: sum{axis=0}(x, axis=1) => x") == "parameter `axis` is given twice\n");
  CHECK(errors_of("rule r: dimshuffle(x) => x") ==
        "op `dimshuffle` needs parameter `order` (tuple of ints)\n");
  CHECK(errors_of("rule r: dimshuffle(x, order=(0, y)) => x") ==
        "unknown tuple element `y`; a tuple holds integers, `x` (a new broadcastable axis) and `i` "
        "(an index taken from an input)\n");
  CHECK(errors_of("rule r: subtensor(x, i, index=(0)) => x") ==
        "op `subtensor`: index entries are `i` (an index taken from an input)\n");
  CHECK(errors_of("rule r: sum(x, axis=a) => exp(a)") ==
        "`a` is a parameter variable (bound at 1:21), not a tensor\n");
  CHECK(errors_of("rule r: sum(x, axis=x) => x") ==
        "`x` is a tensor variable (bound at 1:13), not a parameter\n");
  CHECK(
      errors_of("rule r: sum(x, axis=a) => cast(x, dtype=a)") ==
      "`a` holds a tuple of ints (bound at 1:21), but parameter `dtype` of `cast` takes a dtype\n");
  CHECK(errors_of("rule r: sum(x, axis=a) => dimshuffle(x, order=a)") ==
        "`a` may be `none` (bound at 1:21), which parameter `order` of `dimshuffle` does not "
        "accept\n");
  CHECK(errors_of("rule r: cast(cast(x, dtype=d), dtype=d) => x\nrule s: cast(dimshuffle(x, "
                  "order=d), dtype=d) => x") ==
        "`d` holds a tuple of ints (bound at 2:34), but parameter `dtype` of `cast` is a dtype\n");
  CHECK(errors_of("rule r: %3 + x => x") ==
        "`%3` is a graph-file name; rules use pattern variables\n");
  CHECK(errors_of("rule r: exp(x) => not x") ==
        "`not` belongs in a `where` guard; patterns are built from ops\n");
  CHECK(errors_of("rule r: exp(x) and log(x) => x") ==
        "`and` belongs in a `where` guard; patterns are built from ops\n");
  CHECK(errors_of("rule r: float(x) => x") ==
        "unknown op `float` (`float` is used in `where` guards)\n");
  CHECK(errors_of("rule a: exp(x) => x\nrule a: log(x) => x") == "rule `a` is defined twice\n");
  CHECK(errors_of("input x f64\nrule a: exp(x) => x") ==
        "`input` belongs in a graph file, not a rule file\n");
  CHECK(
      errors_of("ruleset s tags(a)\nruleset s tags(b)") ==
      "ruleset `s` was declared with tags(a); a later header may repeat them or leave them out\n");
  CHECK(errors_of("declare ad: commutative") == "unknown op `ad`; did you mean `add`?\n");
  CHECK(errors_of("declare add: comutative") ==
        "unknown property `comutative`; did you mean `commutative`?\n");
  CHECK(errors_of("declare add: linear") ==
        "unknown property `linear`; properties are `commutative` and `associative`\n");
  CHECK(errors_of("declare exp: commutative") ==
        "only an op that takes two inputs can be commutative; `exp` takes 1 input\n");
}

TEST_CASE("guard faults", "[dsl]") {
  CHECK(errors_of("rule r: exp(x) => x where flot(x)") ==
        "unknown predicate `flot`; did you mean `float`?\n");
  CHECK(errors_of("rule r: exp(x) => x where float(y)") == "`y` is not bound on the left side\n");
  CHECK(errors_of("rule r: exp(x) => x where float(x, x)") ==
        "predicate `float` takes 1 argument, but 2 are given\n");
  CHECK(errors_of("rule r: exp(x) => x where float(x + 1)") ==
        "`float` takes a variable of the left side here, such as `x`\n");
  CHECK(errors_of("rule r: exp(x) => x where broadcastable(x, y)") ==
        "`broadcastable` takes an integer literal here\n");
  CHECK(errors_of("rule r: exp(x) => x where rank(x)") ==
        "`rank(…)` is a value, not a condition; compare it, e.g. `rank(x) == 2`\n");
  CHECK(errors_of("rule r: exp(x) => x where float(x) == 1") ==
        "`float(…)` is a condition, not a value; use it on its own\n");
  CHECK(errors_of("rule r: exp(x) => x where x") ==
        "a guard is a predicate call such as `float(x)`, a comparison such as `rank(x) == 2`, or "
        "`and`, `or`, `not` of guards\n");
  CHECK(errors_of("rule r: exp(x) => x where x == 1") ==
        "compare a property of `x`: `dtype(x)`, `rank(x)`, `shape(x, 0)` or `value(x)`\n");
  CHECK(errors_of("rule r: exp(x) => x where dtype(x) == 1") ==
        "cannot compare a dtype with a number\n");
  CHECK(errors_of("rule r: exp(x) => x where dtype(x) < float32") ==
        "dtypes are compared with `==` and `!=`, not `<`\n");
  CHECK(errors_of("rule r: exp(x) => x where 1 < 2") ==
        "this comparison reads no variable; compare `dtype(x)`, `rank(x)`, `shape(x, i)` or "
        "`value(x)`\n");
  CHECK(errors_of("rule r: exp(x) => x where shape(x) == 1") ==
        "`shape` takes a variable and an axis: `shape(x, 0)`\n");
  CHECK(errors_of("rule r: exp(x) => x where sizes(x) == 1") ==
        "unknown query `sizes`; queries are `dtype`, `rank`, `ndim`, `shape` and `value`\n");
  CHECK(errors_of("rule r: exp(x) => x where float(x, keep=true)") ==
        "predicate `float` takes no `name=value` parameters\n");
  CHECK(errors_of("rule r: sum(x, axis=a) => x where float(a)") ==
        "`a` is a parameter variable (bound at 1:21), not a tensor\n");
}

TEST_CASE("every error of a file is reported, and the file loads nothing", "[dsl]") {
  const PredicateRegistry predicates;
  auto r = check_rules_text("t.rules",
                            "rule ok: exp(log(x)) => x\n"
                            "rule bad1: lgo(x) => x\n"
                            "rule bad2: exp(x) => y\n"
                            "rule syntax x => x\n"
                            "rule ok2: x * 1 => x\n",
                            pt_registry(), predicates, {std::make_shared<MemoryResolver>(), {}});
  CHECK_FALSE(r.ok());
  CHECK(count_errors(r.diagnostics) == 3);
  CHECK_THROWS_AS(r.take(), LoadError);
}

TEST_CASE("user predicates are resolved through the registry passed in", "[dsl]") {
  PredicateRegistry predicates;
  predicates.add("same_rank", 2, "both have the same rank",
                 [](std::span<const Var> v, const FunctionGraph*) {
                   return v[0]->tensor_type()->ndim() == v[1]->tensor_type()->ndim();
                 });
  const RuleModule m =
      load_rules_text("u.rules", "rule r: x * y => y * x where same_rank(x, y)\n", pt_registry(),
                      predicates, {std::make_shared<MemoryResolver>(), {}});
  CHECK(m.rules[0].guard->root().predicate == predicates.find("same_rank"));
  const PredicateRegistry plain;
  auto r = check_rules_text("u.rules", "rule r: x * y => y * x where same_rank(x, y)\n",
                            pt_registry(), plain, {std::make_shared<MemoryResolver>(), {}});
  REQUIRE_FALSE(r.ok());
  CHECK(r.diagnostics[0].message == "unknown predicate `same_rank`");
}

TEST_CASE("a rule file with very many errors stops after the limit", "[dsl]") {
  std::string text;
  for (int i = 0; i < 300; ++i) text += "rule r" + std::to_string(i) + ": lgo(x) => x\n";
  const PredicateRegistry predicates;
  auto r = check_rules_text("many.rules", text, pt_registry(), predicates,
                            {std::make_shared<MemoryResolver>(), {}});
  REQUIRE(r.diagnostics.size() == kMaxErrorsPerFile);
  CHECK(r.diagnostics.back().notes.at(0).message == "too many errors (50); stopping here");
}

TEST_CASE("checked patterns keep their invariants", "[dsl]") {
  const RuleModule m = load(
      "rule a: log(1 + x) * 2 => log1p(x) + log1p(x)\n"
      "rule b: sum(c * x, axis=?a) => c * sum(x, axis=a) where scalar(c)\n"
      "rule c: dimshuffle{order=(x, 0)}(exp(-x)) => exp(-dimshuffle(x, order=(x, 0)))\n"
      "rule d: (x - y) ** -2 / (y - x) => 1 / (x - y) ** 3\n"
      "rule e: cast(cast(x, dtype=_), dtype=d) => cast(x, dtype=d)\n"
      "rule f: subtensor{index=(i)}(shape(x), k) => shape(x)\n");
  REQUIRE(m.rules.size() == 6);
  for (const CheckedRule& r : m.rules) {
    INFO(r.name);
    for (const Pattern* p : {&r.lhs, &r.rhs}) {
      REQUIRE_FALSE(p->nodes.empty());
      for (std::size_t i = 0; i < p->nodes.size(); ++i) {
        const PatternNode& n = p->nodes[i];
        CHECK(r.file->slice(n.span).size() > 0);
        if (n.kind == PatternNode::Kind::Var) {
          CHECK(index_of(n.var) < r.vars.size());
          continue;
        }
        if (n.kind != PatternNode::Kind::Apply) continue;
        for (std::uint32_t in : n.inputs) CHECK(in < i);  // post-order
        CHECK(OpRegistry::arity_ok(*n.op_info, n.inputs.size()));
        REQUIRE(n.params.size() == n.op_info->params.size());
        bool any_var = false;
        for (std::size_t k = 0; k < n.params.size(); ++k) {
          CHECK(n.params[k].name == n.op_info->params[k].name);
          CHECK(n.params[k].value.has_value() != n.params[k].var.has_value());
          any_var |= n.params[k].var.has_value();
        }
        CHECK((n.op == nullptr) == any_var);
      }
      // Every node but the root is the input of a later node: nothing dangles.
      std::vector<int> uses(p->nodes.size(), 0);
      for (const PatternNode& n : p->nodes)
        for (std::uint32_t in : n.inputs) ++uses[in];
      for (std::size_t i = 0; i + 1 < p->nodes.size(); ++i) CHECK(uses[i] == 1);
    }
    for (const RuleVariable& v : r.vars) CHECK(r.file->slice(v.span).size() > 0);
  }
  CHECK(m.rules[3].to_string() == "rule d: (x - y) ** -2 / (y - x) => 1 / (x - y) ** 3");
}

// RuleChecker: patterns, parameter variables, guards, rulesets, declarations.
#include "engine/dsl/detail/rule_checker.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "engine/dsl/detail/params.hpp"
#include "engine/dsl/detail/suggest.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/operators.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/suggest.hpp"

namespace rw::dsl::detail {

namespace {

using ast::ExprId;

// The literal an expression denotes: a number under any number of minus signs.
std::optional<NumberValue> fold_literal(const ast::File& f, ExprId id) {
  const ast::Expr& e = f[id];
  if (const auto* n = std::get_if<ast::Number>(&e.node)) return n->value;
  if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == ast::UnaryOp::Neg)
    if (auto inner = fold_literal(f, u->operand)) return negate(*inner);
  return std::nullopt;
}

bool kinds_compatible(ParamKind bound, ParamKind wanted) {
  if (bound == wanted) return true;
  return bound == ParamKind::Int && (wanted == ParamKind::Float || wanted == ParamKind::Ints);
}

bool is_query(std::string_view name) {
  return std::find(std::begin(kQueryNames), std::end(kQueryNames), name) != std::end(kQueryNames);
}

enum class Side : std::uint8_t { Left, Right };

// Checks one rule: both patterns, their variables, and the guard.
class RuleBuilder {
 public:
  RuleBuilder(const OpRegistry& ops, const PredicateRegistry& predicates, const ParsedFile& file,
              CheckedRule& rule, std::vector<Diagnostic>& out)
      : ops_(ops),
        predicates_(predicates),
        f_(file.ast),
        src_(file.source),
        rule_(rule),
        out_(out) {
    for (std::uint32_t i = 0; i < rule_.vars.size(); ++i) index(i);
  }

  std::optional<std::uint32_t> pattern(ExprId id, Side side, Pattern& p) {
    const ast::Expr& e = f_[id];
    if (auto lit = fold_literal(f_, id)) {
      PatternNode n;
      n.kind = PatternNode::Kind::Literal;
      n.span = e.span;
      n.literal = *lit;
      return push(p, std::move(n));
    }
    return std::visit([&](const auto& node) { return pattern_node(node, e, side, p); }, e.node);
  }

  std::optional<CheckedGuard> guard(ExprId id) {
    std::vector<GuardNode> nodes;
    if (!guard_node(id, nodes)) return std::nullopt;
    std::vector<std::string> names;
    for (const RuleVariable& v : rule_.vars) names.push_back(v.name);
    return CheckedGuard(std::move(nodes), src_, std::move(names));
  }

  void error(Span span, std::string message) {
    out_.push_back(make_error(src_, span, std::move(message)));
  }

 private:
  static std::optional<std::uint32_t> push(Pattern& p, PatternNode n) {
    p.nodes.push_back(std::move(n));
    return static_cast<std::uint32_t>(p.nodes.size() - 1);
  }

  std::vector<std::string> bound_names() const {
    std::vector<std::string> names;
    for (const RuleVariable& v : rule_.vars)
      if (!v.anonymous) names.push_back(v.name);
    return names;
  }

  std::string where_bound(VarId id) const {
    const LineCol at = src_->location(rule_.vars[index_of(id)].span.begin);
    return fmt::format("{}:{}", at.line, at.column);
  }

  // CheckedRule::find_var's answer, by a search tree of the names instead of
  // a scan: every use of a variable asks, and a rule with 10^5 variables took
  // 38 s to check by scans.
  std::optional<VarId> find(std::string_view name) const {
    const auto it = by_name_.find(name);
    if (it == by_name_.end()) return std::nullopt;
    return VarId{it->second};
  }

  VarId add_var(RuleVariable v) {
    rule_.vars.push_back(std::move(v));
    const auto i = static_cast<std::uint32_t>(rule_.vars.size() - 1);
    index(i);
    return VarId{i};
  }

  /// Records variable `i` under its name, unless anonymous or a variable of
  /// that name came first (find_var answers the first).
  void index(std::uint32_t i) {
    if (!rule_.vars[i].anonymous) by_name_.emplace(rule_.vars[i].name, i);
  }

  // A reference to a bound variable on the right side or in a guard.
  std::optional<VarId> bound_use(const std::string& name, Span span, VarKind want,
                                 std::string_view where) {
    if (name == "_") {
      error(span, fmt::format("`_` matches anything on the left side; {} cannot read it", where));
      return std::nullopt;
    }
    const auto id = find(name);
    if (!id) {
      std::string msg = fmt::format("`{}` is not bound on the left side", name);
      const auto names = bound_names();
      msg += did_you_mean(name, names);
      if (want == VarKind::Tensor && ops_.find(name) && !closest_name(name, names))
        msg += fmt::format(" (`{}` is an op: call it, `{}(…)`)", name, name);
      error(span, std::move(msg));
      return std::nullopt;
    }
    const RuleVariable& v = rule_.vars[index_of(*id)];
    if (v.kind != want) {
      error(span, fmt::format("`{}` is a {} variable (bound at {}), not a {}", name,
                              v.kind == VarKind::Tensor ? "tensor" : "parameter", where_bound(*id),
                              want == VarKind::Tensor ? "tensor" : "parameter"));
      return std::nullopt;
    }
    return id;
  }

  std::optional<std::uint32_t> pattern_node(const ast::Number&, const ast::Expr&, Side, Pattern&) {
    return std::nullopt;  // folded by the caller
  }

  std::optional<std::uint32_t> pattern_node(const ast::Identifier& n, const ast::Expr& e, Side side,
                                            Pattern& p) {
    if (n.sigil == ast::Sigil::Percent) {
      error(e.span, fmt::format("`{}` is a graph-file name; rules use pattern variables", n.name));
      return std::nullopt;
    }
    std::optional<VarId> id;
    if (side == Side::Right) {
      id = bound_use(n.name, e.span, VarKind::Tensor, "the right side");
    } else if (n.name == "_") {
      id = add_var({"_", VarKind::Tensor, e.span, true});
    } else if (auto old = find(n.name)) {
      if (rule_.vars[index_of(*old)].kind != VarKind::Tensor) {
        error(e.span, fmt::format("`{}` is a parameter variable (bound at {}), not a tensor",
                                  n.name, where_bound(*old)));
        return std::nullopt;
      }
      id = old;
    } else {
      id = add_var({n.name, VarKind::Tensor, e.span, false});
    }
    if (!id) return std::nullopt;
    PatternNode node;
    node.kind = PatternNode::Kind::Var;
    node.span = e.span;
    node.var = *id;
    return push(p, std::move(node));
  }

  std::optional<std::uint32_t> pattern_node(const ast::Unary& n, const ast::Expr& e, Side side,
                                            Pattern& p) {
    if (n.op == ast::UnaryOp::Not) {
      error(e.span, "`not` belongs in a `where` guard; patterns are built from ops");
      pattern(n.operand, side, p);  // still binds its variables, so that no error follows
      return std::nullopt;
    }
    const auto in = pattern(n.operand, side, p);
    const Span op_span{e.span.begin, e.span.begin + 1};
    return apply_operator(kNegOpName, "-", op_span, e.span, {in}, p);
  }

  std::optional<std::uint32_t> pattern_node(const ast::Binary& n, const ast::Expr& e, Side side,
                                            Pattern& p) {
    const auto a = pattern(n.lhs, side, p);
    const auto b = pattern(n.rhs, side, p);
    const OperatorInfo& info = operator_info(n.op);
    const Span op_span = operator_span(*src_, f_, n);
    return apply_operator(info.op_name, info.symbol, op_span, e.span, {a, b}, p);
  }

  std::optional<std::uint32_t> pattern_node(const ast::Logical& n, const ast::Expr& e, Side side,
                                            Pattern& p) {
    error(e.span, fmt::format("`{}` belongs in a `where` guard; patterns are built from ops",
                              symbol(n.op)));
    for (ExprId c : n.operands) pattern(c, side, p);
    return std::nullopt;
  }

  std::optional<std::uint32_t> apply_operator(std::string_view op_name, std::string_view sym,
                                              Span op_span, Span span,
                                              std::vector<std::optional<std::uint32_t>> inputs,
                                              Pattern& p) {
    const OpInfo* info = ops_.find(op_name);
    if (!info) {
      error(op_span,
            fmt::format("operator `{}` stands for op `{}`, which is not registered", sym, op_name));
      return std::nullopt;
    }
    if (!OpRegistry::arity_ok(*info, inputs.size())) {
      error(op_span, fmt::format("operator `{}` stands for op `{}`, which takes {}", sym, op_name,
                                 inputs_text(*info)));
      return std::nullopt;
    }
    ast::Call call;
    call.callee = {std::string(op_name), op_span};
    auto slots = check_params(*info, call, true, src_, out_);
    if (!slots || std::any_of(inputs.begin(), inputs.end(), [](const auto& i) { return !i; }))
      return std::nullopt;
    PatternNode n;
    n.kind = PatternNode::Kind::Apply;
    n.span = span;
    n.op_info = info;
    for (const auto& in : inputs) n.inputs.push_back(*in);
    for (const ParamSlot& s : *slots)
      n.params.push_back({s.spec->name, s.value, {}, s.span, false});
    if (!make_op(n)) return std::nullopt;
    return push(p, std::move(n));
  }

  std::optional<std::uint32_t> pattern_node(const ast::Call& c, const ast::Expr& e, Side side,
                                            Pattern& p) {
    const OpInfo* info = ops_.find(c.callee.text);
    std::vector<std::optional<std::uint32_t>> inputs;
    for (ExprId in : c.inputs) inputs.push_back(pattern(in, side, p));
    if (!info) {
      std::string msg = fmt::format("unknown op `{}`", c.callee.text);
      const std::string hint = did_you_mean_op(c.callee.text, ops_);
      if (!hint.empty())
        msg += hint;
      else if (predicates_.find(c.callee.text) || is_query(c.callee.text))
        msg += fmt::format(" (`{}` is used in `where` guards)", c.callee.text);
      error(c.callee.span, std::move(msg));
      return std::nullopt;
    }
    bool ok = true;
    if (!OpRegistry::arity_ok(*info, c.inputs.size())) {
      error(c.callee.span, arity_message(*info, c.inputs.size()));
      ok = false;
    }
    auto slots = check_params(*info, c, true, src_, out_);
    if (!slots) return std::nullopt;
    PatternNode n;
    n.kind = PatternNode::Kind::Apply;
    n.span = e.span;
    n.op_info = info;
    for (const ParamSlot& s : *slots) {
      PatternParam q{s.spec->name, s.value, std::nullopt, s.span, s.written};
      if (!s.variable.empty()) {
        q.value.reset();
        q.var = param_var(s, side, c);
        if (!q.var) ok = false;
      }
      n.params.push_back(std::move(q));
    }
    for (const auto& in : inputs) {
      if (!in)
        ok = false;
      else
        n.inputs.push_back(*in);
    }
    if (!ok || !make_op(n)) return std::nullopt;
    return push(p, std::move(n));
  }

  // The variable a parameter slot binds (left) or reads (right).
  std::optional<VarId> param_var(const ParamSlot& s, Side side, const ast::Call& c) {
    const ParamSpec& spec = *s.spec;
    if (side == Side::Left) {
      if (s.variable == "_")
        return add_var({"_", VarKind::Param, s.span, true, spec.kind, spec.nullable});
      if (auto old = find(s.variable)) {
        const RuleVariable& v = rule_.vars[index_of(*old)];
        if (v.kind != VarKind::Param) {
          error(s.span, fmt::format("`{}` is a tensor variable (bound at {}), not a parameter",
                                    s.variable, where_bound(*old)));
          return std::nullopt;
        }
        if (v.param_kind != spec.kind) {
          error(s.span, fmt::format("`{}` holds a {} (bound at {}), but parameter `{}` of `{}` is "
                                    "a {}",
                                    s.variable, param_kind_name(v.param_kind), where_bound(*old),
                                    spec.name, c.callee.text, param_kind_name(spec.kind)));
          return std::nullopt;
        }
        return old;
      }
      return add_var({s.variable, VarKind::Param, s.span, false, spec.kind, spec.nullable});
    }
    auto id = bound_use(s.variable, s.span, VarKind::Param, "the right side");
    if (!id) return std::nullopt;
    const RuleVariable& v = rule_.vars[index_of(*id)];
    if (!kinds_compatible(v.param_kind, spec.kind)) {
      error(s.span, fmt::format("`{}` holds a {} (bound at {}), but parameter `{}` of `{}` takes "
                                "a {}",
                                s.variable, param_kind_name(v.param_kind), where_bound(*id),
                                spec.name, c.callee.text, param_kind_name(spec.kind)));
      return std::nullopt;
    }
    if (v.param_nullable && !spec.nullable) {
      error(s.span, fmt::format("`{}` may be `none` (bound at {}), which parameter `{}` of `{}` "
                                "does not accept",
                                s.variable, where_bound(*id), spec.name, c.callee.text));
      return std::nullopt;
    }
    return id;
  }

  // Builds the Op when every parameter is a literal; the factory may still
  // refuse a combination of values.
  bool make_op(PatternNode& n) {
    Props props;
    for (const PatternParam& q : n.params) {
      if (q.var) return true;
      props.push_back({q.name, *q.value});
    }
    try {
      n.op = n.op_info->factory(props);
      return true;
    } catch (const std::exception& e) {
      error(n.span, fmt::format("op `{}`: {}", n.op_info->name, e.what()));
      return false;
    }
  }

  // ----- guards

  std::optional<std::uint32_t> guard_node(ExprId id, std::vector<GuardNode>& nodes) {
    const ast::Expr& e = f_[id];
    GuardNode g;
    g.span = e.span;
    if (const auto* l = std::get_if<ast::Logical>(&e.node)) {
      g.kind = l->op == ast::LogicalOp::And ? GuardNode::Kind::And : GuardNode::Kind::Or;
      bool ok = true;
      for (ExprId c : l->operands) {
        auto k = guard_node(c, nodes);
        if (k)
          g.children.push_back(*k);
        else
          ok = false;
      }
      if (!ok) return std::nullopt;
    } else if (const auto* u = std::get_if<ast::Unary>(&e.node); u && u->op == ast::UnaryOp::Not) {
      auto k = guard_node(u->operand, nodes);
      if (!k) return std::nullopt;
      g.kind = GuardNode::Kind::Not;
      g.children.push_back(*k);
    } else if (const auto* b = std::get_if<ast::Binary>(&e.node); b && is_comparison(b->op)) {
      if (!comparison(*b, e.span, g)) return std::nullopt;
    } else if (const auto* c = std::get_if<ast::Call>(&e.node)) {
      if (!predicate_call(*c, g)) return std::nullopt;
    } else {
      error(e.span,
            "a guard is a predicate call such as `float(x)`, a comparison such as "
            "`rank(x) == 2`, or `and`, `or`, `not` of guards");
      return std::nullopt;
    }
    nodes.push_back(std::move(g));
    return static_cast<std::uint32_t>(nodes.size() - 1);
  }

  // A tensor variable given as an argument to a predicate or query.
  std::optional<VarId> tensor_arg(ExprId id, std::string_view callee) {
    const ast::Expr& e = f_[id];
    const auto* n = std::get_if<ast::Identifier>(&e.node);
    if (!n || n->sigil == ast::Sigil::Percent) {
      error(e.span,
            fmt::format("`{}` takes a variable of the left side here, such as `x`", callee));
      return std::nullopt;
    }
    return bound_use(n->name, e.span, VarKind::Tensor, "a guard");
  }

  std::optional<std::int64_t> int_arg(ExprId id, std::string_view callee) {
    const auto lit = fold_literal(f_, id);
    if (!lit || !std::holds_alternative<std::int64_t>(*lit)) {
      error(f_[id].span, fmt::format("`{}` takes an integer literal here", callee));
      return std::nullopt;
    }
    return std::get<std::int64_t>(*lit);
  }

  bool no_params(const ast::Call& c, std::string_view what) {
    if (c.params.empty()) return true;
    error(c.params.front().span,
          fmt::format("{} `{}` takes no `name=value` parameters", what, c.callee.text));
    return false;
  }

  bool predicate_call(const ast::Call& c, GuardNode& g) {
    const std::string& name = c.callee.text;
    if (is_query(name)) {
      error(c.callee.span, fmt::format("`{}(…)` is a value, not a condition; compare it, e.g. "
                                       "`{}`",
                                       name,
                                       name == "dtype"   ? "dtype(x) == float32"
                                       : name == "value" ? "value(c) == 1"
                                       : name == "shape" ? "shape(x, 0) == 3"
                                                         : "rank(x) == 2"));
      return false;
    }
    auto pred = predicates_.find(name);
    if (!pred) {
      std::string msg = fmt::format("unknown predicate `{}`", name);
      msg += did_you_mean(name, predicates_.names());
      error(c.callee.span, std::move(msg));
      return false;
    }
    if (!no_params(c, "predicate")) return false;
    if (c.inputs.size() != pred->args.size()) {
      error(c.callee.span, fmt::format("predicate `{}` takes {} argument{}, but {} {} given", name,
                                       pred->args.size(), pred->args.size() == 1 ? "" : "s",
                                       c.inputs.size(), c.inputs.size() == 1 ? "is" : "are"));
      return false;
    }
    g.kind = GuardNode::Kind::Predicate;
    g.predicate = pred;
    bool ok = true;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      if (pred->args[i] == PredicateArg::Tensor) {
        if (auto v = tensor_arg(c.inputs[i], name))
          g.tensor_args.push_back(*v);
        else
          ok = false;
      } else if (auto k = int_arg(c.inputs[i], name)) {
        g.int_args.push_back(*k);
      } else {
        ok = false;
      }
    }
    return ok;
  }

  std::optional<GuardOperand> operand(ExprId id) {
    const ast::Expr& e = f_[id];
    GuardOperand o;
    o.span = e.span;
    if (auto lit = fold_literal(f_, id)) {
      o.kind = GuardOperand::Kind::Number;
      o.number = std::visit([](auto v) { return static_cast<double>(v); }, *lit);
      return o;
    }
    if (const auto* n = std::get_if<ast::Identifier>(&e.node)) {
      if (n->sigil == ast::Sigil::None) {
        if (auto d = dtype_word(n->name)) {
          o.kind = GuardOperand::Kind::DTypeLiteral;
          o.dtype = *d;
          return o;
        }
      }
      if (find(n->name))
        error(e.span, fmt::format("compare a property of `{0}`: `dtype({0})`, `rank({0})`, "
                                  "`shape({0}, 0)` or `value({0})`",
                                  n->name));
      else
        error(e.span, fmt::format("unknown name `{}` in a guard; a comparison compares "
                                  "`dtype(x)`, `rank(x)`, `shape(x, i)`, `value(x)`, numbers "
                                  "and dtype names",
                                  n->name));
      return std::nullopt;
    }
    const auto* c = std::get_if<ast::Call>(&e.node);
    if (!c) {
      error(e.span,
            "a comparison compares `dtype(x)`, `rank(x)`, `shape(x, i)`, `value(x)`, "
            "numbers and dtype names");
      return std::nullopt;
    }
    const std::string& name = c->callee.text;
    if (!is_query(name)) {
      if (predicates_.find(name))
        error(e.span, fmt::format("`{}(…)` is a condition, not a value; use it on its own", name));
      else
        error(c->callee.span,
              fmt::format("unknown query `{}`; queries are `dtype`, `rank`, `ndim`, `shape` and "
                          "`value`{}",
                          name,
                          did_you_mean(name, std::vector<std::string>(std::begin(kQueryNames),
                                                                      std::end(kQueryNames)))));
      return std::nullopt;
    }
    if (!no_params(*c, "query")) return std::nullopt;
    const std::size_t want = name == "shape" ? 2 : 1;
    if (c->inputs.size() != want) {
      error(c->callee.span, name == "shape"
                                ? std::string("`shape` takes a variable and an axis: `shape(x, 0)`")
                                : fmt::format("`{0}` takes one variable: `{0}(x)`", name));
      return std::nullopt;
    }
    auto v = tensor_arg(c->inputs[0], name);
    if (!v) return std::nullopt;
    o.var = *v;
    if (name == "dtype")
      o.kind = GuardOperand::Kind::DType;
    else if (name == "rank" || name == "ndim")
      o.kind = GuardOperand::Kind::Rank;
    else if (name == "value")
      o.kind = GuardOperand::Kind::Value;
    else {
      o.kind = GuardOperand::Kind::Shape;
      auto axis = int_arg(c->inputs[1], name);
      if (!axis) return std::nullopt;
      o.axis = *axis;
    }
    return o;
  }

  bool comparison(const ast::Binary& b, Span span, GuardNode& g) {
    auto l = operand(b.lhs);
    auto r = operand(b.rhs);
    if (!l || !r) return false;
    const std::string_view sym = operator_info(b.op).symbol;
    const Span op_span = operator_span(*src_, f_, b);
    auto literal = [](const GuardOperand& o) {
      return o.kind == GuardOperand::Kind::Number || o.kind == GuardOperand::Kind::DTypeLiteral;
    };
    if (literal(*l) && literal(*r)) {
      error(span,
            "this comparison reads no variable; compare `dtype(x)`, `rank(x)`, "
            "`shape(x, i)` or `value(x)`");
      return false;
    }
    if (l->is_dtype() != r->is_dtype()) {
      error(op_span, "cannot compare a dtype with a number");
      return false;
    }
    if (l->is_dtype() && b.op != ast::BinaryOp::Eq && b.op != ast::BinaryOp::Ne) {
      error(op_span, fmt::format("dtypes are compared with `==` and `!=`, not `{}`", sym));
      return false;
    }
    g.kind = GuardNode::Kind::Compare;
    g.op = b.op;
    g.lhs = *l;
    g.rhs = *r;
    return true;
  }

  const OpRegistry& ops_;
  const PredicateRegistry& predicates_;
  const ast::File& f_;
  const SourcePtr& src_;
  CheckedRule& rule_;
  std::vector<Diagnostic>& out_;
  std::map<std::string, std::uint32_t, std::less<>> by_name_;
};

// The keyword or name a statement starts with, for "belongs in" errors.
Span head_span(const SourceFile& file, const ast::Statement& s) {
  const Span span = ast::span_of(s);
  const std::string_view text = file.slice(span);
  std::size_t n = 0;
  while (n < text.size() && text[n] != ' ' && text[n] != '\t' && text[n] != '\n' && text[n] != '=')
    ++n;
  return {span.begin, span.begin + static_cast<std::uint32_t>(n)};
}

}  // namespace

void RuleChecker::error(const SourcePtr& file, Span span, std::string message) {
  out_.push_back(make_error(file, span, std::move(message)));
}

void RuleChecker::check_file(const ParsedFile& f, std::size_t syntax_errors) {
  std::string ruleset = std::filesystem::path(f.source->name()).stem().string();
  std::size_t errors = syntax_errors;
  for (const ast::Statement& s : f.ast.statements) {
    if (errors >= kMaxErrorsPerFile) {
      if (syntax_errors < kMaxErrorsPerFile)
        out_.back().notes.push_back(
            make_note(nullptr, {}, fmt::format("too many errors ({}); stopping here", errors)));
      return;
    }
    const std::size_t before = out_.size();
    check_statement(f, s, ruleset);
    errors += out_.size() - before;
  }
}

void RuleChecker::check_statement(const ParsedFile& f, const ast::Statement& s,
                                  std::string& ruleset) {
  if (const auto* r = std::get_if<ast::RuleDecl>(&s)) {
    check_rule(f, *r, ruleset);
  } else if (const auto* rs = std::get_if<ast::RulesetDecl>(&s)) {
    check_ruleset(f, *rs, ruleset);
  } else if (const auto* d = std::get_if<ast::Declare>(&s)) {
    check_declare(f, *d);
  } else if (!std::holds_alternative<ast::Import>(s)) {
    const char* what = std::holds_alternative<ast::InputDecl>(s)      ? "`input`"
                       : std::holds_alternative<ast::OutputDecl>(s)   ? "`output`"
                       : std::holds_alternative<ast::DefDecl>(s)      ? "`def`"
                       : std::holds_alternative<ast::BlockEnd>(s)     ? "`}`"
                       : std::holds_alternative<ast::ConstDecl>(s)    ? "`const`"
                       : std::holds_alternative<ast::TupleBinding>(s) ? "a binding `(NAME, …) = …`"
                                                                      : "a binding `NAME = …`";
    error(f.source, head_span(*f.source, s),
          fmt::format("{} belongs in a graph file, not a rule file", what));
  }
}

void RuleChecker::check_ruleset(const ParsedFile& f, const ast::RulesetDecl& s,
                                std::string& current) {
  std::vector<std::string> tags;
  if (s.tags)
    for (const ast::Name& t : *s.tags)
      if (std::find(tags.begin(), tags.end(), t.text) == tags.end()) tags.push_back(t.text);
  current = s.name.text;
  for (RuleSetInfo& existing : module_.rulesets) {
    if (existing.name != s.name.text) continue;
    if (s.tags && tags != existing.tags) {
      std::string had;
      for (const std::string& t : existing.tags) had += (had.empty() ? "" : ", ") + t;
      Diagnostic d = make_error(
          f.source, s.name.span,
          fmt::format("ruleset `{}` was declared with tags({}); a later header may repeat "
                      "them or leave them out",
                      s.name.text, had));
      d.notes.push_back(make_note(existing.file, existing.span, "declared here"));
      out_.push_back(std::move(d));
    }
    return;
  }
  module_.rulesets.push_back({s.name.text, std::move(tags), f.source, s.span});
}

void RuleChecker::check_rule(const ParsedFile& f, const ast::RuleDecl& s,
                             const std::string& ruleset) {
  const std::size_t errors_before = out_.size();
  if (auto [it, fresh] = rule_names_.try_emplace(s.name.text, Location{f.source, s.name.span});
      !fresh) {
    Diagnostic d =
        make_error(f.source, s.name.span, fmt::format("rule `{}` is defined twice", s.name.text));
    d.notes.push_back(make_note(it->second.file, it->second.span, "first defined here"));
    out_.push_back(std::move(d));
  }
  CheckedRule rule;
  rule.name = s.name.text;
  rule.file = f.source;
  rule.span = s.span;
  rule.name_span = s.name.span;
  rule.ruleset = ruleset;
  rule.priority = s.priority.value_or(0);
  rule.multiple_clients = s.multiple_clients;
  const RuleSetInfo* set = module_.find_ruleset(ruleset);
  if (set) rule.tags = set->tags;
  if (s.tags)
    for (const ast::Name& t : *s.tags)
      if (std::find(rule.tags.begin(), rule.tags.end(), t.text) == rule.tags.end())
        rule.tags.push_back(t.text);

  RuleBuilder b(ops_, predicates_, f, rule, out_);
  const bool lhs_ok = b.pattern(s.lhs, Side::Left, rule.lhs).has_value();
  if (lhs_ok && rule.lhs.root().kind != PatternNode::Kind::Apply)
    b.error(f.ast[s.lhs].span,
            rule.lhs.root().kind == PatternNode::Kind::Var
                ? "the left side of a rule must be an operation, not a lone variable"
                : "the left side of a rule must be an operation, not a number");
  b.pattern(s.rhs, Side::Right, rule.rhs);
  if (s.guard) rule.guard = b.guard(*s.guard);
  if (out_.size() != errors_before) return;
  if (!set) module_.rulesets.push_back({ruleset, {}, f.source, s.span});
  module_.rules.push_back(std::move(rule));
}

void RuleChecker::check_declare(const ParsedFile& f, const ast::Declare& s) {
  const OpInfo* info = ops_.find(s.op.text);
  if (!info) {
    error(f.source, s.op.span,
          fmt::format("unknown op `{}`{}", s.op.text, did_you_mean_op(s.op.text, ops_)));
    return;
  }
  bool commutative = false, associative = false, ok = true;
  static const std::vector<std::string> kProperties = {"commutative", "associative"};
  for (const ast::Name& p : s.properties) {
    if (p.text == "commutative" || p.text == "associative") {
      if (!OpRegistry::arity_ok(*info, 2)) {
        error(f.source, p.span,
              fmt::format("only an op that takes two inputs can be {}; `{}` takes {}", p.text,
                          info->name, inputs_text(*info)));
        ok = false;
      }
      (p.text == "commutative" ? commutative : associative) = true;
      continue;
    }
    const std::string hint = did_you_mean(p.text, kProperties);
    error(f.source, p.span,
          fmt::format("unknown property `{}`{}", p.text,
                      hint.empty() ? "; properties are `commutative` and `associative`" : hint));
    ok = false;
  }
  if (!ok) return;
  for (OpDeclaration& d : module_.declarations) {
    if (d.op != info->name) continue;
    d.commutative |= commutative;
    d.associative |= associative;
    return;
  }
  module_.declarations.push_back({info->name, info, commutative, associative, f.source, s.span});
}

}  // namespace rw::dsl::detail

// From checked rules to terms, patterns and PatternNodeRewriters.
#include "engine/dsl/rule_compiler.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include <fmt/format.h>

#include "engine/unify/graph_terms.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/print.hpp"
#include "support/error.hpp"

namespace rw::dsl {

namespace {

enum class Side : std::uint8_t { Left, Right };

Term literal_term(const NumberValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return Term::integer(*i);
  return Term::number(std::get<double>(v));
}

Term head_term(const PatternNode& n, const std::vector<Term>& vars, Side side) {
  if (n.op) {
    // A symbol matches by name alone, which is all an op without parameters
    // has; building needs the Op itself.
    if (side == Side::Left && n.params.empty()) return Term::string(n.op_info->name);
    return Term::op_atom(n.op);
  }
  std::vector<PropTerm> props;
  props.reserve(n.params.size());
  for (const PatternParam& q : n.params)
    props.push_back({q.name, q.var ? vars[index_of(*q.var)] : prop_to_term(*q.value)});
  return op_pattern(n.op_info->name, std::move(props));
}

Term side_term(const dsl::Pattern& p, const std::vector<Term>& vars, Side side) {
  std::vector<Term> built(p.nodes.size());
  for (std::size_t i = 0; i < p.nodes.size(); ++i) {
    const PatternNode& n = p.nodes[i];
    switch (n.kind) {
      case PatternNode::Kind::Var: built[i] = vars[index_of(n.var)]; break;
      case PatternNode::Kind::Literal: built[i] = literal_term(n.literal); break;
      case PatternNode::Kind::Apply: {
        std::vector<Term> args;
        args.reserve(n.inputs.size());
        for (std::uint32_t in : n.inputs) args.push_back(built[in]);
        built[i] = compound(head_term(n, vars, side), args);
        break;
      }
    }
  }
  return built.back();
}

/// The guard of a rule, evaluated on a match: it reads the tensor variables
/// it needs straight from the match's slots.
struct GuardCheck {
  std::shared_ptr<const CheckedGuard> guard;
  std::vector<Term> vars;                // by VarId
  std::vector<std::string> names;
  std::vector<std::uint32_t> reads;      // the tensor variables the guard reads, by VarId
  std::vector<std::uint32_t> slots;      // the slot of each of `reads`

  // Fills `args` (by VarId) from the match; returns the position in `reads`
  // of a variable that is not bound to a graph variable (a regrouping of
  // operands), or -1.
  long fill(const rw::Bindings& b, Var* args) const {
    for (std::size_t k = 0; k < reads.size(); ++k) {
      args[reads[k]] = b.graph_at(slots[k]);
      if (!args[reads[k]]) return static_cast<long>(k);
    }
    return -1;
  }

  // Asked at every structural match: the arguments stay on the stack for
  // rules of up to eight variables.
  template <class F> auto with_args(const rw::Bindings& b, F&& f) const {
    std::array<Var, 8> few;
    std::vector<Var> many;
    Var* args = few.data();
    if (vars.size() > few.size()) {
      many.resize(vars.size());
      args = many.data();
    }
    const long unbound = fill(b, args);
    return f(GuardArgs(args, vars.size()), unbound);
  }

  bool check(const rw::Bindings& b) const {
    return with_args(b, [&](GuardArgs args, long unbound) {
      return unbound < 0 && guard->evaluate(args, b.fgraph());
    });
  }

  std::string explain(const rw::Bindings& b) const {
    return with_args(b, [&](GuardArgs args, long unbound) {
      if (unbound >= 0) {
        const std::uint32_t v = reads[static_cast<std::size_t>(unbound)];
        return fmt::format("`{}` stands for `{}`, a regrouping of operands, which the guard `{}` "
                           "cannot inspect",
                           names[v], to_string(b[vars[v]]), guard->text());
      }
      return guard->why_false(args, b.fgraph())
          .value_or(fmt::format("guard `{}` failed", guard->text()));
    });
  }
};

std::vector<std::uint32_t> guard_reads(const CheckedGuard& g) {
  std::vector<std::uint32_t> out;
  auto note = [&](VarId v) {
    if (std::find(out.begin(), out.end(), index_of(v)) == out.end()) out.push_back(index_of(v));
  };
  for (const GuardNode& n : g.nodes()) {
    if (n.kind == GuardNode::Kind::Predicate)
      for (VarId v : n.tensor_args) note(v);
    if (n.kind == GuardNode::Kind::Compare)
      for (const GuardOperand* o : {&n.lhs, &n.rhs})
        if (o->kind != GuardOperand::Kind::Number && o->kind != GuardOperand::Kind::DTypeLiteral)
          note(o->var);
  }
  return out;
}

// The variables a guard requires to be constants whatever else holds: the
// arguments of `constant(…)` among the operands of its top-level `and`s.
std::vector<std::uint32_t> required_constants(const CheckedGuard& g) {
  std::vector<std::uint32_t> out;
  std::vector<std::uint32_t> stack{static_cast<std::uint32_t>(g.nodes().size() - 1)};
  while (!stack.empty()) {
    const GuardNode& n = g.nodes()[stack.back()];
    stack.pop_back();
    if (n.kind == GuardNode::Kind::And)
      stack.insert(stack.end(), n.children.begin(), n.children.end());
    else if (n.kind == GuardNode::Kind::Predicate && n.predicate->name == "constant")
      out.push_back(index_of(n.tensor_args.at(0)));
  }
  return out;
}

// Whether the guard reads more than the types and constness of its variables.
bool guard_reads_beyond_types(const CheckedGuard& g) {
  return std::any_of(g.nodes().begin(), g.nodes().end(), [](const GuardNode& n) {
    return n.kind == GuardNode::Kind::Predicate && n.predicate->reads != PredicateReads::Types;
  });
}

}  // namespace

Theory theory_of(const RuleModule& module) {
  Theory t;
  for (const OpDeclaration& d : module.declarations) {
    if (d.commutative) t.commutative(d.op);
    if (d.associative) t.associative(d.op);
  }
  return t;
}

RuleTerms rule_terms(const CheckedRule& rule) {
  RuleTerms out;
  out.vars.reserve(rule.vars.size());
  for (const RuleVariable& v : rule.vars) out.vars.push_back(v.anonymous ? lvar() : lvar(v.name));
  out.lhs = side_term(rule.lhs, out.vars, Side::Left);
  out.rhs = side_term(rule.rhs, out.vars, Side::Right);
  return out;
}

std::shared_ptr<const PatternNodeRewriter> compile_rule(const CheckedRule& rule,
                                                        const Theory& theory,
                                                        const OpRegistry& ops) {
  RuleTerms terms = rule_terms(rule);
  rw::Pattern in(terms.lhs, theory);
  PatternRewriteOptions options;
  options.registry = &ops;
  options.allow_multiple_clients = rule.multiple_clients;
  options.benefit = static_cast<int>(std::clamp<std::int64_t>(
      rule.priority, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
  options.description = rule.lhs.to_string(rule.vars) + " => " + rule.rhs.to_string(rule.vars);
  if (rule.guard) {
    options.description += " where " + std::string(rule.guard->text());
    auto check = std::make_shared<GuardCheck>();
    check->guard = std::make_shared<const CheckedGuard>(*rule.guard);
    check->vars = terms.vars;
    for (const RuleVariable& v : rule.vars) check->names.push_back(v.name);
    for (std::uint32_t v : guard_reads(*rule.guard)) {
      // The checker binds every variable a guard reads on the left side; a
      // parameter variable read as a tensor can never be a graph variable.
      const std::optional<std::uint32_t> slot = in.slot(terms.vars[v]);
      RW_ASSERT(slot, fmt::format("rule `{}`: the guard reads `{}`, which the left side does not bind",
                                  rule.name, rule.vars[v].name));
      check->reads.push_back(v);
      check->slots.push_back(*slot);
    }
    for (std::uint32_t v : required_constants(*rule.guard)) options.constant_vars.push_back(terms.vars[v]);
    in.where(rw::Guard{std::string(rule.guard->text()),
                       [check](const rw::Bindings& b) { return check->check(b); },
                       [check](const rw::Bindings& b) { return check->explain(b); }, check->slots});
    if (guard_reads_beyond_types(*rule.guard)) options.depth = kAnyDepth;
  }
  return std::make_shared<const PatternNodeRewriter>(rule.name, std::move(in), std::move(terms.rhs),
                                                     std::move(options));
}

}  // namespace rw::dsl

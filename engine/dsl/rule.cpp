// Printing checked rules, and RuleModule lookups.
#include "engine/dsl/rule.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/operators.hpp"

namespace rw::dsl {

namespace {

constexpr int kPrimary = 9;

class PatternPrinter {
 public:
  PatternPrinter(const Pattern& p, std::span<const RuleVariable> vars) : p_(p), vars_(vars) {}

  std::string print(std::uint32_t i, int min_prec) {
    std::string body;
    const int prec = node(i, body);
    return prec < min_prec ? "(" + body + ")" : body;
  }

 private:
  static bool only_defaults(const PatternNode& n) {
    return std::none_of(n.params.begin(), n.params.end(),
                        [](const PatternParam& q) { return q.written; });
  }

  std::string param_text(const PatternParam& q) {
    if (q.var) return "?" + vars_[index_of(*q.var)].name;
    return format_prop_value(*q.value);
  }

  // Appends node i to out and returns its precedence.
  int node(std::uint32_t i, std::string& out) {
    const PatternNode& n = p_.nodes[i];
    switch (n.kind) {
      case PatternNode::Kind::Var:
        out += vars_[index_of(n.var)].name;
        return kPrimary;
      case PatternNode::Kind::Literal: {
        out += ast::format_number(n.literal);
        const bool negative = std::visit([](auto v) { return v < 0; }, n.literal);
        return negative ? kNegPrecedence : kPrimary;
      }
      case PatternNode::Kind::Apply:
        break;
    }
    const std::string_view name = n.op_info->name;
    if (only_defaults(n)) {
      if (n.inputs.size() == 2) {
        if (auto op = binary_op_for(name)) {
          const OperatorInfo& info = operator_info(*op);
          const int p = info.precedence;
          if (*op == ast::BinaryOp::Pow) {
            out += print(n.inputs[0], kPrimary) + " ** " + print(n.inputs[1], kNegPrecedence);
          } else {
            const bool cmp = is_comparison(*op);
            out += print(n.inputs[0], cmp ? p + 1 : p) + " " + std::string(info.symbol) + " " +
                   print(n.inputs[1], p + 1);
          }
          return p;
        }
      }
      if (n.inputs.size() == 1 && name == kNegOpName) {
        out += "-" + print(n.inputs[0], kNegPrecedence);
        return kNegPrecedence;
      }
    }
    out += name;
    out += '(';
    bool first = true;
    for (std::uint32_t in : n.inputs) {
      if (!first) out += ", ";
      first = false;
      out += print(in, 0);
    }
    for (const PatternParam& q : n.params) {
      if (!q.written) continue;
      if (!first) out += ", ";
      first = false;
      out += q.name + "=" + param_text(q);
    }
    out += ')';
    return kPrimary;
  }

  const Pattern& p_;
  std::span<const RuleVariable> vars_;
};

}  // namespace

std::string Pattern::to_string(std::span<const RuleVariable> vars) const {
  if (nodes.empty()) return {};
  return PatternPrinter(*this, vars).print(root_index(), 0);
}

std::string CheckedRule::to_string() const {
  std::string out =
      fmt::format("rule {}: {} => {}", name, lhs.to_string(vars), rhs.to_string(vars));
  if (guard) out += fmt::format(" where {}", guard->text());
  return out;
}

std::optional<VarId> CheckedRule::find_var(std::string_view var_name) const {
  for (std::size_t i = 0; i < vars.size(); ++i)
    if (!vars[i].anonymous && vars[i].name == var_name) return VarId{static_cast<std::uint32_t>(i)};
  return std::nullopt;
}

const CheckedRule* RuleModule::find_rule(std::string_view name) const {
  for (const CheckedRule& r : rules)
    if (r.name == name) return &r;
  return nullptr;
}

const RuleSetInfo* RuleModule::find_ruleset(std::string_view name) const {
  for (const RuleSetInfo& r : rulesets)
    if (r.name == name) return &r;
  return nullptr;
}

const OpDeclaration* RuleModule::declaration(std::string_view op) const {
  for (const OpDeclaration& d : declarations)
    if (d.op == op) return &d;
  return nullptr;
}

bool RuleModule::is_commutative(std::string_view op) const {
  const OpDeclaration* d = declaration(op);
  return d && d->commutative;
}

bool RuleModule::is_associative(std::string_view op) const {
  const OpDeclaration* d = declaration(op);
  return d && d->associative;
}

std::vector<const CheckedRule*> RuleModule::rules_with_tag(std::string_view tag) const {
  std::vector<const CheckedRule*> out;
  for (const CheckedRule& r : rules)
    if (std::find(r.tags.begin(), r.tags.end(), tag) != r.tags.end()) out.push_back(&r);
  return out;
}

}  // namespace rw::dsl

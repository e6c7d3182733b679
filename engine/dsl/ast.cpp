// Printing parse trees back as source text.
#include "engine/dsl/ast.hpp"

#include <cmath>

#include <fmt/format.h>

#include "engine/dsl/operators.hpp"

namespace rw::dsl::ast {

Span span_of(const Statement& statement) {
  return std::visit([](const auto& s) { return s.span; }, statement);
}

std::string format_number(const std::variant<std::int64_t, double>& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  const double d = std::get<double>(value);
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d < 0 ? "-inf" : "inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

void append_quoted(std::string& out, const std::string& text) {
  out += '"';
  for (char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        out += c;
    }
  }
  out += '"';
}

constexpr int kPrimary = 9;

int precedence_of(const Expr& e) {
  return std::visit(
      [](const auto& n) -> int {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, Binary>)
          return operator_info(n.op).precedence;
        else if constexpr (std::is_same_v<T, Unary>)
          return n.op == UnaryOp::Neg ? kNegPrecedence : kNotPrecedence;
        else if constexpr (std::is_same_v<T, Logical>)
          return n.op == LogicalOp::And ? kAndPrecedence : kOrPrecedence;
        else
          return kPrimary;
      },
      e.node);
}

class Printer {
 public:
  Printer(const File& file, bool full) : file_(file), full_(full) {}

  // Prints `id`, parenthesised when it binds looser than `min_prec` requires.
  void print(ExprId id, int min_prec) {
    const Expr& e = file_[id];
    const int prec = precedence_of(e);
    const bool parens = prec < kPrimary && (full_ || prec < min_prec);
    if (parens) out_ += '(';
    std::visit([&](const auto& n) { print_node(n); }, e.node);
    if (parens) out_ += ')';
  }

  std::string take() { return std::move(out_); }

 private:
  void print_node(const Number& n) { out_ += format_number(n.value); }
  void print_node(const Identifier& n) {
    if (n.sigil == Sigil::Question) out_ += '?';
    out_ += n.name;
  }
  void print_node(const Unary& n) {
    if (n.op == UnaryOp::Neg) {
      out_ += '-';
      print(n.operand, kNegPrecedence);
    } else {
      out_ += "not ";
      print(n.operand, kNotPrecedence);
    }
  }
  void print_node(const Binary& n) {
    const OperatorInfo& info = operator_info(n.op);
    const int p = info.precedence;
    if (n.op == BinaryOp::Pow) {
      print(n.lhs, kPrimary);
      out_ += " ** ";
      print(n.rhs, kNegPrecedence);
      return;
    }
    print(n.lhs, is_comparison(n.op) ? p + 1 : p);
    out_ += ' ';
    out_ += info.symbol;
    out_ += ' ';
    print(n.rhs, p + 1);
  }
  void print_node(const Logical& n) {
    const int p = n.op == LogicalOp::And ? kAndPrecedence : kOrPrecedence;
    for (std::size_t i = 0; i < n.operands.size(); ++i) {
      if (i) {
        out_ += ' ';
        out_ += symbol(n.op);
        out_ += ' ';
      }
      print(n.operands[i], p + 1);
    }
  }
  void print_node(const Call& n) {
    out_ += n.callee.text;
    bool any_braced = false;
    for (const Param& p : n.params) any_braced |= p.in_braces;
    if (any_braced) {
      out_ += '{';
      bool first = true;
      for (const Param& p : n.params) {
        if (!p.in_braces) continue;
        if (!first) out_ += ", ";
        first = false;
        out_ += p.name.text + "=" + format_param_value(p.value);
      }
      out_ += '}';
    }
    out_ += '(';
    bool first = true;
    for (ExprId in : n.inputs) {
      if (!first) out_ += ", ";
      first = false;
      print(in, 0);
    }
    for (const Param& p : n.params) {
      if (p.in_braces) continue;
      if (!first) out_ += ", ";
      first = false;
      out_ += p.name.text + "=" + format_param_value(p.value);
    }
    out_ += ')';
  }

  const File& file_;
  bool full_;
  std::string out_;
};

}  // namespace

std::string format_expr(const File& file, ExprId id, bool full_parens) {
  Printer p(file, full_parens);
  p.print(id, 0);
  return p.take();
}

std::string format_param_value(const ParamValue& value) {
  switch (value.kind) {
    case ParamValue::Kind::Int:
      return std::to_string(value.int_value);
    case ParamValue::Kind::Float:
      return format_number(value.float_value);
    case ParamValue::Kind::String: {
      std::string out;
      append_quoted(out, value.text);
      return out;
    }
    case ParamValue::Kind::Word:
      return value.text;
    case ParamValue::Kind::Variable:
      return "?" + value.text;
    case ParamValue::Kind::Tuple: {
      std::string out = "(";
      for (std::size_t i = 0; i < value.items.size(); ++i) {
        if (i) out += ", ";
        const auto& v = value.items[i].value;
        if (const auto* n = std::get_if<std::int64_t>(&v))
          out += std::to_string(*n);
        else
          out += std::get<std::string>(v);
      }
      return out + ")";
    }
  }
  return {};
}

}  // namespace rw::dsl::ast

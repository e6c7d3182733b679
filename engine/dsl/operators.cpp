// The operator table.
#include "engine/dsl/operators.hpp"

namespace rw::dsl {

namespace {
using ast::BinaryOp;
constexpr BinaryOp kAllBinary[] = {BinaryOp::Pow, BinaryOp::Mul, BinaryOp::Div, BinaryOp::Add,
                                   BinaryOp::Sub, BinaryOp::Lt,  BinaryOp::Gt,  BinaryOp::Le,
                                   BinaryOp::Ge,  BinaryOp::Eq,  BinaryOp::Ne};
}  // namespace

const OperatorInfo& operator_info(BinaryOp op) {
  static constexpr OperatorInfo kLt{"<", "lt", kComparePrecedence, false};
  static constexpr OperatorInfo kGt{">", "gt", kComparePrecedence, false};
  static constexpr OperatorInfo kLe{"<=", "le", kComparePrecedence, false};
  static constexpr OperatorInfo kGe{">=", "ge", kComparePrecedence, false};
  static constexpr OperatorInfo kEq{"==", "eq", kComparePrecedence, false};
  static constexpr OperatorInfo kNe{"!=", "neq", kComparePrecedence, false};
  static constexpr OperatorInfo kAdd{"+", "add", 5, false};
  static constexpr OperatorInfo kSub{"-", "sub", 5, false};
  static constexpr OperatorInfo kMul{"*", "mul", 6, false};
  static constexpr OperatorInfo kDiv{"/", "true_div", 6, false};
  static constexpr OperatorInfo kPow{"**", "pow", 8, true};
  switch (op) {
    case BinaryOp::Lt:
      return kLt;
    case BinaryOp::Gt:
      return kGt;
    case BinaryOp::Le:
      return kLe;
    case BinaryOp::Ge:
      return kGe;
    case BinaryOp::Eq:
      return kEq;
    case BinaryOp::Ne:
      return kNe;
    case BinaryOp::Add:
      return kAdd;
    case BinaryOp::Sub:
      return kSub;
    case BinaryOp::Mul:
      return kMul;
    case BinaryOp::Div:
      return kDiv;
    case BinaryOp::Pow:
      return kPow;
  }
  return kAdd;
}

std::string_view symbol(ast::UnaryOp op) {
  return op == ast::UnaryOp::Neg ? "-" : "not";
}
std::string_view symbol(ast::LogicalOp op) {
  return op == ast::LogicalOp::And ? "and" : "or";
}

bool is_comparison(BinaryOp op) {
  return operator_info(op).precedence == kComparePrecedence;
}

std::span<const BinaryOp> all_binary_ops() {
  return kAllBinary;
}

std::optional<BinaryOp> binary_op_for(std::string_view op_name) {
  for (BinaryOp op : kAllBinary)
    if (operator_info(op).op_name == op_name) return op;
  return std::nullopt;
}

Span operator_span(const SourceFile& file, const ast::File& tree, const ast::Binary& b) {
  const std::string_view text = file.text();
  const std::string_view sym = operator_info(b.op).symbol;
  const Span lhs = tree[b.lhs].span, rhs = tree[b.rhs].span;
  std::uint32_t i = lhs.end;
  while (i < rhs.begin && i < text.size()) {
    if (text[i] == '#') {
      while (i < rhs.begin && text[i] != '\n') ++i;
      continue;
    }
    if (text.substr(i, sym.size()) == sym) return {i, i + static_cast<std::uint32_t>(sym.size())};
    ++i;
  }
  return {lhs.end, rhs.begin};
}

}  // namespace rw::dsl

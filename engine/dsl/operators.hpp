// The operator table: each infix and prefix operator, its spelling, its
// precedence, and the registry name of the Op it stands for.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/source.hpp"

namespace rw::dsl {

/// One row of the operator table.
struct OperatorInfo {
  std::string_view symbol;   ///< `+`
  std::string_view op_name;  ///< registry name: `add`
  int precedence;            ///< higher binds tighter
  bool right_assoc;          ///< only `**`
};

/// Binding strength of the levels that have no Op: `or` < `and` < `not` < comparisons.
inline constexpr int kOrPrecedence = 1;
/// `and`.
inline constexpr int kAndPrecedence = 2;
/// `not`.
inline constexpr int kNotPrecedence = 3;
/// `< > <= >= == !=` (the Ops `lt` … `neq`).
inline constexpr int kComparePrecedence = 4;
/// Unary minus: tighter than `*`, looser than `**` (`-x**2` is `-(x**2)`).
inline constexpr int kNegPrecedence = 7;

/// The row of an infix operator.
const OperatorInfo& operator_info(ast::BinaryOp op);
/// `-x` is the Op `neg`.
inline constexpr std::string_view kNegOpName = "neg";
/// `not`, `and`, `or` as written.
std::string_view symbol(ast::UnaryOp op);
/// `and` or `or`.
std::string_view symbol(ast::LogicalOp op);
/// True for `< > <= >= == !=`.
bool is_comparison(ast::BinaryOp op);
/// Every infix operator, in the order of the reference table.
std::span<const ast::BinaryOp> all_binary_ops();
/// The infix operator that stands for a registry name with two inputs, if any.
std::optional<ast::BinaryOp> binary_op_for(std::string_view op_name);
/// Where the operator of `b` was written in `file` (for diagnostics): its
/// symbol between the operands, outside comments.
Span operator_span(const SourceFile& file, const ast::File& tree, const ast::Binary& b);

}  // namespace rw::dsl

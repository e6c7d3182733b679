// The parse tree of a rule or graph file: statements, and expressions kept in
// one arena in post-order (every node's children come before it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "engine/dsl/source.hpp"

namespace rw::dsl::ast {

/// Index of an expression in File::exprs.
enum class ExprId : std::uint32_t {};
/// The index an ExprId stands for.
constexpr std::uint32_t index_of(ExprId id) {
  return static_cast<std::uint32_t>(id);
}

/// An identifier and where it was written.
struct Name {
  std::string text;
  Span span;
};

/// Infix operators, loosest first: comparisons, `+ -`, `* /`, `**`.
enum class BinaryOp : std::uint8_t { Lt, Gt, Le, Ge, Eq, Ne, Add, Sub, Mul, Div, Pow };
/// Prefix operators: `-x` and `not g`.
enum class UnaryOp : std::uint8_t { Neg, Not };
/// `and` / `or` (guards only).
enum class LogicalOp : std::uint8_t { And, Or };

/// A numeric literal: an integer, or a float (`1.5`, `1e-3`, `inf`, `nan`).
/// Literals are unsigned; `-1` is a Unary minus applied to `1`.
struct Number {
  std::variant<std::int64_t, double> value;
  /// The literal 9223372036854775808 (2^63), which only a minus sign before it
  /// makes an int64: `value` holds INT64_MIN. The parser folds such a minus
  /// sign into the literal and refuses the literal anywhere else, so a tree
  /// it returns has none of these.
  bool needs_minus = false;
};

/// How an identifier was written: `x`, `?x` (pattern variable) or `%x` (a
/// graph-file name such as `%3`).
enum class Sigil : std::uint8_t { None, Question, Percent };

/// A name used as a value: a pattern variable in rules, a defined name in
/// graphs. For `?x` the name is `x`; for `%3` it is `%3`.
struct Identifier {
  std::string name;
  Sigil sigil = Sigil::None;
};

/// `-x` or `not g`.
struct Unary {
  UnaryOp op;
  ExprId operand;
};

/// `lhs OP rhs`.
struct Binary {
  BinaryOp op;
  ExprId lhs;
  ExprId rhs;
};

/// `a and b and c` is one node with three operands.
struct Logical {
  LogicalOp op;
  std::vector<ExprId> operands;
};

/// One element of a tuple parameter value: an integer or a word (`x`, `i`).
struct TupleItem {
  std::variant<std::int64_t, std::string> value;
  Span span;
};

/// The value of a parameter as written.
struct ParamValue {
  /// How the value was written.
  enum class Kind : std::uint8_t {
    Int,       ///< `0`, `-1`
    Float,     ///< `1.5`, `-inf`
    String,    ///< `"text"` (text holds the unescaped contents)
    Word,      ///< a bare identifier: `true`, `none`, `all`, `float64`, or a variable
    Variable,  ///< `?a`
    Tuple,     ///< `(1, 0)`, `(x, 0)`, `()`
  };
  Kind kind = Kind::Int;
  std::int64_t int_value = 0;
  double float_value = 0;
  std::string text;
  std::vector<TupleItem> items;
  Span span;
};

/// `name=value`, either among a call's arguments or in Aesara-style braces
/// `op{name=value}(...)`.
struct Param {
  Name name;
  ParamValue value;
  bool in_braces = false;
  Span span;
};

/// `callee{params}(inputs, name=value…)`: positional arguments are inputs,
/// `name=value` arguments and braced ones are parameters.
struct Call {
  Name callee;
  std::vector<ExprId> inputs;
  std::vector<Param> params;
};

/// One expression node. `depth` is the height of its tree (1 for a leaf).
struct Expr {
  std::variant<Number, Identifier, Unary, Binary, Logical, Call> node;
  Span span;
  std::uint16_t depth = 1;
};

/// `import "path"`.
struct Import {
  std::string path;
  Span path_span;
  Span span;
};

/// `ruleset NAME [tags(t, …)]`: the rules after it, up to the next ruleset
/// header, belong to it.
struct RulesetDecl {
  Name name;
  std::optional<std::vector<Name>> tags;
  Span span;
};

/// `rule NAME [tags(t, …)] [priority N] [multiple_clients]: LHS => RHS [where GUARD]`.
struct RuleDecl {
  Name name;
  std::optional<std::vector<Name>> tags;
  std::optional<std::int64_t> priority;
  Span priority_span;
  /// `multiple_clients`: the rule may rewrite a match whose inner nodes have
  /// other uses.
  bool multiple_clients = false;
  ExprId lhs{};
  ExprId rhs{};
  std::optional<ExprId> guard;
  Span span;
};

/// `declare OP: property, …` (commutative, associative).
struct Declare {
  Name op;
  std::vector<Name> properties;
  Span span;
};

/// One axis of a type: an extent, or -1 for `?`.
struct Dim {
  std::int64_t extent = -1;
  Span span;
};

/// `f64[?,3]`, `float32[]`, or a bare dtype for a 0-d tensor.
struct TypeSpec {
  Name dtype;
  std::vector<Dim> dims;
  Span span;
};

/// `input NAME TYPE` (graph files).
struct InputDecl {
  Name name;
  TypeSpec type;
  Span span;
};

/// `NAME = EXPR` (graph files).
struct Binding {
  Name name;
  ExprId value{};
  Span span;
};

/// `output EXPR, …` (graph files).
struct OutputDecl {
  std::vector<ExprId> values;
  Span span;
};

/// `(NAME, NAME, …) = EXPR` (graph files): one name per output of a call.
struct TupleBinding {
  std::vector<Name> names;
  ExprId value{};
  Span span;
};

/// One value of a `const` statement: a number (a minus sign folded in), or
/// `true` / `false`.
struct ConstValue {
  std::variant<std::int64_t, double, bool> value;
  Span span;
};

/// `const NAME TYPE = VALUE` or `const NAME TYPE = [VALUE, …]` (graph files):
/// a constant tensor of that type, its values in row-major order.
struct ConstDecl {
  Name name;
  TypeSpec type;
  std::vector<ConstValue> values;
  /// Where the values were written: the one value, or the whole `[…]`.
  Span values_span;
  Span span;
};

/// One parameter of a `def`: `NAME TYPE`.
struct DefParam {
  Name name;
  TypeSpec type;
};

/// `def NAME(PARAM, …) [option=value …] {` (graph files): opens the block of
/// a named OpFromGraph. The statements up to the matching BlockEnd are its body.
struct DefDecl {
  Name name;
  std::vector<DefParam> params;
  /// `inline=true` and the like, between the parameters and `{`.
  std::vector<Param> options;
  Span span;
};

/// `}`: closes a `def` block.
struct BlockEnd {
  Span span;
};

/// One statement of a file.
using Statement = std::variant<Import, RulesetDecl, RuleDecl, Declare, InputDecl, Binding,
                               OutputDecl, TupleBinding, DefDecl, BlockEnd, ConstDecl>;

/// The parse tree of one file. Expressions live in `exprs`; a node's
/// children always have smaller indices than the node.
struct File {
  std::vector<Expr> exprs;
  std::vector<Statement> statements;

  const Expr& operator[](ExprId id) const { return exprs[index_of(id)]; }
};

/// The span of a statement.
Span span_of(const Statement& statement);

/// The expression as source text with the fewest parentheses that keep its
/// meaning, or with every operator application parenthesised.
std::string format_expr(const File& file, ExprId id, bool full_parens = false);
/// A parameter value as source text: `(x,0)`, `float64`, `"s"`, `?a`.
std::string format_param_value(const ParamValue& value);
/// A number as the language writes it: `1`, `1.5`, `inf`, `nan`.
std::string format_number(const std::variant<std::int64_t, double>& value);

}  // namespace rw::dsl::ast

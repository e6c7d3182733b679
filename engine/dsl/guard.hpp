// CheckedGuard: the checked form of a rule's `where` clause, with predicates resolved
// and variables replaced by indices, evaluable against a match's bindings.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/var_id.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/source.hpp"
#include "engine/graph/function_graph.hpp"

namespace rw::dsl {

/// One side of a guard comparison.
struct GuardOperand {
  /// What the operand reads.
  enum class Kind : std::uint8_t {
    DType,         ///< `dtype(x)`
    Rank,          ///< `rank(x)` / `ndim(x)`
    Shape,         ///< `shape(x, axis)`: the static extent; unknown extents compare false
    Value,         ///< `value(c)`: the value of a constant whose elements are all equal
    Number,        ///< a numeric literal
    DTypeLiteral,  ///< `float32`, `f64`, …
  };
  Kind kind = Kind::Number;
  VarId var{};
  std::int64_t axis = 0;
  double number = 0;
  DType dtype = DType::Float64;
  Span span;

  /// True for the kinds that compare as dtypes.
  bool is_dtype() const { return kind == Kind::DType || kind == Kind::DTypeLiteral; }
};

/// One node of a guard.
struct GuardNode {
  /// And, Or, Not combine other nodes; Predicate and Compare are the leaves.
  enum class Kind : std::uint8_t { And, Or, Not, Predicate, Compare };
  Kind kind = Kind::Predicate;
  Span span;
  /// And, Or (two or more), Not (one): indices of earlier nodes.
  std::vector<std::uint32_t> children;
  /// Predicate: the predicate and its arguments by kind, in order.
  std::shared_ptr<const PredicateInfo> predicate;
  std::vector<VarId> tensor_args;
  std::vector<std::int64_t> int_args;
  /// Compare: `lhs op rhs`, op one of the comparison operators.
  ast::BinaryOp op = ast::BinaryOp::Eq;
  GuardOperand lhs;
  GuardOperand rhs;
};

/// A checked guard. Nodes are in post-order (children before parents); the
/// root is last. `and`/`or` short-circuit left to right. Compiling its rule
/// makes it the pattern's `rw::Guard` (the one kind of guard the matcher
/// runs), which reads the slots of the variables it names.
class CheckedGuard {
 public:
  /// A guard from its nodes (post-order, root last), the file it was written
  /// in, and the names of the rule's variables (for messages).
  CheckedGuard(std::vector<GuardNode> nodes, SourcePtr file, std::vector<std::string> var_names);

  /// Every node, children before parents.
  const std::vector<GuardNode>& nodes() const { return nodes_; }
  /// The last node: the whole guard.
  const GuardNode& root() const { return nodes_.back(); }
  /// The guard as written.
  std::string_view text() const { return file_->slice(root().span); }

  /// Whether the guard holds for these arguments. `fgraph` is the graph being
  /// rewritten (`one_client` needs it). Every variable the guard reads must
  /// be bound to a graph variable; an unbound one is a broken invariant of
  /// the caller and throws InternalError (RW_ASSERT).
  bool evaluate(GuardArgs args, const FunctionGraph* fgraph = nullptr) const;
  /// Why the guard does not hold (`value(c) > 0` is false: `value(c)` is -1),
  /// or nullopt when it does. For `rwcheck --why-not`.
  std::optional<std::string> why_false(GuardArgs args,
                                       const FunctionGraph* fgraph = nullptr) const;
  /// The value assumptions the guard states (the predicates it calls that
  /// have `PredicateInfo::assumes`: `nonzero`, `finite`, …), sorted, each
  /// once. A rule with any holds only under them; strict modes leave it out.
  std::vector<std::string> assumptions() const;

 private:
  bool eval(std::uint32_t node, GuardArgs b, const FunctionGraph* fg) const;
  std::string explain(std::uint32_t node, GuardArgs b, const FunctionGraph* fg) const;
  const Var& lookup(VarId id, GuardArgs b) const;

  std::vector<GuardNode> nodes_;
  SourcePtr file_;
  std::vector<std::string> var_names_;
};

}  // namespace rw::dsl

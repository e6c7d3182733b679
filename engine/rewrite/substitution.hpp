// The two generic node rewriters: substitution (op1 -> op2 on the same
// inputs) and removal (op(x) -> x).
#pragma once

#include <string>

#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `op1(x…) -> op2(x…)`: replaces each application of `op1` by `op2` applied
/// to the same inputs (built with `op2.make_node`, so it is type-checked).
/// Nodes whose Op has op1's name but not its properties are left alone.
class SubstitutionNodeRewriter final : public NodeRewriter {
 public:
  /// The name defaults to `op1->op2` (Op strings).
  SubstitutionNodeRewriter(OpPtr op1, OpPtr op2, std::string name = {});
  /// `op2(inputs…)` for a node of `op1`; fails for other properties.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// `op1(x…) -> op2(x…)`.
  std::string describe() const override;

 private:
  OpPtr op1_;
  OpPtr op2_;
};

/// `op(x) -> x`: removes each application of `op`, making output i of the node
/// input i (the node must have as many inputs as outputs, each input's type
/// the same as or more specific than its output's).
class RemovalNodeRewriter final : public NodeRewriter {
 public:
  /// The name defaults to `remove_<op>`.
  explicit RemovalNodeRewriter(OpPtr op, std::string name = {});
  /// The node's inputs, when types allow.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// `op(x) -> x`.
  std::string describe() const override;

 private:
  OpPtr op_;
};

}  // namespace rw

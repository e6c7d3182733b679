// Constant folding: a node whose inputs are all constants is evaluated once,
// through its Op's perform, and replaced by constants.
#pragma once

#include <string>

#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `op(c1, c2, …) -> c` for constant inputs: runs `Op::perform` on the input
/// values and replaces each output by a Constant of the output's type holding
/// the result. Skips nodes whose Op says no (`Op::do_constant_folding`) and
/// Ops without perform (the reason says which). Tracks every Op; depth 0.
class ConstantFolding final : public NodeRewriter {
 public:
  explicit ConstantFolding(std::string name = "constant_folding");
  /// The folded constants, or why the node cannot be folded.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// `op(constants…) -> constant`.
  std::string describe() const override;
};

}  // namespace rw

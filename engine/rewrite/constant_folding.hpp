// Constant folding: a node whose inputs are all constants is evaluated once,
// through its Op's perform, and replaced by constants.
#pragma once

#include <cstdint>
#include <string>

#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// The most elements constant folding makes from one node: 2^24 (128 MiB of
/// float64).
inline constexpr std::int64_t kMaxFoldedElements = std::int64_t{1} << 24;

/// `op(c1, c2, …) -> c` for constant inputs: runs `Op::perform` on the input
/// values and replaces each output by a Constant of the output's type holding
/// the result. Skips nodes whose Op says no (`Op::do_constant_folding`) and
/// Ops without perform (the reason says which). Tracks every Op unless
/// given fewer; depth 0.
///
/// Folding bakes its result into the graph, so it is bounded: a node whose
/// outputs would hold more than `max_elements()` elements in all
/// (kMaxFoldedElements by default) is left unfolded, refused before it is
/// evaluated when the output types give the shapes, and otherwise once it
/// is; an evaluation that runs out of memory is left unfolded too. The
/// failure reason says which.
class ConstantFolding final : public NodeRewriter {
 public:
  explicit ConstantFolding(std::string name = "constant_folding", Tracks tracks = Tracks::any());
  /// Sets the bound on the elements a fold may make.
  ConstantFolding& with_max_elements(std::int64_t elements);
  std::int64_t max_elements() const { return max_elements_; }
  /// The folded constants, or why the node cannot be folded.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// `op(constants…) -> constant`.
  std::string describe() const override;

 private:
  std::int64_t max_elements_ = kMaxFoldedElements;
};

}  // namespace rw

// SequenceRewriter: graph rewriters applied one after another (Aesara's
// SequentialGraphRewriter).
#pragma once

#include <string>
#include <vector>

#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

/// Runs its passes in order, each once. Each is a nested pass in the trace
/// and the profile; the report lists theirs as children.
class SequenceRewriter final : public GraphRewriter {
 public:
  /// Throws RewriteError for an empty name or a null pass.
  SequenceRewriter(std::string name, std::vector<GraphRewriterPtr> passes);
  /// The passes, in the order they run.
  const std::vector<GraphRewriterPtr>& passes() const { return passes_; }

  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
  std::string summary(int indent = 0) const override;

 private:
  std::vector<GraphRewriterPtr> passes_;
};

}  // namespace rw

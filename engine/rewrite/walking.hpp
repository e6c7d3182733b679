// WalkingRewriter: one pass over the graph in topological or reverse order,
// trying node rewriters on each node (Aesara's WalkingGraphRewriter, in2out
// and out2in).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

namespace detail {
class RewriterIndex;
}

/// The order in which a WalkingRewriter visits nodes.
enum class WalkOrder : unsigned char {
  InToOut,  ///< inputs before the nodes that use them (topological order)
  OutToIn,  ///< users before the nodes they use (reverse topological order)
};

/// Visits every node once, in `order`, and replaces it with the first of its
/// rewriters (by benefit, then order given) that applies. Nodes that a
/// replacement brings in are visited too (after the current one: at the end
/// for in-to-out, next for out-to-in) unless `ignore_newtrees`. Not a fixed
/// point: use EquilibriumRewriter for that.
class WalkingRewriter final : public GraphRewriter {
 public:
  /// Throws RewriteError for an empty name, a null rewriter or two of one name.
  WalkingRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters,
                  WalkOrder order = WalkOrder::InToOut, bool ignore_newtrees = false);
  ~WalkingRewriter() override;

  /// How it was built; the rewriters in the order a node tries them.
  WalkOrder order() const { return order_; }
  bool ignore_newtrees() const { return ignore_newtrees_; }
  const std::vector<NodeRewriterPtr>& rewriters() const { return rewriters_; }

  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
  std::string summary(int indent = 0) const override;

 private:
  std::vector<NodeRewriterPtr> rewriters_;
  std::unique_ptr<detail::RewriterIndex> index_;
  WalkOrder order_;
  bool ignore_newtrees_;
};

/// A WalkingRewriter in topological order (Aesara's in2out).
std::shared_ptr<WalkingRewriter> in2out(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                        bool ignore_newtrees = false);
/// A WalkingRewriter in reverse topological order (Aesara's out2in).
std::shared_ptr<WalkingRewriter> out2in(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                        bool ignore_newtrees = false);

}  // namespace rw

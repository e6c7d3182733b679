// RelationNodeRewriter: a rewrite stated as a miniKanren relation between a
// node's output and its replacement (Aesara's KanrenRelationSub).
#pragma once

#include <string>

#include "engine/kanren/relation_rewrite.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// Rewrites a node with the first answer of `relation(out, q)` that builds a
/// graph (unify's `rewrite_with_relation`): the relation relates the node's
/// default output, read lazily as `op(inputs…)`, to a logic variable for its
/// replacement; the answer is built through make_node, so it is type-checked.
///
/// A relation may read anything below the node, so the rewriter's depth is
/// kAnyDepth unless given; tracks are every Op unless given (a relation has
/// no root Op to dispatch on). No answer, an answer that does not build, the
/// node itself, or a replacement whose type cannot replace the output's (it
/// must be the same or more specific) is a failed attempt with a reason.
class RelationNodeRewriter final : public NodeRewriter {
 public:
  /// Throws RewriteError for an empty name or relation.
  RelationNodeRewriter(std::string name, Relation relation, Tracks tracks = Tracks::any(),
                       RelationRewriteOptions options = {}, int depth = kAnyDepth,
                       int benefit = 1, std::string description = {});

  /// The search options (registry, answers tried, step bound).
  const RelationRewriteOptions& options() const { return options_; }

  /// The first answer's graph, or why there is none.
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  /// The description given, or `NAME (relation)`.
  std::string describe() const override;

 private:
  Relation relation_;
  RelationRewriteOptions options_;
  std::string description_;
};

}  // namespace rw

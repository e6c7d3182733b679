// The relation-driven rewrite (Aesara's KanrenRelationSub): a goal relating a
// node's output to a replacement, the first answer that builds a valid graph.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>

#include "engine/graph/apply.hpp"
#include "engine/kanren/goal.hpp"
#include "engine/unify/reify_graph.hpp"

namespace rw {

/// A relation between a node's output (a graph term, read lazily as
/// `op(inputs…)`) and a logic variable for its replacement.
using Relation = std::function<kanren::Goal(const Term& in, const Term& out)>;

/// How `rewrite_with_relation` searches.
struct RelationRewriteOptions {
  /// Resolves op patterns and symbols in the answer (see GraphBuildOptions).
  const OpRegistry* registry = nullptr;
  /// Answers tried, in order, until one builds a graph that is not the node
  /// itself; 1 is Aesara's behaviour (the first answer only).
  std::size_t max_answers = 1;
  /// Suspensions the search may take before giving up (a relation may
  /// search forever); the default has no limit.
  std::size_t max_steps = std::numeric_limits<std::size_t>::max();
};

/// Runs `relation(out, q)` for the default output `out` of `node` and
/// reifies the answers into graph nodes: the replacement for `out`, or why
/// there is none — no answer, an answer with unbound parts, one the Ops'
/// make_node refuses (each reason names the answer tried), or the node
/// itself. The rewrite layer wraps this as a NodeRewriter.
GraphResult rewrite_with_relation(const Relation& relation, const Apply& node,
                                  const RelationRewriteOptions& options = {});

}  // namespace rw

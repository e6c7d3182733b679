// The order in which a compiled function runs its nodes.
#pragma once

#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"

namespace rw {

/// The nodes of `fgraph` in the order a function runs them: each after the
/// nodes computing its inputs and, for a node that overwrites an input
/// (destroy_map), after every other node that reads that buffer's current
/// contents, views included. Otherwise the graph's topological order.
///
/// Throws Error naming the nodes when no such order exists: two nodes
/// overwrite the same buffer, a reader of the old contents needs the
/// overwriting node's result, or a graph output is the overwritten buffer.
std::vector<Apply*> schedule(const FunctionGraph& fgraph);

}  // namespace rw

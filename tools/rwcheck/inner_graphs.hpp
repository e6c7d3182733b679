// OpFromGraph nodes in rwcheck's reports: the final graph printed with each
// inner graph once (folded) or beneath each node (expanded), and the list of
// OpFromGraph Ops a graph uses.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "engine/compile/op_from_graph.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"

namespace rw::check {

/// The OpFromGraph Ops of the graph computing `outputs`, nested ones
/// included, each once, in the order a walk from the outputs meets them.
std::vector<const OpFromGraph*> op_from_graphs(std::span<const Var> outputs);

/// The number of nodes of `op` in `fgraph` (its top level).
std::size_t count_nodes(const FunctionGraph& fgraph, const OpFromGraph& op);

/// `debugprint` of the graph. Folded: each OpFromGraph node is one line (its
/// name), and the inner graph of each Op follows the graph once, headed
/// ``def `name`(params):``. Expanded: below each OpFromGraph node's line,
/// its inner graph (itself expanded), each line marked `┊`; then its inputs.
/// Each tree is printed with `options` (its line cap, its indentation limit).
std::string print_graph(std::span<const Var> outputs, bool expand,
                        const DebugPrintOptions& options = {});

/// ``def `name`(a f64[], x f64[?]) inline``: how reports introduce an Op's inner graph.
std::string def_header(const OpFromGraph& op);

}  // namespace rw::check

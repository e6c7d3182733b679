// --dot FILE: the graph before and after rewriting as Graphviz, two clusters
// in one digraph; nodes created by rules are marked with the rule's name.
#pragma once

#include <string>
#include <string_view>

#include "engine/graph/function_graph.hpp"
#include "tools/rwcheck/provenance.hpp"

namespace rw::check {

/// One cluster (`subgraph cluster_<prefix> { … }`) drawing `fgraph`: inputs
/// as ellipses, constants as plain text, Apply nodes as boxes labelled
/// `#id op` (and `by RULE` in a filled box for nodes a rewriter created),
/// outputs as `output i`. Node names are prefixed so that two clusters can
/// share a file.
std::string dot_cluster(const FunctionGraph& fgraph, const Provenance& provenance,
                        std::string_view prefix, std::string_view label);

/// The whole file: `digraph rwcheck { <before> <after> }`.
std::string dot_file(const std::string& before_cluster, const std::string& after_cluster);

/// `s` escaped for a double-quoted Graphviz string.
std::string dot_escape(std::string_view s);

}  // namespace rw::check

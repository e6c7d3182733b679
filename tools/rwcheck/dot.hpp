// --dot PREFIX: the graph before and after rewriting as two Graphviz files;
// nodes created by rules are marked with the rule's name.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "tools/rwcheck/provenance.hpp"

namespace rw::check {

/// The longest node label a picture shows, in characters; a longer one is
/// cut there and ends with `…`.
inline constexpr std::size_t kMaxDotLabel = 40;

/// `fgraph` as one Graphviz digraph named `name`, titled `title`, laid out
/// top to bottom for graphs of many nodes: inputs (ellipses) on the top rank,
/// outputs (double octagons, labelled `output_labels[i]`) on the bottom one,
/// each Apply node once however many use it (a box labelled `#id` and its Op
/// as a graph file writes it, `dimshuffle{order=(x, 0)}`, and `by RULE` in a
/// filled box for nodes a rewriter created), constants as small plain text,
/// labels cut at kMaxDotLabel, edges numbered by input where a node has
/// several.
std::string dot_graph(const FunctionGraph& fgraph, const Provenance& provenance,
                      std::string_view name, std::string_view title,
                      std::span<const std::string> output_labels);

/// How a graph file calls `op`: its name, then its properties in braces with
/// the file's words (`dimshuffle{order=(x, 0)}`, `subtensor{index=(i)}`,
/// strings quoted).
std::string op_call_text(const Op& op);

/// `s` escaped for a double-quoted Graphviz string.
std::string dot_escape(std::string_view s);

/// `s` cut to at most `n` characters (UTF-8 sequences kept whole), ending
/// with `…` when it was longer.
std::string cut_label(std::string_view s, std::size_t n);

}  // namespace rw::check

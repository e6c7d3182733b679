// Graph files with the library's defaults: `def` blocks built as OpFromGraph;
// and any graph written as a graph file.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "engine/dsl/graph_file.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw {

/// Graph-file options whose `define` builds each `def` block as an
/// OpFromGraph named after it (`inline=true` sets `inline_graph`); its inner
/// graph runs with default_mode()'s rewrites.
dsl::GraphFileOptions graph_file_options();

/// Loads a graph file with `ops` (the standard registry by default) and
/// graph_file_options(); throws dsl::LoadError with every diagnostic.
dsl::GraphFile load_graph_file(const std::filesystem::path& path,
                          const OpRegistry& ops);
/// The same with the standard registry.
dsl::GraphFile load_graph_file(const std::filesystem::path& path);

/// The graph from `inputs` to `outputs` as graph-file text, which
/// load_graph_file with `ops` reads back to an equal graph: the same inputs
/// (types and names), constants (dtype, shape and every value), nodes (Ops
/// with their properties) and outputs, in the same structure. So a program
/// that builds its graph in C++ can show it to rwcheck.
///
/// Each node is written as a call of its Op by name with every property
/// (`%3 = dimshuffle{order=(x,0)}(b)`), a node with several outputs as a
/// tuple binding; an OpFromGraph as a `def` block (its name; `inline`; its
/// shared variables become parameters; overrides and its rewrite pipeline are
/// not written); a constant as a literal where the literal is the same
/// constant (a 0-d float64 or a small integer used once), otherwise as a
/// `const` statement. Variables keep their names where a name can be written
/// (an identifier, not a keyword, an op or a name used before), else get `%N`.
///
/// Throws rw::Error naming the node, and writes nothing, for an Op the
/// registry does not build back as itself (unknown name, a property it has no
/// parameter for), a variable that is not a tensor, a constant whose type is
/// not its value's, or a root that is neither an input nor a constant.
std::string graph_file_text(std::span<const Var> inputs, std::span<const Var> outputs,
                            const OpRegistry& ops);
std::string graph_file_text(const FunctionGraph& fgraph, const OpRegistry& ops);
/// The same with the standard registry.
std::string graph_file_text(const FunctionGraph& fgraph);

/// Writes graph_file_text(fgraph, ops) to `path` (replacing the file).
/// Throws as graph_file_text, or rw::Error naming the path when it cannot be
/// written; on any error the file is not touched.
void write_graph_file(const FunctionGraph& fgraph, const std::filesystem::path& path,
                      const OpRegistry& ops);
/// The same with the standard registry.
void write_graph_file(const FunctionGraph& fgraph, const std::filesystem::path& path);

}  // namespace rw

// Graph files with the library's defaults: `def` blocks built as OpFromGraph.
#pragma once

#include <filesystem>

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

}  // namespace rw

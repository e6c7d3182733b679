// Graph files: a whole graph as text (typed inputs, named bindings, outputs),
// built through an OpRegistry into Variables and Apply nodes.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/source.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/variable.hpp"

namespace rw::dsl {

/// A loaded graph file.
struct GraphFile {
  SourcePtr source;
  /// The `input` declarations, in order.
  std::vector<Var> inputs;
  /// The `output` expressions, in order.
  std::vector<Var> outputs;
  /// Every name the file defines (inputs and bindings), in definition order.
  std::vector<std::pair<std::string, Var>> names;

  /// The variable a name was bound to, or a null Var.
  Var find(std::string_view name) const;
  /// A FunctionGraph from the inputs to the outputs (a clone by default, so
  /// that this file's graph stays as loaded).
  FunctionGraph function_graph(bool clone = true) const;
};

/// Loads a graph file, building each node with `ops`. With any error, the
/// result holds no graph.
LoadResult<GraphFile> check_graph(const std::filesystem::path& path, const OpRegistry& ops);
/// The same for text not read from a file; `name` is what diagnostics call it.
LoadResult<GraphFile> check_graph_text(std::string name, std::string text, const OpRegistry& ops);
/// `check_graph(...).take()`: the graph, or LoadError with every diagnostic.
GraphFile load_graph(const std::filesystem::path& path, const OpRegistry& ops);
/// `check_graph_text(...).take()`.
GraphFile load_graph_text(std::string name, std::string text, const OpRegistry& ops);

}  // namespace rw::dsl

// Graph files: a whole graph as text (typed inputs, named bindings, outputs),
// built through an OpRegistry into Variables and Apply nodes.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/source.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/variable.hpp"

namespace rw::dsl {

/// A loop body (`sequences=N states=M …`): a call runs the block once per
/// step (docs/scan.md). Its first N parameters are the step's elements of
/// the sequences the call passes, the next M the recurrent states (their
/// last values; the call passes their initial values), the rest
/// non-sequences; its first M outputs are the states' new values, and with
/// `until` its last output is the stopping condition.
struct DefLoop {
  std::size_t sequences = 0;
  std::size_t states = 0;
  /// `steps=K`: the number of steps (else the sequences' length; in a
  /// while-loop, no bound).
  std::optional<std::int64_t> steps;
  bool until = false;
  bool backwards = false;
};

/// What a `def` block asks for: a named Op wrapping the graph from its
/// parameters to its outputs.
struct DefSpec {
  std::string name;
  /// One variable per parameter, typed and named as written.
  std::vector<Var> inputs;
  /// The block's `output` expressions, in order.
  std::vector<Var> outputs;
  /// `inline=true`: the Op asks to be expanded into the graph that uses it.
  bool inline_graph = false;
  /// A loop body (`sequences=N states=M …`; see DefLoop).
  using Loop = DefLoop;
  std::optional<Loop> loop;
};

/// Builds the Op of a `def` block; throws rw::Error to refuse it (the load
/// reports the message at the def's name). The umbrella's
/// `rw::graph_file_options()` builds an OpFromGraph.
using DefBuilder = std::function<OpPtr(const DefSpec& spec)>;

/// How graph files are loaded.
struct GraphFileOptions {
  /// Builds `def` blocks; null: a file with a `def` is refused.
  DefBuilder define;
};

/// One `def` block of a loaded graph file.
struct GraphDef {
  std::string name;
  /// What `GraphFileOptions::define` built; every call of the def is a node of it.
  OpPtr op;
  /// Where the def's name is written.
  Span span;
};

/// A loaded graph file.
struct GraphFile {
  SourcePtr source;
  /// The `input` declarations, in order.
  std::vector<Var> inputs;
  /// The `output` expressions, in order.
  std::vector<Var> outputs;
  /// Every name the file defines outside `def` blocks (inputs and bindings),
  /// in definition order.
  std::vector<std::pair<std::string, Var>> names;
  /// The `def` blocks, in order.
  std::vector<GraphDef> defs;

  /// The variable a name was bound to, or a null Var.
  Var find(std::string_view name) const;
  /// The def of that name, or nullptr.
  const GraphDef* find_def(std::string_view name) const;
  /// A FunctionGraph from the inputs to the outputs (a clone by default, so
  /// that this file's graph stays as loaded).
  FunctionGraph function_graph(bool clone = true) const;
};

/// Loads a graph file, building each node with `ops` and each `def` with
/// `options.define`. With any error, the result holds no graph.
LoadResult<GraphFile> check_graph(const std::filesystem::path& path, const OpRegistry& ops,
                                  const GraphFileOptions& options = {});
/// The same for text not read from a file; `name` is what diagnostics call it.
LoadResult<GraphFile> check_graph_text(std::string name, std::string text, const OpRegistry& ops,
                                       const GraphFileOptions& options = {});
/// `check_graph(...).take()`: the graph, or LoadError with every diagnostic.
GraphFile load_graph(const std::filesystem::path& path, const OpRegistry& ops,
                     const GraphFileOptions& options = {});
/// `check_graph_text(...).take()`.
GraphFile load_graph_text(std::string name, std::string text, const OpRegistry& ops,
                          const GraphFileOptions& options = {});

}  // namespace rw::dsl

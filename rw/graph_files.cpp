// Graph-file defaults: OpFromGraph for `def` blocks.
#include "rw/graph_files.hpp"

#include "engine/compile/op_from_graph.hpp"
#include "rw/function.hpp"
#include "rw/registry.hpp"

namespace rw {

dsl::GraphFileOptions graph_file_options() {
  dsl::GraphFileOptions options;
  options.define = [](const dsl::DefSpec& spec) -> OpPtr {
    OpFromGraphOptions o;
    o.name = spec.name;
    o.inline_graph = spec.inline_graph;
    // Looked up when the inner graph is first compiled, so that loading a
    // file does not build the standard rule database.
    o.rewrite = [](FunctionGraph& fg) { default_rewrite()(fg); };
    return op_from_graph(spec.inputs, spec.outputs, std::move(o));
  };
  return options;
}

dsl::GraphFile load_graph_file(const std::filesystem::path& path, const OpRegistry& ops) {
  return dsl::load_graph(path, ops, graph_file_options());
}

dsl::GraphFile load_graph_file(const std::filesystem::path& path) {
  return load_graph_file(path, standard_registry());
}

}  // namespace rw

// libFuzzer target for graph files with the standard library: every input is
// built as a graph file with the standard Op registry and
// rw::graph_file_options() (defs become OpFromGraph), rewritten with the
// default mode, checked for integrity, and — when small — compiled and run on
// small inputs. User errors (rw::Error) are expected; nothing else may escape,
// and nothing may crash, hang, leak or recurse without bound.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rw/rewrite.hpp"

namespace {

using namespace rw;

// Inputs too large to run on are only built and rewritten.
constexpr std::size_t kMaxNodesToRun = 64;
constexpr std::int64_t kExtent = 2;  // an unknown extent, when run
constexpr std::int64_t kMaxElements = 4096;

// A small argument for `input`: its static extents, kExtent where unknown;
// none when that would be large.
std::optional<Tensor> argument_for(const Var& input) {
  const TensorType* t = input->tensor_type();
  if (!t) return std::nullopt;
  std::vector<std::int64_t> shape;
  std::int64_t n = 1;
  for (const std::int64_t d : t->shape()) {
    shape.push_back(d == kUnknownDim ? kExtent : d);
    if (shape.back() > kMaxElements || (n *= std::max<std::int64_t>(shape.back(), 1)) > kMaxElements)
      return std::nullopt;
  }
  return Tensor::ones(shape, t->dtype());
}

void compile_and_run(const dsl::GraphFile& g) {
  std::vector<In> inputs(g.inputs.begin(), g.inputs.end());
  std::vector<Tensor> args;
  for (const Var& v : g.inputs) {
    std::optional<Tensor> a = argument_for(v);
    if (!a) return;
    args.push_back(std::move(*a));
  }
  FunctionOptions options;
  options.on_unused_input = UnusedInput::Ignore;
  options.on_rewrite_stop = [](const std::string&) {};
  auto f = rw::function(inputs, g.outputs, options);
  f.fgraph().check_integrity();
  (void)f.call(args);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const dsl::GraphFileOptions options = graph_file_options();
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto graph = dsl::check_graph_text("input.graph", text, standard_registry(), options);
  (void)dsl::render(graph.diagnostics);
  if (!graph.value) return 0;
  try {
    FunctionGraph fg = graph.value->function_graph();
    const std::size_t nodes = fg.num_nodes();
    (void)default_mode().rewrite(fg);
    fg.check_integrity();
    if (nodes <= kMaxNodesToRun) compile_and_run(*graph.value);
  } catch (const Error&) {
    // A graph the library refuses (a type error at run time, a bad shape): fine.
  }
  return 0;
}

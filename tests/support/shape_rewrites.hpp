// Shared by the tests of the shape and subtensor rewriters: a mode with only
// those C++ rewriters (no rule library), the rewritten form of an
// expression, and compiled functions with and without the rewrites.
#pragma once

#include <string>
#include <vector>

#include "engine/compile/function.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/indexing/subtensor_rewrites.hpp"
#include "ops/shape/shape_rewrites.hpp"

namespace rw::testing {

/// fast_run over the standard groups with the shape and subtensor rewriters,
/// `shape_of_elemwise` included.
inline const Mode& shape_rewrite_mode() {
  static const Mode mode = [] {
    auto db = make_standard_db();
    register_shape_rewrites(*db);
    register_subtensor_rewrites(*db);
    return Mode::fast_run(db).including({"shape_of_elemwise"});
  }();
  return mode;
}

/// `out` after shape_rewrite_mode, as to_infix prints it.
inline std::string shape_rewritten(const Var& out) {
  std::vector<Var> inputs;
  for (const Var& v : graph_inputs(std::span(&out, 1)))
    if (!v->as_constant()) inputs.push_back(v);
  FunctionGraph fg(inputs, {out});
  shape_rewrite_mode().rewrite(fg);
  return to_infix(fg.outputs()[0]);
}

/// `out` of `inputs` compiled with shape_rewrite_mode, or with no rewrite.
inline Function<std::vector<Tensor>> compile_shape_rewritten(const std::vector<Var>& inputs,
                                                             const Var& out, bool rewrite) {
  std::vector<In> ins(inputs.begin(), inputs.end());
  GraphRewrite none = [](FunctionGraph&) {};
  GraphRewrite fast = [](FunctionGraph& fg) { shape_rewrite_mode().rewrite(fg); };
  return compile_function(std::move(ins), std::vector<Var>{out},
                          {.rewrite = rewrite ? fast : none,
                           .on_unused_input = UnusedInput::Ignore});
}

}  // namespace rw::testing

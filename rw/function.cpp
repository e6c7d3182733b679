// rw::function's rewrite hooks: a mode's pipeline, built once per hook.
#include "rw/function.hpp"

#include <memory>
#include <utility>

#include "engine/graph/errors.hpp"
#include "rw/standard_rules.hpp"

namespace rw {

GraphRewrite rewrite_with(const Mode& mode) {
  // Built now, not per call: a pipeline is immutable and rewrites any graph.
  GraphRewriterPtr pass = mode.rewriter();
  return [pass = std::move(pass)](FunctionGraph& fgraph) { pass->rewrite(fgraph); };
}

const GraphRewrite& default_rewrite() {
  static const GraphRewrite hook = rewrite_with(default_mode());
  return hook;
}

namespace detail {

FunctionOptions with_mode(FunctionOptions options, const Mode* mode) {
  if (mode) {
    if (options.rewrite)
      throw Error("`rw::function` was given both a mode and `options.rewrite`; give one of them");
    options.rewrite = rewrite_with(*mode);
  } else if (!options.rewrite) {
    options.rewrite = default_rewrite();
  }
  return options;
}

}  // namespace detail

}  // namespace rw

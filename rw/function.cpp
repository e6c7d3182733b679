// rw::function's rewrite hooks: a mode's pipeline, built once per hook.
#include "rw/function.hpp"

#include <iostream>
#include <memory>
#include <string>
#include <utility>

#include "engine/graph/errors.hpp"
#include "rw/standard_rules.hpp"

namespace rw {

namespace {

/// A hook that runs `pass` and tells `on_stop` (or std::cerr) when it stopped early.
GraphRewrite hook_for(GraphRewriterPtr pass, RewriteStopHook on_stop) {
  return [pass = std::move(pass), on_stop = std::move(on_stop)](FunctionGraph& fgraph) {
    const PassReport report = pass->rewrite(fgraph);
    if (report.ok()) return;
    const std::string problems = report.problems();
    if (on_stop) on_stop(problems);
    else std::cerr << "warning: rewriting stopped early:\n" << problems;
  };
}

const GraphRewriterPtr& default_pass() {
  static const GraphRewriterPtr pass = default_mode().rewriter();
  return pass;
}

}  // namespace

GraphRewrite rewrite_with(const Mode& mode, RewriteStopHook on_stop) {
  // Built now, not per call: a pipeline is immutable and rewrites any graph.
  return hook_for(mode.rewriter(), std::move(on_stop));
}

const GraphRewrite& default_rewrite() {
  static const GraphRewrite hook = hook_for(default_pass(), {});
  return hook;
}

namespace detail {

FunctionOptions with_mode(FunctionOptions options, const Mode* mode) {
  if (mode) {
    if (options.rewrite)
      throw Error("`rw::function` was given both a mode and `options.rewrite`; give one of them");
    options.rewrite = rewrite_with(*mode, options.on_rewrite_stop);
  } else if (!options.rewrite) {
    options.rewrite = options.on_rewrite_stop ? hook_for(default_pass(), options.on_rewrite_stop)
                                              : default_rewrite();
  }
  return options;
}

}  // namespace detail

}  // namespace rw

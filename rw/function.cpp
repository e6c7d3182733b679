// rw::function's rewrite hooks: a mode's pipeline, built once per hook.
#include "rw/function.hpp"

#include <iostream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/compile/detail/debug_check.hpp"
#include "engine/graph/errors.hpp"
#include "engine/rewrite/context.hpp"
#include "rw/bisect.hpp"
#include "rw/standard_rules.hpp"

namespace rw {

namespace {

/// Where a hook's run reports, besides its early stop.
struct Listeners {
  std::vector<std::shared_ptr<TraceListener>> trace;
  std::shared_ptr<RewriteProfile> profile;
  /// RW_FLAGS=profile_rewrites: the profile's table to std::cerr after the run.
  bool print_profile = false;
};

/// A hook that runs `pass` and tells `on_stop` (or std::cerr) when it stopped
/// early; the run's events and costs go to `listeners`.
GraphRewrite hook_for(GraphRewriterPtr pass, RewriteStopHook on_stop, Listeners listeners = {}) {
  return [pass = std::move(pass), on_stop = std::move(on_stop),
          listeners = std::move(listeners)](FunctionGraph& fgraph) {
    Trace trace;
    RewriteContext ctx;
    for (const auto& l : listeners.trace) trace.subscribe(l);
    if (trace.active()) ctx.trace = &trace;
    ctx.profile = listeners.profile.get();
    const PassReport report = pass->rewrite(fgraph, ctx);
    if (listeners.print_profile) std::cerr << listeners.profile->table();
    if (report.ok()) return;
    const std::string problems = report.problems();
    if (on_stop) on_stop(problems);
    else std::cerr << "warning: rewriting stopped early:\n" << problems;
  };
}

/// RW_FLAGS=trace_rewrites: each change a pass makes, one line to std::cerr.
class TracePrinter final : public TraceListener {
 public:
  bool wants_attempts() const override { return false; }
  void on_event(const TraceEvent& e) override {
    if (e.kind == TraceKind::Tried || e.kind == TraceKind::Failed) return;
    std::cerr << "rewrite: " << format_event(e) << '\n';
  }
};

/// DebugMode's name_rewrite for a function of `outputs` of `inputs` rewritten
/// by `mode`: the change bisect_rewrites finds.
std::function<std::string(std::span<const Tensor>)> bisector(const Mode& mode,
                                                             std::span<const In> inputs,
                                                             std::span<const Var> outputs,
                                                             const FunctionOptions& options) {
  if (!options.givens.empty())
    return [](std::span<const Tensor>) -> std::string {
      return "the rewrite is not named: the bisection does not substitute givens";
    };
  std::vector<Var> ins;
  for (const In& in : inputs) ins.push_back(in.variable);
  std::vector<Var> outs(outputs.begin(), outputs.end());
  for (const auto& [target, value] : options.updates) outs.push_back(value);
  const Tolerance tolerance = options.debug_mode->tolerance;
  return [mode, ins = std::move(ins), outs = std::move(outs),
          tolerance](std::span<const Tensor> args) {
    // The bisection's functions are not themselves debugged (RW_FLAGS).
    const detail::IgnoreEnvironmentFlags plain;
    const RewriteBisection b = bisect_rewrites(ins, outs, args, mode, tolerance);
    if (!b.differs)
      return std::string("bisecting the pipeline's changes found no difference on these "
                         "arguments");
    return b.to_string();
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

FunctionOptions with_mode(FunctionOptions options, const Mode* mode, std::span<const In> inputs,
                          std::span<const Var> outputs) {
  if (mode && options.rewrite)
    throw Error("`rw::function` was given both a mode and `options.rewrite`; give one of them");
  if (options.rewrite && (options.rewrite_trace || options.rewrite_profile))
    throw Error("`options.rewrite_trace` and `options.rewrite_profile` are heard by a mode's "
                "pipeline; a hand-written `options.rewrite` reports as it likes");
  if (options.rewrite) return options;  // RW_FLAGS' rewriting flags cannot reach into it
  const EnvironmentFlags flags = environment_flags();
  if (flags.debug_mode && !options.debug_mode) options.debug_mode = DebugMode{};
  if (options.debug_mode && options.debug_mode->compare_unrewritten &&
      !options.debug_mode->name_rewrite)
    options.debug_mode->name_rewrite = bisector(mode ? *mode : default_mode(), inputs, outputs,
                                                options);
  Listeners listeners{{}, options.rewrite_profile, false};
  // The Trace hears both the options' listener and RW_FLAGS' printer.
  if (options.rewrite_trace) listeners.trace.push_back(options.rewrite_trace);
  if (flags.trace_rewrites) listeners.trace.push_back(std::make_shared<TracePrinter>());
  if (flags.profile_rewrites) {
    if (!listeners.profile) listeners.profile = std::make_shared<RewriteProfile>();
    listeners.print_profile = true;
  }
  const bool plain = listeners.trace.empty() && !listeners.profile;
  if (mode) {
    options.rewrite = hook_for(mode->rewriter(), options.on_rewrite_stop, std::move(listeners));
  } else if (plain && !options.on_rewrite_stop) {
    options.rewrite = default_rewrite();
  } else {
    options.rewrite = hook_for(default_pass(), options.on_rewrite_stop, std::move(listeners));
  }
  return options;
}

}  // namespace detail

}  // namespace rw

// bisect_rewrites: the pipeline stopped after k changes, bisected over k.
#include "rw/bisect.hpp"

#include <optional>
#include <utility>

#include <fmt/format.h>

#include "engine/compile/function.hpp"
#include "engine/graph/errors.hpp"
#include "engine/rewrite/context.hpp"
#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

namespace {

/// Thrown by the listener to stop a pipeline once it has made its changes.
struct Enough {};

/// Counts the changes of a run (replacements and Op changes), keeps the
/// last one's description, and stops the run at change `stop_at` (0: never).
/// The change the event reports is made by then, so the graph holds exactly
/// `stop_at` of them (a rewrite replacing several outputs counts as several).
class ChangeCounter final : public TraceListener {
 public:
  explicit ChangeCounter(std::size_t stop_at) : stop_at_(stop_at) {}
  bool wants_attempts() const override { return false; }
  void on_event(const TraceEvent& e) override {
    if (e.kind != TraceKind::Replaced && e.kind != TraceKind::Modified) return;
    ++count_;
    if (count_ == stop_at_) {
      pass_ = e.pass;
      rewriter_ = e.rewriter;
      change_ = format_event(e);
      throw Enough{};
    }
  }
  std::size_t count() const { return count_; }
  const std::string& pass() const { return pass_; }
  const std::string& rewriter() const { return rewriter_; }
  const std::string& change() const { return change_; }

 private:
  std::size_t stop_at_;
  std::size_t count_ = 0;
  std::string pass_, rewriter_, change_;
};

/// The outputs of the graph rewritten by `pass` up to `stop_at` changes (all
/// of them for 0); the counter of that run.
std::pair<std::vector<Tensor>, std::shared_ptr<ChangeCounter>> run_to(
    const std::vector<Var>& inputs, const std::vector<Var>& outputs, std::span<const Tensor> args,
    const GraphRewriterPtr& pass, std::size_t stop_at) {
  auto counter = std::make_shared<ChangeCounter>(stop_at);
  FunctionOptions options;
  options.on_unused_input = UnusedInput::Ignore;
  options.rewrite = [&](FunctionGraph& fg) {
    if (!pass) return;
    Trace trace;
    trace.subscribe(counter);
    RewriteContext ctx;
    ctx.trace = &trace;
    try {
      pass->rewrite(fg, ctx);
    } catch (const Enough&) {
      // Stopped where asked: the graph holds the changes made so far.
    }
  };
  std::vector<In> ins(inputs.begin(), inputs.end());
  auto f = compile_function(std::move(ins), outputs, std::move(options));
  return {f.call(std::vector<Tensor>(args.begin(), args.end())), std::move(counter)};
}

/// How `got` differs from `want`, or nullopt when they are the same.
std::optional<std::string> difference(const std::vector<Tensor>& got,
                                      const std::vector<Tensor>& want, Tolerance tol) {
  for (std::size_t i = 0; i < want.size(); ++i)
    if (auto why = describe_difference(got[i], want[i], tol))
      return fmt::format("output {}: {} (unrewritten)", i, *why);
  return std::nullopt;
}

}  // namespace

std::string RewriteBisection::to_string() const {
  if (!differs)
    return fmt::format("the {} changes of the pipeline leave the outputs as the unrewritten "
                       "graph computes them",
                       changes);
  if (first_bad == 0)
    return fmt::format("the outputs differ, but not after any of the {} changes the trace "
                       "reports: a pass changed the graph without reporting it; {}",
                       changes, difference);
  return fmt::format("change {} of {} changed the outputs: {} (pass {}, rewriter {}); {}",
                     first_bad, changes, change, pass, rewriter, difference);
}

RewriteBisection bisect_rewrites(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                 std::span<const Tensor> args, const Mode& mode,
                                 Tolerance tolerance) {
  if (!(tolerance.rtol >= 0) || !(tolerance.atol >= 0))
    throw Error(fmt::format("bisect_rewrites: `tolerance` must be non-negative, not rtol {} "
                            "atol {}",
                            tolerance.rtol, tolerance.atol));
  const GraphRewriterPtr pass = mode.rewriter();
  const std::vector<Tensor> want = run_to(inputs, outputs, args, nullptr, 0).first;
  auto [full, counter] = run_to(inputs, outputs, args, pass, 0);
  RewriteBisection out;
  out.changes = counter->count();
  if (!difference(full, want, tolerance)) return out;
  out.differs = true;
  // The smallest k whose outputs differ: after lo changes they are the same,
  // after hi they differ.
  std::size_t lo = 0, hi = out.changes;
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (difference(run_to(inputs, outputs, args, pass, mid).first, want, tolerance)) hi = mid;
    else lo = mid;
  }
  auto [at_bad, bad] = run_to(inputs, outputs, args, pass, hi);
  const auto why = difference(at_bad, want, tolerance);
  if (!why) {
    // Right after the last change the trace reports: the culprit is work
    // no trace event reports (a pass that changes the graph silently).
    out.difference = difference(full, want, tolerance).value_or("differs");
    return out;
  }
  out.first_bad = hi;
  out.pass = bad->pass();
  out.rewriter = bad->rewriter();
  out.change = bad->change();
  out.difference = *why;
  return out;
}

}  // namespace rw

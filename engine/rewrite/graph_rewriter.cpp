// GraphRewriter: run/rewrite with trace and profile, PassReport helpers.
#include "engine/rewrite/graph_rewriter.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"

namespace rw {

std::string_view stop_reason_name(StopReason reason) {
  switch (reason) {
    case StopReason::Saturated: return "saturated";
    case StopReason::Completed: return "completed";
    case StopReason::RewriteLimit: return "rewrite limit";
    case StopReason::NodeLimit: return "node limit";
    case StopReason::GrowthLimit: return "growth limit";
    case StopReason::TimeLimit: return "time limit";
  }
  return "?";
}

bool PassReport::ok() const {
  if (stop != StopReason::Saturated && stop != StopReason::Completed) return false;
  for (const auto& c : children)
    if (!c.ok()) return false;
  return true;
}

std::string PassReport::problems() const {
  std::string out;
  if (stop != StopReason::Saturated && stop != StopReason::Completed)
    out += fmt::format("{}: {}\n", pass, diagnostic);
  for (const auto& c : children) out += c.problems();
  return out;
}

GraphRewriter::GraphRewriter(std::string name) : name_(std::move(name)) {
  if (name_.empty()) throw RewriteError("a graph rewriter needs a name");
}

std::string GraphRewriter::summary(int indent) const {
  return std::string(static_cast<std::size_t>(indent), ' ') + name_ + "\n";
}

namespace {
/// Leaves the profiled pass however `apply` ends.
struct ProfileScope {
  RewriteProfile* profile;
  ~ProfileScope() {
    if (profile) profile->leave();
  }
};
}  // namespace

PassReport GraphRewriter::run(FunctionGraph& fgraph, RewriteContext& ctx) const {
  const std::size_t before = fgraph.num_nodes();
  if (ctx.tracing()) {
    TraceEvent e;
    e.kind = TraceKind::PassStarted;
    e.pass = name_;
    e.nodes = before;
    ctx.trace->emit(e);
  }
  PassProfile* prof = ctx.profile ? &ctx.profile->enter(name_) : nullptr;
  ProfileScope scope{ctx.profile};
  // The clock is read only for someone who keeps the time.
  const bool timed = prof || ctx.tracing();
  const auto t0 = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  PassReport report = apply(fgraph, ctx);
  const double seconds =
      timed ? std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() : 0.0;
  report.pass = name_;
  report.nodes_before = before;
  report.nodes_after = fgraph.num_nodes();
  report.nodes_max = std::max({report.nodes_max, before, report.nodes_after});
  if (prof) {
    ++prof->runs;
    prof->seconds += seconds;
    prof->nodes_start += before;
    prof->nodes_end += report.nodes_after;
    prof->nodes_max = std::max(prof->nodes_max, report.nodes_max);
    prof->applications += report.applications;
    prof->stop = std::string(stop_reason_name(report.stop));
  }
  if (ctx.tracing()) {
    TraceEvent e;
    e.kind = TraceKind::PassEnded;
    e.pass = name_;
    e.nodes = report.nodes_after;
    e.applications = report.applications;
    e.message = stop_reason_name(report.stop);
    e.seconds = seconds;
    ctx.trace->emit(e);
  }
  return report;
}

PassReport GraphRewriter::rewrite(FunctionGraph& fgraph, RewriteContext& ctx) const {
  add_requirements(fgraph);
  return run(fgraph, ctx);
}

PassReport GraphRewriter::rewrite(FunctionGraph& fgraph) const {
  RewriteContext ctx;
  return rewrite(fgraph, ctx);
}

FunctionGraphRewriter::FunctionGraphRewriter(std::string name, Fn fn, Requirements requirements)
    : GraphRewriter(std::move(name)), fn_(std::move(fn)), requirements_(std::move(requirements)) {
  if (!fn_) throw RewriteError(fmt::format("graph rewriter `{}` has no function", this->name()));
}

void FunctionGraphRewriter::add_requirements(FunctionGraph& fgraph) const {
  if (requirements_) requirements_(fgraph);
}

PassReport FunctionGraphRewriter::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport r;
  r.changed = fn_(fgraph, ctx);
  r.stop = StopReason::Completed;
  return r;
}

}  // namespace rw

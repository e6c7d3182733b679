// RewriteContext: what a rewriting run reports to (trace, profile) and how it
// treats rewriters that throw.
#pragma once

#include <string>
#include <utility>

#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/rewrite_result.hpp"
#include "engine/rewrite/trace.hpp"

namespace rw {

/// Passed to every graph and node rewriter of a run. A default context is
/// silent: no trace, no profile, and the drivers pay nothing for either.
struct RewriteContext {
  /// Listeners of the run's events, or nullptr.
  Trace* trace = nullptr;
  /// Where passes and rewriters record their costs, or nullptr.
  RewriteProfile* profile = nullptr;
  /// When false (the default) an rw::Error thrown by a node rewriter is
  /// recorded (trace event, profile count) and treated as "did not apply";
  /// when true it propagates. Other exceptions always propagate.
  bool raise_rewriter_errors = false;

  /// True when someone listens to the trace, so failure reasons are worth building.
  bool tracing() const noexcept { return trace && trace->active(); }
  /// True when someone listens to attempts (Tried, Failed): failure reasons
  /// are built and filters do not turn nodes away unseen.
  bool explaining() const noexcept { return trace && trace->attempts_wanted(); }
  /// Sends an event to the trace's listeners, if any.
  void emit(const TraceEvent& event) const {
    if (tracing()) trace->emit(event);
  }
  /// "Did not apply", with a reason that `make_reason()` builds only when
  /// someone listens to attempts: `return ctx.fail([&] { return fmt::format(...); });`
  template <class F> RewriteResult fail(F&& make_reason) const {
    if (!explaining()) return RewriteResult::fail("(reason not recorded: nobody listens)");
    return RewriteResult::fail_owned(std::string(std::forward<F>(make_reason)()));
  }
};

}  // namespace rw

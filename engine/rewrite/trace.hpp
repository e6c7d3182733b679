// The trace: a stream of rewriting events (pass started, rewriter tried,
// matched or failed with its reason, node replaced, replacement refused, pass
// ended) that rwcheck, logging and profiling subscribe to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

class Apply;
class Variable;

/// What happened.
enum class TraceKind : std::uint8_t {
  PassStarted,  ///< a graph rewriter began (`pass`, `nodes`)
  PassEnded,    ///< it ended (`pass`, `nodes`, `applications`, `message` = why it stopped)
  Tried,        ///< `rewriter` is about to look at `node`
  Failed,       ///< it did not apply; `message` says why
  Matched,      ///< it proposed replacements for `node`
  NoChange,     ///< it claimed success but its replacements change nothing
  Replaced,     ///< `old_var` was replaced by `new_var`, by `rewriter`
  Modified,     ///< `node` applies another Op now (`message` = the Op it applied), by `rewriter`
  Refused,      ///< the graph refused its replacement (`message`); nothing changed
  Error,        ///< it threw an rw::Error (`message`); counted as not applying
  Stopped,      ///< the pass stopped early (a limit); `message` is the diagnostic
};

/// The name of a kind as the text form prints it: "pass-started", "replaced", …
std::string_view trace_kind_name(TraceKind kind);

/// One event. Pointers and views are valid only during the callback; a
/// listener that keeps an event keeps its text (`format_event`).
struct TraceEvent {
  /// What happened.
  TraceKind kind = TraceKind::Tried;
  /// The graph rewriter (pass) the event belongs to.
  std::string_view pass;
  /// The node or graph rewriter concerned (empty for pass events).
  std::string_view rewriter;
  /// The node tried (Tried, Failed, Matched, NoChange, Refused, Error), or
  /// the node that applies another Op (Modified).
  const Apply* node = nullptr;
  /// Replaced: the old and the new variable.
  const Variable* old_var = nullptr;
  const Variable* new_var = nullptr;
  /// Failed: the reason; Refused and Error: the message; PassEnded: the stop
  /// reason; Stopped: the diagnostic; Modified: the Op the node applied.
  std::string_view message;
  /// PassStarted/PassEnded: the number of nodes in the graph.
  std::size_t nodes = 0;
  /// PassEnded: how many replacements the pass made.
  std::size_t applications = 0;
  /// PassEnded: wall time of the pass (never part of the text form, which
  /// must be the same run after run).
  double seconds = 0;
};

/// One line of text for an event, deterministic (no addresses, no times):
/// `replaced (x * y) / y by x  [div_cancel]`.
std::string format_event(const TraceEvent& event);

/// A short, depth-limited infix form of a variable for messages:
/// `(x * y) / y`, `exp(…)`; cost bounded by `depth`, not by the graph.
std::string brief(const Variable& var, int depth = 3);

/// Something that hears trace events.
class TraceListener {
 public:
  virtual ~TraceListener() = default;
  /// Called for every event, in order. An exception thrown here stops the
  /// rewriting that emitted the event and propagates to its caller.
  virtual void on_event(const TraceEvent& event) = 0;
  /// Whether it reads Tried and Failed events. When no listener does, the
  /// drivers send neither, rewriters build no failure reasons and filters
  /// turn nodes away before a rewriter is tried, as without a trace: a
  /// listener of replacements only (rwcheck's provenance) costs little more.
  virtual bool wants_attempts() const { return true; }
};

/// The listeners of one rewriting run. Drivers check `active()` before they
/// build an event, so a trace nobody listens to costs one branch.
class Trace {
 public:
  /// Adds a listener (a listener added twice hears each event once).
  void subscribe(std::shared_ptr<TraceListener> listener);
  /// Removes a listener; unknown listeners are ignored.
  void unsubscribe(const TraceListener& listener);
  /// True when someone listens.
  bool active() const noexcept { return !listeners_.empty(); }
  /// True when a listener reads Tried and Failed events (wants_attempts).
  bool attempts_wanted() const noexcept { return attempts_wanted_; }
  /// Sends `event` to every listener, in the order they subscribed.
  void emit(const TraceEvent& event) const;

 private:
  std::vector<std::shared_ptr<TraceListener>> listeners_;
  bool attempts_wanted_ = false;
};

/// Keeps every event as a line of text (`format_event`).
class TraceRecorder final : public TraceListener {
 public:
  /// With `attempts` false, Tried and Failed events are left out.
  explicit TraceRecorder(bool attempts = true) : attempts_(attempts) {}
  void on_event(const TraceEvent& event) override;
  /// The lines so far.
  const std::vector<std::string>& lines() const { return lines_; }
  /// The lines joined with newlines.
  std::string text() const;
  /// Forgets the lines.
  void clear() { lines_.clear(); }

 private:
  bool attempts_;
  std::vector<std::string> lines_;
};

/// Writes each event as a line to a stream (for logging).
class TraceLogger final : public TraceListener {
 public:
  /// With `attempts` false, Tried and Failed events are left out.
  explicit TraceLogger(std::ostream& out, bool attempts = false) : out_(out), attempts_(attempts) {}
  void on_event(const TraceEvent& event) override;

 private:
  std::ostream& out_;
  bool attempts_;
};

}  // namespace rw

// Trace events, their text form, and the recorder and logger listeners.
#include "engine/rewrite/trace.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

std::string_view trace_kind_name(TraceKind kind) {
  switch (kind) {
    case TraceKind::PassStarted: return "pass-started";
    case TraceKind::PassEnded: return "pass-ended";
    case TraceKind::Tried: return "tried";
    case TraceKind::Failed: return "failed";
    case TraceKind::Matched: return "matched";
    case TraceKind::NoChange: return "no-change";
    case TraceKind::Replaced: return "replaced";
    case TraceKind::Modified: return "modified";
    case TraceKind::Refused: return "refused";
    case TraceKind::Error: return "error";
    case TraceKind::Stopped: return "stopped";
  }
  return "?";
}

namespace {

struct Brief {
  std::string text;
  int precedence;
};

Brief brief_rec(const Variable& v, int depth) {
  if (const Constant* c = v.as_constant()) {
    std::string s = format_constant(*c);
    return {s, !s.empty() && s[0] == '-' ? 30 : 100};
  }
  const Apply* a = v.owner();
  if (!a) return {v.name().empty() ? "<" + v.type()->to_string() + ">" : v.name(), 100};
  if (depth <= 0) return {"…", 100};
  const PrintStyle style = a->op().print_style();
  std::string suffix = a->num_outputs() > 1 ? fmt::format(".{}", v.index()) : std::string();
  if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2 && suffix.empty()) {
    const Brief l = brief_rec(*a->input(0), depth - 1), r = brief_rec(*a->input(1), depth - 1);
    const bool pl = l.precedence < style.precedence ||
                    (l.precedence == style.precedence && style.right_assoc);
    const bool pr = r.precedence < style.precedence ||
                    (r.precedence == style.precedence && !style.right_assoc);
    return {(pl ? "(" + l.text + ")" : l.text) + " " + std::string(style.symbol) + " " +
                (pr ? "(" + r.text + ")" : r.text),
            style.precedence};
  }
  if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1 && suffix.empty()) {
    const Brief x = brief_rec(*a->input(0), depth - 1);
    return {std::string(style.symbol) + (x.precedence < style.precedence ? "(" + x.text + ")"
                                                                          : x.text),
            style.precedence};
  }
  std::string s = a->op().to_string() + "(";
  for (std::size_t i = 0; i < a->num_inputs(); ++i) {
    if (i) s += ", ";
    s += brief_rec(*a->input(i), depth - 1).text;
  }
  return {s + ")" + suffix, 100};
}

std::string node_text(const Apply* node) {
  if (!node) return "?";
  if (node->num_outputs() == 1) return brief(node->output_var(0));
  std::string s = node->op().to_string() + "(";
  for (std::size_t i = 0; i < node->num_inputs(); ++i) {
    if (i) s += ", ";
    s += brief(*node->input(i), 2);
  }
  return s + ")";
}

}  // namespace

std::string brief(const Variable& var, int depth) { return brief_rec(var, depth).text; }

std::string format_event(const TraceEvent& e) {
  switch (e.kind) {
    case TraceKind::PassStarted:
      return fmt::format("pass {} started with {} nodes", e.pass, e.nodes);
    case TraceKind::PassEnded:
      return fmt::format("pass {} ended ({}) with {} nodes after {} replacements", e.pass,
                         e.message, e.nodes, e.applications);
    case TraceKind::Tried:
      return fmt::format("try {} on {}", e.rewriter, node_text(e.node));
    case TraceKind::Failed:
      return fmt::format("{} failed on {}: {}", e.rewriter, node_text(e.node), e.message);
    case TraceKind::Matched:
      return fmt::format("{} matched {}", e.rewriter, node_text(e.node));
    case TraceKind::NoChange:
      return fmt::format("{} matched {} but its replacement changes nothing", e.rewriter,
                         node_text(e.node));
    case TraceKind::Replaced:
      return fmt::format("replaced {} by {}  [{}]", e.old_var ? brief(*e.old_var) : "?",
                         e.new_var ? brief(*e.new_var) : "?", e.rewriter);
    case TraceKind::Modified:
      return fmt::format("{} applies {} instead of {}  [{}]", node_text(e.node),
                         e.node ? e.node->op().to_string() : "?", e.message, e.rewriter);
    case TraceKind::Refused:
      return fmt::format("{} on {} refused: {}", e.rewriter, node_text(e.node), e.message);
    case TraceKind::Error:
      return fmt::format("{} threw on {}: {}", e.rewriter, node_text(e.node), e.message);
    case TraceKind::Stopped:
      return fmt::format("pass {} stopped: {}", e.pass, e.message);
  }
  return "?";
}

void Trace::subscribe(std::shared_ptr<TraceListener> listener) {
  if (!listener) return;
  for (const auto& l : listeners_)
    if (l == listener) return;
  attempts_wanted_ = attempts_wanted_ || listener->wants_attempts();
  listeners_.push_back(std::move(listener));
}

void Trace::unsubscribe(const TraceListener& listener) {
  std::erase_if(listeners_, [&](const auto& l) { return l.get() == &listener; });
  attempts_wanted_ = std::any_of(listeners_.begin(), listeners_.end(),
                                 [](const auto& l) { return l->wants_attempts(); });
}

void Trace::emit(const TraceEvent& event) const {
  for (const auto& l : listeners_) l->on_event(event);
}

void TraceRecorder::on_event(const TraceEvent& event) {
  if (!attempts_ && (event.kind == TraceKind::Tried || event.kind == TraceKind::Failed)) return;
  lines_.push_back(format_event(event));
}

std::string TraceRecorder::text() const {
  std::string out;
  for (const auto& l : lines_) {
    out += l;
    out += '\n';
  }
  return out;
}

void TraceLogger::on_event(const TraceEvent& event) {
  if (!attempts_ && (event.kind == TraceKind::Tried || event.kind == TraceKind::Failed)) return;
  out_ << format_event(event) << '\n';
}

}  // namespace rw

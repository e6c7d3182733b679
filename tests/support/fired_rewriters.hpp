// FiredRewriters: a trace listener counting, by rewriter, the replacements a
// rewrite run made, for tests that ask which rule or rewriter fired.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "engine/rewrite/trace.hpp"

namespace rw::testing {

/// Counts, by rewriter, the replacements a run made.
class FiredRewriters final : public TraceListener {
 public:
  void on_event(const TraceEvent& e) override {
    if (e.kind == TraceKind::Replaced) ++counts_[std::string(e.rewriter)];
  }
  /// Whether `name` made at least one replacement.
  bool fired(std::string_view name) const { return counts_.count(std::string(name)) != 0; }
  /// `name ×n` for each rewriter that fired, for messages.
  std::string list() const {
    std::string out;
    for (const auto& [name, n] : counts_) out += name + " ×" + std::to_string(n) + "  ";
    return out;
  }

 private:
  std::map<std::string, int> counts_;
};

}  // namespace rw::testing

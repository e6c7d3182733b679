// RewriteProfile bookkeeping and its table.
#include "engine/rewrite/profile.hpp"

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"

namespace rw {

RewriterStats& PassProfile::rewriter(std::string_view name) {
  for (auto& r : rewriters)
    if (r.name == name) return r;
  rewriters.emplace_back();
  rewriters.back().name = std::string(name);
  return rewriters.back();
}

const RewriterStats* PassProfile::find_rewriter(std::string_view name) const {
  for (const auto& r : rewriters)
    if (r.name == name) return &r;
  return nullptr;
}

PassProfile& RewriteProfile::enter(std::string_view name) {
  std::vector<PassProfile*>& siblings = stack_.empty() ? roots_ : stack_.back()->children;
  for (PassProfile* p : siblings)
    if (p->name == name) {
      stack_.push_back(p);
      return *p;
    }
  store_.emplace_back();
  PassProfile& p = store_.back();
  p.name = std::string(name);
  p.depth = static_cast<int>(stack_.size());
  siblings.push_back(&p);
  stack_.push_back(&p);
  return p;
}

void RewriteProfile::leave() {
  if (stack_.empty()) throw RewriteError("RewriteProfile::leave: no pass is being profiled");
  stack_.pop_back();
}

std::vector<const PassProfile*> RewriteProfile::passes() const {
  std::vector<const PassProfile*> out;
  std::vector<const PassProfile*> work(roots_.rbegin(), roots_.rend());
  while (!work.empty()) {
    const PassProfile* p = work.back();
    work.pop_back();
    out.push_back(p);
    for (auto it = p->children.rbegin(); it != p->children.rend(); ++it) work.push_back(*it);
  }
  return out;
}

const PassProfile* RewriteProfile::find(std::string_view name) const {
  for (const PassProfile* p : passes())
    if (p->name == name) return p;
  return nullptr;
}

std::string RewriteProfile::table() const {
  std::string out = fmt::format("{:<36} {:>5} {:>10} {:>22} {:>8}\n", "pass", "runs", "time_ms",
                                "nodes start>end (max)", "applied");
  const std::string rewriter_header =
      fmt::format("{:>8} {:>8} {:>6} {:>7} {:>6} {:>8} {:>8} {:>10}", "tried", "applied", "no-op",
                  "refused", "errors", "created", "removed", "time_ms");
  for (const PassProfile* p : passes()) {
    const std::string indent(static_cast<std::size_t>(p->depth) * 2, ' ');
    const std::string nodes = fmt::format("{}>{} ({})", p->nodes_start, p->nodes_end, p->nodes_max);
    out += fmt::format("{:<36} {:>5} {:>10.3f} {:>22} {:>8}", indent + p->name, p->runs,
                       p->seconds * 1e3, nodes, p->applications);
    if (!p->stop.empty() && p->stop != "saturated" && p->stop != "completed")
      out += "  stopped: " + p->stop;
    out += '\n';
    if (p->rewriters.empty()) continue;
    out += fmt::format("{:<36} {}\n", indent + "  rewriter", rewriter_header);
    for (const RewriterStats& r : p->rewriters)
      out += fmt::format("{:<36} {:>8} {:>8} {:>6} {:>7} {:>6} {:>8} {:>8} {:>10.3f}\n",
                         indent + "  " + r.name, r.attempts, r.applied, r.no_change, r.refused,
                         r.errors, r.nodes_created, r.nodes_removed, r.seconds * 1e3);
  }
  return out;
}

}  // namespace rw

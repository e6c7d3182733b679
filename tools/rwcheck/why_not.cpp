// --why-not: explaining a rule over a finished run.
#include "tools/rwcheck/why_not.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rw::check {

namespace {

bool runs_rule(const Mode& mode, const std::string& group, const std::string& rule) {
  const std::string path = group + "/" + rule;
  for (const std::string& n : mode.db()->selected_names(mode.query()))
    if (n == path || (n.size() > path.size() && n.ends_with("/" + path))) return true;
  return false;
}

}  // namespace

WhyNotReport explain_why_not(const dsl::CompiledRule& rule, const FunctionGraph& fgraph,
                             const Provenance& provenance, const Mode& mode) {
  WhyNotReport r;
  r.rule = rule.rule->name;
  r.op = rule.rule->lhs.root().op_info->name;
  r.group = rule.group;
  r.tags = rule.tags;
  r.selected = runs_rule(mode, rule.group, r.rule);
  r.mode = mode.name();
  r.query = mode.query().to_string();
  for (const Firing& f : provenance.firings())
    if (f.rule == r.rule) ++r.fired;

  for (const NodeHistory& h : provenance.nodes()) {
    if (h.op != r.op) continue;
    WhyNotEntry e;
    e.node = h.id;
    e.expr = provenance.expr(h.id);
    const Firing* fired = nullptr;
    for (const Firing& f : provenance.firings())
      if (f.rule == r.rule && f.before_node == h.id) fired = &f;
    if (fired) {
      e.status = WhyNotStatus::Fired;
      e.reason = fired->after;
      e.pass = fired->pass;
    } else if (fgraph.contains(*h.node)) {
      std::optional<std::string> why = rule.why_not(fgraph, *h.node);
      if (why) {
        e.status = WhyNotStatus::Failed;
        e.reason = std::move(*why);
      } else {
        e.status = WhyNotStatus::NotRun;
        if (!h.created_pass.empty())
          e.reason = fmt::format("created by `{}` in pass `{}`", h.created_by, h.created_pass);
      }
    } else if (!h.removed_by.empty()) {
      e.status = WhyNotStatus::RemovedBy;
      e.by = h.removed_by;
      e.pass = h.removed_pass;
      e.replaced = h.replaced;
      if (const std::string* last = provenance.failure(h.id)) e.reason = *last;
    } else {
      continue;  // imported by a replacement the graph refused: never part of it
    }
    r.entries.push_back(std::move(e));
  }
  return r;
}

std::string format_why_not(const WhyNotReport& r) {
  std::string out =
      fmt::format("why not `{}`: it roots at `{}`, in group `{}`", r.rule, r.op, r.group);
  if (!r.tags.empty()) out += fmt::format(" (tags {})", fmt::join(r.tags, ", "));
  out += '\n';
  if (!r.selected) {
    std::vector<std::string> tags = {r.group};
    tags.insert(tags.end(), r.tags.begin(), r.tags.end());
    out += fmt::format(
        "  mode `{}` does not run it: the query `{}` does not select its entry `{}/{}` (tags "
        "{}); give the rule a tag the mode includes, or pass --include\n",
        r.mode, r.query, r.group, r.rule, fmt::join(tags, ", "));
  }
  if (r.entries.empty())
    out += fmt::format("  no node of the graph applies `{}`: the rule is never tried\n", r.op);
  std::size_t not_rewritten = 0;
  for (const WhyNotEntry& e : r.entries) {
    out += fmt::format("  #{} {}\n      ", e.node, e.expr);
    switch (e.status) {
      case WhyNotStatus::Fired:
        out += fmt::format("fired (pass `{}`): replaced by {}\n", e.pass, e.reason);
        continue;
      case WhyNotStatus::Failed:
        out += fmt::format("no match: {}\n", e.reason);
        break;
      case WhyNotStatus::RemovedBy:
        out += fmt::format("{} by `{}` (pass `{}`)",
                           e.replaced ? "replaced" : "removed (no longer used)", e.by, e.pass);
        if (e.reason.empty())
          out += fmt::format(" before `{}` was tried on it\n", r.rule);
        else
          out += fmt::format("; `{}` had failed on it: {}\n", r.rule, e.reason);
        break;
      case WhyNotStatus::NotRun:
        if (!r.selected)
          out += "matches, but the mode does not run the rule\n";
        else
          out +=
              fmt::format("matches now, but the rule's group had run before the node existed{}\n",
                          e.reason.empty() ? "" : " (" + e.reason + ")");
        break;
    }
    ++not_rewritten;
  }
  out +=
      fmt::format("`{}` fired {} time{}; {} node{} of `{}` not rewritten by it\n", r.rule, r.fired,
                  r.fired == 1 ? "" : "s", not_rewritten, not_rewritten == 1 ? "" : "s", r.op);
  return out;
}

}  // namespace rw::check

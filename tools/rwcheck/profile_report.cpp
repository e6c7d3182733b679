// The --profile table.
#include "tools/rwcheck/profile_report.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rw::check {

ProfileSummary summarize_profile(const RewriteProfile& profile, const RuleSet& rules,
                                 const std::vector<std::string>& selected,
                                 const Provenance& provenance) {
  ProfileSummary s;
  std::vector<std::string> rule_names;
  for (const RuleRef& r : rules.rules()) rule_names.push_back(r.rule->rule->name);
  auto is_rule = [&](const std::string& n) {
    return std::find(rule_names.begin(), rule_names.end(), n) != rule_names.end();
  };
  for (const PassProfile* p : profile.passes())
    for (const RewriterStats& st : p->rewriters) s.rows.push_back({p->name, st, is_rule(st.name)});

  for (const RuleRef& ref : rules.rules()) {
    const dsl::CompiledRule& r = *ref.rule;
    std::size_t attempts = 0, applied = 0;
    for (const ProfileRow& row : s.rows)
      if (row.stats.name == r.rule->name)
        attempts += row.stats.attempts, applied += row.stats.applied;
    if (applied > 0) continue;
    const std::string path = r.group + "/" + r.rule->name;
    const bool runs = std::any_of(selected.begin(), selected.end(), [&](const std::string& n) {
      return n == path || n.ends_with("/" + path);
    });
    std::string why;
    if (!runs)
      why = "not run by the mode";
    else if (attempts == 0) {
      const std::string& op = r.rule->lhs.root().op_info->name;
      const bool any = std::any_of(provenance.nodes().begin(), provenance.nodes().end(),
                                   [&](const NodeHistory& h) { return h.op == op; });
      why = any ? fmt::format(
                      "never tried: each `{}` node was rewritten first by a rule tried "
                      "before it (see --why-not)",
                      op)
                : fmt::format("never tried: the graph has no `{}` node", op);
    } else
      why = fmt::format("tried {} time{}, never matched", attempts, attempts == 1 ? "" : "s");
    s.never_fired.push_back({r.rule->name, r.group, std::move(why)});
  }
  return s;
}

std::string format_profile(const ProfileSummary& s, bool times) {
  // Columns as wide as their longest entry (at least the usual 28 and 16).
  std::size_t name_w = 28, pass_w = 16;
  for (const ProfileRow& row : s.rows) {
    name_w = std::max(name_w, row.stats.name.size() + (row.is_rule ? 0 : 2));
    pass_w = std::max(pass_w, row.pass.size());
  }
  std::string out =
      fmt::format("{:<{}} {:<{}} {:>7} {:>7} {:>6} {:>7} {:>7} {:>7} {:>9}\n", "rewriter", name_w,
                  "pass", pass_w, "tried", "applied", "no-op", "refused", "created", "removed",
                  "time_ms");
  for (const ProfileRow& row : s.rows) {
    const RewriterStats& st = row.stats;
    const std::string t = times ? fmt::format("{:.3f}", st.seconds * 1e3) : "-";
    out += fmt::format("{:<{}} {:<{}} {:>7} {:>7} {:>6} {:>7} {:>7} {:>7} {:>9}\n",
                       st.name + (row.is_rule ? "" : " *"), name_w, row.pass, pass_w, st.attempts,
                       st.applied, st.no_change, st.refused, st.nodes_created, st.nodes_removed, t);
  }
  out += "(* not a rule of the loaded rule files)\n";
  if (s.never_fired.empty()) {
    out += "every rule fired\n";
  } else {
    out += fmt::format("rules that never fired ({}):\n", s.never_fired.size());
    for (const SilentRule& r : s.never_fired)
      out += fmt::format("  {} ({}): {}\n", r.name, r.group, r.why);
  }
  return out;
}

Json profile_json(const ProfileSummary& s, bool times) {
  Json rewriters = Json::array();
  for (const ProfileRow& row : s.rows) {
    const RewriterStats& st = row.stats;
    rewriters.push_back({{"name", st.name},
                         {"pass", row.pass},
                         {"rule", row.is_rule},
                         {"tried", st.attempts},
                         {"applied", st.applied},
                         {"no_change", st.no_change},
                         {"refused", st.refused},
                         {"errors", st.errors},
                         {"created", st.nodes_created},
                         {"removed", st.nodes_removed},
                         {"time_ms", times ? Json(st.seconds * 1e3) : Json(nullptr)}});
  }
  Json never_fired = Json::array();
  for (const SilentRule& r : s.never_fired)
    never_fired.push_back({{"rule", r.name}, {"group", r.group}, {"why", r.why}});
  return {{"rewriters", std::move(rewriters)}, {"never_fired", std::move(never_fired)}};
}

}  // namespace rw::check

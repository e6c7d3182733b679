// --profile: per rule (and every other rewriter) of a run, attempts,
// applications, nodes created and removed and time, from a RewriteProfile;
// and the loaded rules that never fired.
#pragma once

#include <string>
#include <vector>

#include "engine/rewrite/profile.hpp"
#include "tools/rwcheck/json.hpp"
#include "tools/rwcheck/provenance.hpp"
#include "tools/rwcheck/rule_sources.hpp"

namespace rw::check {

/// One row: a rewriter within the pass it ran in.
struct ProfileRow {
  std::string pass;
  RewriterStats stats;
  /// True for a rule of the loaded rule set.
  bool is_rule = false;
};

/// A loaded rule that made no replacement, and why in one phrase
/// ("tried 3 times", "never tried: no node of `log`", "not run by the mode").
struct SilentRule {
  std::string name;
  std::string group;
  std::string why;
};

/// The rows of a profiled run and its silent rules.
struct ProfileSummary {
  std::vector<ProfileRow> rows;
  std::vector<SilentRule> never_fired;
};

/// Summarises `profile` for the rules of `rules`; `selected` lists the
/// names the mode's pipeline runs (RewriteDB::selected_names); `provenance`,
/// which watched the same run, says whether a rule that was never tried had
/// nodes of its op to try.
ProfileSummary summarize_profile(const RewriteProfile& profile, const RuleSet& rules,
                                 const std::vector<std::string>& selected,
                                 const Provenance& provenance);

/// The summary as a table; with `times` false, time columns print `-`.
std::string format_profile(const ProfileSummary& summary, bool times);

/// The summary as JSON; with `times` false, times are null.
Json profile_json(const ProfileSummary& summary, bool times);

}  // namespace rw::check

// Placing compiled rules in the groups of a rewrite database, all or nothing.
#include "engine/dsl/rule_registration.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"

namespace rw::dsl {

std::string CompiledRule::pattern() const { return rule->lhs.to_string(rule->vars); }

std::optional<std::string> CompiledRule::why_not(const FunctionGraph& fgraph,
                                                 const Apply& node) const {
  return rewriter->why_not(fgraph, node);
}

LoadedRules::LoadedRules(std::shared_ptr<const RuleModule> module, std::vector<CompiledRule> rules)
    : module_(std::move(module)), rules_(std::move(rules)) {
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    by_name_.emplace(rules_[i].rule->name, i);
    if (!rules_[i].group.empty()) ++per_group_[rules_[i].group];
  }
}

const CompiledRule* LoadedRules::find(std::string_view name) const {
  const auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : &rules_[it->second];
}

std::vector<std::string> LoadedRules::names() const {
  std::vector<std::string> out;
  out.reserve(rules_.size());
  for (const CompiledRule& r : rules_) out.push_back(r.rule->name);
  return out;
}

namespace {

void collect_groups(RewriteDB& db, std::map<std::string, EquilibriumDB*>& out) {
  if (auto* eq = dynamic_cast<EquilibriumDB*>(&db)) out.try_emplace(db.name(), eq);
  for (const RewriteDB::Entry& e : db.entries())
    if (const auto* sub = std::get_if<std::shared_ptr<RewriteDB>>(&e.item)) collect_groups(**sub, out);
}

std::map<std::string, EquilibriumDB*> groups_of(RewriteDB& db) {
  std::map<std::string, EquilibriumDB*> out;
  collect_groups(db, out);
  return out;
}

std::string quoted_list(const std::vector<std::string>& names, std::string_view last_sep) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i) out += i + 1 == names.size() ? last_sep : ", ";
    out += "`" + names[i] + "`";
  }
  return out;
}

/// The tags a rule gets for the value assumptions its guard states:
/// `assumes` (which strict modes exclude) and `assumes_NAME` for each.
std::vector<std::string> assumption_tags(const CheckedRule& r) {
  std::vector<std::string> tags;
  if (!r.guard) return tags;
  const std::vector<std::string> names = r.guard->assumptions();
  if (names.empty()) return tags;
  tags.emplace_back(kAssumptionTag);
  for (const std::string& n : names) tags.push_back(std::string(kAssumptionTag) + "_" + n);
  return tags;
}

std::vector<std::string> groups_in(const std::vector<std::string>& tags,
                                   const std::map<std::string, EquilibriumDB*>& groups) {
  std::vector<std::string> out;
  for (const std::string& t : tags)
    if (groups.contains(t)) out.push_back(t);
  return out;
}

// Whether the ruleset was declared by a header (the implicit ruleset of the
// rules before the first header is named after the file).
bool has_header(const RuleSetInfo& set) {
  return set.file && set.file->slice(set.span).starts_with("ruleset");
}

}  // namespace

std::vector<std::string> rule_groups(const RewriteDB& db) {
  std::vector<std::string> out;
  std::vector<const RewriteDB*> pending{&db};
  while (!pending.empty()) {
    const RewriteDB* d = pending.back();
    pending.pop_back();
    if (dynamic_cast<const EquilibriumDB*>(d)) out.push_back(d->name());
    for (const RewriteDB::Entry& e : d->entries())
      if (const auto* sub = std::get_if<std::shared_ptr<RewriteDB>>(&e.item)) pending.push_back(sub->get());
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

LoadResult<LoadedRules> register_rules(RewriteDB& db, RuleModule module_in, const OpRegistry& ops) {
  auto module = std::make_shared<const RuleModule>(std::move(module_in));
  LoadResult<LoadedRules> out;
  const std::map<std::string, EquilibriumDB*> groups = groups_of(db);
  std::vector<std::string> group_names;
  for (const auto& [name, g] : groups) group_names.push_back(name);
  const std::string known =
      group_names.empty() ? std::string("`") + db.name() + "` has no equilibrium group"
                          : "the groups of `" + db.name() + "` are " + quoted_list(group_names, " and ");

  // Place each rule.
  std::vector<std::string> placed(module->rules.size());
  std::vector<std::string> reported_sets;
  for (std::size_t i = 0; i < module->rules.size(); ++i) {
    const CheckedRule& r = module->rules[i];
    const RuleSetInfo* set = module->find_ruleset(r.ruleset);
    const std::vector<std::string> set_tags = set ? set->tags : std::vector<std::string>{};
    const bool at_header = set && has_header(*set);
    std::vector<std::string> own;
    for (const std::string& t : r.tags)
      if (std::find(set_tags.begin(), set_tags.end(), t) == set_tags.end()) own.push_back(t);
    const std::vector<std::string> set_groups = groups_in(set_tags, groups);
    const std::vector<std::string> own_groups = groups_in(own, groups);
    if (own_groups.empty()) {
      if (set_groups.size() == 1) {
        placed[i] = set_groups[0];
        continue;
      }
      if (std::find(reported_sets.begin(), reported_sets.end(), r.ruleset) != reported_sets.end())
        continue;
      reported_sets.push_back(r.ruleset);
      std::string message;
      if (set_groups.empty())
        message = at_header
                      ? fmt::format("ruleset `{}` names no rewrite group; one of its tags must name "
                                    "one ({})",
                                    r.ruleset, known)
                      : fmt::format("rules before the first `ruleset` header belong to ruleset "
                                    "`{}`, which names no rewrite group; start the file with a "
                                    "header such as `ruleset {} tags(canonicalize, fast_run)` ({})",
                                    r.ruleset, r.ruleset, known);
      else
        message = fmt::format("ruleset `{}` names {} rewrite groups, {}; its rules can belong to "
                              "one only",
                              r.ruleset, set_groups.size(), quoted_list(set_groups, " and "));
      out.diagnostics.push_back(make_error(at_header ? set->file : r.file,
                                           at_header ? set->span : r.name_span, std::move(message)));
      continue;
    }
    std::vector<std::string> all = set_groups;
    for (const std::string& g : own_groups)
      if (std::find(all.begin(), all.end(), g) == all.end()) all.push_back(g);
    if (all.size() == 1) {
      placed[i] = all[0];
      continue;
    }
    std::string message =
        set_groups.empty()
            ? fmt::format("rule `{}` names {} rewrite groups, {}; a rule belongs to one only",
                          r.name, own_groups.size(), quoted_list(own_groups, " and "))
            : fmt::format("rule `{}` names the rewrite group {}, but its ruleset `{}` places it in "
                          "{}; a rule belongs to one group only",
                          r.name, quoted_list(own_groups, " and "), r.ruleset,
                          quoted_list(set_groups, " and "));
    out.diagnostics.push_back(make_error(r.file, r.name_span, std::move(message)));
  }
  if (!out.diagnostics.empty()) return out;

  // Compile, then register all or nothing.
  const Theory theory = theory_of(*module);
  std::vector<CompiledRule> compiled;
  compiled.reserve(module->rules.size());
  RegistrationBatch batch;
  for (std::size_t i = 0; i < module->rules.size(); ++i) {
    const CheckedRule& r = module->rules[i];
    CompiledRule c;
    c.rule = &r;
    c.rewriter = compile_rule(r, theory, ops);
    c.group = placed[i];
    for (const std::string& t : r.tags)
      if (t != c.group) c.tags.push_back(t);
    for (const std::string& t : assumption_tags(r)) c.tags.push_back(t);
    batch.add(*groups.at(c.group), c.rewriter, c.tags);
    compiled.push_back(std::move(c));
  }
  for (const RegistrationBatch::Refusal& refusal : batch.commit()) {
    const CheckedRule& r = *compiled[refusal.index].rule;
    out.diagnostics.push_back(make_error(
        r.file, r.name_span, fmt::format("cannot register rule `{}`: {}", r.name, refusal.message)));
  }
  if (!out.diagnostics.empty()) return out;
  out.value.emplace(std::move(module), std::move(compiled));
  return out;
}

namespace {

LoadResult<LoadedRules> then_register(RewriteDB& db, LoadResult<RuleModule> checked,
                                      const OpRegistry& ops) {
  if (!checked.ok()) {
    LoadResult<LoadedRules> out;
    out.diagnostics = std::move(checked.diagnostics);
    return out;
  }
  return register_rules(db, std::move(*checked.value), ops);
}

}  // namespace

LoadResult<LoadedRules> check_rules_into(RewriteDB& db, std::string_view path,
                                         const OpRegistry& ops,
                                         const PredicateRegistry& predicates,
                                         const RuleLoadOptions& options) {
  return then_register(db, check_rules(path, ops, predicates, options), ops);
}

LoadResult<LoadedRules> check_rules_text_into(RewriteDB& db, std::string name, std::string text,
                                              const OpRegistry& ops,
                                              const PredicateRegistry& predicates,
                                              const RuleLoadOptions& options) {
  return then_register(
      db, check_rules_text(std::move(name), std::move(text), ops, predicates, options), ops);
}

LoadedRules load_rules_into(RewriteDB& db, std::string_view path, const OpRegistry& ops,
                            const PredicateRegistry& predicates, const RuleLoadOptions& options) {
  return check_rules_into(db, path, ops, predicates, options).take();
}

LoadedRules load_rules_text_into(RewriteDB& db, std::string name, std::string text,
                                 const OpRegistry& ops, const PredicateRegistry& predicates,
                                 const RuleLoadOptions& options) {
  return check_rules_text_into(db, std::move(name), std::move(text), ops, predicates, options)
      .take();
}

}  // namespace rw::dsl

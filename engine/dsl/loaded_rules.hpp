// What a load of rules registered: the checked module, and each rule
// compiled into the rewriter that was registered, found again by name.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/dsl/rule.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"

namespace rw::dsl {

/// One rule of a load, compiled and registered.
struct CompiledRule {
  /// The checked rule (owned by the LoadedRules it came from).
  const CheckedRule* rule = nullptr;
  /// Its rewriter, as registered.
  std::shared_ptr<const PatternNodeRewriter> rewriter;
  /// The equilibrium group it was registered in (`canonicalize`).
  std::string group;
  /// Its other tags (`fast_run`, …): the tags of its entry in the group,
  /// besides the group's own name.
  std::vector<std::string> tags;

  /// The left side, printed canonically: `(x * y) / y`.
  std::string pattern() const;
  /// Why the rule does not rewrite `node` — the first subpattern or guard
  /// that failed, an inner node with other uses, or why the right side
  /// cannot be built — or nullopt when it does (`rwcheck --why-not`).
  std::optional<std::string> why_not(const FunctionGraph& fgraph, const Apply& node) const;
};

/// What one load registered: the checked module and its rules, compiled.
class LoadedRules {
 public:
  /// Rules compiled from `module`, in its order (used by register_rules).
  LoadedRules(std::shared_ptr<const RuleModule> module, std::vector<CompiledRule> rules);

  /// The checked module: files, rulesets, declarations, rules.
  const RuleModule& module() const { return *module_; }
  /// Every rule, in load order.
  const std::vector<CompiledRule>& rules() const { return rules_; }
  /// Number of rules.
  std::size_t size() const { return rules_.size(); }
  /// The rule called `name`, or null.
  const CompiledRule* find(std::string_view name) const;
  /// The rules' names, in load order.
  std::vector<std::string> names() const;
  /// How many rules went into each group, by group name.
  const std::map<std::string, std::size_t>& per_group() const { return per_group_; }

 private:
  std::shared_ptr<const RuleModule> module_;
  std::vector<CompiledRule> rules_;
  std::unordered_map<std::string_view, std::size_t> by_name_;
  std::map<std::string, std::size_t> per_group_;
};

}  // namespace rw::dsl

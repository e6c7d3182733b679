// Loading rules into a rewrite database: compile every rule of a checked
// module and register it in the equilibrium group its tags name — the whole
// file or nothing — and find the compiled rules again by name.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"
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

/// The names of the groups rules can be registered in: `db` itself when it is
/// an EquilibriumDB, and every EquilibriumDB inside it, at any depth (the
/// first of a name, depth first, when names repeat). Sorted.
std::vector<std::string> rule_groups(const RewriteDB& db);

/// Compiles every rule of `module` (rule_compiler.hpp) and registers it in
/// `db`: of a rule's tags (its ruleset's and its own), exactly one must name
/// a group of `db` (`canonicalize`, `stabilize`, `specialize`, or any other
/// equilibrium group it has) — the rule goes there, its other tags become the
/// tags of its entry (the group's name is added by the group). A ruleset
/// whose tags name no group, or several, is an error at its header; a rule
/// whose own tags name a second group, an error at the rule.
///
/// All or nothing: when any rule cannot be registered (its name is taken in
/// its group, or collides with a tag there) every error is reported at its
/// rule and `db` is left exactly as it was. `ops` must outlive the rules'
/// use (it builds right-side ops at rewrite time).
LoadResult<LoadedRules> register_rules(RewriteDB& db, RuleModule module, const OpRegistry& ops);

/// Loads the rule file `path` (check_rules) and registers its rules in `db`
/// (register_rules): every diagnostic of both steps, and nothing loaded or
/// registered when there is any.
LoadResult<LoadedRules> check_rules_into(RewriteDB& db, std::string_view path,
                                         const OpRegistry& ops,
                                         const PredicateRegistry& predicates,
                                         const RuleLoadOptions& options = {});
/// The same for rule text not read from a file (`name` is what diagnostics
/// call it).
LoadResult<LoadedRules> check_rules_text_into(RewriteDB& db, std::string name, std::string text,
                                              const OpRegistry& ops,
                                              const PredicateRegistry& predicates,
                                              const RuleLoadOptions& options = {});

/// `check_rules_into(...).take()`: what was registered, or LoadError with
/// every diagnostic (and `db` unchanged).
LoadedRules load_rules_into(RewriteDB& db, std::string_view path, const OpRegistry& ops,
                            const PredicateRegistry& predicates,
                            const RuleLoadOptions& options = {});
/// `check_rules_text_into(...).take()`.
LoadedRules load_rules_text_into(RewriteDB& db, std::string name, std::string text,
                                 const OpRegistry& ops, const PredicateRegistry& predicates,
                                 const RuleLoadOptions& options = {});

}  // namespace rw::dsl

// Loading rules into a rewrite database: compile every rule of a checked
// module and register it in the equilibrium group its tags name — the whole
// file or nothing. Programs load rules through <rw/rules.hpp>; these are the
// steps it is made of, for tools and tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/loaded_rules.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"

namespace rw::dsl {

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

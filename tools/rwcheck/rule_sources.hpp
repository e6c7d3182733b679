// Where rwcheck's rules come from: --rules paths (a directory means every
// *.rules in it, sorted) or the environment's built-in rules, each file
// loaded into one rewrite database.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "engine/rewrite/database.hpp"
#include "tools/rwcheck/environment.hpp"

namespace rw::check {

/// The rule files named by `paths`, in order: a file as given, a directory
/// as its `*.rules` files sorted by name (not recursive). Throws CliError for
/// a directory that cannot be read or holds no rule files; a file that does
/// not exist is left for the loader to report.
std::vector<std::string> rule_files(const std::vector<std::string>& paths);

/// One compiled rule of a rule set, and the load it came from.
struct RuleRef {
  const dsl::CompiledRule* rule = nullptr;
  /// The name of the file (or built-in rule text) it was loaded from.
  std::string source;
};

/// Rules loaded into a database: each file a separate load (its own
/// declarations; rule names must still be unique within each group).
struct RuleSet {
  /// The database holding them.
  std::shared_ptr<SequenceDB> db;
  /// One per file, in order.
  std::vector<dsl::LoadedRules> loads;
  /// The names loaded from (files, or built-in names).
  std::vector<std::string> sources;

  /// Every rule, in load order.
  std::vector<RuleRef> rules() const;
  /// The rule called `name`, or null.
  const dsl::CompiledRule* find(std::string_view name) const;
};

/// What loading produced: the rule set, and every diagnostic of the files
/// that failed (those load nothing; the others are loaded).
struct RuleSetLoad {
  RuleSet set;
  std::vector<dsl::Diagnostic> diagnostics;
};

/// Loads the environment's built-in rules (with `use_builtin`), then
/// `files`, into a fresh database of `env`.
RuleSetLoad load_rule_set(const CheckEnvironment& env, const std::vector<std::string>& files,
                          bool use_builtin);

}  // namespace rw::check

// <rw/rules.hpp>: loading rules. One way in: a rule file or rule text, with
// its imports, checked, compiled and registered in a rewrite database, with
// the program's own guard predicates; and the standard rule library. It
// includes what loading needs, not the graph-building API: a program that
// also builds and compiles graphs includes <rw/rw.hpp> too.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/loaded_rules.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"
#include "rules/embedded.hpp"
#include "rw/standard_rules.hpp"

namespace rw {

/// Where rules come from: a file on disk, or text a program holds.
struct RuleSource {
  /// The rule file `path`; its imports are looked for beside it, then in
  /// RuleOptions::search_paths.
  static RuleSource file(std::filesystem::path path);
  /// Rule text; `name` is what diagnostics call it (`inline.rules:3:7:
  /// error: …`), and its imports are resolved relative to it.
  static RuleSource text(std::string name, std::string text);

  /// The file's path, or the text's name.
  std::string name;
  /// The text; nullopt for a file, which is read when the rules load.
  std::optional<std::string> contents;
};

/// How rules are loaded; every field has a default.
struct RuleOptions {
  /// Resolves the Op names of the rules; standard_registry() when null. It
  /// builds right sides at rewrite time, so it must outlive the rules' use.
  const OpRegistry* ops = nullptr;
  /// The guard predicates the rules may call: the built-ins and the
  /// program's own (PredicateRegistry::add); the built-ins when null.
  const dsl::PredicateRegistry* predicates = nullptr;
  /// Folders to look for imports in, after the importing file's folder
  /// (`{*rw::standard_rules_dir()}` to import the installed standard files).
  std::vector<std::filesystem::path> search_paths;
};

/// Loads the rules of `source` and what it imports, checks them, compiles
/// each into a pattern rewriter and registers it in `db`, in the
/// equilibrium group its tags name (docs/rules-language.md). All or nothing:
/// with any error in any file, the result holds every diagnostic and no
/// value, and `db` is exactly as it was; `.take()` throws dsl::LoadError
/// with them instead.
dsl::LoadResult<dsl::LoadedRules> load_rules(RewriteDB& db, const RuleSource& source,
                                             const RuleOptions& options = {});

}  // namespace rw

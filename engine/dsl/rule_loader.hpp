// Loading rule files: parse, follow imports, check, and produce a RuleModule,
// or every error of every file and nothing else.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/dsl/rule.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw::dsl {

/// Where a load finds its files.
struct RuleLoadOptions {
  /// Finds the root file and the imports; when null, files on disk, imports
  /// looked up beside the importing file and then in `search_paths`.
  std::shared_ptr<const SourceResolver> resolver;
  std::vector<std::filesystem::path> search_paths;
};

/// Loads the rule file `path` and everything it imports, checking each rule
/// against the Ops of `ops` and the predicates of `predicates`. With any
/// error in any file, the result holds no module. The module points into
/// `ops` (OpInfo entries), which must outlive it.
LoadResult<RuleModule> check_rules(std::string_view path, const OpRegistry& ops,
                                   const PredicateRegistry& predicates,
                                   const RuleLoadOptions& options = {});
/// The same for rule text that is not read from a file; `name` is what
/// diagnostics call it, and its imports are resolved relative to it.
LoadResult<RuleModule> check_rules_text(std::string name, std::string text, const OpRegistry& ops,
                                        const PredicateRegistry& predicates,
                                        const RuleLoadOptions& options = {});

/// `check_rules(...).take()`: the module, or LoadError with every diagnostic.
RuleModule load_rules(std::string_view path, const OpRegistry& ops,
                      const PredicateRegistry& predicates, const RuleLoadOptions& options = {});
/// `check_rules_text(...).take()`.
RuleModule load_rules_text(std::string name, std::string text, const OpRegistry& ops,
                           const PredicateRegistry& predicates,
                           const RuleLoadOptions& options = {});

}  // namespace rw::dsl

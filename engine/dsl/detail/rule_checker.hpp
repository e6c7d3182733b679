// RuleChecker: turns the parsed statements of rule files into checked rules,
// rulesets and declarations, reporting every fault it finds.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw::dsl::detail {

/// Checks files one after another into one module; names (rules, rulesets,
/// declarations) are shared across the files of one load.
class RuleChecker {
 public:
  /// Checks into `module`, reporting to `out`.
  RuleChecker(const OpRegistry& ops, const PredicateRegistry& predicates, RuleModule& module,
              std::vector<Diagnostic>& out)
      : ops_(ops), predicates_(predicates), module_(module), out_(out) {}

  /// Checks every statement of `file` but its imports, which the loader
  /// follows. `syntax_errors` is how many the parser reported; checking stops
  /// once the file has kMaxErrorsPerFile errors.
  void check_file(const ParsedFile& file, std::size_t syntax_errors);

 private:
  struct Location {
    SourcePtr file;
    Span span;
  };

  void check_statement(const ParsedFile& f, const ast::Statement& s, std::string& ruleset);
  void check_ruleset(const ParsedFile& f, const ast::RulesetDecl& s, std::string& current);
  void check_rule(const ParsedFile& f, const ast::RuleDecl& s, const std::string& ruleset);
  void check_declare(const ParsedFile& f, const ast::Declare& s);
  void error(const SourcePtr& file, Span span, std::string message);

  const OpRegistry& ops_;
  const PredicateRegistry& predicates_;
  RuleModule& module_;
  std::vector<Diagnostic>& out_;
  std::unordered_map<std::string, Location> rule_names_;
};

}  // namespace rw::dsl::detail

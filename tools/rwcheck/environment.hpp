// CheckEnvironment: the one seam through which rwcheck gets its Op registry,
// its guard predicates, the rewrite database its rules go into and the rules
// it loads when no --rules is given.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/dsl/predicates.hpp"
#include "engine/dsl/resolver.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"

namespace rw::check {

/// A rule file that ships inside the program (the standard rule library).
struct BuiltinRules {
  /// What diagnostics and reports call it (`stabilize.rules`).
  std::string name;
  /// Its text.
  std::string text;
};

/// What rwcheck runs against. The executable fills it from the umbrella's
/// standard library; tests give the test Op family and their own rules.
struct CheckEnvironment {
  /// Resolves the ops of rule and graph files; must outlive every run.
  const OpRegistry* ops = nullptr;
  /// The predicates guards may call (the language's built-ins by default).
  dsl::PredicateRegistry predicates;
  /// A fresh rewrite database for one run, into which the rules are loaded
  /// (`make_standard_db` by default).
  std::function<std::shared_ptr<SequenceDB>()> make_db;
  /// The rules loaded when no `--rules` is given, in order.
  std::vector<BuiltinRules> builtin_rules;
  /// Resolves the imports of the built-in rules (a MemoryResolver holding
  /// the library's files); null: imports are looked up on disk.
  std::shared_ptr<const dsl::SourceResolver> builtin_resolver;
};

/// An environment over `ops` with the built-in predicates, the standard
/// database and no built-in rules.
CheckEnvironment make_environment(const OpRegistry& ops);

}  // namespace rw::check

// CheckEnvironment: the one seam through which rwcheck gets its Op registry,
// its guard predicates, the rewrite database its rules go into and the rules
// it loads when no --rules is given.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"

namespace rw::check {

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
  /// Loads the built-in rules (used when no `--rules` is given) into a
  /// database: `rw::load_standard_rules_into` once the standard rule library
  /// is merged. Null: there are none.
  std::function<dsl::LoadResult<dsl::LoadedRules>(RewriteDB&, const OpRegistry&,
                                                  const dsl::PredicateRegistry&)>
      load_builtin;
  /// What reports call the built-in rules.
  std::string builtin_name = "the built-in rules";
  /// How graph files are loaded: `def` blocks become OpFromGraph.
  dsl::GraphFileOptions graph_options;
  /// Reads all of standard input (the graph `-`), at most 1 GiB; nullopt
  /// with `why_not` set when it cannot. Reads `/dev/stdin` by default.
  std::function<std::optional<std::string>(std::string& why_not)> read_stdin;
  /// Colour standard output, standard error (style.hpp: the executable sets
  /// them for a terminal without NO_COLOR); JSON is never coloured.
  bool color_out = false;
  bool color_err = false;
  /// The Graphviz program `--html` runs to draw SVG (`-Tsvg`), found on
  /// `$PATH` unless it names a path; when it is not there, the page shows the
  /// DOT text instead, and rwcheck warns.
  std::string graphviz = "dot";
  /// False when the locale is not UTF-8: text is printed in ASCII (`|-` for
  /// `├─`, `...` for `…`); JSON stays UTF-8.
  bool utf8 = true;
};

/// An environment over `ops` with the built-in predicates, the standard
/// database (`make_standard_db`, with the rewrite inlining OpFromGraph
/// nodes that ask for it), graph files whose `def`s are OpFromGraph
/// (`rw::graph_file_options`) and no built-in rules.
CheckEnvironment make_environment(const OpRegistry& ops);

}  // namespace rw::check

// The standard rule library (rules/*.rules) loaded into a database, and
// databases and modes to add rules to (rw/default_mode.hpp has the standard
// database and the default mode themselves).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <span>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/loaded_rules.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "rw/default_mode.hpp"

namespace rw {

/// What diagnostics call the root of a load of the standard rule library;
/// each file of it is `rules/<file>.rules`, imported from this root.
inline constexpr const char* kStandardRulesRoot = "<standard rule library>";

/// Checks, compiles and registers every embedded rule file in `db`, in one
/// load: all of them or, with any diagnostic (`rules/stabilize.rules:3:7:
/// error: …`), none. `ops` must outlive the rules' use; it normally is
/// standard_registry().
dsl::LoadResult<dsl::LoadedRules> load_standard_rules_into(
    RewriteDB& db, const OpRegistry& ops, const dsl::PredicateRegistry& predicates);

/// A new, mutable database holding what standard_db() holds (the embedded
/// rule library, the C++ rewriters, fusion, GEMM, in place), to add rules
/// or rewriters to before building a mode over it:
///
///     auto db = rw::make_default_db();
///     rw::load_rules(*db, rw::RuleSource::file("mine.rules")).take();
///     rw::Mode mode = rw::Mode::fast_run(db);
///
/// Each call loads the rule library anew (a few milliseconds).
std::shared_ptr<SequenceDB> make_default_db();

/// default_mode() over make_default_db() with the rule files `files` loaded
/// after the standard rules, each on its own, in order: "the default
/// pipeline plus my rules" in one call,
/// `rw::function({x}, {y}, {}, rw::default_mode_with_rules("mine.rules"))`.
/// A file with any error loads nothing, and neither does the call: it throws
/// dsl::LoadError with every diagnostic (`mine.rules:3:7: error: …`).
Mode default_mode_with_rules(std::span<const std::filesystem::path> files);
Mode default_mode_with_rules(const std::filesystem::path& file);

/// The installed files of the standard rule library (`cmake --install` puts
/// them in `<prefix>/share/rwgraph/rules`), to read, lint or start from; the
/// library itself loads its embedded copy and never reads them. Looked for,
/// in order: `$RWGRAPH_RULES_DIR`; `../share/rwgraph/rules` from the running
/// program's folder (an installed `bin/rwcheck`); the folder the build was
/// configured to install them to. Nullopt when none holds `*.rules` files.
std::optional<std::filesystem::path> standard_rules_dir();

/// The rules standard_db() holds: names, groups, patterns, `why_not`.
const dsl::LoadedRules& standard_rules();

}  // namespace rw

// The standard rewrite database — make_standard_db() with the embedded rule
// library (rules/*.rules) registered — and the default mode over it.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"

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

/// The standard rewrite database: make_standard_db() with the embedded rule
/// library loaded over standard_registry(), the inlining of OpFromGraph
/// nodes marked `inline_graph` (canonicalize), elementwise fusion, GEMM
/// formation and the in-place pass (register_fast_run_rewrites). Built once, on first use (safe
/// from any thread), and never changed afterwards; throws dsl::LoadError if
/// the embedded library does not load, which its tests rule out.
std::shared_ptr<const RewriteDB> standard_db();

/// The installed files of the standard rule library (`cmake --install` puts
/// them in `<prefix>/share/rwgraph/rules`), to read, lint or start from; the
/// library itself loads its embedded copy and never reads them. Looked for,
/// in order: `$RWGRAPH_RULES_DIR`; `../share/rwgraph/rules` from the running
/// program's folder (an installed `bin/rwcheck`); the folder the build was
/// configured to install them to. Nullopt when none holds `*.rules` files.
std::optional<std::filesystem::path> standard_rules_dir();

/// The rules standard_db() holds: names, groups, patterns, `why_not`.
const dsl::LoadedRules& standard_rules();

/// The mode rw::function uses by default: Mode::fast_run(standard_db()).
/// Adjust it per call: `default_mode().excluding({"stabilize"})`.
Mode default_mode();

}  // namespace rw

// The standard rewrite database — make_standard_db() with the embedded rule
// library (rules/*.rules) registered — and the default mode over it, which
// rw::function uses.
#pragma once

#include <memory>

#include "engine/rewrite/mode.hpp"

namespace rw {

class RewriteDB;

/// The standard rewrite database: make_standard_db() with the embedded rule
/// library loaded over standard_registry(), the inlining of OpFromGraph
/// nodes marked `inline_graph` (canonicalize), elementwise fusion, GEMM
/// formation and the in-place pass (register_fast_run_rewrites). Built once, on first use (safe
/// from any thread), and never changed afterwards; throws dsl::LoadError if
/// the embedded library does not load, which its tests rule out.
std::shared_ptr<const RewriteDB> standard_db();

/// The mode rw::function uses by default: Mode::fast_run(standard_db()).
/// Adjust it per call: `default_mode().excluding({"stabilize"})`.
Mode default_mode();

}  // namespace rw

// rwcheck --debug-mode: the graph compiled in DebugMode with the chosen
// pipeline and called once on random arguments.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "engine/graph/variable.hpp"
#include "engine/rewrite/mode.hpp"

namespace rw::check {

/// What one DebugMode call found.
struct DebugRun {
  /// No finding: every node kept its Op's contract and the outputs equal
  /// the unrewritten graph's.
  bool ok = false;
  /// The arguments drawn (`x f64[3]`, one per input), for the report.
  std::string arguments;
  /// The DebugModeError's message, or why the graph could not be run.
  std::string finding;
};

/// Compiles `outputs` of `inputs` with `mode` in DebugMode (every check on,
/// the rewrite that changes a value named by bisection) and calls it once on
/// arguments drawn from `seed`: each unknown extent is 3, floats uniform in
/// [-2, 2), integers in [0, 4), bools either, generator states seeded.
DebugRun debug_run(std::span<const Var> inputs, std::span<const Var> outputs, const Mode& mode,
                   std::uint64_t seed);

}  // namespace rw::check

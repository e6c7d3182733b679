// bisect_rewrites: which replacement of a mode's pipeline first changed what
// a graph computes (the seed's FAQ, "I wrote a new rewrite, and it changed
// my results"; DebugMode's comparison with the unrewritten graph).
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "engine/graph/variable.hpp"
#include "engine/rewrite/mode.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// What bisect_rewrites found.
struct RewriteBisection {
  /// Whether the fully rewritten graph computes something else than the
  /// unrewritten one on the arguments given.
  bool differs = false;
  /// The changes the pipeline made in all (replacements and in-place Op changes).
  std::size_t changes = 0;
  /// When it differs: the first change after which the outputs differ
  /// (1-based), the pass and the rewriter (rule) that made it, and the change
  /// as rwcheck --trace prints it (`replaced x * 2 by x + x  [wrong]`).
  /// first_bad is 0 when the outputs differ only after the last change the
  /// trace reports (a pass that changed the graph without an event).
  std::size_t first_bad = 0;
  std::string pass;
  std::string rewriter;
  std::string change;
  /// The first output that differs after that change, and how: `output 0:
  /// element 1 is 3, not 2 (unrewritten)`, or another shape or dtype.
  std::string difference;

  /// One paragraph naming all of the above (or saying nothing changed).
  std::string to_string() const;
};

/// Compiles `outputs` of `inputs` without rewrites and with `mode`'s pipeline,
/// runs both on `args`, and when their outputs differ (beyond `tolerance`)
/// finds by bisection the first change of the pipeline after which they do:
/// the pipeline is run again, stopped after k changes, O(log changes) times.
/// It assumes the pipeline makes the same changes in the same order each run
/// (it does: its order depends on the graph only) and that a value once
/// wrong stays wrong. Throws what compiling or calling throws (TypeError for
/// arguments that do not fit the inputs).
RewriteBisection bisect_rewrites(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                                 std::span<const Tensor> args, const Mode& mode,
                                 Tolerance tolerance = {});

}  // namespace rw

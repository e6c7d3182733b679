// evaluate: runs a graph once by calling each node's perform, without
// compiling (the numeric gradient checker's evaluator).
#pragma once

#include <span>
#include <vector>

#include "engine/graph/variable.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The values of `outputs` when `inputs` hold `values`: each node between
/// them runs its perform, in topological order, with no rewrites. Constants
/// give their values. Throws Error when the counts differ, MissingInputError
/// naming a root variable that is neither an input nor a constant, and
/// whatever an Op's perform throws.
std::vector<Tensor> evaluate(std::span<const Var> inputs, std::span<const Var> outputs,
                             std::span<const Tensor> values);

}  // namespace rw

// A test Op family under PyTensor's names (add, true_div, dimshuffle, sum,
// dot, …) with simple, consistent typing, for loading rule and graph files
// before the standard Op library exists.
#pragma once

#include <cstdint>

#include "engine/graph/op_registry.hpp"

namespace rw::test {

/// How graph files encode dimshuffle's `x` (a new broadcastable axis) and
/// subtensor's `i` (an index taken from the next input) in integer tuples.
inline constexpr std::int64_t kPtNewAxis = -1;
inline constexpr std::int64_t kPtIndexInput = -2;

/// Registers, with NumPy broadcasting of static shapes and NumPy dtype
/// promotion:
///   unary, same dtype:  neg abs sqr
///   unary, float result: exp log log1p expm1 tanh sin cos sqrt sigmoid softplus
///   binary, promoted:   sub maximum minimum pow;  add mul (two or more inputs)
///   binary, float:      true_div (alias `div`)
///   binary, bool:       lt gt le ge eq neq
///   fill(a, b):         b broadcast to a's shape, b's dtype
///   dimshuffle{order}, sum{axis}, dot, shape, cast{dtype}, subtensor{index},
///   split2 (two outputs, no default output)
void register_pt_ops(OpRegistry& registry);

/// A registry holding only the ops above.
const OpRegistry& pt_registry();

}  // namespace rw::test

// Registration of the shape and structure family.
#pragma once

#include "engine/graph/op_registry.hpp"

namespace rw {

/// Registers dimshuffle, shape, shape_i, make_vector, specify_shape, reshape,
/// flatten, alloc, zeros_like, ones_like, join (alias concatenate), split,
/// stack, repeat, tile and roll.
void register_shape(OpRegistry& registry);

}  // namespace rw

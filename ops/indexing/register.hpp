// Registration of the indexing family.
#pragma once

#include "engine/graph/op_registry.hpp"

namespace rw {

/// Registers subtensor, inc_subtensor, set_subtensor, advanced_subtensor
/// (alias take), advanced_inc_subtensor and advanced_set_subtensor.
void register_indexing(OpRegistry& registry);

}  // namespace rw

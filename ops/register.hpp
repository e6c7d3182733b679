// register_standard_ops: every Op of the standard library in a registry.
#pragma once

#include "engine/graph/op_registry.hpp"

namespace rw {

/// Registers every standard Op family, by calling register_elemwise,
/// register_reduce, register_shape, register_indexing, register_linalg,
/// register_nnet, register_creation, register_cumulative, register_sort,
/// register_random and register_sparse, in that order. The compile layer's deep_copy and view are
/// not included (register_compile_ops; the umbrella's standard_registry()
/// holds both).
void register_standard_ops(OpRegistry& registry);

}  // namespace rw

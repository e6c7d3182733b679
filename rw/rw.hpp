// rwgraph: tensor computation graphs rewritten by declarative rules.
// The one header a program needs.
#pragma once

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/dtype.hpp"
#include "runtime/kernels/cumulative.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/indexing.hpp"
#include "runtime/kernels/linalg.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/kernels/softmax.hpp"
#include "runtime/rng.hpp"
#include "runtime/scalar_op.hpp"
#include "runtime/scalar_program.hpp"
#include "runtime/shape.hpp"
#include "runtime/tensor.hpp"
#include "runtime/thread_pool.hpp"

namespace rw {

/// The library version, "major.minor.patch".
const char* version();

}  // namespace rw

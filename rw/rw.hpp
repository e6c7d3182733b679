// <rw/rw.hpp>: what a program needs to build graphs, compile them into
// functions and call them — variables and Ops (ops/api.hpp), tensors and
// dtypes, gradients, shared variables, scan, random streams, modes, graph
// files and the errors all of these throw.
//
// The other public headers build on it (docs/architecture.md):
// <rw/rewrite.hpp> to write rewriters, <rw/rules.hpp> to load rules,
// <rw/kanren.hpp> for terms, unification and miniKanren.
#pragma once

#include "engine/compile/errors.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/jacobian.hpp"
#include "engine/compile/op_from_graph.hpp"
#include "engine/compile/profile.hpp"
#include "engine/compile/random_stream.hpp"
#include "engine/compile/scan.hpp"
#include "engine/compile/shared.hpp"
#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/graph_file.hpp"
#include "engine/grad/errors.hpp"
#include "engine/grad/evaluate.hpp"
#include "engine/grad/grad.hpp"
#include "engine/grad/gradient_ops.hpp"
#include "engine/grad/rop.hpp"
#include "engine/grad/verify_grad.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/as_op.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_params.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/random_type.hpp"
#include "engine/graph/sparse_type.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "engine/rewrite/mode.hpp"
#include "ops/api.hpp"
#include "ops/errors.hpp"
#include "ops/random/random.hpp"
#include "ops/sparse/sparse.hpp"
#include "runtime/dtype.hpp"
#include "runtime/rng.hpp"
#include "runtime/shape.hpp"
#include "runtime/sparse.hpp"
#include "runtime/tensor.hpp"
#include "runtime/thread_pool.hpp"
#include "rw/default_mode.hpp"
#include "rw/function.hpp"
#include "rw/graph_files.hpp"
#include "rw/registry.hpp"
#include "rw/scan.hpp"
#include "support/error.hpp"

namespace rw {

/// The library version, "major.minor.patch".
const char* version();

}  // namespace rw

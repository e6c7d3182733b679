// rwgraph: tensor computation graphs rewritten by declarative rules.
// The one header a program needs.
#pragma once

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/errors.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/profile.hpp"
#include "engine/compile/shared.hpp"
#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/dsl/rule.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/sequence.hpp"
#include "engine/rewrite/shape_feature.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/substitution.hpp"
#include "engine/rewrite/trace.hpp"
#include "engine/rewrite/walking.hpp"
#include "runtime/dtype.hpp"
#include "runtime/tensor.hpp"
#include "rw/function.hpp"

namespace rw {

/// The library version, "major.minor.patch".
const char* version();

}  // namespace rw

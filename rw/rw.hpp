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
#include "engine/unify/goal.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/intern.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/reify_graph.hpp"
#include "engine/unify/relation_rewrite.hpp"
#include "engine/unify/relations.hpp"
#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"
#include "engine/unify/theory.hpp"
#include "engine/unify/unify.hpp"
#include "runtime/dtype.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The library version, "major.minor.patch".
const char* version();

}  // namespace rw

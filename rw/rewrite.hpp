// <rw/rewrite.hpp>: writing rewriters — node and graph rewriters, pattern
// and relation rewriters, the rewrite database and its queries, the drivers
// (equilibrium, walking, sequences, merge), substitution, the FunctionGraph
// features rewriters use (history, node finder, shape feature, destroy
// handler), tracing and profiling, and the rewriting Ops and passes of the
// standard library. Everything of <rw/rw.hpp> too.
#pragma once

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/scan_rewrites.hpp"
#include "engine/graph/feature.hpp"
#include "engine/graph/history.hpp"
#include "engine/graph/impl_registry.hpp"
#include "engine/graph/native_code.hpp"
#include "engine/graph/node_finder.hpp"
#include "engine/rewrite/constant_folding.hpp"
#include "engine/rewrite/context.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/destroy_handler.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/merge.hpp"
#include "engine/rewrite/node_filter.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"
#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/query.hpp"
#include "engine/rewrite/relation_rewriter.hpp"
#include "engine/rewrite/rewrite_result.hpp"
#include "engine/rewrite/sequence.hpp"
#include "engine/rewrite/shape_feature.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/substitution.hpp"
#include "engine/rewrite/trace.hpp"
#include "engine/rewrite/walking.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/fusion.hpp"
#include "ops/inplace.hpp"
#include "ops/random/random_rewrites.hpp"
#include "ops/register.hpp"
#include "rw/bisect.hpp"
#include "rw/rw.hpp"

// <rw/kanren.hpp>: terms (graph nodes among them, read lazily as
// `op(inputs…)`), substitutions, unification with theories, matching, and
// miniKanren — goals, streams of answers, run, clause tables, the relations
// library and the relation-driven rewrite. It needs nothing of <rw/rw.hpp>;
// RelationNodeRewriter, which makes a relation a node rewriter, is in
// <rw/rewrite.hpp>.
#pragma once

#include "engine/kanren/clauses.hpp"
#include "engine/kanren/goal.hpp"
#include "engine/kanren/relation_rewrite.hpp"
#include "engine/kanren/relations.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/intern.hpp"
#include "engine/unify/match.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/read.hpp"
#include "engine/unify/reify_graph.hpp"
#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"
#include "engine/unify/theory.hpp"
#include "engine/unify/unify.hpp"

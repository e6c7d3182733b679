// Reifying a term into graph nodes: every application is built through its
// Op's make_node, so a rewrite's result is type-checked; a term that cannot
// be built is a failure with a reason, not an exception.
#pragma once

#include <string>

#include "engine/graph/op_registry.hpp"
#include "engine/graph/variable.hpp"
#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// How `reify_to_graph` resolves heads.
struct GraphBuildOptions {
  /// Builds Ops for op patterns (`sum{axis=[0]}`, with the registry's
  /// defaults for properties not given) and symbols (`mul`). Without it only
  /// Op atoms can head an application.
  const OpRegistry* registry = nullptr;
};

/// A graph variable, or why there is none.
struct GraphResult {
  /// The variable built (null on failure).
  Var var;
  /// Why nothing was built ("" on success).
  std::string why;
  /// Whether a variable was built.
  explicit operator bool() const { return static_cast<bool>(var); }
};

/// Builds the graph the term `t` stands for under `s`:
///  - a graph variable is itself; an application `head(args…)` (or a list
///    `(head arg…)`) becomes `op.make_node(inputs)` and its default output,
///    where the head is an Op atom, an op pattern or a symbol (through the
///    registry) or a variable bound to one of these;
///  - a literal becomes a 0-d constant with the dtype of the first input of
///    the same application that is not a literal (int64, float64 or bool
///    when there is none); it must convert exactly (`1` into float64 is 1.0;
///    `0.5` into int64 is refused), except that a number rounds to float32;
///  - subterms that occur several times (the same node, or one variable)
///    are built once, so sharing in the term is sharing in the graph.
/// Fails — naming the subterm — on an unbound variable, a term that is not
/// a graph value (a string, a tuple…), an unknown Op, or an Op whose
/// make_node refuses its inputs. Nothing outside the new nodes is changed.
GraphResult reify_to_graph(const Term& t, const Substitution& s = {},
                           const GraphBuildOptions& options = {});

}  // namespace rw

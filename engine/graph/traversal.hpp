// Walking graphs of Variables and Apply nodes outside a FunctionGraph: ancestors,
// inputs, topological order, the subgraph between two sets, and cloning.
#pragma once

#include <span>
#include <unordered_map>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// Every variable that `outputs` are computed from, `outputs` included, not
/// looking past `blockers`. Order: each variable after those it depends on.
std::vector<Var> ancestors(std::span<const Var> outputs, std::span<const Var> blockers = {});

/// The root variables (no owner) among the ancestors of `outputs`, together
/// with any blocker reached, in the order first met.
std::vector<Var> graph_inputs(std::span<const Var> outputs, std::span<const Var> blockers = {});

/// The Apply nodes between `inputs` and `outputs` (the ancestors of `outputs`,
/// not looking past `inputs`), each after the nodes it depends on. Iterative.
std::vector<Apply*> io_toposort(std::span<const Var> inputs, std::span<const Var> outputs);

/// The Apply nodes on some path from one of `inputs` to one of `outputs`.
std::vector<Apply*> applys_between(std::span<const Var> inputs, std::span<const Var> outputs);
/// The variables on some path from one of `inputs` to one of `outputs`,
/// both ends included.
std::vector<Var> vars_between(std::span<const Var> inputs, std::span<const Var> outputs);

/// True when `var` is computed (directly or not) from `ancestor`, or is it.
bool depends_on(const Var& var, const Var& ancestor);

/// Result of cloning a graph.
struct ClonedGraph {
  std::vector<Var> inputs;
  std::vector<Var> outputs;
  /// Original variable → its copy (inputs, node outputs, and copied constants).
  std::unordered_map<const Variable*, Var> map;
};

/// Copies the nodes between `inputs` and `outputs`. Each input becomes a new
/// root variable of the same type and name (even when the original has an
/// owner: the copy stops there). Other roots reached are kept as they are
/// unless `copy_orphans` (constants are immutable and safe to share).
ClonedGraph clone_graph(std::span<const Var> inputs, std::span<const Var> outputs,
                        bool copy_orphans = false);

/// `outputs` rebuilt with each key of `replace` swapped for its value; only
/// nodes that depend on a replaced variable are copied (Aesara's clone_replace).
std::vector<Var> clone_replace(std::span<const Var> outputs,
                               const std::unordered_map<const Variable*, Var>& replace);

}  // namespace rw

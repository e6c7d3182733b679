// FunctionGraph: a graph with designated inputs and outputs, its nodes kept in a
// Boost.Graph adjacency list, changed only through validated replacements.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/feature.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

class FunctionGraph;
namespace detail {
/// Ways to corrupt a graph on purpose, for testing check_integrity only.
enum class Corruption { InputWithoutEdge, DroppedEdge, NodeCount, DanglingNode, StaleKind };
void corrupt_for_testing(FunctionGraph& fgraph, Corruption what);
}  // namespace detail

/// The uses of one variable.
using ClientList = SmallVec<Client, 4>;

/// How a clone maps originals to copies.
struct CloneMap {
  std::unordered_map<const Variable*, Var> variables;
  std::unordered_map<const Apply*, Apply*> nodes;
  /// The copy of `v`; `v` itself when it was not copied (e.g. a shared constant).
  Var operator[](const Var& v) const;
};

/// A graph from `inputs` to `outputs` that rewriters change in place
/// (Aesara's FunctionGraph).
///
/// Every Apply node reachable from the outputs is a vertex of a bidirectional
/// Boost.Graph adjacency list with stable descriptors; every input slot is an
/// edge from the vertex that computes the variable to the vertex that uses
/// it. Inputs and constants are vertices too, and the graph's outputs are
/// in-edges of one output vertex, so `clients` is simply the out-edges.
///
/// A node belongs to at most one FunctionGraph at a time. By default the
/// constructor clones the graph it is given, so the caller's graph is never
/// changed; pass `clone = false` to work on the caller's nodes in place.
class FunctionGraph {
 public:
  FunctionGraph(std::vector<Var> inputs, std::vector<Var> outputs, bool clone = true);
  ~FunctionGraph();
  FunctionGraph(FunctionGraph&& other) noexcept;
  FunctionGraph& operator=(FunctionGraph&& other) noexcept;
  FunctionGraph(const FunctionGraph&) = delete;
  FunctionGraph& operator=(const FunctionGraph&) = delete;

  std::span<const Var> inputs() const;
  std::span<const Var> outputs() const;
  /// Adds a root variable as a further input.
  void add_input(const Var& input);
  /// Adds an output, importing what it is computed from.
  void add_output(const Var& output, std::string_view reason = {});

  /// Number of Apply nodes.
  std::size_t num_nodes() const;
  bool contains(const Apply& node) const;
  /// True for an input, a constant in use, or an output of a node in the graph.
  bool contains(const Variable& var) const;
  /// Every Apply node, in the order they were imported.
  std::vector<Apply*> nodes() const;
  /// Every Apply node, inputs before users (Boost.Graph topological_sort).
  std::vector<Apply*> toposort() const;
  /// Every variable: inputs, constants in use, and node outputs.
  std::vector<Var> variables() const;

  /// The uses of `var` (empty when it is not in the graph).
  ClientList clients(const Variable& var) const;
  std::size_t num_clients(const Variable& var) const;

  /// Makes every client of `old_var` use `new_var` instead, importing its
  /// subgraph and pruning what becomes unused. Refused with ReplacementError,
  /// leaving the graph as it was, when `old_var` is not in the graph, the
  /// types do not fit (the new type must equal the old or be more specific), a
  /// cycle would form, `new_var` needs an input the graph does not have, or a
  /// feature vetoes the change.
  void replace(const Var& old_var, const Var& new_var, std::string_view reason = {});
  /// Several replacements as one change: all are made, or none.
  void replace_all(std::span<const std::pair<Var, Var>> pairs, std::string_view reason = {});
  /// Points one use at `new_var`, with the checks of `replace`.
  void change_input(const Client& client, const Var& new_var, std::string_view reason = {});
  /// Makes `node` apply `op` instead of its Op, keeping its inputs, its output
  /// variables and their uses: for an Op that computes the same outputs
  /// another way, such as its in-place variant (MLIR's modifyOpInPlace).
  /// Cheaper than replacing the node, as no edge changes. Features hear
  /// on_change_op, then validate. Refused with ReplacementError, leaving the
  /// graph as it was, when `node` is not in the graph, `op` is null,
  /// `op->make_node` refuses the node's inputs, would convert them, or types an
  /// output otherwise than the node does (the type must equal the old or be
  /// more specific), or a feature vetoes the change.
  void change_op(Apply& node, std::shared_ptr<const Op> op, std::string_view reason = {});

  /// Attaches a feature (calls its on_attach). Attaching one twice is a no-op.
  void attach_feature(std::shared_ptr<Feature> feature);
  /// Detaches it (calls on_detach).
  void detach_feature(const Feature& feature);
  /// The first attached feature of type F, or nullptr.
  template <class F> F* find_feature() const {
    for (const auto& f : features())
      if (auto* p = dynamic_cast<F*>(f.get())) return p;
    return nullptr;
  }
  const std::vector<std::shared_ptr<Feature>>& features() const;
  /// Asks every feature's `validate`; throws what the first refusal throws.
  void validate() const;

  /// Throws IntegrityError describing the first disagreement between nodes,
  /// clients, edges, inputs and outputs, or a cycle.
  void check_integrity() const;

  /// An independent copy (new nodes and variables; constants are shared, as
  /// they are immutable) and the map from originals to copies. Features are
  /// not copied.
  std::pair<FunctionGraph, CloneMap> clone() const;

  /// Position of `node` in a topological order maintained under replacement;
  /// nodes earlier in any path have smaller positions. For drivers that want a
  /// cheap "is this node before that one".
  std::uint64_t order_of(const Apply& node) const;

 private:
  friend void detail::corrupt_for_testing(FunctionGraph&, detail::Corruption);
  std::unique_ptr<detail::FGraphImpl> impl_;
};

}  // namespace rw

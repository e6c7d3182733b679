// Merging: MergeFeature finds nodes that compute the same thing (same Op,
// same inputs) and constants of equal value as the graph changes;
// MergeOptimizer makes the graph use one of each (Aesara's MergeOptimizer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/graph/feature.hpp"
#include "engine/rewrite/graph_rewriter.hpp"

namespace rw {

namespace detail {
struct MergeTables;
}

/// Keeps a signature table of the graph's nodes and constants, updated on
/// every import, prune and input change, and schedules each node that
/// duplicates one already known (equal Op, identical inputs) and each constant
/// equal in type and value to one already known. Attaching it to a graph
/// schedules the duplicates already there. Lookups only, so the order of the
/// schedule follows the order of the changes: deterministic.
class MergeFeature final : public Feature {
 public:
  MergeFeature();
  ~MergeFeature() override;

  /// Registers every node of the graph, in its order (duplicates are scheduled).

  void on_attach(FunctionGraph& fgraph) override;
  /// Forgets the graph.
  void on_detach(FunctionGraph& fgraph) override;
  /// Keep the tables current.
  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                       const Var& new_var, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override;

  /// Merges found and not yet made.
  std::size_t scheduled() const;

 private:
  friend class MergeOptimizer;
  /// One merge to make: `node` into `into`, or `constant` into `into_constant`.
  struct Candidate {
    ApplyRef node;
    ApplyRef into;
    Var constant;
    Var into_constant;
  };
  void process_node(Apply& node);
  void process_constant(const FunctionGraph& fgraph, Variable& constant);
  /// Removes `node`'s entry, made under the signature `registered_as`.
  void forget_node(Apply& node, std::uint64_t registered_as);

  bool attached_ = false;
  std::vector<Candidate> scheduled_;
  std::unique_ptr<detail::MergeTables> tables_;
};

/// Replaces every node that duplicates another (same Op, same inputs) by it,
/// and every constant by an equal one, until no duplicate is left: common
/// subexpressions are computed once. Cheap when nothing is scheduled, so it
/// serves as an equilibrium's cleanup rewriter.
class MergeOptimizer final : public GraphRewriter {
 public:
  /// Throws RewriteError for an empty name.
  explicit MergeOptimizer(std::string name = "merge");
  /// Attaches a MergeFeature unless one is attached.
  void add_requirements(FunctionGraph& fgraph) const override;
  /// Throws RewriteError when no MergeFeature is attached.
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
};

}  // namespace rw

// NodeFinder: a Feature that indexes a FunctionGraph's nodes by their Op's
// kind, kept up to date as the graph changes (Aesara's NodeFinder).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "engine/graph/feature.hpp"
#include "engine/graph/op.hpp"

namespace rw {

/// Which nodes of the graph apply an Op of a given name: for a pass that
/// visits only the nodes of a few Ops (PyTensor's `fgraph.apply_nodes` by
/// Op, or its NodeFinder). Updated on every import, prune and Op change.
class NodeFinder final : public Feature {
 public:
  /// The nodes whose Op is named `kind`, in the graph's topological order
  /// (FunctionGraph::order_of), so the same on every run. Empty when none
  /// or when not attached.
  std::vector<Apply*> nodes_of(OpKind kind) const;
  std::vector<Apply*> nodes_of(std::string_view op_name) const {
    return nodes_of(OpKind::of(op_name));
  }
  /// How many there are, without ordering them.
  std::size_t count(OpKind kind) const;
  std::size_t count(std::string_view op_name) const { return count(OpKind::of(op_name)); }

  void on_attach(FunctionGraph& fgraph) override;
  void on_detach(FunctionGraph& fgraph) override;
  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const std::shared_ptr<const Op>& old_op,
                    std::string_view reason) override;

 private:
  const FunctionGraph* fgraph_ = nullptr;
  std::unordered_map<std::uint32_t, std::unordered_set<Apply*>> by_kind_;
};

}  // namespace rw

// ProtectInputs: the feature that keeps in-place rewrites from overwriting a
// function's inputs, shared variables and constants (Aesara's Supervisor).
#pragma once

#include <unordered_set>
#include <vector>

#include "engine/graph/feature.hpp"
#include "engine/graph/function_graph.hpp"

namespace rw {

/// Refuses every change after which a node would overwrite (destroy_map) the
/// buffer of a protected variable or of a constant, through views included.
/// `compile_function` attaches one to each graph it compiles, protecting every
/// input not marked mutable, and every shared variable, before the rewrite
/// hook runs: an in-place rewrite that would break this is refused with the
/// graph unchanged, and the rewriter carries on.
class ProtectInputs final : public Feature {
 public:
  /// Protects `protected_vars` (inputs of the graph it will be attached to).
  explicit ProtectInputs(const std::vector<Var>& protected_vars);

  /// The hooks keep the set of in-place nodes of the graph current.
  void on_attach(FunctionGraph& fgraph) override;
  void on_detach(FunctionGraph& fgraph) override;
  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override;
  /// Throws InconsistencyError naming the node and the variable it would
  /// overwrite.
  void validate(const FunctionGraph& fgraph) override;

  /// True when `var` is protected (or a constant).
  bool is_protected(const Variable& var) const;

 private:
  std::unordered_set<const Variable*> protected_;
  std::unordered_set<const Apply*> destroyers_;
};

}  // namespace rw

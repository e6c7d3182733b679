// History: a Feature that records the changes made to a FunctionGraph so that
// they can be undone back to a checkpoint (Aesara's History feature).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/feature.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// Records each input change and Op change a FunctionGraph makes, in order,
/// from the moment it is attached; `revert(fgraph, checkpoint())` later undoes
/// every change made since. For a rewriter that tries a sequence of
/// replacements and wants to back out of all of them (PyTensor's
/// `fgraph.checkpoint()` / `fgraph.revert(cp)`).
///
/// A change the graph refused and rolled back is not recorded: its rollback
/// takes the change off the record. The record holds the variables and Ops it
/// would restore, so a subgraph a later change pruned can be brought back.
class History final : public Feature {
 public:
  /// A point in the record: the number of changes recorded so far.
  using Checkpoint = std::size_t;

  Checkpoint checkpoint() const { return changes_.size(); }
  /// The number of changes recorded.
  std::size_t size() const { return changes_.size(); }

  /// Undoes, newest first, every change recorded after `checkpoint`, through
  /// the graph's own `change_input` and `change_op` (reason "revert"), and
  /// takes them off the record. Throws rw::Error when `checkpoint` is past
  /// the end of the record or this History is not attached to `fgraph`. When
  /// the graph refuses an undo (a feature vetoes it), throws the
  /// ReplacementError; the changes before it stay undone and it and the
  /// older ones stay on the record.
  void revert(FunctionGraph& fgraph, Checkpoint checkpoint);

  void on_attach(FunctionGraph& fgraph) override;
  void on_detach(FunctionGraph& fgraph) override;
  void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                       const Var& new_var, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const std::shared_ptr<const Op>& old_op,
                    std::string_view reason) override;

 private:
  /// An input change (old_var → new_var at `client`) or, when `old_op` is
  /// set, an Op change of `node` (which `node_ref` keeps alive).
  struct Change {
    Client client;
    Var old_var, new_var;
    ApplyRef node_ref;
    std::shared_ptr<const Op> old_op, new_op;
  };
  const FunctionGraph* fgraph_ = nullptr;
  std::vector<Change> changes_;
  bool reverting_ = false;
};

}  // namespace rw

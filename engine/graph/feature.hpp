// Feature: a listener attached to a FunctionGraph that hears every change.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "engine/graph/variable.hpp"

namespace rw {

class Apply;
class FunctionGraph;
class Op;

/// One use of a variable: input `slot` of `node`, or, when `node` is null,
/// output `slot` of the FunctionGraph.
struct Client {
  Apply* node = nullptr;
  std::uint32_t slot = 0;
  bool is_output() const { return node == nullptr; }
  friend bool operator==(const Client&, const Client&) = default;
};

/// A listener on a FunctionGraph (Aesara's Feature). Callbacks come in this
/// order for one `replace(old, new)` and each client of `old`:
///   1. on_import for each node of `new`'s subgraph not yet in the graph,
///      inputs before the nodes that use them;
///   2. on_prune for each node that lost its last client, users before the
///      nodes they used;
///   3. on_change_input for that client.
/// Then, once for the whole replace or replace_all, `validate`. An exception
/// from on_import, on_change_input or validate refuses the change: the graph
/// undoes it (features hear the undo as further changes, with reason
/// "rollback: …"; a node refused on import is heard as pruned by those that
/// heard it imported) and the caller gets a ReplacementError. An exception
/// from a callback that hears an undo cannot stop it: the undo finishes and
/// the ReplacementError quotes the first such exception.
///
/// `FunctionGraph::change_op` (a node keeps its inputs and outputs and applies
/// another Op) is heard as on_change_op, then `validate`, and undone the same
/// way. A feature that keeps anything derived from nodes' Ops (their kinds,
/// destroy or view maps) must override it; the default ignores it.
class Feature {
 public:
  virtual ~Feature() = default;
  /// Attached: a feature that keeps per-node state builds it here.
  virtual void on_attach(FunctionGraph& fgraph) { (void)fgraph; }
  /// Detached, or the graph is being destroyed.
  virtual void on_detach(FunctionGraph& fgraph) { (void)fgraph; }
  virtual void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) {
    (void)fgraph, (void)node, (void)reason;
  }
  virtual void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) {
    (void)fgraph, (void)node, (void)reason;
  }
  virtual void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                               const Var& new_var, std::string_view reason) {
    (void)fgraph, (void)client, (void)old_var, (void)new_var, (void)reason;
  }
  /// `node` now applies another Op; `old_op` is the one it applied. Its
  /// inputs, outputs and their clients are as they were.
  virtual void on_change_op(FunctionGraph& fgraph, Apply& node, const std::shared_ptr<const Op>& old_op,
                            std::string_view reason) {
    (void)fgraph, (void)node, (void)old_op, (void)reason;
  }
  /// Throws InconsistencyError (with the reason) to refuse the last change.
  virtual void validate(const FunctionGraph& fgraph) { (void)fgraph; }
};

}  // namespace rw

// DestroyHandler: the feature that keeps in-place operations safe — no node
// overwrites a value that anything else still reads (Aesara's DestroyHandler).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "engine/graph/feature.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/detail/flat_table.hpp"

namespace rw {

/// Refuses every change after which some node would overwrite (destroy_map)
/// a value that is still needed. A node may overwrite its input `v` only when
///   - the node is the only reader of `v` (it may read it in several slots);
///   - `v` is not an output of the graph, nor a constant;
///   - `v` is not an input of the graph, unless it was declared mutable;
///   - when `v` is a view (view_map) of another variable `u`, the same holds
///     for `u`, whose only reader is the view's node, and no other output of
///     that node views `u` and is read — and so on up the chain of views.
/// A value computed in place (another destroy_map output) is a new version of
/// its buffer whose old readers the earlier node already had to be alone
/// among, so the chain stops there.
///
/// These rules are stricter than Aesara's, which also allows destroying a
/// value that other nodes read, provided an order exists that runs them
/// first. Here no ordering is added: the VM's schedule never has a reader to
/// move, and an in-place rewrite is simply not made where another reader
/// exists (the only cost is a buffer that could sometimes have been reused).
///
/// The feature lives in the rewrite layer because it exists for in-place
/// rewrites: they attach it through their requirements, ask `can_destroy`
/// (or `why_not_destroy`, for the reason) before building a replacement, and
/// rely on its veto. compile_function attaches one with the mutable inputs of
/// the function.
///
/// Validation is incremental: a change can only break the rule for the
/// destroyers it touched — a destroyer it imported or whose inputs it
/// changed, and the destroyers reached through views from a value that
/// gained a reader — so `validate` checks those alone, and nothing at all
/// while the graph has no destroyer. After attaching, the first validation
/// checks every destroyer.
class DestroyHandler final : public Feature {
 public:
  /// `mutable_inputs`: inputs of the graph that nodes may overwrite.
  explicit DestroyHandler(std::vector<Var> mutable_inputs = {});

  void on_attach(FunctionGraph& fgraph) override;
  void on_detach(FunctionGraph& fgraph) override;
  void on_import(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_prune(FunctionGraph& fgraph, Apply& node, std::string_view reason) override;
  void on_change_input(FunctionGraph& fgraph, const Client& client, const Var& old_var,
                       const Var& new_var, std::string_view reason) override;
  void on_change_op(FunctionGraph& fgraph, Apply& node, const OpPtr& old_op,
                    std::string_view reason) override;
  /// Throws InconsistencyError naming the node and the value it must not
  /// overwrite, and why.
  void validate(const FunctionGraph& fgraph) override;

  /// Why `node` may not overwrite its input `input` in `fgraph` as the graph
  /// stands (nullopt: it may). `node` need not be in the graph yet: a node
  /// about to replace another is asked as if it were that node — pass the
  /// node it replaces as `replacing`, whose uses then count as its own.
  std::optional<std::string> why_not_destroy(const FunctionGraph& fgraph, const Apply& node,
                                             std::size_t input,
                                             const Apply* replacing = nullptr) const;
  /// `!why_not_destroy(...)`, without building the reason: what a rewrite
  /// asks of every candidate.
  bool can_destroy(const FunctionGraph& fgraph, const Apply& node, std::size_t input,
                   const Apply* replacing = nullptr) const;
  /// Whether `var` is an input declared mutable.
  bool is_mutable(const Variable& var) const { return mutable_.contains(&var); }
  /// The nodes of the graph that overwrite an input.
  std::size_t num_destroyers() const { return destroyers_.size(); }

 private:
  /// What forbids an overwrite: the rule broken, at which variable, and the
  /// other reader when there is one.
  struct Fault {
    enum class Kind : unsigned char { None, Constant, Output, Read, Input, SharedView };
    Kind kind = Kind::None;
    const Variable* var = nullptr;
    const Apply* reader = nullptr;
    const Variable* viewed = nullptr;
  };
  Fault fault(const FunctionGraph& fgraph, const Apply& node, std::size_t input,
              const Apply* replacing) const;
  /// Adds to `out` the destroyers a change at `var` may affect: those that
  /// overwrite the buffer `var` shows, directly or through views.
  void destroyers_near(const FunctionGraph& fgraph, const Variable& var,
                       std::vector<const Apply*>& out) const;

  std::unordered_set<const Variable*> mutable_;
  detail::PointerSet<const Apply> destroyers_;  // open addressing: no allocation per node
  std::vector<Var> keep_;  // keeps the mutable inputs alive
  // What changed since the last validation (counted handles: a pruned node
  // may be gone by then). `check_all_` until a first validation passes.
  std::vector<Var> changed_vars_;
  std::vector<ApplyRef> changed_nodes_;
  std::vector<const Apply*> candidates_;  // validate's, kept between calls
  bool check_all_ = true;
};

/// The DestroyHandler attached to `fgraph`, attaching a new one (with no
/// mutable inputs) when there is none.
DestroyHandler& require_destroy_handler(FunctionGraph& fgraph);

}  // namespace rw

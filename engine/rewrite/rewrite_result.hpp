// RewriteResult: what a node rewriter returns — the replacements it proposes,
// or the reason it did not apply.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/graph/variable.hpp"

namespace rw {

/// The answer of `NodeRewriter::transform` for one node: either replacements
/// for some variables, or why the rewriter does not apply (MLIR's
/// notifyMatchFailure). Not applying is not an error; the reason is what
/// `rwcheck --why-not` shows.
///
/// A failure made from a string literal costs no allocation, so rewriters can
/// state their reasons unconditionally; reasons that need formatting go through
/// `RewriteContext::fail`, which builds them only when someone listens.
class RewriteResult {
 public:
  /// Did not apply. `reason` must outlive the attempt (a literal, or text held
  /// by the rewriter).
  static RewriteResult fail(std::string_view reason) noexcept {
    RewriteResult r;
    r.reason_ = reason;
    return r;
  }
  /// Did not apply, with a reason built at run time.
  static RewriteResult fail_owned(std::string reason);
  /// Replace the node's outputs, in order, by `outputs` (one per output; a null
  /// Var leaves that output as it is).
  static RewriteResult replace_outputs(std::vector<Var> outputs);
  /// Replace the node's only output by `v`.
  static RewriteResult replace_output(Var v);
  /// Replace each `first` by its `second` (any variables of the graph).
  static RewriteResult replace(std::vector<std::pair<Var, Var>> pairs);

  /// Results move; they are made once and handed to the driver.
  RewriteResult(RewriteResult&&) noexcept = default;
  RewriteResult& operator=(RewriteResult&&) noexcept = default;

  /// True when the rewriter proposes replacements.
  bool applied() const { return kind_ != Kind::Failed; }
  /// Why it did not apply (empty when it applied).
  std::string_view reason() const { return owns_reason_ ? owned_reason_ : reason_; }
  /// For `replace_outputs`/`replace_output`: the new outputs; else empty.
  const std::vector<Var>& outputs() const { return outputs_; }
  /// For `replace`: the pairs; else empty.
  const std::vector<std::pair<Var, Var>>& pairs() const { return pairs_; }
  /// True when the result names the node's outputs rather than explicit pairs.
  bool by_outputs() const { return kind_ == Kind::Outputs; }

 private:
  enum class Kind : unsigned char { Failed, Outputs, Pairs };
  RewriteResult() noexcept = default;
  Kind kind_ = Kind::Failed;
  bool owns_reason_ = false;
  std::string_view reason_;
  std::string owned_reason_;
  std::vector<Var> outputs_;
  std::vector<std::pair<Var, Var>> pairs_;
};

}  // namespace rw

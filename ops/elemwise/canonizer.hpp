// Algebraic canonicalisation of sums and products (PyTensor's
// AlgebraicCanonizer, local_add_canonizer and local_mul_canonizer):
// add_canonizer, mul_canonizer and mul_cancel.
#pragma once

#include <string>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// Which part of the canonicalisation an AlgebraicCanonizer does.
enum class CanonizerKind : unsigned char {
  /// `add_canonizer`: sums. Dropping terms that cancel (`(x + y) - y`)
  /// assumes them finite (tag `assumes_finite`).
  Add,
  /// `mul_canonizer`: products and quotients, constants and flattening only.
  /// Assumes nothing about values.
  Mul,
  /// `mul_cancel`: what `mul_canonizer` does, and also cancels a factor that
  /// is both in the numerator and the denominator (`(x * y) / y -> x`), which
  /// assumes that factor holds no zero (as PyTensor's canonizer does).
  MulCancel,
};

/// Flattens a chain of adds and subs (or of muls and true_divs) into terms,
/// collects like terms and one-element constants, cancels, and rebuilds the
/// chain in one canonical form:
///   - sums: `(x + 1) - 1 -> x`, `(x + y) - y -> x`, `2*x + 3*x - x -> 4.0 * x`,
///     `x - x` inside a longer chain, `x + (-y) + y -> x`; the result is
///     `c + t1 + t2 - (u1 + u2)` with each term `k * base` (k a constant, 1
///     left out), the constant first on the side of its sign;
///   - products: `x * 2 * 3 -> 6.0 * x`, `(x / 2) / y -> (0.5 * x) / y`,
///     negations taken into the constant; with MulCancel also
///     `(x * y * z) / (y * z) -> x`. The result is `c * n1 * n2 / (d1 * d2)`,
///     or `-(…)` for a constant -1.
/// Terms are ordered by a structural key (op names, input positions and
/// constant values, one level down; ties kept in graph order), never by
/// addresses, so the result is the same on every run and equal chains
/// become equal nodes, which merge then folds.
///
/// Only nodes used by the chain alone are read into it (an inner node used
/// elsewhere stays a term: flattening it would compute it twice), down to 64
/// levels, and only nodes of the root's dtype (int and float arithmetic stay
/// apart; a true_div is read only when its result is float). The rewriter
/// applies only when something simplifies — terms or constants combine,
/// something cancels, or the chain ends with fewer add/sub (mul/div) nodes
/// — so that a node with nothing to do is left as it was after a scan of its
/// inputs, and the two-operand forms other rules match (`exp(x) - 1`,
/// `x - (-y)`, `(-x) * (-y)`) are left to them.
///
/// Shapes: the result is checked against the root's static type. A cancelled
/// operand whose broadcast the rest does not reproduce is kept as a
/// `fill(operand, result)`; when the broadcast patterns agree nothing is
/// kept, because an axis of unknown extent never broadcasts (an operand of
/// another run-time extent makes the original raise, which the result then
/// does not — as in PyTensor, which adds a fill only when the broadcastable
/// pattern changes). Constants are folded in double precision and made of
/// the result's dtype; a product with a zero constant is left to `mul_zero_*`.
class AlgebraicCanonizer final : public NodeRewriter {
 public:
  explicit AlgebraicCanonizer(CanonizerKind kind);
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
  std::string describe() const override;
  /// What this rewriter does.
  CanonizerKind kind() const { return kind_; }

 private:
  CanonizerKind kind_;
};

/// Registers in the `canonicalize` group of a standard database
/// (make_standard_db), with tags `fast_run`, `fast_compile`:
///   - `add_canonizer` (CanonizerKind::Add), assumption-free;
///   - `mul_canonizer` (CanonizerKind::Mul), assumption-free;
///   - `mul_cancel` (CanonizerKind::MulCancel), also tagged `assumes`,
///     `assumes_nonzero` and `assumes_finite` (kAssumptionTag): a cancelled
///     factor holds no zero and no infinity, so strict modes leave it out.
/// Their benefit is below the rules' (0), so a one-line rule matching the
/// same node is tried first.
void register_canonizers(SequenceDB& db);

}  // namespace rw

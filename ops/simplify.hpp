// Simplifications the rules language cannot state, registered in the standard
// groups beside the rules: fills whose shape the value already has
// (PyTensor's local_useless_fill), and the distribution of a product over a
// sum when that cancels divisions (local_greedy_distributor).
#pragma once

#include <string>
#include <span>
#include <vector>

#include "engine/graph/variable.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// Whether the shape of `inner` is known to lie within the shape of `outer`
/// — broadcasting the two gives `outer`'s shape — reading at most `depth`
/// levels of elementwise nodes (Elemwise, Fill, Composite) above each: a
/// value lies within itself and within any elementwise result that reads
/// it; a value of static extents 1 (a scalar) lies within anything of at
/// least its rank; an elementwise result lies within what all of its inputs
/// lie within; and fully known static shapes are compared. False means
/// "not known".
bool shape_within(const Variable& inner, const Variable& outer, int depth = 4);

/// shape_within for many `inner` values against one `outer`: what outer
/// reads elementwise is gathered once. Looks at a bounded number of
/// variables (beyond, "not known").
class ShapeWithin {
 public:
  explicit ShapeWithin(const Variable& outer, int depth = 4);
  /// The same for an elementwise result of `operands` and type `outer_type`
  /// not built yet: what its reach would hold below itself (outer_type must
  /// hold the result's type: it only bounds the rank and static extents).
  ShapeWithin(std::span<const Var> operands, const TensorType& outer_type, int depth = 4);
  /// Whether `inner`'s shape is known to lie within outer's.
  bool contains(const Variable& inner) const;
  /// Records that outer's shape now also holds `v`'s (outer was wrapped in
  /// `fill(v, outer)`).
  void add(const Variable& v) { reach_.push_back(&v); }

 private:
  /// Adds the inputs of the elementwise values of reach_[begin…], `levels`
  /// times, within the budget.
  void grow(std::size_t begin, int levels);

  const TensorType* outer_type_;
  int depth_;
  std::vector<const Variable*> reach_;
};

/// `fill(m, v) -> v` when m's shape lies within v's (shape_within) and v has
/// the fill's type, so the broadcast adds nothing: what gradients leave when
/// they build `fill(x ** 2, 1)` and the product then multiplies it by x.
class UselessFill final : public NodeRewriter {
 public:
  UselessFill();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `f(fill(m, v), y) -> f(v, y)` for an elementwise Op f when m's shape lies
/// within the result's (shape_within), so the broadcast adds nothing (the
/// part of PyTensor's local_fill_sink that removes fills; a fill that would
/// only move up is left where it is). This removes what gradients build
/// with `fill(x ** 2, 1) * (2 * x)`.
class FillSink final : public NodeRewriter {
 public:
  FillSink();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Cancellation in products, read through mul, true_div, reciprocal and neg
/// nodes used only there (Aesara's local_mul_canonizer cancellation and
/// local_greedy_distributor, restricted to what keeps gradients finite):
///  - `v * ... / v` cancels (factors equal as merging finds them);
///  - `exp(u) / (1 + exp(u))` among the factors becomes `sigmoid(u)`, and
///    `exp(x) / sum(exp(x))` over one axis (broadcast back) `softmax(x)`:
///    both are inf / inf at large x;
///  - a product with a sum (add or sub used only there) among its factors is
///    distributed over it when that cancels a division in at least as many
///    terms as it does not: `(a / p - b / q) * p * q -> a * q - b * p`, the
///    shape of the gradient of `y * log(p) + (1 - y) * log(1 - p)` with
///    `p = sigmoid(z)`, where `1 / p` is infinite at large |z|.
/// A cancellation `p / p -> 1` assumes p finite and nonzero: the rewriter is
/// tagged `assumes` (kAssumptionTag) and strict modes leave it out. A
/// cancelled factor that could have widened the result stays as a fill.
class CancellingDistributor final : public NodeRewriter {
 public:
  explicit CancellingDistributor(std::string name = "cancelling_distributor");
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// The pass registered as `cancelling_distributor`: a walk over the graph
/// in order applying CancellingDistributor, skipped — nothing tried, the
/// graph unchanged — when no node divides (true_div or reciprocal), without
/// which nothing can cancel. Its own pass after stabilize, not an entry of
/// a group: a group re-tries the users of each change up to its deepest
/// rewriter, and this one reads twelve levels.
class ProductCancellation final : public GraphRewriter {
 public:
  explicit ProductCancellation(std::string name = "cancelling_distributor");
  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
  std::string summary(int indent = 0) const override;

 private:
  GraphRewriterPtr walk_;
};

/// Registers UselessFill and FillSink in the standard database's
/// `canonicalize` group, and CancellingDistributor
/// as ProductCancellation right after stabilize (position::kStabilizeProducts).
void register_simplify_rewrites(SequenceDB& optdb);

}  // namespace rw

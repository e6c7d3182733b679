// In-place rewrites: GEMM formation (z + dot(x, y) -> gemm) and the pass that
// turns elementwise Ops, inc/set_subtensor and gemm into their in-place forms
// where the DestroyHandler allows it.
#pragma once

#include <string>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/graph_rewriter.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// Sums of products -> chains of gemm (Aesara's gemm_optimizer): the terms of
/// an add or sub of float matrices — read through nested adds and subs of
/// the same type used only there (up to 4 levels), negations and
/// one-element constant factors — are split into dot products of matrices
/// used only by the sum (a dot22scalar with a constant alpha, which
/// uncanonicalize makes of `c * dot(x, y)`, counts as one), and the rest. The first other term of the result's
/// type is the accumulator z (failing that, one of the products), and each
/// product is added on: `z + a*dot(x, y) + b*dot(u, v) - w` ->
/// `gemm(gemm(z, a, x, y, 1), b, u, v, 1) + (-1.0 * w)`, where w is a term
/// that broadcasts (a bias); `2*dot(x, y) - z` -> `gemm(z, 2, x, y, -1)`.
/// A product read elsewhere is an ordinary term. The gemm copies z; the
/// in-place pass makes it write into z when nothing else needs z.
class GemmFromDot final : public NodeRewriter {
 public:
  GemmFromDot();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// The pass registered as `gemm_from_dot`: one walk over the graph applying
/// GemmFromDot (in2out), skipped — nothing tried, the graph unchanged — when
/// no node of the graph is a dot or a dot22scalar, without which GemmFromDot
/// cannot apply. A
/// scan of the nodes costs a fraction of the walk, which the graphs without
/// matrix products (most elementwise ones) no longer pay.
class GemmFormation final : public GraphRewriter {
 public:
  explicit GemmFormation(std::string name = "gemm_from_dot");
  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
  std::string summary(int indent = 0) const override;

 private:
  GraphRewriterPtr walk_;
};

/// One walk over the graph in order, giving each node the in-place form of
/// its Op where the DestroyHandler (attached as a requirement) and any other
/// feature (the compile layer's ProtectInputs) accept it (Aesara's
/// insert_inplace_optimizer and its IncSubtensor and gemm counterparts):
///   - Elemwise, Fill, Composite: each output, in turn, into the first input
///     of its dtype and broadcast pattern that nothing else reads;
///   - inc_subtensor, set_subtensor -> `inplace=true` (writes into x);
///   - gemm -> `inplace=true` (writes into z).
/// A refused replacement leaves the graph as it was and the next candidate
/// input is tried.
class InplacePass final : public GraphRewriter {
 public:
  explicit InplacePass(std::string name = "insert_inplace");
  /// Attaches a DestroyHandler when the graph has none.
  void add_requirements(FunctionGraph& fgraph) const override;
  PassReport apply(FunctionGraph& fgraph, RewriteContext& ctx) const override;
};

/// Registers, in a standard database (make_standard_db):
///   - `gemm_from_dot` (GemmFormation) at position::kFusion - 1,
///     before fusion would hide the additions inside Composites; tags
///     `fast_run`, `gemm`;
///   - `insert_inplace` (InplacePass) at position::kInplace; tags `fast_run`,
///     `inplace`.
void register_inplace_rewrites(SequenceDB& db);

/// register_fusion_rewrites and register_inplace_rewrites: everything this
/// issue adds to the standard pipeline.
void register_fast_run_rewrites(SequenceDB& db);

}  // namespace rw

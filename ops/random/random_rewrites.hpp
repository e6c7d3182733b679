// Rewrites of random variables (PyTensor's tensor/random/rewriting): size
// lifting, and lifting dimshuffle and basic subtensor through a draw.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `rv(rng, size, params…) -> rv(rng, [], broadcast_to(param, size + core…)…)`
/// for a non-empty size (PyTensor's local_rv_size_lift): the parameters carry
/// the batch shape, so the lifts below see it. Both outputs are replaced;
/// the draws and the next state are exactly the same (the draws are made in
/// the same order from the same parameters).
class RvSizeLift final : public NodeRewriter {
 public:
  RvSizeLift();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `dimshuffle(rv(rng, [], params…)) -> rv(rng, [], dimshuffle(param)…)` for
/// a distribution with scalar parameters and draws whose draw nothing else
/// uses (PyTensor's local_dimshuffle_rv_lift): each parameter, padded to the
/// batch rank, is shuffled as the draw was. The draw has the same law but,
/// at a fixed state, other numbers; the old node's next state is replaced by
/// the new one's.
class DimShuffleRvLift final : public NodeRewriter {
 public:
  DimShuffleRvLift();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `rv(rng, [], params…)[index] -> rv(rng, [], param[index]…)` for a basic
/// index (integers and slices), a distribution with scalar parameters and
/// draws, and a draw nothing else uses (PyTensor's local_subtensor_rv_lift):
/// each parameter, padded to the batch rank, is indexed as the draw was, with
/// `0` or `:` on the axes where it broadcasts. Fewer numbers are drawn: the
/// law is the same, the numbers and the next state (which replaces the old
/// one) are others.
class SubtensorRvLift final : public NodeRewriter {
 public:
  SubtensorRvLift();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Registers the three into `canonicalize`, tagged `random_lift` only (not
/// `fast_run`, as PyTensor keeps them out of its default pipeline): a lifted
/// graph draws other numbers from a seed, so turning them on is asked for,
/// `default_mode().including({"random_lift"})`.
void register_random_rewrites(SequenceDB& db);

}  // namespace rw

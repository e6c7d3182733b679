// Forward mode: Rop, Jacobian-vector products through each Op's R_op.
#pragma once

#include <span>
#include <vector>

#include "engine/grad/grad.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// The directional derivatives ∂f/∂wrt · eval_points of each output of `f`
/// (Aesara's Rop): the nodes between `wrt` and `f` are visited in
/// topological order and each Op's R_op maps its inputs' eval points to its
/// outputs'. An output that does not depend on any of `wrt` is handled as
/// `disconnected` says (Raise: DisconnectedInputError naming it; otherwise
/// zeros). Throws Error when the counts differ, TypeError for an eval point
/// whose rank or static shape does not fit its variable (naming both), and
/// NotImplementedError naming the Op for an Op without R_op on the way.
std::vector<Var> Rop(std::span<const Var> f, std::span<const Var> wrt,
                     std::span<const Var> eval_points,
                     DisconnectedInputs disconnected = DisconnectedInputs::Raise);
Var Rop(const Var& f, const Var& wrt, const Var& eval_point,
        DisconnectedInputs disconnected = DisconnectedInputs::Raise);

}  // namespace rw

// jacobian and hessian: one grad per element of a vector of static length,
// a MapOp over the per-element gradient when the length is known only at run time.
#pragma once

#include <span>
#include <vector>

#include "engine/grad/grad.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// The Jacobian of `expression` (0-d or 1-d) with respect to each of `wrt`:
/// for a vector of n elements, a tensor of shape (n,) + wrt's shape whose row
/// k is grad(expression[k], wrt); for a 0-d expression, the gradient. A
/// vector of static length gets n gradients stacked; one of unknown length a
/// MapOp named `jacobian` whose body computes row k (Aesara uses scan).
/// TypeError for an expression of another rank. `options` go to every grad call.
std::vector<Var> jacobian(const Var& expression, std::span<const Var> wrt,
                          const GradOptions& options = {});
Var jacobian(const Var& expression, const Var& wrt, const GradOptions& options = {});

/// The Hessian of the 0-d `cost` with respect to each of `wrt` (0-d or
/// vectors, of any length): jacobian(grad(cost, w), w).
std::vector<Var> hessian(const Var& cost, std::span<const Var> wrt, const GradOptions& options = {});
Var hessian(const Var& cost, const Var& wrt, const GradOptions& options = {});

}  // namespace rw

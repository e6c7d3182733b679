// jacobian and hessian, built from grad one row at a time.
#pragma once

#include <span>
#include <vector>

#include "engine/grad/grad.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// The Jacobian of `expression` (0-d or 1-d) with respect to each of `wrt`:
/// for a vector of n elements, a tensor of shape (n,) + wrt's shape whose row
/// k is grad(expression[k], wrt); for a 0-d expression, the gradient. rwgraph
/// has no scan, so a vector expression must have a static length: otherwise
/// TypeError naming the expression's type. `options` go to every grad call.
std::vector<Var> jacobian(const Var& expression, std::span<const Var> wrt,
                          const GradOptions& options = {});
Var jacobian(const Var& expression, const Var& wrt, const GradOptions& options = {});

/// The Hessian of the 0-d `cost` with respect to each of `wrt` (0-d, or
/// vectors of static length): jacobian(grad(cost, w), w).
std::vector<Var> hessian(const Var& cost, std::span<const Var> wrt, const GradOptions& options = {});
Var hessian(const Var& cost, const Var& wrt, const GradOptions& options = {});

}  // namespace rw

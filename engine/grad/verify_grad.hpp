// verify_grad and verify_rop: analytic derivatives checked against central
// finite differences on random projections, as Aesara's verify_grad.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "engine/graph/variable.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// Builds the graph to check from its input variables.
using GraphBuilder = std::function<Var(std::span<const Var> inputs)>;

/// How the checkers compare.
struct VerifyGradOptions {
  /// Random projections (verify_grad) or directions (verify_rop) tried.
  std::size_t n_tests = 2;
  /// Seed of the random projections.
  std::uint64_t seed = 42;
  /// Finite-difference step; by default 1e-6 for float64 and 1e-3 when any
  /// input or the output is float32.
  std::optional<double> eps;
  /// Tolerances: an element fails when both its absolute and its relative
  /// error exceed them. By default 1e-4 for float64, 1e-2 with float32.
  std::optional<double> abs_tol;
  std::optional<double> rel_tol;
};

/// Checks grad of `fun` at the point `pt` (one tensor per input; the inputs
/// are variables of those dtypes and ranks, an axis of extent 1 being
/// broadcastable): for random tensors r, the gradient of sum(fun(x) * r)
/// with respect to every float input against central differences.
/// Integer inputs are passed through and not differentiated. Throws
/// GradientCheckError with the analytic and numeric values when they
/// differ, and TypeError when the output is not a float tensor.
void verify_grad(const GraphBuilder& fun, std::span<const Tensor> pt,
                 const VerifyGradOptions& options = {});

/// Checks Rop of `fun` at `pt` along random directions (one per float
/// input) against (fun(x + eps v) - fun(x - eps v)) / 2 eps, elementwise.
void verify_rop(const GraphBuilder& fun, std::span<const Tensor> pt,
                const VerifyGradOptions& options = {});

/// The central-difference gradient of the 0-d `cost` of `inputs` at `pt`
/// with respect to input `which`.
Tensor numeric_grad(const Var& cost, std::span<const Var> inputs, std::span<const Tensor> pt,
                    std::size_t which, double eps);

}  // namespace rw

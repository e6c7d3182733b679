// Random arguments for a graph's inputs and a dtype-aware comparison of
// results, for tests that check a rewritten graph against the original.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/rng.hpp"
#include "runtime/tensor.hpp"

namespace rw::testing {

/// One argument per input: floats uniform in [lo, hi), integers uniform in
/// [lo, hi]; each axis of unknown static extent gets `extent`.
inline std::vector<Tensor> random_args(const std::vector<Var>& inputs, Rng& rng, double lo,
                                       double hi, std::int64_t extent = 3) {
  std::vector<Tensor> args;
  for (const Var& v : inputs) {
    const TensorType* t = v->tensor_type();
    std::vector<std::int64_t> shape;
    for (std::int64_t d : t->shape()) shape.push_back(d == kUnknownDim ? extent : d);
    if (is_float(t->dtype()))
      args.push_back(rng.uniform(shape, lo, hi, t->dtype()));
    else
      args.push_back(rng.integers(shape, static_cast<std::int64_t>(lo),
                                  static_cast<std::int64_t>(hi) + 1, t->dtype()));
  }
  return args;
}

/// Equal within what a rewrite may change in the last bits for the dtype
/// (float32: 1e-4 relative, float64: 1e-9; integers exactly); shapes and
/// dtypes must match; NaN equals NaN.
inline bool close_for_dtype(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (a.dtype() == DType::Float32) return allclose(a, b, 1e-4, 1e-5, true);
  if (a.dtype() == DType::Float64) return allclose(a, b, 1e-9, 1e-12, true);
  return allclose(a, b, 0, 0, true);
}

}  // namespace rw::testing

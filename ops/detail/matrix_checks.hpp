// Static-shape checks the linear algebra Ops share (ops/linalg/).
#pragma once

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/detail/util.hpp"

namespace rw::ops_detail {

/// Whether two static extents can be equal at run time.
inline bool extents_agree(std::int64_t a, std::int64_t b) {
  return a == kUnknownDim || b == kUnknownDim || a == b;
}

/// The known one of two extents that must be equal.
inline std::int64_t merge_extent(std::int64_t a, std::int64_t b) {
  return a == kUnknownDim ? b : a;
}

/// Input i as a square float matrix, or TypeError naming it.
inline const TensorType& square_float_input(const Op& op, std::span<const Var> inputs,
                                            std::size_t i) {
  const TensorType& t = tensor_input(op, inputs, i);
  const bool square = t.ndim() == 2 && extents_agree(t.shape()[0], t.shape()[1]);
  if (!square || !is_float(t.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected a square matrix of float32 or float64",
                                op.to_string(), input_label(i, inputs[i]), t.to_string()));
  return t;
}

/// Input i as a float matrix of any shape, or TypeError naming it.
inline const TensorType& float_matrix_input(const Op& op, std::span<const Var> inputs,
                                            std::size_t i) {
  const TensorType& t = tensor_input(op, inputs, i);
  if (t.ndim() != 2 || !is_float(t.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected a matrix of float32 or float64",
                                op.to_string(), input_label(i, inputs[i]), t.to_string()));
  return t;
}

/// Input 1 of a solve (b for a x = b): a vector or matrix of a's dtype whose
/// first extent can be a's; returns x's static shape.
inline StaticShape solve_result_shape(const Op& op, std::span<const Var> inputs) {
  const TensorType& a = *inputs[0]->tensor_type();
  const TensorType& b = tensor_input(op, inputs, 1);
  if ((b.ndim() != 1 && b.ndim() != 2) || b.dtype() != a.dtype())
    throw TypeError(fmt::format("`{}`: {} is {}, expected a vector or matrix of {}",
                                op.to_string(), input_label(1, inputs[1]), b.to_string(),
                                dtype_name(a.dtype())));
  const std::int64_t n = merge_extent(a.shape()[0], a.shape()[1]);
  if (!extents_agree(n, b.shape()[0]))
    throw TypeError(fmt::format(
        "`{}`: {} of shape {} and {} of shape {} do not multiply: inner extents {} and {}",
        op.to_string(), input_label(0, inputs[0]), shape_str(a.shape()),
        input_label(1, inputs[1]), shape_str(b.shape()), n, b.shape()[0]));
  StaticShape out = b.shape();
  out[0] = merge_extent(n, b.shape()[0]);
  return out;
}

}  // namespace rw::ops_detail

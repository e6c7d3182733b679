// Helpers the Op families share: input checks and messages, output types,
// constants and kernel errors.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "ops/errors.hpp"

namespace rw::ops_detail {

/// `(2, ?, 3)`: a static shape as messages show it.
std::string shape_str(std::span<const std::int64_t> shape);
/// "input 1" or "input 1 (`x`)" when the variable has a name.
std::string input_label(std::size_t index, const Var& var);

/// Throws TypeError "`op` takes N inputs, got M" unless min <= n <= max
/// (max < 0: no upper bound).
void check_arity(const Op& op, std::span<const Var> inputs, std::size_t min, long max);
/// The TensorType of input `i`, or TypeError naming the op and the input.
const TensorType& tensor_input(const Op& op, std::span<const Var> inputs, std::size_t i);
/// Input `i` as a 0-d integer tensor (an index, an extent, a slice bound), or
/// TypeError saying what it is and what `role` needed.
const TensorType& int_scalar_input(const Op& op, std::span<const Var> inputs, std::size_t i,
                                   std::string_view role);

/// `axis` of input 0 (of rank `rank`) counted from the front, or TypeError
/// "`op`: axis 3 is out of range for input 0 (`x`) of rank 2".
std::int64_t checked_axis(const Op& op, std::span<const Var> inputs, std::int64_t axis,
                          std::size_t rank);
/// The number of elements of a static shape, or kUnknownDim.
std::int64_t static_size(const StaticShape& shape);

/// A node with one output of this dtype and static shape.
ApplyRef make_apply(const Op& op, std::span<const Var> inputs, DType dtype, StaticShape shape);

/// A 0-d int64 constant.
Var int64_constant(std::int64_t value);
/// A 1-d int64 constant.
Var int64_vector_constant(std::span<const std::int64_t> values);
/// A 0-d constant of `dtype` holding `value` (converted as Cast converts).
Var scalar_constant(double value, DType dtype);
/// The value of a constant of size 1 and integer (or bool) dtype.
std::optional<std::int64_t> constant_int(const Var& v);
/// The values of a 1-d integer constant, or of a make_vector of integer
/// constants.
std::optional<std::vector<std::int64_t>> constant_ints(const Var& v);

/// Element k of a 1-d integer variable as a 0-d int64: the k-th input of a
/// make_vector, a constant's element, or a subtensor of the variable.
Var vector_element(const Var& v, std::int64_t k);

/// Checks that `value` (input `index` of `op`, variable `var`) broadcasts to
/// `target` at run time with the static rule: each axis equal, or of extent 1
/// where the static type says 1. Throws ValueError naming op and input.
void check_value_broadcast(const Op& op, std::size_t index, const Var& var, const Tensor& value,
                           std::span<const std::int64_t> target);

/// Checks the value an increment or assignment Op writes (input 1) against
/// the tensor it writes into (input 0) and the static shape of the indexed
/// `part`: the dtype converts without loss and the value broadcasts to the
/// part. Throws TypeError naming op and input.
void check_written_value(const Op& op, std::span<const Var> inputs,
                         std::span<const std::int64_t> part);

/// Runs `f`; a ValueError or IndexError it throws (the runtime's kernels
/// throw them) is thrown again with "`op`: " in front of its message.
template <class F> decltype(auto) run_kernel(const Op& op, F&& f);
[[noreturn]] void rethrow_kernel_error(const Op& op);

// ---------------------------------------------------------------------------

template <class F> decltype(auto) run_kernel(const Op& op, F&& f) {
  try {
    return f();
  } catch (const ValueError&) {
    rethrow_kernel_error(op);
  } catch (const IndexError&) {
    rethrow_kernel_error(op);
  }
}

}  // namespace rw::ops_detail

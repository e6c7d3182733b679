// Shape utilities the kernels share: broadcasting and axis normalisation.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/small_vec.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The NumPy broadcast of two shapes. Throws ValueError
/// "shapes (2, 3) and (4,) cannot be broadcast" when an axis differs and
/// neither extent is 1.
Shape broadcast_shapes(std::span<const std::int64_t> a, std::span<const std::int64_t> b);
namespace detail {
/// Broadcasts `acc` with `shape` in place and returns true, or returns false
/// (acc unchanged) when they clash. The allocation-free form the kernels use.
bool broadcast_into(Shape& acc, std::span<const std::int64_t> shape);
}  // namespace detail
/// The broadcast of several shapes; the error names the first two that clash
/// (the accumulated shape of those before and the one that does not fit).
Shape broadcast_shapes(std::span<const Shape> shapes);

/// `axis` as a non-negative axis of a tensor of `ndim` dimensions (negative
/// axes count from the end). Throws IndexError "axis 3 is out of range
/// for a tensor of 2 dimensions".
std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim);
/// Each axis normalised, in the order given. Throws IndexError as
/// normalize_axis, or ValueError when an axis appears twice.
SmallVec<std::int64_t, 6> normalize_axes(std::span<const std::int64_t> axes, std::int64_t ndim);

}  // namespace rw

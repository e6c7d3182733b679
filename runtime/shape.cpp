// Broadcasting and axis normalisation.
#include "runtime/shape.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "support/error.hpp"

namespace rw {

bool detail::broadcast_into(Shape& acc, std::span<const std::int64_t> b) {
  const std::size_t n = std::max(acc.size(), b.size());
  Shape out(n, 1);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t x = i < n - acc.size() ? 1 : acc[i - (n - acc.size())];
    const std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1) return false;
    out[i] = x == 1 ? y : x;
  }
  acc = std::move(out);
  return true;
}

Shape broadcast_shapes(std::span<const std::int64_t> a, std::span<const std::int64_t> b) {
  Shape acc(a.begin(), a.end());
  if (!detail::broadcast_into(acc, b))
    throw ValueError(fmt::format("shapes {} and {} cannot be broadcast", shape_to_string(a),
                                 shape_to_string(b)));
  return acc;
}

Shape broadcast_shapes(std::span<const Shape> shapes) {
  Shape acc;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    if (detail::broadcast_into(acc, shapes[i])) continue;
    // Name an input the new shape clashes with, not the accumulated shape.
    for (std::size_t j = 0; j < i; ++j) {
      Shape pair = shapes[j];
      if (!detail::broadcast_into(pair, shapes[i]))
        throw ValueError(fmt::format("shapes {} and {} cannot be broadcast",
                                     shape_to_string(shapes[j]), shape_to_string(shapes[i])));
    }
    throw ValueError(fmt::format("shapes {} and {} cannot be broadcast", shape_to_string(acc),
                                 shape_to_string(shapes[i])));
  }
  return acc;
}

std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim) {
  const std::int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    throw IndexError(
        fmt::format("axis {} is out of range for a tensor of {} dimensions", axis, ndim));
  return a;
}

SmallVec<std::int64_t, 6> normalize_axes(std::span<const std::int64_t> axes, std::int64_t ndim) {
  SmallVec<std::int64_t, 6> out;
  for (std::int64_t axis : axes) {
    const std::int64_t a = normalize_axis(axis, ndim);
    if (std::find(out.begin(), out.end(), a) != out.end())
      throw ValueError(
          fmt::format("axis {} appears twice in the axes {}", a, shape_to_string(axes)));
    out.push_back(a);
  }
  return out;
}

}  // namespace rw

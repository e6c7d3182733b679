// Value conversion between element types with a defined result for every
// input: the rule of Cast, astype, constants and item().
#pragma once

#include <limits>
#include <type_traits>

namespace rw::detail::scalar {

/// Value conversion with defined results everywhere: float to integer
/// saturates at the integer's range and maps NaN to 0; anything to bool is
/// `!= 0` (NaN is true).
template <class D, class S> constexpr D convert(S v) {
  if constexpr (std::is_same_v<D, S>) {
    return v;
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    constexpr S lo = static_cast<S>(std::numeric_limits<D>::min());
    constexpr S hi = static_cast<S>(std::numeric_limits<D>::max());
    if (!(v == v)) return 0;
    if (v <= lo) return std::numeric_limits<D>::min();
    if (v >= hi) return std::numeric_limits<D>::max();
    return static_cast<D>(v);
  } else {
    return static_cast<D>(v);
  }
}

}  // namespace rw::detail::scalar

// NanGuard's reading of values: what it finds in a tensor, and the summary
// of a tensor its messages print.
#pragma once

#include <cstdint>
#include <string>

#include "engine/compile/function_options.hpp"
#include "runtime/tensor.hpp"

namespace rw::detail {

/// What a NanGuard found in one tensor: how many elements of each kind it
/// guards against, and the first of them (its flat index, row-major).
struct GuardFinding {
  std::int64_t nan = 0, inf = 0, big = 0;
  std::int64_t first = -1;
  double first_value = 0;
  bool any() const { return first >= 0; }
  /// "2 NaN and 1 inf of 12 elements (the first, -inf, at index 3)".
  std::string describe(const NanGuard& guard, std::int64_t size) const;
};

/// Reads every element of a float tensor `t` (any layout); integer and bool
/// tensors give no finding.
GuardFinding guard_scan(const Tensor& t, const NanGuard& guard);

/// `f64[3, 4] min -1.5 max 2 mean 0.25` (with NaN and inf counts when there
/// are any); `f64[0]` for an empty tensor.
std::string guard_summary(const Tensor& t);

}  // namespace rw::detail

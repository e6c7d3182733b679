// Cumulative sums and products along an axis (Aesara's CumOp).
#pragma once

#include <cstdint>
#include <optional>

#include "runtime/tensor.hpp"

namespace rw {

/// Running sums along `axis`, or over the flattened tensor (row-major) when
/// `axis` is nullopt (NumPy's cumsum). The dtype is that of sum: bool and
/// integers give int64 (wrapping), floats keep theirs and accumulate in it,
/// in order, as NumPy does.
Tensor cumsum(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt);
/// Running products, as cumsum.
Tensor cumprod(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt);

}  // namespace rw

// Softmax and log-softmax along an axis, numerically stable, and their gradients.
#pragma once

#include <cstdint>

#include "runtime/tensor.hpp"

namespace rw {

/// exp(x - max) / sum(exp(x - max)) along `axis`: no overflow for large
/// inputs, and rows with -inf entries give exact zeros there. The result has
/// dtype float_result(x.dtype()); sums accumulate in double.
Tensor softmax(const Tensor& x, std::int64_t axis = -1);
/// x - max - log(sum(exp(x - max))) along `axis`, without forming the
/// softmax (no log of an underflowed 0).
Tensor log_softmax(const Tensor& x, std::int64_t axis = -1);
/// The gradient of softmax: dx = sm · (dy - sum(dy · sm, axis)), for the
/// softmax output `sm` and the output gradient `dy` (one shape).
Tensor softmax_grad(const Tensor& dy, const Tensor& sm, std::int64_t axis = -1);
/// The gradient of log_softmax: dx = dy - exp(lsm) · sum(dy, axis), for the
/// log-softmax output `lsm`.
Tensor log_softmax_grad(const Tensor& dy, const Tensor& lsm, std::int64_t axis = -1);

}  // namespace rw

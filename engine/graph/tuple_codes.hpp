// Integer codes that Op properties share with the rules language: entries of
// integer tuples that stand for something other than an axis or an extent.
#pragma once

#include <cstdint>

namespace rw {

/// In an axis order (dimshuffle's `order`): a new broadcastable axis of
/// extent 1. The rules language and graph files write it `x`.
inline constexpr std::int64_t kNewAxis = -1;
/// In an index tuple (subtensor's `index`): an integer index taken from the
/// next input of the node. The rules language and graph files write it `i`.
inline constexpr std::int64_t kIndexFromInput = -2;

}  // namespace rw

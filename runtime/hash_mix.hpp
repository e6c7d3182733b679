// One step of combining hashes (boost::hash_combine's mix), for keys built
// from several parts.
#pragma once

#include <cstdint>

namespace rw {

/// `h` with `v` mixed in.
constexpr std::uint64_t hash_mix(std::uint64_t h, std::uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

}  // namespace rw

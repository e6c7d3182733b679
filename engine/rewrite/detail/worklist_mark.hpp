// WorklistMark: the equilibrium driver's mark on the nodes it has queued,
// kept in each Apply (one word, no hashing) but private to the driver.
#pragma once

#include <atomic>
#include <cstdint>

#include "engine/graph/apply.hpp"

namespace rw::detail {

/// The one way to the mark a rewrite run leaves on a node it has queued: its
/// run id, or 0. Only the equilibrium driver (and its tests) use it; the
/// mark is scratch, not part of the node's value.
struct WorklistMark {
  static std::atomic<std::uint32_t>& of(const Apply& node) { return node.worklist_mark_; }
};

}  // namespace rw::detail

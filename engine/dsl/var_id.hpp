// Rule variables by index: the VarId a checked rule names its variables by,
// and GuardArgs, what a guard is evaluated on.
#pragma once

#include <cstdint>
#include <span>

#include "engine/graph/variable.hpp"

namespace rw::dsl {

/// Index of a variable in CheckedRule::vars.
enum class VarId : std::uint32_t {};
/// The index a VarId stands for.
constexpr std::uint32_t index_of(VarId id) {
  return static_cast<std::uint32_t>(id);
}

/// The graph variables a guard reads, by VarId: element `index_of(v)` is
/// what the match bound `v` to (null for a variable the guard does not
/// read). A compiled rule fills it from the match's slots (Bindings::graph_at).
using GuardArgs = std::span<const Var>;

}  // namespace rw::dsl

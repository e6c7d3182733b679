// Which variables of a graph share a buffer, from the Ops' view_map and
// destroy_map: what output copies, input protection and scheduling rely on.
#pragma once

#include <cstddef>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

/// How `alias_roots` treats an output computed by overwriting an input.
enum class InPlace : bool {
  /// The output lives in the input's buffer: it aliases what the input does.
  SameBuffer,
  /// The output is a new version of the buffer's contents: it is its own root
  /// (what ordering needs: readers of the old contents must run first).
  NewVersion,
};

/// The inputs of `node` that output `output` shares a buffer with: those
/// its Op's view_map lists and, with InPlace::SameBuffer, its destroy_map.
std::vector<std::size_t> aliased_inputs(const Apply& node, std::size_t output,
                                        InPlace in_place = InPlace::SameBuffer);

/// The variables whose buffers `var` may share: `var` itself when it is a
/// root (input, constant, shared variable) or was computed into a new buffer;
/// otherwise, through views (and in-place outputs, with SameBuffer), the
/// roots of the inputs it aliases. Each root appears once.
std::vector<const Variable*> alias_roots(const Variable& var,
                                         InPlace in_place = InPlace::SameBuffer);

}  // namespace rw

// Graph variables read as terms: the one reader that unification (unify.cpp)
// and matching (match.cpp) share. A graph variable takes a word in a term
// slot; it reads as `op(inputs…)` when it has a term view; two Ops are one Op
// as terms when they are the same object or equal.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/term.hpp"

namespace rw::detail {

/// The word of graph variable `v` in a term slot, borrowed: no count is
/// taken, so the graph must keep `v` alive while the word is read.
inline std::uint64_t graph_bits(const Variable* v) {
  return reinterpret_cast<std::uint64_t>(v) | kTagGraph;
}

/// The graph variable a word holds, or null for any other word.
inline Variable* graph_of(std::uint64_t bits) {
  return (bits & kTagMask) == kTagGraph ? reinterpret_cast<Variable*>(bits & ~kTagMask) : nullptr;
}

/// Whether two Ops are one Op as terms: the same object, or equal (hashes
/// first, which differ for most unequal Ops).
inline bool same_op(const Op& a, const Op& b) {
  return &a == &b || (a.hash() == b.hash() && a.equals(b));
}

/// The node `v` reads as, `op(inputs…)`: its owner when it has a term view
/// (has_term_view: computed, and its node's only or default output), else
/// null (a root input, a constant, another output).
inline const Apply* term_node(const Variable& v) {
  return has_term_view(v) ? v.owner() : nullptr;
}

/// The word of input `i` of `node` read as a term.
inline std::uint64_t input_bits(const Apply& node, std::size_t i) {
  return graph_bits(node.input(i).get());
}

}  // namespace rw::detail

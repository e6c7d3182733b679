// Printing graphs: Aesara-style debugprint with ids and types, and a one-line
// infix printer (`exp(x) * 2.0`).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "engine/graph/variable.hpp"

namespace rw {

class FunctionGraph;

/// How a variable is named in messages: "`x`", "output 0 of `exp`", "constant `2.0`".
std::string describe(const Variable& var);

struct DebugPrintOptions {
  /// Show each variable's type.
  bool show_types = true;
  /// Stop descending below this depth (0: no limit).
  std::size_t max_depth = 0;
  /// Indentation levels at most (0: no limit). A node met deeper is printed
  /// there as a reference, `mul [id K] <f64[?]> (continued below)`, and its
  /// tree follows the tree it belongs to, starting at the margin: a line is
  /// never wider than this many levels, so the text of a deep graph is
  /// linear in its size rather than quadratic.
  std::size_t max_indent = 32;
  /// Lines printed at most (0: no limit); the rest is summed up in one
  /// line, `… 1200 more nodes`, followed by `cut_note`.
  std::size_t max_lines = 0;
  std::string cut_note;
  /// Text printed under a node's line, before its inputs (an OpFromGraph's
  /// inner graph): lines ending in '\n', each indented to the node's inputs
  /// and prefixed by the tree's continuation (`│ ` when it has inputs).
  std::function<std::string(const Apply&)> below;
};

/// Tree view of the graph computing `outputs`, one line a variable:
///
///     mul [id A] <f64[?]> 'z'
///      ├─ exp [id B] <f64[?]>
///      │  └─ x [id C] <f64[?]>
///      └─ 2.0 [id D] <f64[]>
///
/// A node met a second time is printed as its id with "···" and not
/// expanded, so each node's inputs are printed once. The work and the text
/// are linear in the nodes printed (see `max_indent`, `max_lines`).
std::string debugprint(std::span<const Var> outputs, const DebugPrintOptions& options = {});
std::string debugprint(const Var& output, const DebugPrintOptions& options = {});
std::string debugprint(const FunctionGraph& fgraph, const DebugPrintOptions& options = {});

namespace detail {
/// How debugprint labels a variable: a constant's value, its Op (`.k` added
/// for output k of a node with several), or an input's name.
std::string debug_label(const Variable& v);
/// debugprint's id of the n-th variable met: A … Z, AA, AB, …
std::string debug_id(std::size_t n);
}  // namespace detail

/// One-line infix form: `exp(x) * 2.0`, `sum{axis=(0)}(x)`. Shared
/// subexpressions are repeated; the result is cut at `max_length` characters
/// (and ends in `…`), and a subexpression nested deeper than
/// max(32, max_length / 4) levels is printed as `…`, so the work is bounded by
/// `max_length` whatever the graph below `var`.
std::string to_infix(const Var& var, std::size_t max_length = 10000);

/// A constant's value as printers show it: `2.0`, `1`, `[1. 2.]`.
std::string format_constant(const Constant& c);

}  // namespace rw

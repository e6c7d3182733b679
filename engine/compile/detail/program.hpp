// What linking a FunctionGraph produces: the run order and a flat storage plan
// (slots, input cells, releases) that the VM follows without deciding anything.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/type.hpp"
#include "runtime/tensor.hpp"

namespace rw {
class Op;
class SharedVariable;
}  // namespace rw

namespace rw::detail {

inline constexpr std::uint32_t kNoSlot = std::numeric_limits<std::uint32_t>::max();

/// A cheap check of a tensor against a type: dtype, rank and the extents the
/// type knows (`dims` indexes Program::dims). `tensor` false: any valid value.
struct TypeCheck {
  bool tensor = false;
  DType dtype = DType::Float64;
  std::uint32_t ndim = 0;
  std::uint32_t dims_begin = 0;
  std::uint32_t dims_end = 0;
};

/// An explicit input: how its argument is checked, and converted when the
/// cheap check fails.
struct InputSpec {
  Var variable;  // the caller's variable, for messages
  TypePtr type;
  TypeCheck check;
  bool strict = false;
  bool allow_downcast = false;
  Tensor default_value;
};

/// Where input `i` of a step's node comes from. `move`: this is the value's
/// last read, so the VM moves it out of its slot (releasing the slot);
/// `handed_on`: after the step, a Release gives the buffer to a later node;
/// `fixed`: a constant, loaded into the cell once for all calls.
struct CellSource {
  std::uint32_t slot = 0;
  bool move = false;
  bool handed_on = false;
  bool fixed = false;
};

/// After a step, a buffer it no longer needs (a moved-in input cell, or an
/// output nobody reads): given to `to_slot` when nothing else holds it, else
/// dropped. `counted`: it is an intermediate buffer for profiling.
struct Release {
  std::uint32_t from = 0;
  bool from_cell = false;
  bool counted = false;
  std::uint32_t to_slot = kNoSlot;
};

/// One node: its inputs are cells [cell_begin, +n_cells), its outputs slots
/// [out_begin, +n_out), then releases [release_begin, +n_release).
struct Step {
  const Apply* node = nullptr;
  const Op* op = nullptr;
  std::uint32_t cell_begin = 0, n_cells = 0;
  std::uint32_t out_begin = 0, n_out = 0;
  std::uint32_t release_begin = 0, n_release = 0;
};

/// A linked function. Slots: the graph's inputs (explicit, then shared
/// variables), then constants, then each node's outputs, contiguous per node.
/// Immutable once built; each Function holds its own storage for it.
struct Program {
  std::string name;
  std::string label;  // "function `f`" or "the function", for messages
  FunctionGraph fgraph{{}, {}};
  std::vector<Apply*> order;

  std::vector<InputSpec> inputs;
  std::size_t n_required = 0;  // inputs without a default value
  std::vector<Var> shared;     // keeps the shared variables alive
  std::vector<SharedVariable*> shared_vars;
  std::size_t n_returned = 0;
  /// For each update: the shared variable and the index of its value among
  /// the graph's outputs (after the returned ones).
  std::vector<std::pair<SharedVariable*, std::uint32_t>> update_targets;

  bool allow_gc = true;
  std::uint32_t n_slots = 0;
  std::uint32_t first_node_slot = 0;
  std::vector<std::pair<std::uint32_t, Tensor>> constants;
  std::vector<Step> steps;
  std::vector<CellSource> cells;
  std::vector<Release> releases;
  std::vector<TypeCheck> out_checks;  // per node-output slot, from first_node_slot
  std::vector<std::pair<std::uint32_t, std::int64_t>> dims;  // (axis, extent) of TypeChecks
  std::vector<std::uint32_t> output_slots;  // per graph output
  std::vector<std::uint8_t> keep_output;    // per returned output: the slot keeps a handle
  std::vector<std::uint8_t> counted;        // per slot: an intermediate with its own buffer
  std::vector<std::uint8_t> owning;         // per slot: a node output with its own buffer

  /// A TypeCheck for `type`, its extents appended to `dims`.
  TypeCheck make_check(const Type& type);
  /// Whether `t` passes `c`.
  bool passes(const TypeCheck& c, const Tensor& t) const {
    if (!t.valid()) return false;
    if (!c.tensor) return true;
    if (t.dtype() != c.dtype || static_cast<std::uint32_t>(t.ndim()) != c.ndim) return false;
    for (std::uint32_t d = c.dims_begin; d < c.dims_end; ++d)
      if (t.shape()[dims[d].first] != dims[d].second) return false;
    return true;
  }
};

/// Orders the nodes of `program.fgraph` and plans its storage: fills every
/// field from `order` on. The graph's outputs must be distinct variables
/// that do not alias one another (compile_function's deep copies see to it).
void link(Program& program);

}  // namespace rw::detail

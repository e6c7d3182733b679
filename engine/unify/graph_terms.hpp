// Graph variables and Op properties as terms: property values ↔ terms, the
// rule by which a literal matches a constant, and one-level views of nodes.
#pragma once

#include <optional>
#include <string>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// An Op property value as a term: none → `none`, bool → true/false, int64 →
/// integer, double → number, string → string atom, int tuple → `[0, 1]`,
/// DType → dtype atom.
Term prop_to_term(const PropValue& value);
/// The property value a ground term stands for, or nullopt (a tuple of
/// anything but integers, a pair, a variable…).
std::optional<PropValue> term_to_prop(const Term& term);

/// Whether a literal (integer, number or boolean term) matches constant `c`:
///  - `c` holds exactly one element (a 0-d constant, or one whose axes all
///    have extent 1);
///  - an integer literal matches integer and float constants of that value
///    (`1` matches int8 1 and float64 1.0), never bool;
///  - a number literal matches float constants equal to it after rounding to
///    the constant's dtype (`0.1` matches float32 0.1f), and integer
///    constants when it is integral;
///  - a boolean literal matches bool constants only.
bool literal_matches_constant(const Term& literal, const Constant& c);

namespace detail {
/// has_term_view for an output of a node with several outputs.
bool is_default_output(const Variable& v);
}  // namespace detail

/// Whether a graph variable reads as `op(inputs…)`: it has an owner, and is
/// that node's only output or its default output. Inline: the matcher asks it
/// of every variable it steps into.
inline bool has_term_view(const Variable& v) {
  const Apply* a = v.owner();
  if (!a) return false;
  return a->num_outputs() == 1 || detail::is_default_output(v);
}

/// The node defining `v` as the compound `op(input terms…)` (one level; the
/// inputs stay graph terms). Throws TermError when `v` has no term view.
Term expand_graph(const Var& v);

/// The name an Op-like head stands for: an Op atom's name, an op pattern's
/// name, or a string atom (a symbol stands for any Op of that name); empty for
/// other terms.
std::string_view op_head_name(const Term& head);

}  // namespace rw

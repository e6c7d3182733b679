// Printing terms: `mul(?x, 1)`, `(a b . ?_7)`, `[0, 1]`, `sum{axis=?a}(x)`, `_0`.
#pragma once

#include <iosfwd>
#include <string>

#include "engine/unify/term.hpp"

namespace rw {

/// The printed form of a term (iterative: any depth). Variables print as
/// `?name`, `?_<id>` when unnamed, `_<i>` when reified; symbols bare and other
/// strings quoted; lists as `(a b . c)`; tuples as `[a, b]`; Ops as
/// `Op::to_string()`; graph variables as `to_infix` (cut at 80 characters).
/// `parse_term` reads this form back, except Ops, graph variables and dtypes.
std::string to_string(const Term& t);

std::ostream& operator<<(std::ostream& os, const Term& t);

}  // namespace rw

// Reading terms from the printed form: `mul(?x, 1)`, `(a b . ?d)`, `[0, 1]`,
// `sum{axis=?a}(?x)` — for tests, tools and examples.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "engine/graph/errors.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// Text that is not a term; the message gives the column.
class TermSyntaxError : public Error {
 public:
  using Error::Error;
};

/// Logic variables by name, shared between the terms read with it (a rule's
/// left and right sides use the same `?x`).
using TermVars = std::map<std::string, Term, std::less<>>;

/// Reads one term:
///
///     ?x  ?_        a variable (named; `?_` is a fresh anonymous one each time)
///     _3            the reified variable 3
///     12  -4  1.5   integers and numbers (also nan, inf, -inf)
///     true false none
///     milk  +  "two words"     symbols and strings
///     f(a, b)       a compound (the head is written right before `(`)
///     ?f(a)  sum{axis=?a}(x)   a variable head, an op pattern head
///     (a b . c)  ()  [a, b]    lists, the empty list, tuples
///
/// Variables are looked up in and added to `vars`. Throws TermSyntaxError
/// with the column of the fault; nesting is limited to 1000 levels (the
/// reader is recursive; terms built in C++ may be of any depth).
Term parse_term(std::string_view text, TermVars& vars);
/// Reads one term with variables of its own.
Term parse_term(std::string_view text);

}  // namespace rw

// The exceptions rwgraph throws, at the bottom of the layers so that every
// target (the runtime included) throws the same kinds, and the invariant check
// RW_ASSERT. Layer-specific kinds derive from these where they are thrown
// (engine/graph/errors.hpp, engine/compile/errors.hpp, ...).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

namespace rw {

/// Base of every error rwgraph throws for bad input or a refused request.
/// Catching rw::Error catches them all, from the runtime's kernels up.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value or variable does not fit the type it is checked against (a dtype
/// an operation does not define, a rank that does not match).
class TypeError : public Error {
 public:
  using Error::Error;
};

/// A value does not fit what is computed from it: extents that do not
/// broadcast, a reshape to another number of elements, a bad argument of a
/// kernel or a registry. The message names the operation and the argument.
class ValueError : public Error {
 public:
  using Error::Error;
};

/// An index or axis is out of bounds. The message names the index, the axis
/// and its extent.
class IndexError : public Error {
 public:
  using Error::Error;
};

/// An Op does not implement an optional method (infer_shape, grad, R_op…).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

/// An invariant of rwgraph itself was broken: a bug, not bad input. Thrown by
/// RW_ASSERT with the file and line of the check; the message says which
/// invariant.
class InternalError : public Error {
 public:
  using Error::Error;
};

namespace detail {
/// Throws InternalError "FILE:LINE: internal error: MESSAGE (CONDITION)".
[[noreturn]] void assertion_failed(std::string_view condition, std::string_view message,
                                   const char* file, int line);
}  // namespace detail

}  // namespace rw

// __FILE__ and __LINE__ rather than std::source_location: clang 14 (the fuzz
// build's compiler) with libstdc++ 12 has no std::source_location.

/// Checks an invariant of the library, in every build type: when `condition`
/// is false, throws rw::InternalError naming the file, the line, `message`
/// and the condition's text. For broken invariants only; bad input from a
/// caller gets a ValueError, TypeError or IndexError that names the argument.
#define RW_ASSERT(condition, message)                                            \
  do {                                                                           \
    if (!(condition)) [[unlikely]]                                               \
      ::rw::detail::assertion_failed(#condition, (message), __FILE__, __LINE__); \
  } while (false)

/// A point the code never reaches, such as the end of a function whose switch
/// returns for every enumerator: throws rw::InternalError as RW_ASSERT does.
#define RW_UNREACHABLE(message) \
  ::rw::detail::assertion_failed("unreachable", (message), __FILE__, __LINE__)

// The exceptions the graph layer throws for refused changes and inconsistent
// graphs. The base kinds (Error, TypeError, ValueError, IndexError,
// NotImplementedError, InternalError) are the bottom layer's: support/error.hpp.
#pragma once

#include "support/error.hpp"

namespace rw {

/// A FunctionGraph replacement was refused (type mismatch, cycle, a feature
/// vetoed it); the graph is as it was before the call.
class ReplacementError : public Error {
 public:
  using Error::Error;
};

/// A feature found the graph inconsistent (Aesara's InconsistencyError);
/// thrown by Feature::validate to veto a change.
class InconsistencyError : public Error {
 public:
  using Error::Error;
};

/// A graph depends on a variable that is neither an input nor a constant.
class MissingInputError : public Error {
 public:
  using Error::Error;
};

/// check_integrity found node, client and edge data that disagree.
class IntegrityError : public Error {
 public:
  using Error::Error;
};

}  // namespace rw

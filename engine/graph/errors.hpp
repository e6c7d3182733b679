// The exceptions the graph layer throws for user errors and refused changes.
#pragma once

#include <stdexcept>
#include <string>

namespace rw {

/// Base of every error rwgraph throws for bad input or a refused request.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A value or variable does not fit the type it is checked against.
class TypeError : public Error {
 public:
  using Error::Error;
};

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

/// An Op does not implement an optional method (infer_shape, grad, R_op…).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

}  // namespace rw

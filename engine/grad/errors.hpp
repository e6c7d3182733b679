// The exceptions of automatic differentiation and the gradient checker.
#pragma once

#include "engine/graph/errors.hpp"

namespace rw {

/// A gradient was asked of a variable the cost does not depend on, with
/// `disconnected_inputs = raise` (Aesara's DisconnectedInputError).
class DisconnectedInputError : public Error {
 public:
  using Error::Error;
};

/// A requested gradient is undefined (NullType): an Op has no gradient for an
/// input the cost depends on (Aesara's NullTypeGradError). The message names
/// the Op and the input.
class NullGradientError : public Error {
 public:
  using Error::Error;
};

/// verify_grad or verify_rop found the analytic and the numeric derivative
/// apart; the message shows both.
class GradientCheckError : public Error {
 public:
  using Error::Error;
};

}  // namespace rw

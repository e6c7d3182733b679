// The errors a compiled function throws when a node fails while it runs.
#pragma once

#include "engine/graph/errors.hpp"

namespace rw {

/// A node of a compiled function failed while it ran: its Op's perform threw,
/// or it returned an output that does not fit the output's type. The message
/// names the function, the node and what went wrong; when perform threw, the
/// original exception is nested (std::rethrow_if_nested recovers it). A call
/// that throws this changes no shared variable.
class ExecutionError : public Error {
 public:
  using Error::Error;
};

/// NanGuard (FunctionOptions::nan_guard) found a value it guards against: a
/// NaN, an infinity or a value above its bound, in the output of a node (the
/// first such node of the call) or in an argument. The message names the
/// node, its Op, the output, what was found and how many elements, and each
/// input's dtype, shape and statistics. A call that throws this changes no
/// shared variable.
class NanGuardError : public ExecutionError {
 public:
  using ExecutionError::ExecutionError;
};

/// DebugMode (FunctionOptions::debug_mode) found a node that broke its Op's
/// contract — an output of another shape than infer_shape promised, an input
/// overwritten or aliased without its destroy_map or view_map saying so,
/// another result when run again or on non-contiguous inputs — or outputs
/// that differ from the unrewritten graph's. The message names the node, its
/// Op, the input or output and, where known, the rewrite. A call that throws
/// this changes no shared variable.
class DebugModeError : public ExecutionError {
 public:
  using ExecutionError::ExecutionError;
};

}  // namespace rw

// One-instruction programs, built once per thread and reused: what a single
// elementwise op, a cast or a copy runs, without rebuilding a program per call.
#pragma once

#include <optional>
#include <span>

#include "runtime/scalar_program.hpp"

namespace rw::detail {

/// The program `op(input 0, input 1, …)` for inputs of `dtypes` (with the
/// dtype rules of ScalarProgram::apply; `cast_to` for Cast), from a
/// per-thread cache. Throws as ScalarProgram::apply for undefined
/// combinations. The reference stays valid for the life of the thread.
const ScalarProgram& single_op_program(ScalarOp op, std::span<const DType> dtypes,
                                       std::optional<DType> cast_to = std::nullopt);

}  // namespace rw::detail

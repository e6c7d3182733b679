// C++ source for a ScalarProgram run over dense tensors: what a native module
// holds for a fused elementwise node.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/kernels/reduce.hpp"
#include "runtime/scalar_program.hpp"

namespace rw {

/// How generated code reads one input of a program.
enum class NativeOperand : std::uint8_t {
  Dense,      ///< C-contiguous, with the output's shape.
  Scalar,     ///< One element, broadcast to every position.
  Broadcast,  ///< Broadcast along some axes (stride 0), read through its strides.
};

/// Which axes of the output a Broadcast input broadcasts along: the leading
/// axes it lacks (rank < the output's) and those of static extent 1.
struct BroadcastAxes {
  std::size_t rank = 0;     ///< The input's rank.
  std::vector<bool> along;  ///< Per output axis.
};

/// What generated code is specialised on: each input's layout, the rank of
/// the outputs and, when the types know it, their number of elements.
struct ElemwiseLayout {
  std::vector<NativeOperand> inputs;
  std::size_t rank = 0;
  std::optional<std::int64_t> static_size;
  /// Per input; read for the Broadcast ones only.
  std::vector<BroadcastAxes> broadcast;
};

/// The pieces of a node's native code (see engine/graph/native_code.hpp).
struct ProgramSource {
  std::string support_code;  ///< Definitions at namespace scope.
  std::string code;          ///< The entry point's body, over `ctx`, `in`, `out`.
  std::vector<const void*> host_functions;  ///< ctx->fns: the runtime kernels it calls.
};

/// C++ source computing `program` over inputs laid out as `layout`, with the
/// interpreter's semantics: the arithmetic, comparisons, selections and
/// exact casts are written inline, in blocks of 512 elements; every other
/// instruction (transcendental and special functions, integer division and
/// powers, float-to-integer casts) calls the very kernel the interpreter runs
/// (ScalarInstr::kernel, passed as a host function), so results agree
/// bitwise. A Broadcast input is gathered through its strides (0 along its
/// broadcast axes) into a block array. At run time the code returns
/// RW_FALLBACK when a dense input is not contiguous, or an extent of an
/// input that does not broadcast there differs from another's. Symbols are named from
/// `prefix`. Empty when the blocks' values would take more than 256 KB of
/// stack (a program of some 60 calls or more), which the interpreter runs.
std::optional<ProgramSource> program_native_source(const ScalarProgram& program,
                                                   const ElemwiseLayout& layout,
                                                   std::string_view prefix);

/// C++ source reducing `program`'s single output by `op` over the axes
/// `reduced` (per axis of the inputs' broadcast shape, which `layout`
/// describes): the program runs as program_native_source's code does, into
/// one block of values at a time, and the host's reduction driver
/// (native_reduce) accumulates them, with the interpreter's blocks, chunks
/// and order, so results agree bitwise. Empty unless every input is dense or
/// one element and the reduced axes trail (a full reduction among them) or
/// lead; at run time the code declines as program_native_source's does, and
/// native_reduce for an empty max or min.
std::optional<ProgramSource> reduce_native_source(ReduceOp op, const ScalarProgram& program,
                                                  const ElemwiseLayout& layout,
                                                  const std::vector<bool>& reduced,
                                                  std::string_view prefix);

/// rw_ctx::parallel: body(data, b, e) over chunks of [0, n) on the thread
/// pool, as run_elemwise splits its blocks (serially below its threshold).
void native_parallel(std::int64_t n, std::int64_t work,
                     void (*body)(void*, std::int64_t, std::int64_t), void* data);

}  // namespace rw

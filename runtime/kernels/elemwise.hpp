// Elementwise kernels: a ScalarProgram, or one ScalarOp, run over tensors
// broadcast together.
#pragma once

#include <span>
#include <vector>

#include "runtime/scalar_op.hpp"
#include "runtime/scalar_program.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// Runs `program` over its inputs broadcast together (NumPy rules), in
/// cache-sized blocks: every instruction processes a whole block before the
/// next one runs, so a program of ten instructions reads its inputs and writes
/// its outputs once. Inputs may have any strides (views, negative, broadcast).
///
/// `outputs` has one entry per program output. A null Tensor is allocated
/// (contiguous, with the broadcast shape); a valid one is written in place: it
/// must have the broadcast shape and the output's dtype, no broadcast
/// (zero-stride) axis, and may be the very same array as an input of the same
/// dtype (in place; the result is as if the inputs had been read first). An
/// input that overlaps an output any other way is copied first.
///
/// Throws ValueError — before writing anything — for a wrong number
/// of inputs or outputs, a null input, a dtype other than the program's,
/// shapes that do not broadcast, or an output of the wrong shape.
void run_elemwise(const ScalarProgram& program, std::span<const Tensor> inputs,
                  std::span<Tensor> outputs);
/// run_elemwise into freshly allocated outputs, which it returns.
std::vector<Tensor> run_elemwise(const ScalarProgram& program, std::span<const Tensor> inputs);

/// `op` applied elementwise (a one-instruction program), with the dtypes of
/// scalar_signature: `elemwise(ScalarOp::Add, {a, b})`.
Tensor elemwise(ScalarOp op, std::span<const Tensor> inputs);
Tensor elemwise(ScalarOp op, const Tensor& a);
Tensor elemwise(ScalarOp op, const Tensor& a, const Tensor& b);
Tensor elemwise(ScalarOp op, const Tensor& a, const Tensor& b, const Tensor& c);
/// `op` applied elementwise into `out` (which may be one of the inputs: an
/// in-place operation). `out` must have the broadcast shape and the op's
/// result dtype.
void elemwise_into(ScalarOp op, std::span<const Tensor> inputs, Tensor& out);

/// `x` converted to `dtype`: float to integer truncates toward zero and
/// saturates at the integer's range (NaN becomes 0), anything to bool is
/// `!= 0`. Returns `x` itself (no copy) when it already has that dtype.
Tensor cast(const Tensor& x, DType dtype);

}  // namespace rw

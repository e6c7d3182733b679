// The table of elementwise kernels: one dense loop per (ScalarOp, dtype).
#pragma once

#include <cstdint>

#include "runtime/dtype.hpp"
#include "runtime/scalar_op.hpp"

namespace rw::detail {

/// out[i] = op(args[0][i], args[1][i], …) for i in [0, n): operands and output
/// are dense arrays of the dtypes of the op's signature. `out` may be one of
/// the operands (in place), never a shifted view of one.
using KernelFn = void (*)(std::int64_t n, const void* const* args, void* out);

/// The kernel of `op` computing in dtype `t` (for Switch, the dtype of the two
/// values); null when `op` is not defined on `t` or is Cast.
KernelFn find_kernel(ScalarOp op, DType t);
/// The kernel converting `from` to `to` with scalar::convert's semantics.
KernelFn find_cast_kernel(DType from, DType to);

/// find_kernel for the ops of kernels/kernels_math.cpp (the float ops and
/// pow): their vector kernels (SLEEF) where they have one.
KernelFn find_math_kernel(ScalarOp op, DType t);
/// The tanh kernel on `t` (kernels/kernels_tanh.cpp), null for a dtype
/// other than float32 or float64.
KernelFn find_tanh_kernel(DType t);
/// The kernel of `op` on `t` that applies scalar::Fn one element at a time
/// with the C library's functions: what find_kernel gives for ops without a
/// vector form, and the reference the vector kernels are tested against.
KernelFn find_scalar_kernel(ScalarOp op, DType t);
/// The instruction set of the vector kernels: "avx512f", "avx2", "avx",
/// "sse4" or "sse2" (the widest the runtime was compiled for).
const char* vector_isa();

}  // namespace rw::detail

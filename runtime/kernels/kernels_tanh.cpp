// The tanh kernels, in their own translation unit: float64 is fast::tanh's
// scalar loop, which the compiler vectorises, and this file is compiled with
// FMA contraction (runtime/CMakeLists.txt): its polynomials then cost half
// the instructions, which makes it as fast as libmvec's tanh (docs/runtime.md).
// float32 is SLEEF's.
#include "runtime/detail/kernel_loops.hpp"
#include "runtime/detail/vector_ops.hpp"

namespace rw::detail {

namespace {

// Not dense_loop<Tanh, double>: that instantiation lives in kernels_math.cpp
// too (as the scalar path), compiled without contraction; the linker would
// keep one of the two.
void tanh_loop(std::int64_t n, const void* const* args, void* out) {
  const double* a = static_cast<const double*>(args[0]);
  double* o = static_cast<double*>(out);
#pragma GCC ivdep
  for (std::int64_t i = 0; i < n; ++i) o[i] = fast::tanh(a[i]);
}

}  // namespace

KernelFn find_tanh_kernel(DType t) {
  if (t == DType::Float32) return &vec::vector_loop<ScalarOp::Tanh, float>;
  if (t == DType::Float64) return &tanh_loop;
  return nullptr;
}

}  // namespace rw::detail

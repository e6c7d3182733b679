// Elementwise kernels of the float ops (exponentials, logarithms, powers,
// trigonometry, special functions, rounding): kept apart from the others so
// the two tables compile in parallel, and the only translation unit that sees
// SLEEF. An op with a vector form (detail/vector_ops.hpp) runs it on float32
// and float64; the others, and integer pow, run the scalar loop.
#include "runtime/detail/kernel_loops.hpp"
#include "runtime/detail/vector_ops.hpp"

namespace rw::detail {

namespace {

#define RW_MATH_OPS(X)                                                                   \
  X(TrueDiv) X(Reciprocal) X(Pow) X(Exp) X(Exp2) X(Expm1) X(Log) X(Log2) X(Log10) X(Log1p) \
  X(Sqrt) X(Sigmoid) X(Softplus) X(Sin) X(Cos) X(Tan) X(Sinh) X(Cosh) X(ArcSin)    \
  X(ArcCos) X(ArcTan) X(Erf) X(Erfc) X(Erfinv) X(Erfcinv) X(Erfcx) X(Gammaln) X(Digamma) X(Trigamma)  \
  X(Betaln) X(Log1mexp) X(Logit) X(Xlogy) X(Xlog1py) X(Softsign) X(Gelu) X(I0) X(I1)       \
  X(Floor) X(Ceil) X(Round)

template <ScalarOp Op> KernelFn math_kernel(DType t, bool vector) {
  if constexpr (vec::Fn<Op>::template on<double>)
    if (vector && t == DType::Float64) return &vec::vector_loop<Op, double>;
  if constexpr (vec::Fn<Op>::template on<float>)
    if (vector && t == DType::Float32) return &vec::vector_loop<Op, float>;
  return kernel_for<Op>(t);
}

KernelFn math_table(ScalarOp op, DType t, bool vector) {
  switch (op) {
    case ScalarOp::Tanh: return vector ? find_tanh_kernel(t) : math_kernel<ScalarOp::Tanh>(t, false);
#define RW_CASE(name) \
  case ScalarOp::name: return math_kernel<ScalarOp::name>(t, vector);
    RW_MATH_OPS(RW_CASE)
#undef RW_CASE
    default: return nullptr;
  }
}

}  // namespace

KernelFn find_math_kernel(ScalarOp op, DType t) {
  return math_table(op, t, true);
}

KernelFn find_scalar_kernel(ScalarOp op, DType t) {
  if (KernelFn k = math_table(op, t, false)) return k;
  return find_kernel(op, t);
}

const char* vector_isa() {
  return simd::kIsa;
}

}  // namespace rw::detail

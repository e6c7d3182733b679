// Elementwise kernels of arithmetic, comparison, logic, selection and
// conversion; find_kernel, the entry point of the whole table.
#include "runtime/detail/kernel_loops.hpp"

namespace rw::detail {

namespace {

template <class S, class D> void cast_loop(std::int64_t n, const void* const* args, void* out) {
  const S* a = static_cast<const S*>(args[0]);
  D* o = static_cast<D*>(out);
#pragma GCC ivdep
  for (std::int64_t i = 0; i < n; ++i) o[i] = scalar::convert<D>(a[i]);
}

}  // namespace

KernelFn find_kernel(ScalarOp op, DType t) {
  switch (op) {
    case ScalarOp::Add: return kernel_for<ScalarOp::Add>(t);
    case ScalarOp::Sub: return kernel_for<ScalarOp::Sub>(t);
    case ScalarOp::Mul: return kernel_for<ScalarOp::Mul>(t);
    case ScalarOp::IntDiv: return kernel_for<ScalarOp::IntDiv>(t);
    case ScalarOp::Mod: return kernel_for<ScalarOp::Mod>(t);
    case ScalarOp::Neg: return kernel_for<ScalarOp::Neg>(t);
    case ScalarOp::Abs: return kernel_for<ScalarOp::Abs>(t);
    case ScalarOp::Relu: return kernel_for<ScalarOp::Relu>(t);
    case ScalarOp::Sign: return kernel_for<ScalarOp::Sign>(t);
    case ScalarOp::Sqr: return kernel_for<ScalarOp::Sqr>(t);
    case ScalarOp::Maximum: return kernel_for<ScalarOp::Maximum>(t);
    case ScalarOp::Minimum: return kernel_for<ScalarOp::Minimum>(t);
    case ScalarOp::Lt: return kernel_for<ScalarOp::Lt>(t);
    case ScalarOp::Gt: return kernel_for<ScalarOp::Gt>(t);
    case ScalarOp::Le: return kernel_for<ScalarOp::Le>(t);
    case ScalarOp::Ge: return kernel_for<ScalarOp::Ge>(t);
    case ScalarOp::Eq: return kernel_for<ScalarOp::Eq>(t);
    case ScalarOp::Neq: return kernel_for<ScalarOp::Neq>(t);
    case ScalarOp::And: return kernel_for<ScalarOp::And>(t);
    case ScalarOp::Or: return kernel_for<ScalarOp::Or>(t);
    case ScalarOp::Xor: return kernel_for<ScalarOp::Xor>(t);
    case ScalarOp::Not: return kernel_for<ScalarOp::Not>(t);
    case ScalarOp::Switch: return kernel_for<ScalarOp::Switch>(t);
    case ScalarOp::Clip: return kernel_for<ScalarOp::Clip>(t);
    case ScalarOp::Identity: return kernel_for<ScalarOp::Identity>(t);
    case ScalarOp::Cast: return nullptr;
    default: return find_math_kernel(op, t);
  }
}

KernelFn find_cast_kernel(DType from, DType to) {
  return visit_dtype(from, [&]<class S>() {
    return visit_dtype(to, [&]<class D>() -> KernelFn { return &cast_loop<S, D>; });
  });
}

}  // namespace rw::detail

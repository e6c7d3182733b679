// Elementwise kernels of the float-only ops (exponentials, logarithms,
// trigonometry, special functions, rounding): kept apart from the others so
// the two tables compile in parallel.
#include "runtime/detail/kernel_loops.hpp"

namespace rw::detail {

KernelFn find_math_kernel(ScalarOp op, DType t) {
  switch (op) {
    case ScalarOp::TrueDiv: return kernel_for<ScalarOp::TrueDiv>(t);
    case ScalarOp::Reciprocal: return kernel_for<ScalarOp::Reciprocal>(t);
    case ScalarOp::Exp: return kernel_for<ScalarOp::Exp>(t);
    case ScalarOp::Exp2: return kernel_for<ScalarOp::Exp2>(t);
    case ScalarOp::Expm1: return kernel_for<ScalarOp::Expm1>(t);
    case ScalarOp::Log: return kernel_for<ScalarOp::Log>(t);
    case ScalarOp::Log2: return kernel_for<ScalarOp::Log2>(t);
    case ScalarOp::Log10: return kernel_for<ScalarOp::Log10>(t);
    case ScalarOp::Log1p: return kernel_for<ScalarOp::Log1p>(t);
    case ScalarOp::Sqrt: return kernel_for<ScalarOp::Sqrt>(t);
    case ScalarOp::Sigmoid: return kernel_for<ScalarOp::Sigmoid>(t);
    case ScalarOp::Softplus: return kernel_for<ScalarOp::Softplus>(t);
    case ScalarOp::Sin: return kernel_for<ScalarOp::Sin>(t);
    case ScalarOp::Cos: return kernel_for<ScalarOp::Cos>(t);
    case ScalarOp::Tan: return kernel_for<ScalarOp::Tan>(t);
    case ScalarOp::Sinh: return kernel_for<ScalarOp::Sinh>(t);
    case ScalarOp::Cosh: return kernel_for<ScalarOp::Cosh>(t);
    case ScalarOp::Tanh: return kernel_for<ScalarOp::Tanh>(t);
    case ScalarOp::ArcSin: return kernel_for<ScalarOp::ArcSin>(t);
    case ScalarOp::ArcCos: return kernel_for<ScalarOp::ArcCos>(t);
    case ScalarOp::ArcTan: return kernel_for<ScalarOp::ArcTan>(t);
    case ScalarOp::Erf: return kernel_for<ScalarOp::Erf>(t);
    case ScalarOp::Erfc: return kernel_for<ScalarOp::Erfc>(t);
    case ScalarOp::Erfinv: return kernel_for<ScalarOp::Erfinv>(t);
    case ScalarOp::Erfcx: return kernel_for<ScalarOp::Erfcx>(t);
    case ScalarOp::Gammaln: return kernel_for<ScalarOp::Gammaln>(t);
    case ScalarOp::Digamma: return kernel_for<ScalarOp::Digamma>(t);
    case ScalarOp::Trigamma: return kernel_for<ScalarOp::Trigamma>(t);
    case ScalarOp::Betaln: return kernel_for<ScalarOp::Betaln>(t);
    case ScalarOp::Log1mexp: return kernel_for<ScalarOp::Log1mexp>(t);
    case ScalarOp::Logit: return kernel_for<ScalarOp::Logit>(t);
    case ScalarOp::Xlogy: return kernel_for<ScalarOp::Xlogy>(t);
    case ScalarOp::Xlog1py: return kernel_for<ScalarOp::Xlog1py>(t);
    case ScalarOp::Softsign: return kernel_for<ScalarOp::Softsign>(t);
    case ScalarOp::Gelu: return kernel_for<ScalarOp::Gelu>(t);
    case ScalarOp::I0: return kernel_for<ScalarOp::I0>(t);
    case ScalarOp::I1: return kernel_for<ScalarOp::I1>(t);
    case ScalarOp::Floor: return kernel_for<ScalarOp::Floor>(t);
    case ScalarOp::Ceil: return kernel_for<ScalarOp::Ceil>(t);
    case ScalarOp::Round: return kernel_for<ScalarOp::Round>(t);
    default: return nullptr;
  }
}

}  // namespace rw::detail

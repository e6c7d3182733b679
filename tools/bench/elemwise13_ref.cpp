// Compiled with -O3 -march=native -ffast-math -ffp-contract=fast (see
// tools/CMakeLists.txt): the flags of issue 23's reference loop. g++ calls
// libmvec's _ZGV…_exp and _ZGV…_tanh on whole vectors.
#include "elemwise13_ref.hpp"

#include <cmath>

namespace rw::bench {

void elemwise13_reference(std::int64_t n, const double* x, const double* y, double* z) {
  for (std::int64_t i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    z[i] = std::exp(-a) * b + std::tanh(a) * (b - 1.5) / (1.0 + a * a) - std::sqrt(std::abs(b));
  }
}

}  // namespace rw::bench

// The reference of bench_fusion's elemwise13: the practical limit of
// shared/bench/runtime.md, compiled in its own translation unit.
#pragma once

#include <cstdint>

namespace rw::bench {

/// z[i] = exp(-x) * y + tanh(x) * (y - 1.5) / (1 + x * x) - sqrt(|y|) for i in
/// [0, n): one fused loop that g++ -O3 -march=native -ffast-math vectorises
/// through glibc's libmvec (tools/CMakeLists.txt), run by the caller alone.
void elemwise13_reference(std::int64_t n, const double* x, const double* y, double* z);

}  // namespace rw::bench

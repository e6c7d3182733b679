// Samplers: the library's own transformations of rw::Rng's bit stream into
// draws of the standard distributions (no std:: distributions), so that a
// generator state gives the same draws with every compiler and standard
// library.
#pragma once

#include <cstdint>
#include <span>

#include "runtime/rng.hpp"

namespace rw::sample {

// Every sampler takes parameters already checked by its caller (the
// RandomVariable Ops name the argument at fault); each documents its
// algorithm, because the algorithm is what fixes the numbers a state gives.
// Uniforms come from Rng::next_double (53 bits). Samplers that need
// log, exp, sqrt or cos use the C library's, which is exact to its last bit
// on the platforms rwgraph supports (glibc, libc++ over it, macOS libm).

/// Uniform in (0, 1]: 1 - next_double(), safe to take the logarithm of.
double open_unit(Rng& g);
/// Standard normal: Box–Muller from two uniforms, the cosine branch only
/// (no value is kept between draws, so a state is all a generator holds).
double standard_normal(Rng& g);
/// Standard exponential: -log(u), u uniform in (0, 1].
double standard_exponential(Rng& g);
/// Gamma(shape, 1), shape >= 0: Marsaglia–Tsang (2000) for shape >= 1; for
/// shape < 1, Gamma(shape + 1) · u^(1/shape); 0 for shape 0.
double standard_gamma(Rng& g, double shape);
/// Beta(a, b), a, b > 0: X / (X + Y) for X ~ Gamma(a), Y ~ Gamma(b); when
/// both underflow to 0, a Bernoulli(a / (a + b)) draw.
double beta(Rng& g, double a, double b);
/// Poisson(lam), lam >= 0: while lam > 16, Knuth's reduction (the m-th
/// arrival, m = ⌊7 lam / 8⌋, is Gamma(m): before lam, count m and go on with
/// what is left; after it, the rest is Binomial(m - 1, lam / X)); then
/// inversion by sequential search.
std::int64_t poisson(Rng& g, double lam);
/// Binomial(n, p), n >= 0, p in [0, 1]: for p > 1/2, n - Binomial(n, 1 - p);
/// when n·p < 16, inversion by sequential search; otherwise Knuth's
/// reduction through the a-th of n uniform order statistics, a = 1 + ⌊n/2⌋,
/// which is Beta(a, n + 1 - a).
std::int64_t binomial(Rng& g, std::int64_t n, double p);
/// An index in [0, p.size()) drawn with probability p[k] / Σp (Σp > 0): one
/// uniform scaled by the sum, then the first k whose running sum exceeds it
/// (the last positive weight when rounding leaves none).
std::int64_t categorical(Rng& g, std::span<const double> p);

/// The lower Cholesky factor of the symmetric positive semi-definite n × n
/// matrix `a` (row-major) into `l`; a pivot within n·ε·max|a| of zero gives
/// a zero column. False when `a` is not symmetric or not semi-definite.
bool psd_cholesky(std::span<const double> a, std::int64_t n, std::span<double> l);

}  // namespace rw::sample

// Special functions the C++ library lacks, in double precision: digamma,
// trigamma, erfinv, erfcinv, erfcx. Float32 callers go through double.
#pragma once

#include <cmath>
#include <limits>
#include <numbers>

namespace rw::detail::special {

/// ψ(x) = d/dx log Γ(x): reflection below 0.5, the recurrence ψ(x) = ψ(x+1) - 1/x
/// up to 10, then the asymptotic series (error below 1e-15 there).
inline double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == 0) return -std::numeric_limits<double>::infinity();
  if (x < 0 && x == std::floor(x)) return std::numeric_limits<double>::quiet_NaN();
  double acc = 0;
  if (x < 0.5) {
    // ψ(1 - x) - ψ(x) = π cot(πx).
    acc = -std::numbers::pi / std::tan(std::numbers::pi * x);
    x = 1 - x;
  }
  while (x < 10) {
    acc -= 1 / x;
    x += 1;
  }
  const double r = 1 / (x * x);
  const double series =
      r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132 - r * 691.0 / 32760)))));
  return acc + std::log(x) - 0.5 / x - series;
}

/// ψ₁(x) = d/dx ψ(x): reflection below 0.5, recurrence ψ₁(x) = ψ₁(x+1) + 1/x²
/// up to 10, then the asymptotic series.
inline double trigamma(double x) {
  if (std::isnan(x)) return x;
  if (x <= 0 && x == std::floor(x)) return std::numeric_limits<double>::infinity();
  double acc = 0, sign = 1;
  if (x < 0.5) {
    // ψ₁(1 - x) + ψ₁(x) = π² / sin²(πx).
    const double s = std::sin(std::numbers::pi * x);
    acc = std::numbers::pi * std::numbers::pi / (s * s);
    sign = -1;
    x = 1 - x;
  }
  double small = 0;
  while (x < 10) {
    small += 1 / (x * x);
    x += 1;
  }
  const double r = 1 / (x * x);
  const double series =
      1 / x + r / 2 +
      r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * (5.0 / 66 - r * 691.0 / 2730)))));
  return acc + sign * (small + series);
}

/// erf⁻¹(y) for y in [-1, 1] (odd, so computed for y >= 0): a polynomial
/// first guess (Giles, 2010), then Newton steps on erf(x) - y (on erfc near
/// 1) to double precision.
inline double erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y < 0) return -erfinv(-y);
  double w = -std::log((1 - y) * (1 + y));
  double p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  const double two_over_sqrt_pi = 2 / std::sqrt(std::numbers::pi);
  // The guess is good to single precision for |y| < 1 - 1e-7, worse beyond:
  // Newton until the step is below an ulp (quadratic, so a few steps).
  for (int k = 0; k < 12; ++k) {
    // Near 1, erfc keeps the digits that 1 - erf would lose.
    const double err = y > 0.5 ? (1 - y) - std::erfc(x) : std::erf(x) - y;
    const double step = err / (two_over_sqrt_pi * std::exp(-x * x));
    x -= step;
    if (!(std::fabs(step) > 1e-16 * std::fabs(x))) break;
  }
  return x;
}

/// erfcx(x) = e^{x²} erfc(x), without the overflow of e^{x²} for large x:
/// the product with x² split exactly below 26, the asymptotic series above.
inline double erfcx(double x) {
  if (std::isnan(x)) return x;
  if (x < 26) {
    const double hi = x * x;
    const double lo = std::fma(x, x, -hi);  // x² = hi + lo exactly
    return std::exp(hi) * std::exp(lo) * std::erfc(x);
  }
  // 1 / (x √π) · Σ (-1)^k (2k - 1)!! / (2x²)^k, terms below 1e-16 by k = 8.
  const double q = 1 / (2 * x * x);
  double term = 1, sum = 1;
  for (int k = 1; k <= 8; ++k) {
    term *= -(2 * k - 1) * q;
    sum += term;
  }
  return sum / (x * std::sqrt(std::numbers::pi));
}

/// erfc⁻¹(y) for y in [0, 2], to the last digits where erfinv(1 - y) would
/// lose them (y small): erfcinv(2 - y) = -erfcinv(y) gives y <= 1; the first
/// guess is erfinv(1 - y) for y >= 1/16 and the fixed point of
/// x² = -log(y) - log(x √π) (erfc's asymptotic form) below; then Newton
/// steps on log(erfc(x)) = log(erfcx(x)) - x², which neither underflows nor
/// loses the tail.
inline double erfcinv(double y) {
  if (std::isnan(y) || y < 0 || y > 2) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0) return std::numeric_limits<double>::infinity();
  if (y == 2) return -std::numeric_limits<double>::infinity();
  if (y > 1) return -erfcinv(2 - y);  // 2 - y is exact for y in [1, 2]
  const double log_y = std::log(y);
  const double sqrt_pi = std::sqrt(std::numbers::pi);
  double x;
  if (y >= 0.0625) {
    x = erfinv(1 - y);
  } else {
    x = std::sqrt(-log_y);
    for (int k = 0; k < 3; ++k) x = std::sqrt(-log_y - std::log(x * sqrt_pi));
  }
  for (int k = 0; k < 8; ++k) {
    const double e = erfcx(x);
    // d log(erfc(x)) / dx = -2 / (√π erfcx(x)).
    const double step = (std::log(e) - x * x - log_y) * sqrt_pi * e / 2;
    x += step;
    if (!(std::fabs(step) > 1e-16 * std::fabs(x))) break;
  }
  return x;
}

}  // namespace rw::detail::special

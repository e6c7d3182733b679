// Samplers of the standard distributions over rw::Rng's bit stream.
#include "runtime/kernels/random.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace rw::sample {

namespace {

constexpr double kInversionLimit = 16.0;

}  // namespace

double open_unit(Rng& g) {
  return 1.0 - g.next_double();
}

double standard_normal(Rng& g) {
  const double u1 = open_unit(g), u2 = g.next_double();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

double standard_exponential(Rng& g) {
  return -std::log(open_unit(g));
}

double standard_gamma(Rng& g, double shape) {
  if (shape == 0.0) return 0.0;
  if (shape < 1.0) {
    const double x = standard_gamma(g, shape + 1.0);
    return x * std::pow(open_unit(g), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x, v;
    do {
      x = standard_normal(g);
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = open_unit(g);
    if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

double beta(Rng& g, double a, double b) {
  const double x = standard_gamma(g, a), y = standard_gamma(g, b);
  if (x + y > 0.0) return x / (x + y);
  return g.next_double() < a / (a + b) ? 1.0 : 0.0;
}

namespace {

std::int64_t poisson_inversion(Rng& g, double lam) {
  double p = std::exp(-lam), u = g.next_double();
  std::int64_t k = 0;
  // The tail beyond 1000 terms is below 2^-53 for lam <= 16.
  while (u >= p && k < 1000) {
    u -= p;
    ++k;
    p *= lam / static_cast<double>(k);
  }
  return k;
}

std::int64_t binomial_inversion(Rng& g, std::int64_t n, double p) {
  const double q = 1.0 - p, s = p / q, a = static_cast<double>(n + 1) * s;
  double r = std::pow(q, static_cast<double>(n)), u = g.next_double();
  std::int64_t k = 0;
  while (u >= r && k < n) {
    u -= r;
    ++k;
    r *= a / static_cast<double>(k) - s;
  }
  return k;
}

}  // namespace

std::int64_t binomial(Rng& g, std::int64_t n, double p) {
  if (n == 0 || p == 0.0) return 0;
  if (p == 1.0) return n;
  if (p > 0.5) return n - binomial(g, n, 1.0 - p);
  std::int64_t base = 0;
  while (static_cast<double>(n) * p >= kInversionLimit) {
    const std::int64_t a = 1 + n / 2, b = n + 1 - a;
    const double x = beta(g, static_cast<double>(a), static_cast<double>(b));
    if (x >= p) {
      n = a - 1;
      p /= x;
    } else {
      base += a;
      n = b - 1;
      p = (p - x) / (1.0 - x);
    }
    if (n == 0 || p <= 0.0) return base;
    if (p >= 1.0) return base + n;
    if (p > 0.5) return base + n - binomial(g, n, 1.0 - p);
  }
  return base + binomial_inversion(g, n, p);
}

std::int64_t poisson(Rng& g, double lam) {
  std::int64_t base = 0;
  while (lam > kInversionLimit) {
    const auto m = static_cast<std::int64_t>(std::floor(lam * 7.0 / 8.0));
    const double x = standard_gamma(g, static_cast<double>(m));
    if (x >= lam) return base + binomial(g, m - 1, lam / x);
    base += m;
    lam -= x;
  }
  return base + poisson_inversion(g, lam);
}

std::int64_t categorical(Rng& g, std::span<const double> p) {
  double total = 0.0;
  for (double w : p) total += w;
  const double u = g.next_double() * total;
  double run = 0.0;
  std::int64_t last = 0;
  for (std::size_t k = 0; k < p.size(); ++k) {
    if (p[k] <= 0.0) continue;
    last = static_cast<std::int64_t>(k);
    run += p[k];
    if (u < run) return last;
  }
  return last;
}

bool psd_cholesky(std::span<const double> a, std::int64_t n, std::span<double> l) {
  double scale = 0.0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  const double tol = static_cast<double>(n) * std::numeric_limits<double>::epsilon() * scale;
  std::fill(l.begin(), l.end(), 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < i; ++j)
      if (std::abs(a[i * n + j] - a[j * n + i]) > 8 * tol + 0.0) return false;
  for (std::int64_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (std::int64_t k = 0; k < j; ++k) d -= l[j * n + k] * l[j * n + k];
    if (d < -tol) return false;
    if (d <= tol) continue;  // a zero column: that direction has no variance
    const double ljj = std::sqrt(d);
    l[j * n + j] = ljj;
    for (std::int64_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (std::int64_t k = 0; k < j; ++k) s -= l[i * n + k] * l[j * n + k];
      l[i * n + j] = s / ljj;
    }
  }
  return true;
}

}  // namespace rw::sample

// Statistical tests for samplers: the Kolmogorov–Smirnov and chi-square
// statistics with their critical values at significance 0.001, and Catch2
// checks over them.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

namespace rw::testing {

// Tests use these at a fixed seed, so they pass or fail the same way on every
// run; the tolerances are those of a test at significance 0.001 (a correct
// sampler at a random seed would fail one in a thousand).
constexpr double kZ = 3.09;  // the standard normal's 0.999 quantile

/// The Kolmogorov–Smirnov statistic of `xs` against `cdf`.
template <class Cdf>
double ks_statistic(std::vector<double> xs, Cdf cdf) {
  std::sort(xs.begin(), xs.end());
  const double n = static_cast<double>(xs.size());
  double d = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double f = cdf(xs[i]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  return d;
}

/// The KS critical value at significance 0.001: 1.95 / sqrt(n).
inline double ks_critical(std::size_t n) {
  return 1.95 / std::sqrt(static_cast<double>(n));
}

/// The chi-square statistic of integer draws against probabilities `pmf(k)`
/// for k in [lo, hi]; cells of expected count below 5 are pooled with the
/// next, and the tail beyond hi with the last. Returns (statistic, degrees).
template <class Pmf>
std::pair<double, int> chi_square(const std::vector<double>& xs, std::int64_t lo, std::int64_t hi,
                                  Pmf pmf) {
  std::map<std::int64_t, double> count;
  for (double x : xs) count[std::clamp(static_cast<std::int64_t>(x), lo, hi)] += 1;
  const double n = static_cast<double>(xs.size());
  double stat = 0, obs = 0, expct = 0, mass = 0;
  int cells = 0;
  for (std::int64_t k = lo; k <= hi; ++k) {
    const double p = k == hi ? 1.0 - mass : pmf(k);
    mass += p;
    obs += count[k];
    expct += n * p;
    if (expct >= 5 || k == hi) {
      if (expct > 0) {
        stat += (obs - expct) * (obs - expct) / expct;
        ++cells;
      }
      obs = expct = 0;
    }
  }
  return {stat, cells - 1};
}

/// The chi-square critical value at significance 0.001 (Wilson–Hilferty).
inline double chi_critical(int df) {
  const double k = df, a = 2.0 / (9.0 * k);
  return k * std::pow(1.0 - a + kZ * std::sqrt(a), 3.0);
}

/// Checks that integer draws pass the chi-square test against `pmf`.
template <class Pmf>
void check_chi_square(const std::vector<double>& xs, std::int64_t lo, std::int64_t hi, Pmf pmf) {
  const auto [stat, df] = chi_square(xs, lo, hi, pmf);
  INFO("chi-square " << stat << " with " << df << " degrees, critical " << chi_critical(df));
  CHECK(df >= 1);
  CHECK(stat < chi_critical(df));
}

/// Checks that draws pass the Kolmogorov–Smirnov test against `cdf`.
template <class Cdf>
void check_ks(const std::vector<double>& xs, Cdf cdf) {
  const double d = ks_statistic(xs, cdf);
  INFO("KS statistic " << d << ", critical " << ks_critical(xs.size()));
  CHECK(d < ks_critical(xs.size()));
}

inline double normal_cdf(double x, double mu, double sigma) {
  return 0.5 * std::erfc(-(x - mu) / (sigma * std::sqrt(2.0)));
}

}  // namespace rw::testing

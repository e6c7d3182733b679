// Rng: xoshiro256** with splitmix64 seeding; uniform, normal and integer tensors.
#include "runtime/rng.hpp"

#include <cmath>
#include <limits>
#include <numbers>

#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

void check_float(const char* what, DType dtype) {
  if (!is_float(dtype))
    throw ValueError(fmt::format("Rng::{} needs a float dtype, got {}{}", what, dtype_name(dtype),
                                 is_integer(dtype) ? "; use `integers`" : ""));
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& s : s_) s = splitmix64(x);
}

Rng Rng::from_state(const State& state) {
  if (state[0] == 0 && state[1] == 0 && state[2] == 0 && state[3] == 0)
    throw ValueError("Rng::from_state: the all-zero state is not a xoshiro256** state");
  Rng r;
  for (std::size_t i = 0; i < 4; ++i) r.s_[i] = state[i];
  return r;
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::next_double() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double Rng::next_normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  // 1 - u lies in (0, 1], so the logarithm is finite.
  const double u1 = 1.0 - next_double(), u2 = next_double();
  const double r = std::sqrt(-2.0 * std::log(u1));
  const double theta = 2.0 * std::numbers::pi * u2;
  spare_ = r * std::sin(theta);
  has_spare_ = true;
  return r * std::cos(theta);
}

std::int64_t Rng::next_integer(std::int64_t low, std::int64_t high) {
  if (low >= high)
    throw ValueError(fmt::format("Rng::next_integer: empty range [{}, {})", low, high));
  const std::uint64_t range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  // Reject the top sliver of values that would make some results likelier.
  const std::uint64_t limit =
      std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % range;
  std::uint64_t x;
  do x = next_u64();
  while (x >= limit);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(low) + x % range);
}

Rng Rng::split() {
  return Rng(next_u64());
}

Tensor Rng::uniform(std::span<const std::int64_t> shape, double low, double high, DType dtype) {
  check_float("uniform", dtype);
  if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
    throw ValueError(fmt::format("Rng::uniform: need finite low < high, got [{}, {})", low, high));
  Tensor t = Tensor::empty(dtype, shape);
  const std::int64_t n = t.size();
  if (dtype == DType::Float64) {
    double* p = t.data<double>();
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = low + (high - low) * next_double();
      p[i] = v < high ? v : std::nextafter(high, low);
    }
  } else {
    float* p = t.data<float>();
    const float lo = static_cast<float>(low), hi = static_cast<float>(high);
    for (std::int64_t i = 0; i < n; ++i) {
      const float u = static_cast<float>(next_u64() >> 40) * 0x1.0p-24f;
      const float v = lo + (hi - lo) * u;
      p[i] = v < hi ? v : std::nextafter(hi, lo);
    }
  }
  return t;
}

Tensor Rng::normal(std::span<const std::int64_t> shape, double mean, double stddev, DType dtype) {
  check_float("normal", dtype);
  if (!(stddev >= 0) || !std::isfinite(mean) || !std::isfinite(stddev))
    throw ValueError(fmt::format(
        "Rng::normal: need a finite mean and stddev >= 0, got mean {} stddev {}", mean, stddev));
  Tensor t = Tensor::empty(DType::Float64, shape);
  double* p = t.data<double>();
  for (std::int64_t i = 0; i < t.size(); ++i) p[i] = mean + stddev * next_normal();
  return dtype == DType::Float64 ? t : cast(t, dtype);
}

Tensor Rng::integers(std::span<const std::int64_t> shape, std::int64_t low, std::int64_t high,
                     DType dtype) {
  if (!is_integer(dtype))
    throw ValueError(
        fmt::format("Rng::integers needs an integer dtype, got {}", dtype_name(dtype)));
  if (low >= high) throw ValueError(fmt::format("Rng::integers: empty range [{}, {})", low, high));
  const bool fits = visit_dtype(dtype, [&]<class T>() {
    return low >= static_cast<std::int64_t>(std::numeric_limits<T>::min()) &&
           high - 1 <= static_cast<std::int64_t>(std::numeric_limits<T>::max());
  });
  if (!fits)
    throw ValueError(
        fmt::format("Rng::integers: [{}, {}) does not fit in {}", low, high, dtype_name(dtype)));
  Tensor t = Tensor::empty(DType::Int64, shape);
  std::int64_t* p = t.data<std::int64_t>();
  for (std::int64_t i = 0; i < t.size(); ++i) p[i] = next_integer(low, high);
  return dtype == DType::Int64 ? t : cast(t, dtype);
}

}  // namespace rw

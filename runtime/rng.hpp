// Rng: a seeded random generator whose streams are the same on every run and
// platform, and the random tensors drawn from it.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>

#include "runtime/dtype.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// A pseudo-random generator (xoshiro256**, seeded through splitmix64). The
/// library turns its bits into values itself — no std:: distributions, whose
/// output differs between standard libraries — so a seed gives the same
/// tensors on every run and platform (normal draws go through log, sqrt and
/// cos/sin of the C library, exact to its last bit). Not thread-safe: give
/// each thread its own generator, e.g. from `split()`.
class Rng {
 public:
  /// The whole state of the bit stream: xoshiro256**'s four words.
  using State = std::array<std::uint64_t, 4>;

  explicit Rng(std::uint64_t seed = 0);
  /// A generator continuing from `state` (as `state()` gave it); throws
  /// ValueError for the all-zero state, which xoshiro256** never
  /// leaves. The normal left over from a Box–Muller pair is not part of the
  /// state: a generator made so starts without one.
  static Rng from_state(const State& state);
  /// The four words of the bit stream (not the spare normal).
  State state() const { return {s_[0], s_[1], s_[2], s_[3]}; }

  /// 64 random bits.
  std::uint64_t next_u64();
  /// Uniform in [0, 1), from 53 random bits.
  double next_double();
  /// Standard normal (Box–Muller; the second value of a pair is kept for the
  /// next call).
  double next_normal();
  /// Uniform integer in [low, high); throws ValueError when
  /// low >= high. Unbiased (rejection sampling).
  std::int64_t next_integer(std::int64_t low, std::int64_t high);
  /// A generator with an independent stream, advancing this one.
  Rng split();

  /// Elements uniform in [low, high), of float dtype `dtype`.
  Tensor uniform(std::span<const std::int64_t> shape, double low = 0.0, double high = 1.0,
                 DType dtype = DType::Float64);
  Tensor uniform(std::initializer_list<std::int64_t> shape, double low = 0.0, double high = 1.0,
                 DType dtype = DType::Float64) {
    return uniform(std::span<const std::int64_t>(shape.begin(), shape.size()), low, high, dtype);
  }
  /// Elements normal with mean `mean` and standard deviation `stddev`, of
  /// float dtype `dtype`.
  Tensor normal(std::span<const std::int64_t> shape, double mean = 0.0, double stddev = 1.0,
                DType dtype = DType::Float64);
  Tensor normal(std::initializer_list<std::int64_t> shape, double mean = 0.0, double stddev = 1.0,
                DType dtype = DType::Float64) {
    return normal(std::span<const std::int64_t>(shape.begin(), shape.size()), mean, stddev, dtype);
  }
  /// Elements uniform among the integers in [low, high), of integer dtype
  /// `dtype` (whose range must hold them).
  Tensor integers(std::span<const std::int64_t> shape, std::int64_t low, std::int64_t high,
                  DType dtype = DType::Int64);
  Tensor integers(std::initializer_list<std::int64_t> shape, std::int64_t low, std::int64_t high,
                  DType dtype = DType::Int64) {
    return integers(std::span<const std::int64_t>(shape.begin(), shape.size()), low, high, dtype);
  }

 private:
  std::uint64_t s_[4];
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace rw

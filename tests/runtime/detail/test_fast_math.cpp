// The branch-free tanh against the C library (and long double) over every
// range it treats differently, through the vectorised kernel and one value at
// a time; special values.
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/detail/fast_math.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/rng.hpp"

using namespace rw;

namespace {

// Distance in units in the last place: doubles mapped to integers that are
// ordered as the doubles are (-0 and +0 one apart).
std::int64_t ulp_distance(double a, double b) {
  auto key = [](double v) {
    const auto i = std::bit_cast<std::int64_t>(v);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
  };
  const std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

// Values spread evenly over [-scale, scale].
std::vector<double> spread(double scale, std::int64_t n, std::uint64_t seed) {
  const Tensor t = Rng(seed).uniform({n}, -scale, scale);
  return std::vector<double>(t.data<double>(), t.data<double>() + n);
}

// A 1-d float64 tensor of `values`.
Tensor vector_of(const std::vector<double>& values) {
  const std::vector<std::int64_t> shape = {static_cast<std::int64_t>(values.size())};
  return Tensor::from_vector(values, shape);
}

}  // namespace

TEST_CASE("the vectorised tanh kernel is within 2 ulp of tanhl and std::tanh", "[runtime]") {
  // Scales cover the polynomial (|x| < 0.625), the exponential branch, the
  // border between them, the saturation at 22 and tiny arguments.
  for (double scale : {1e-300, 1e-8, 0.01, 0.5, 0.625, 0.7, 2.0, 8.0, 25.0, 1e3}) {
    const std::vector<double> xs = spread(scale, 20000, 7);
    const Tensor x = vector_of(xs);
    const Tensor y = elemwise(ScalarOp::Tanh, x);
    std::int64_t worst_std = 0, worst_long = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
      const double got = y.data<double>()[i];
      worst_std = std::max(worst_std, ulp_distance(got, std::tanh(xs[i])));
      const auto exact = static_cast<double>(std::tanh(static_cast<long double>(xs[i])));
      worst_long = std::max(worst_long, ulp_distance(got, exact));
    }
    INFO("scale " << scale);
    CHECK(worst_long <= 1);
    CHECK(worst_std <= 2);
  }
}

TEST_CASE("tanh near the branch border and the saturation point", "[runtime]") {
  for (double x0 : {0.625, 22.0, 19.0}) {
    double x = x0;
    for (int k = 0; k < 200; ++k) x = std::nextafter(x, 0.0);
    for (int k = 0; k < 400; ++k, x = std::nextafter(x, 100.0)) {
      CHECK(ulp_distance(detail::fast::tanh(x), std::tanh(x)) <= 2);
      CHECK(ulp_distance(detail::fast::tanh(-x), std::tanh(-x)) <= 2);
    }
  }
}

TEST_CASE("tanh of special values", "[runtime]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> xs = {0.0, -0.0, inf, -inf, std::nan(""), tiny, -tiny, 1e-310, 1e300};
  const Tensor y = elemwise(ScalarOp::Tanh, vector_of(xs));
  const double* v = y.data<double>();
  CHECK(std::bit_cast<std::uint64_t>(v[0]) == std::bit_cast<std::uint64_t>(0.0));
  CHECK(std::bit_cast<std::uint64_t>(v[1]) == std::bit_cast<std::uint64_t>(-0.0));
  CHECK(v[2] == 1.0);
  CHECK(v[3] == -1.0);
  CHECK(std::isnan(v[4]));
  CHECK(v[5] == tiny);
  CHECK(v[6] == -tiny);
  CHECK(v[7] == 1e-310);
  CHECK(v[8] == 1.0);
}

TEST_CASE("float32 tanh is within an ulp of the exact result", "[runtime]") {
  const std::vector<double> xs = spread(6.0, 5000, 11);
  const Tensor x = cast(vector_of(xs), DType::Float32);
  const Tensor y = elemwise(ScalarOp::Tanh, x);
  REQUIRE(y.dtype() == DType::Float32);
  for (std::int64_t i = 0; i < 5000; ++i) {
    const float xf = x.data<float>()[i];
    const auto exact = static_cast<float>(std::tanh(static_cast<long double>(xf)));
    const float got = y.data<float>()[i];
    const bool close =
        got == exact || got == std::nextafter(exact, 2.0f) || got == std::nextafter(exact, -2.0f);
    INFO("x " << xf << " got " << got << " exact " << exact);
    CHECK(close);
  }
}

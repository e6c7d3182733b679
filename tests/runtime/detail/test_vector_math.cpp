// The vector kernels (SLEEF, detail/vector_ops.hpp) against a long-double
// reference: the worst error in ulp of every vectorised function over sampled
// ranges (tiny, subnormal, ordinary, huge arguments) for float64 and float32,
// within the bounds docs/runtime.md states; and special values (NaN, ±inf,
// ±0) as the C library gives them.
//
//   RW_ULP_TABLE=1 build/tests/rw_tests_runtime "[ulp]"   # prints the table
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/detail/kernel_table.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/rng.hpp"

using namespace rw;

namespace {

using Ref = std::function<long double(long double, long double)>;

/// A vectorised op, the ranges its arguments are sampled from, its
/// long-double reference and the bound on its error in ulp (docs/runtime.md).
struct Case {
  ScalarOp op;
  std::vector<std::pair<double, double>> ranges;  // for the first operand
  Ref ref;
  double bound;
  std::pair<double, double> second = {0, 0};  // range of the second operand, if any
  double bound32 = -1;  // the bound on float32 where it differs
};

long double sigmoid_ref(long double x) {
  return 1.0L / (1.0L + std::exp(-x));
}

const std::vector<Case>& cases() {
  constexpr double kBig = 1e300;
  constexpr double kLn2 = 0.6931471805599453;
  static const std::vector<Case> all = {
      {ScalarOp::Exp, {{-800, 800}, {-1, 1}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::exp(x); }, 1},
      {ScalarOp::Exp2, {{-1100, 1100}, {-1, 1}}, [](auto x, auto) { return std::exp2(x); }, 1},
      {ScalarOp::Expm1, {{-800, 800}, {-1e-3, 1e-3}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::expm1(x); }, 1},
      {ScalarOp::Log, {{0, kBig}, {0, 2}, {0, 1e-300}}, [](auto x, auto) { return std::log(x); }, 1},
      {ScalarOp::Log2, {{0, kBig}, {0, 2}, {0, 1e-300}}, [](auto x, auto) { return std::log2(x); }, 1},
      {ScalarOp::Log10, {{0, kBig}, {0, 2}, {0, 1e-300}}, [](auto x, auto) { return std::log10(x); }, 1},
      {ScalarOp::Log1p, {{-1, kBig}, {-1e-3, 1e-3}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::log1p(x); }, 1},
      {ScalarOp::Sqrt, {{0, kBig}, {0, 1e-300}}, [](auto x, auto) { return std::sqrt(x); }, 0.5},
      {ScalarOp::Sin, {{-10, 10}, {-1e6, 1e6}, {-kBig, kBig}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::sin(x); }, 1},
      {ScalarOp::Cos, {{-10, 10}, {-1e6, 1e6}, {-kBig, kBig}}, [](auto x, auto) { return std::cos(x); }, 1},
      {ScalarOp::Tan, {{-10, 10}, {-1e6, 1e6}, {-kBig, kBig}}, [](auto x, auto) { return std::tan(x); }, 1},
      // Beyond |x| = 709 (88 for float32), where SLEEF's sinh and cosh overflow
      // early, the C library's: 1.39 ulp there.
      {ScalarOp::Sinh, {{-720, 720}, {-1, 1}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::sinh(x); }, 1.5},
      {ScalarOp::Cosh, {{-720, 720}, {-1, 1}}, [](auto x, auto) { return std::cosh(x); }, 1.5},
      // float64 tanh is the runtime's own (detail/fast_math.hpp), float32 SLEEF's.
      {ScalarOp::Tanh, {{-30, 30}, {-1, 1}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::tanh(x); }, 1.5, {}, 1.01},
      {ScalarOp::ArcSin, {{-1, 1}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::asin(x); }, 1},
      {ScalarOp::ArcCos, {{-1, 1}}, [](auto x, auto) { return std::acos(x); }, 1},
      {ScalarOp::ArcTan, {{-kBig, kBig}, {-10, 10}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::atan(x); }, 1},
      // erf and erfc lose a little where their results are near or below the
      // smallest normal (erf of a tiny x, erfc of a large one): 1.004 and
      // 1.04 ulp with AVX-512, 1.56 and 1.98 with SSE2's variants, which have
      // no FMA.
      {ScalarOp::Erf, {{-7, 7}, {-1e-300, 1e-300}}, [](auto x, auto) { return std::erf(x); }, 1.15, {}, 1.6},
      {ScalarOp::Erfc, {{-7, 28}, {-1, 1}}, [](auto x, auto) { return std::erfc(x); }, 1.7, {}, 2},
      // Away from the poles and zeros of Γ, where the error is relative to
      // a result near 0 (SLEEF's bound holds for x > 0 and moderate x < 0).
      // Beyond 1e36 float32 uses the C library's (1.13 ulp there).
      {ScalarOp::Gammaln, {{0, 1e5}, {0, 1e-300}, {3, 1e300}}, [](auto x, auto) { return std::lgamma(x); }, 1, {}, 1.5},
      {ScalarOp::Sigmoid, {{-750, 750}, {-30, 30}, {-1e-300, 1e-300}}, [](auto x, auto) { return sigmoid_ref(x); }, 2},
      {ScalarOp::Softplus,
       {{-750, 750}, {-30, 30}, {-1e-300, 1e-300}},
       [](auto x, auto) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }, 2},
      {ScalarOp::Log1mexp,
       {{-750, 0}, {-1, 0}, {-1e-300, 0}},
       [](auto x, auto) { return x < -kLn2 ? std::log1p(-std::exp(x)) : std::log(-std::expm1(x)); }, 2},
      // The reference without cancellation near 1/2 (as the function computes it).
      {ScalarOp::Logit, {{0, 1}, {0.49, 0.51}, {0, 1e-300}},
       [](auto x, auto) {
         return x < 0.25L ? std::log(x) - std::log1p(-x) : std::log1p((2 * x - 1) / (1 - x));
       }, 3},
      // float32: 8.4 ulp near x = -13 (11.5 with SSE2), where erfc(z) is
      // subnormal before the product with x / 2 brings it back to normal
      // numbers.
      {ScalarOp::Gelu, {{-30, 30}, {-5, 5}, {-1e-300, 1e-300}},
       [](auto x, auto) { return 0.5L * x * std::erfc(-x / std::sqrt(2.0L)); }, 3, {}, 12},
      {ScalarOp::Pow, {{0, 100}, {0, 2}}, [](auto x, auto y) { return std::pow(x, y); }, 1, {-60, 60}},
      {ScalarOp::Xlogy, {{-100, 100}}, [](auto x, auto y) { return x * std::log(y); }, 2, {0, 1e6}},
      // y is normal: a subnormal log1p(y) has few digits, which x * log1p(y) scales up.
      {ScalarOp::Xlog1py, {{-100, 100}}, [](auto x, auto y) { return x * std::log1p(y); }, 2, {-1, 1e6}},
  };
  return all;
}

/// `n` samples of each range: uniform over it, and log-uniform in magnitude
/// between the smallest normal and its bound (so tiny and subnormal
/// arguments are covered), with the range's sign.
template <class T>
std::vector<T> samples(const std::vector<std::pair<double, double>>& ranges, std::int64_t n,
                       std::uint64_t seed) {
  std::vector<T> out;
  Rng rng(seed);
  for (const auto& [lo, hi] : ranges) {
    const Tensor u = rng.uniform({n}, 0.0, 1.0);
    const double* p = u.data<double>();
    const double tlo = std::max(lo, -static_cast<double>(std::numeric_limits<T>::max()));
    const double thi = std::min(hi, static_cast<double>(std::numeric_limits<T>::max()));
    const double smallest = static_cast<double>(std::numeric_limits<T>::denorm_min());
    for (std::int64_t i = 0; i < n; ++i) {
      out.push_back(static_cast<T>(tlo + (thi - tlo) * p[i]));
      // Log-uniform magnitude up to the range's larger end, with its sign.
      const double top = std::max(std::abs(tlo), std::abs(thi));
      const double mag =
          std::exp(std::log(smallest) + (std::log(top) - std::log(smallest)) * p[(i * 7 + 3) % n]);
      const double v = (i % 2 == 0 && tlo < 0) || thi <= 0 ? -mag : mag;
      if (v >= tlo && v <= thi) out.push_back(static_cast<T>(v));
    }
  }
  return out;
}

/// |got - exact| in units of T's spacing at exact: 0 when both are the same
/// NaN class or infinity, infinite when one is and the other is not.
template <class T> double ulp_error(T got, long double exact) {
  const T rounded = static_cast<T>(exact);
  if (std::isnan(rounded) || std::isinf(rounded) || std::isnan(got) || std::isinf(got)) {
    const bool same = (std::isnan(rounded) && std::isnan(got)) || rounded == got;
    return same ? 0.0 : std::numeric_limits<double>::infinity();
  }
  int e = 0;
  std::frexp(exact, &e);
  const int digits = std::numeric_limits<T>::digits;
  const int min_exp = std::numeric_limits<T>::min_exponent - digits;
  const long double ulp = std::ldexp(1.0L, std::max(e - digits, min_exp));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

template <class T> Tensor tensor_of(const std::vector<T>& v) {
  return Tensor::from_vector(v, std::vector<std::int64_t>{static_cast<std::int64_t>(v.size())});
}

/// The worst ulp error of `c`'s vector kernel on T, with the argument there.
template <class T> std::pair<double, double> worst_error(const Case& c) {
  const bool binary = scalar_op_arity(c.op) == 2;
  std::vector<T> xs = samples<T>(c.ranges, 20000, 3);
  std::vector<T> ys;
  if (binary) {
    ys = samples<T>({c.second}, static_cast<std::int64_t>(xs.size()), 5);
    ys.resize(xs.size(), T(1));
    if (c.op == ScalarOp::Xlog1py)
      for (T& v : ys)
        if (std::abs(v) < std::numeric_limits<T>::min()) v = 0;
  }
  const Tensor x = tensor_of(xs);
  const Tensor y = binary ? elemwise(c.op, x, tensor_of(ys)) : elemwise(c.op, x);
  REQUIRE(y.dtype() == dtype_of<T>());
  const T* got = y.data<T>();
  double worst = 0, where = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const long double exact = c.ref(xs[i], binary ? static_cast<long double>(ys[i]) : 0.0L);
    const double err = ulp_error(got[i], exact);
    if (err > worst) {
      worst = err;
      where = static_cast<double>(xs[i]);
    }
  }
  return {worst, where};
}

}  // namespace

TEST_CASE("every vectorised function is within its documented ulp of long double", "[runtime][ulp]") {
  const bool print = std::getenv("RW_ULP_TABLE") != nullptr;
  if (print) std::printf("isa=%s\n| op | float64 | float32 | bound |\n|---|---|---|---|\n",
                         detail::vector_isa());
  for (const Case& c : cases()) {
    const auto [err64, at64] = worst_error<double>(c);
    const auto [err32, at32] = worst_error<float>(c);
    if (print)
      std::printf("| %s | %.2f | %.2f | %g / %g |\n", std::string(scalar_op_name(c.op)).c_str(),
                  err64, err32, c.bound, c.bound32 < 0 ? c.bound : c.bound32);
    INFO(scalar_op_name(c.op) << ": float64 " << err64 << " ulp at " << at64 << ", float32 "
                              << err32 << " ulp at " << at32);
    CHECK(err64 <= c.bound);
    CHECK(err32 <= (c.bound32 < 0 ? c.bound : c.bound32));
  }
}

TEST_CASE("vector kernels give the C library's special values", "[runtime][ulp]") {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::vector<double> xs = {0.0, -0.0, inf, -inf, nan, tiny, -tiny, 1e-310, 1e300, -1e300, 1.0, -1.0};
  for (const Case& c : cases()) {
    if (scalar_op_arity(c.op) != 1) continue;
    for (DType t : {DType::Float64, DType::Float32}) {
      const Tensor x = cast(tensor_of(xs), t);
      const Tensor got = cast(elemwise(c.op, x), DType::Float64);
      const detail::KernelFn scalar = detail::find_scalar_kernel(c.op, t);
      REQUIRE(scalar);
      for (std::size_t i = 0; i < xs.size(); ++i) {
        // The scalar path's result for the same element.
        const Tensor one = x.slice(0, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1).copy();
        Tensor r = Tensor::empty(t, {1});
        const void* args[1] = {one.raw_data()};
        scalar(1, args, r.raw_data());
        const double expect = cast(r, DType::Float64).data<double>()[0];
        const double value = got.data<double>()[i];
        INFO(scalar_op_name(c.op) << " on " << dtype_name(t) << " of " << xs[i] << ": got " << value
                                  << ", the C library " << expect);
        if (std::isnan(expect)) {
          CHECK(std::isnan(value));
        } else if (std::isinf(expect) || expect == 0.0) {
          // Infinities and zeros are exact, with their sign.
          CHECK(std::bit_cast<std::uint64_t>(value) == std::bit_cast<std::uint64_t>(expect));
        } else {
          CHECK(std::isfinite(value));
        }
      }
    }
  }
}

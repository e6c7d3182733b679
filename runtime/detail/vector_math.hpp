// SIMD vectors of the width the build targets and the math functions on them,
// from SLEEF (docs/runtime.md, "Vector math": why SLEEF, and the ulp table).
// Included by the math kernel table only: it needs <sleef.h>, which the
// runtime links privately.
#pragma once

#include <cstdint>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <immintrin.h>
#include <sleef.h>

namespace rw::detail::simd {

// The widest SLEEF variant the compiler may use for this translation unit:
// AVX-512F (8 doubles), AVX2 with FMA or AVX (4), SSE4.1 or the x86-64
// baseline SSE2 (2). With RW_NATIVE_ARCH=OFF the runtime is built for SSE2
// and gets SLEEF's SSE2 functions.
#if defined(__AVX512F__)
inline constexpr int kBytes = 64;
inline constexpr const char* kIsa = "avx512f";
using NativeD = __m512d;  // SLEEF's argument and result types
using NativeF = __m512;
#define RW_SLEEF_D(name, ulp) Sleef_##name##d8_##ulp##avx512f
#define RW_SQRT_D _mm512_sqrt_pd
#define RW_SQRT_F _mm512_sqrt_ps
#define RW_SLEEF_F(name, ulp) Sleef_##name##f16_##ulp##avx512f
#elif defined(__AVX2__) && defined(__FMA__)
inline constexpr int kBytes = 32;
inline constexpr const char* kIsa = "avx2";
using NativeD = __m256d;  // SLEEF's argument and result types
using NativeF = __m256;
#define RW_SLEEF_D(name, ulp) Sleef_##name##d4_##ulp##avx2
#define RW_SQRT_D _mm256_sqrt_pd
#define RW_SQRT_F _mm256_sqrt_ps
#define RW_SLEEF_F(name, ulp) Sleef_##name##f8_##ulp##avx2
#elif defined(__AVX__)
inline constexpr int kBytes = 32;
inline constexpr const char* kIsa = "avx";
using NativeD = __m256d;  // SLEEF's argument and result types
using NativeF = __m256;
#define RW_SLEEF_D(name, ulp) Sleef_##name##d4_##ulp##avx
#define RW_SQRT_D _mm256_sqrt_pd
#define RW_SQRT_F _mm256_sqrt_ps
#define RW_SLEEF_F(name, ulp) Sleef_##name##f8_##ulp##avx
#elif defined(__SSE4_1__)
inline constexpr int kBytes = 16;
inline constexpr const char* kIsa = "sse4";
using NativeD = __m128d;  // SLEEF's argument and result types
using NativeF = __m128;
#define RW_SLEEF_D(name, ulp) Sleef_##name##d2_##ulp##sse4
#define RW_SQRT_D _mm_sqrt_pd
#define RW_SQRT_F _mm_sqrt_ps
#define RW_SLEEF_F(name, ulp) Sleef_##name##f4_##ulp##sse4
#elif defined(__SSE2__)
inline constexpr int kBytes = 16;
inline constexpr const char* kIsa = "sse2";
using NativeD = __m128d;  // SLEEF's argument and result types
using NativeF = __m128;
#define RW_SLEEF_D(name, ulp) Sleef_##name##d2_##ulp##sse2
#define RW_SQRT_D _mm_sqrt_pd
#define RW_SQRT_F _mm_sqrt_ps
#define RW_SLEEF_F(name, ulp) Sleef_##name##f4_##ulp##sse2
#else
#error "the vector math needs x86-64 (SSE2 at least)"
#endif

/// A vector of kBytes / sizeof(T) lanes of T (GCC's vector extension: the
/// arithmetic operators, comparisons and `?:` work lane by lane).
template <class T> struct VecOf;
template <> struct VecOf<double> {
  using type [[gnu::vector_size(kBytes)]] = double;
  using mask [[gnu::vector_size(kBytes)]] = std::int64_t;
};
template <> struct VecOf<float> {
  using type [[gnu::vector_size(kBytes)]] = float;
  using mask [[gnu::vector_size(kBytes)]] = std::int32_t;
};
template <class T> using Vec = typename VecOf<T>::type;
/// Lanes of a Vec<T>.
template <class T> inline constexpr std::int64_t kWidth = kBytes / static_cast<int>(sizeof(T));

/// Loads and stores through memcpy: no alignment is assumed (an unaligned
/// vector move), and nothing is read or written outside the kWidth elements.
template <class T> [[gnu::always_inline]] inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <class T> [[gnu::always_inline]] inline void store(T* p, Vec<T> v) {
  std::memcpy(p, &v, sizeof(v));
}

// One overload pair per SLEEF function: `fn(Vec<double>)` and
// `fn(Vec<float>)`, through SLEEF's `name` with the accuracy `ulp` (u10 is
// 1.0 ulp, u15 1.5 ulp, u05 correctly rounded to 0.5 ulp).

#define RW_VECTOR_UNARY(fn, name, ulp)                                        \
  [[gnu::always_inline]] inline Vec<double> fn(Vec<double> x) {              \
    return reinterpret_cast<Vec<double>>(RW_SLEEF_D(name, ulp)(reinterpret_cast<NativeD>(x))); \
  }                                                                           \
  [[gnu::always_inline]] inline Vec<float> fn(Vec<float> x) {                 \
    return reinterpret_cast<Vec<float>>(RW_SLEEF_F(name, ulp)(reinterpret_cast<NativeF>(x))); \
  }

RW_VECTOR_UNARY(exp, exp, u10)
RW_VECTOR_UNARY(exp2, exp2, u10)
RW_VECTOR_UNARY(expm1, expm1, u10)
RW_VECTOR_UNARY(log, log, u10)
RW_VECTOR_UNARY(log2, log2, u10)
RW_VECTOR_UNARY(log10, log10, u10)
RW_VECTOR_UNARY(sleef_log1p, log1p, u10)
RW_VECTOR_UNARY(sin, sin, u10)
RW_VECTOR_UNARY(cos, cos, u10)
RW_VECTOR_UNARY(tan, tan, u10)
RW_VECTOR_UNARY(sleef_sinh, sinh, u10)
RW_VECTOR_UNARY(sleef_cosh, cosh, u10)
RW_VECTOR_UNARY(tanh, tanh, u10)
RW_VECTOR_UNARY(asin, asin, u10)
RW_VECTOR_UNARY(acos, acos, u10)
RW_VECTOR_UNARY(atan, atan, u10)
RW_VECTOR_UNARY(erf, erf, u10)
RW_VECTOR_UNARY(erfc, erfc, u15)
RW_VECTOR_UNARY(sleef_lgamma, lgamma, u10)
#undef RW_VECTOR_UNARY

[[gnu::always_inline]] inline Vec<double> pow(Vec<double> x, Vec<double> y) {
  return reinterpret_cast<Vec<double>>(
      RW_SLEEF_D(pow, u10)(reinterpret_cast<NativeD>(x), reinterpret_cast<NativeD>(y)));
}
[[gnu::always_inline]] inline Vec<float> pow(Vec<float> x, Vec<float> y) {
  return reinterpret_cast<Vec<float>>(
      RW_SLEEF_F(pow, u10)(reinterpret_cast<NativeF>(x), reinterpret_cast<NativeF>(y)));
}

// The square root is the instruction (correctly rounded, as std::sqrt):
// SLEEF's u05 sqrt costs twice as much for the same result.
[[gnu::always_inline]] inline Vec<double> sqrt(Vec<double> x) {
  return reinterpret_cast<Vec<double>>(RW_SQRT_D(reinterpret_cast<NativeD>(x)));
}
[[gnu::always_inline]] inline Vec<float> sqrt(Vec<float> x) {
  return reinterpret_cast<Vec<float>>(RW_SQRT_F(reinterpret_cast<NativeF>(x)));
}

#undef RW_SLEEF_D
#undef RW_SLEEF_F
#undef RW_SQRT_D
#undef RW_SQRT_F

/// Lanes of integers as wide as T's, what comparisons of Vec<T> give.
template <class T> using Mask = typename VecOf<T>::mask;

/// `r` with the lanes where `m` is set recomputed by the scalar `f` of the
/// lane's `x`: for the rare arguments outside the domain SLEEF's function
/// is accurate on. The common case costs one test of the mask.
template <class T, class F>
[[gnu::always_inline]] inline Vec<T> fix_lanes(Vec<T> r, Mask<T> m, Vec<T> x, F f) {
  bool any = false;
  for (std::int64_t i = 0; i < kWidth<T>; ++i) any |= m[i] != 0;
  if (!any) [[likely]]
    return r;
  for (std::int64_t i = 0; i < kWidth<T>; ++i)
    if (m[i]) r[i] = f(x[i]);
  return r;
}

// SLEEF's log1p overflows beyond 1e38 (float32) and 1e307 (float64), where
// log1p(x) is log(x) to the last bit; its sinh and cosh overflow a little
// before the C library's (|x| > 709 and 88.7), its float32 lgamma before
// x = 4e36. Those lanes go through the C library.
template <class T> [[gnu::always_inline]] inline Vec<T> log1p_fixed(Vec<T> x) {
  return fix_lanes<T>(sleef_log1p(x), x > T(1e18), x, [](T v) { return std::log1p(v); });
}
template <class T> [[gnu::always_inline]] inline Vec<T> sinh_fixed(Vec<T> x) {
  constexpr T kLimit = sizeof(T) == 8 ? T(709) : T(88);
  return fix_lanes<T>(sleef_sinh(x), (x > kLimit) | (x < -kLimit), x,
                      [](T v) { return std::sinh(v); });
}
template <class T> [[gnu::always_inline]] inline Vec<T> cosh_fixed(Vec<T> x) {
  constexpr T kLimit = sizeof(T) == 8 ? T(709) : T(88);
  return fix_lanes<T>(sleef_cosh(x), (x > kLimit) | (x < -kLimit), x,
                      [](T v) { return std::cosh(v); });
}
template <class T> [[gnu::always_inline]] inline Vec<T> lgamma_fixed(Vec<T> x) {
  constexpr T kLimit = sizeof(T) == 8 ? T(1e305) : T(1e36);
  return fix_lanes<T>(sleef_lgamma(x), x > kLimit, x, [](T v) { return std::lgamma(v); });
}

#define RW_VECTOR_FIXED(fn)                                                           \
  [[gnu::always_inline]] inline Vec<double> fn(Vec<double> x) { return fn##_fixed<double>(x); } \
  [[gnu::always_inline]] inline Vec<float> fn(Vec<float> x) { return fn##_fixed<float>(x); }
RW_VECTOR_FIXED(log1p)
RW_VECTOR_FIXED(sinh)
RW_VECTOR_FIXED(cosh)
RW_VECTOR_FIXED(lgamma)
#undef RW_VECTOR_FIXED

/// |x|, lane by lane: the sign bit cleared (so |-0| is +0, as std::fabs).
[[gnu::always_inline]] inline Vec<double> abs(Vec<double> x) {
  return reinterpret_cast<Vec<double>>(reinterpret_cast<Mask<double>>(x) &
                                       std::numeric_limits<std::int64_t>::max());
}
[[gnu::always_inline]] inline Vec<float> abs(Vec<float> x) {
  return reinterpret_cast<Vec<float>>(reinterpret_cast<Mask<float>>(x) &
                                      std::numeric_limits<std::int32_t>::max());
}

}  // namespace rw::detail::simd

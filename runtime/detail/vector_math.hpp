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
// and gets SLEEF's SSE2 functions. RW_SIMD(X) calls X with the vector's bytes,
// SLEEF's name for the instruction set, the lanes in SLEEF's names of the
// float64 and float32 functions, the intrinsics' prefix and SLEEF's types.
#if defined(__AVX512F__)
#define RW_SIMD(X) X(64, avx512f, d8, f16, _mm512, __m512d, __m512)
#elif defined(__AVX2__) && defined(__FMA__)
#define RW_SIMD(X) X(32, avx2, d4, f8, _mm256, __m256d, __m256)
#elif defined(__AVX__)
#define RW_SIMD(X) X(32, avx, d4, f8, _mm256, __m256d, __m256)
#elif defined(__SSE4_1__)
#define RW_SIMD(X) X(16, sse4, d2, f4, _mm, __m128d, __m128)
#elif defined(__SSE2__)
#define RW_SIMD(X) X(16, sse2, d2, f4, _mm, __m128d, __m128)
#else
#error "the vector math needs x86-64 (SSE2 at least)"
#endif

#define RW_SIMD_DECLARE(bytes, isa, dw, fw, mm, nd, nf) \
  inline constexpr int kBytes = bytes;                  \
  inline constexpr const char* kIsa = #isa;             \
  using NativeD = nd; /* SLEEF's argument and result types */ \
  using NativeF = nf;
RW_SIMD(RW_SIMD_DECLARE)
#undef RW_SIMD_DECLARE

#define RW_SIMD_ISA(bytes, isa, dw, fw, mm, nd, nf) isa
#define RW_SIMD_DW(bytes, isa, dw, fw, mm, nd, nf) dw
#define RW_SIMD_FW(bytes, isa, dw, fw, mm, nd, nf) fw
#define RW_SIMD_MM(bytes, isa, dw, fw, mm, nd, nf) mm
#define RW_CAT4(a, b, c, d) a##b##c##d
#define RW_XCAT4(a, b, c, d) RW_CAT4(a, b, c, d)
// Sleef_expd8_u10avx512f from (exp, u10), and the like.
#define RW_SLEEF_D(name, ulp) RW_XCAT4(Sleef_##name, RW_SIMD(RW_SIMD_DW), _##ulp, RW_SIMD(RW_SIMD_ISA))
#define RW_SLEEF_F(name, ulp) RW_XCAT4(Sleef_##name, RW_SIMD(RW_SIMD_FW), _##ulp, RW_SIMD(RW_SIMD_ISA))

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
// SLEEF's u05 sqrt costs twice as much for the same result. AVX-512's through
// its masked form: the plain one starts from `_mm512_undefined_pd()`, which
// g++ 12 reports as uninitialised.
#if defined(__AVX512F__)
#define RW_SQRT_OF(v, ps, all) _mm512_mask_sqrt_##ps(v, all, v)
#else
#define RW_SQRT_OF(v, ps, all) RW_XCAT4(RW_SIMD(RW_SIMD_MM), _sqrt, _, ps)(v)
#endif
#define RW_VECTOR_SQRT(T, Native, ps, all)                                  \
  [[gnu::always_inline]] inline Vec<T> sqrt(Vec<T> x) {                     \
    const auto v = reinterpret_cast<Native>(x);                             \
    return reinterpret_cast<Vec<T>>(RW_SQRT_OF(v, ps, all));                \
  }
RW_VECTOR_SQRT(double, NativeD, pd, 0xFF)
RW_VECTOR_SQRT(float, NativeF, ps, 0xFFFF)
#undef RW_VECTOR_SQRT
#undef RW_SQRT_OF

#undef RW_SLEEF_D
#undef RW_SLEEF_F
#undef RW_CAT4
#undef RW_XCAT4
#undef RW_SIMD_ISA
#undef RW_SIMD_DW
#undef RW_SIMD_FW
#undef RW_SIMD_MM
#undef RW_SIMD

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

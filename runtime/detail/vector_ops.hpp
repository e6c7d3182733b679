// The float ops that run a vector of elements at a time (SLEEF's functions,
// detail/vector_math.hpp), and the dense loop over them. Included by the math
// kernel table only.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include "runtime/detail/scalar_math.hpp"
#include "runtime/detail/vector_math.hpp"

namespace rw::detail::vec {

using simd::Vec;

/// The vector form of an op: `on<T>` says whether it has one for element
/// type T (false: the kernel is the scalar loop of scalar::Fn<Op>), `apply`
/// computes a Vec<T> of results. Each form computes what scalar::Fn does,
/// with SLEEF's functions in place of the C library's.
template <ScalarOp Op> struct Fn {
  template <class T> static constexpr bool on = false;
};

/// Defined on float32 and float64.
struct FloatVec {
  template <class T> static constexpr bool on = std::is_floating_point_v<T>;
};

#define RW_VEC_UNARY(op, fn)                                                   \
  template <> struct Fn<ScalarOp::op> : FloatVec {                             \
    template <class T> static Vec<T> apply(Vec<T> a) { return simd::fn(a); }   \
  };
RW_VEC_UNARY(Exp, exp)
RW_VEC_UNARY(Exp2, exp2)
RW_VEC_UNARY(Expm1, expm1)
RW_VEC_UNARY(Log, log)
RW_VEC_UNARY(Log2, log2)
RW_VEC_UNARY(Log10, log10)
RW_VEC_UNARY(Log1p, log1p)
RW_VEC_UNARY(Sqrt, sqrt)
RW_VEC_UNARY(Sin, sin)
RW_VEC_UNARY(Cos, cos)
RW_VEC_UNARY(Tan, tan)
RW_VEC_UNARY(Sinh, sinh)
RW_VEC_UNARY(Cosh, cosh)
RW_VEC_UNARY(ArcSin, asin)
RW_VEC_UNARY(ArcCos, acos)
RW_VEC_UNARY(ArcTan, atan)
RW_VEC_UNARY(Erf, erf)
RW_VEC_UNARY(Erfc, erfc)
RW_VEC_UNARY(Gammaln, lgamma)
#undef RW_VEC_UNARY

// float64 tanh stays fast::tanh, whose scalar loop the compiler vectorises:
// 1.5x SLEEF's speed at the same 1 ulp (docs/runtime.md). float32 uses SLEEF.
template <> struct Fn<ScalarOp::Tanh> {
  template <class T> static constexpr bool on = std::is_same_v<T, float>;
  template <class T> static Vec<T> apply(Vec<T> a) { return simd::tanh(a); }
};

template <> struct Fn<ScalarOp::Pow> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a, Vec<T> b) { return simd::pow(a, b); }
};

template <> struct Fn<ScalarOp::Sigmoid> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a) {
    const Vec<T> e = simd::exp(-simd::abs(a));
    return a >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
  }
};

template <> struct Fn<ScalarOp::Softplus> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a) {
    return (a > 0 ? a : Vec<T>{}) + simd::log1p(simd::exp(-simd::abs(a)));
  }
};

template <> struct Fn<ScalarOp::Log1mexp> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a) {
    return a < T(-0.6931471805599453) ? simd::log1p(-simd::exp(a)) : simd::log(-simd::expm1(a));
  }
};

template <> struct Fn<ScalarOp::Logit> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a) {
    return ((a > T(0.25)) & (a < T(0.75))) ? simd::log1p((T(2) * a - T(1)) / (T(1) - a))
                                         : simd::log(a) - simd::log1p(-a);
  }
};

template <> struct Fn<ScalarOp::Xlogy> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a, Vec<T> b) {
    return ((a == 0) & (b == b)) ? Vec<T>{} : a * simd::log(b);
  }
};

template <> struct Fn<ScalarOp::Xlog1py> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a, Vec<T> b) {
    return ((a == 0) & (b == b)) ? Vec<T>{} : a * simd::log1p(b);
  }
};

/// The rounding error of a * b (b split beforehand): Dekker's product, exact
/// where a * 2^(p/2) does not overflow. The vectors have no portable FMA.
template <class T> Vec<T> product_error(Vec<T> a, T b, Vec<T> p) {
  constexpr T kSplit = sizeof(T) == 8 ? T(134217729.0) : T(4097.0);  // 2^ceil(p/2) + 1
  const T b_hi = b * kSplit - (b * kSplit - b), b_lo = b - b_hi;
  const Vec<T> t = a * kSplit;
  const Vec<T> a_hi = t - (t - a), a_lo = a - a_hi;
  return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo;
}

// As scalar::Fn<Gelu>: erfc(z) corrected by its argument's rounding error.
template <> struct Fn<ScalarOp::Gelu> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a) {
    const Vec<T> z = -a * scalar::kSqrtHalfHi<T>;
    const Vec<T> z_lo = product_error<T>(-a, scalar::kSqrtHalfHi<T>, z) + -a * scalar::kSqrtHalfLo<T>;
    Vec<T> e = simd::erfc(z);
    e = ((z > T(0)) & (z < T(30))) ? e - e * (T(2) * z * z_lo) : e;
    return T(0.5) * a * e;
  }
};

template <> struct Fn<ScalarOp::Betaln> : FloatVec {
  template <class T> static Vec<T> apply(Vec<T> a, Vec<T> b) {
    return simd::lgamma(a) + simd::lgamma(b) - simd::lgamma(a + b);
  }
};

/// out[i] = Op(args…[i]) a vector at a time; the last n % kWidth elements go
/// through a one-vector buffer, so nothing is read or written past n. `out`
/// may be an operand (each vector is loaded before its result is stored).
template <ScalarOp Op, class T>
void vector_loop(std::int64_t n, const void* const* args, void* out) {
  constexpr int kArity = scalar::Fn<Op>::arity;
  constexpr std::int64_t kW = simd::kWidth<T>;
  const T* in[kArity];
  for (int k = 0; k < kArity; ++k) in[k] = static_cast<const T*>(args[k]);
  T* o = static_cast<T*>(out);
  auto one = [&](const T* const* src, std::int64_t at, T* dst) {
    if constexpr (kArity == 1)
      simd::store(dst, Fn<Op>::template apply<T>(simd::load(src[0] + at)));
    else
      simd::store(dst, Fn<Op>::template apply<T>(simd::load(src[0] + at), simd::load(src[1] + at)));
  };
  std::int64_t i = 0;
  for (; i + kW <= n; i += kW) one(in, i, o + i);
  if (i == n) return;
  const auto rest = static_cast<std::size_t>(n - i) * sizeof(T);
  T pad[kArity][kW] = {};
  const T* padded[kArity];
  for (int k = 0; k < kArity; ++k) {
    std::memcpy(pad[k], in[k] + i, rest);
    padded[k] = pad[k];
  }
  T result[kW];
  one(padded, 0, result);
  std::memcpy(o + i, result, rest);
}

}  // namespace rw::detail::vec

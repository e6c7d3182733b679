// The scalar semantics of each ScalarOp, one small function object per op; the
// kernels loop over these. Integer arithmetic wraps (as NumPy), integer
// division and modulo floor (as Python), float to integer casts saturate.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "runtime/detail/convert.hpp"
#include "runtime/detail/fast_math.hpp"
#include "runtime/detail/special_math.hpp"
#include "runtime/scalar_op.hpp"

namespace rw::detail::scalar {

template <class T> inline constexpr bool kIsBool = std::is_same_v<T, bool>;
template <class T> inline constexpr bool kIsFloat = std::is_floating_point_v<T>;
template <class T> inline constexpr bool kIsInt = std::is_integral_v<T> && !kIsBool<T>;

/// The unsigned type integer arithmetic on T wraps in (at least 32 bits, so
/// that uint16 * uint16 cannot overflow a promoted int).
template <class T>
using Wide = std::conditional_t<(sizeof(T) < 4), std::uint32_t, std::make_unsigned_t<T>>;

template <class T> constexpr T wrap_add(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
}
template <class T> constexpr T wrap_sub(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) - static_cast<Wide<T>>(b));
}
template <class T> constexpr T wrap_mul(T a, T b) {
  return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
}

/// Python's floor division for integers; x // 0 is 0 (NumPy's result).
template <class T> constexpr T int_floor_div(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return wrap_sub(T(0), a);
    T q = static_cast<T>(a / b);
    if (static_cast<T>(a % b) != 0 && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}

/// Python's modulo for integers (the sign of the divisor); x % 0 is 0.
template <class T> constexpr T int_floor_mod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}

/// Python's floor division for floats, exact where floor(a / b) is not.
template <class T> T float_floor_div(T a, T b) {
  if (b == 0) return a / b;
  const T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
  if (div == 0) return std::copysign(T(0), a / b);
  T fl = std::floor(div);
  if (div - fl > T(0.5)) fl += T(1);
  return fl;
}

/// Python's modulo for floats: the result has the divisor's sign.
template <class T> T float_floor_mod(T a, T b) {
  T mod = std::fmod(a, b);
  if (b == 0) return mod;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(T(0), b);
  }
  return mod;
}

/// a**b for integers by squaring, wrapping. A negative exponent gives the
/// truncated real result: 1 for a == 1, ±1 for a == -1, else 0.
template <class T> constexpr T int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (b & 1) ? T(-1) : T(1);
      return 0;
    }
  }
  Wide<T> r = 1, base = static_cast<Wide<T>>(a);
  auto e = static_cast<std::make_unsigned_t<T>>(b);
  while (e) {
    if (e & 1u) r = static_cast<Wide<T>>(r * base);
    base = static_cast<Wide<T>>(base * base);
    e = static_cast<decltype(e)>(e >> 1);
  }
  return static_cast<T>(r);
}

// Each op: `arity`, `ok<T>` (T is a compute dtype the op is defined on) and
// `apply`. The compute dtype is the one scalar_signature gives.

template <ScalarOp Op> struct Fn;

/// Arity and domain of a unary op defined on floats only.
struct FloatOp {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = kIsFloat<T>;
};

template <> struct Fn<ScalarOp::Exp> : FloatOp {
  template <class T> static T apply(T a) { return std::exp(a); }
};
template <> struct Fn<ScalarOp::Exp2> : FloatOp {
  template <class T> static T apply(T a) { return std::exp2(a); }
};
template <> struct Fn<ScalarOp::Expm1> : FloatOp {
  template <class T> static T apply(T a) { return std::expm1(a); }
};
template <> struct Fn<ScalarOp::Log> : FloatOp {
  template <class T> static T apply(T a) { return std::log(a); }
};
template <> struct Fn<ScalarOp::Log2> : FloatOp {
  template <class T> static T apply(T a) { return std::log2(a); }
};
template <> struct Fn<ScalarOp::Log10> : FloatOp {
  template <class T> static T apply(T a) { return std::log10(a); }
};
template <> struct Fn<ScalarOp::Log1p> : FloatOp {
  template <class T> static T apply(T a) { return std::log1p(a); }
};
template <> struct Fn<ScalarOp::Sqrt> : FloatOp {
  template <class T> static T apply(T a) { return std::sqrt(a); }
};
template <> struct Fn<ScalarOp::Sin> : FloatOp {
  template <class T> static T apply(T a) { return std::sin(a); }
};
template <> struct Fn<ScalarOp::Cos> : FloatOp {
  template <class T> static T apply(T a) { return std::cos(a); }
};
template <> struct Fn<ScalarOp::Tan> : FloatOp {
  template <class T> static T apply(T a) { return std::tan(a); }
};
template <> struct Fn<ScalarOp::Sinh> : FloatOp {
  template <class T> static T apply(T a) { return std::sinh(a); }
};
template <> struct Fn<ScalarOp::Cosh> : FloatOp {
  template <class T> static T apply(T a) { return std::cosh(a); }
};
// Branch-free, so that the kernel loop vectorises (std::tanh does not); float
// goes through double, which rounds to within an ulp of tanhf.
template <> struct Fn<ScalarOp::Tanh> : FloatOp {
  template <class T> static T apply(T a) {
    return static_cast<T>(fast::tanh(static_cast<double>(a)));
  }
};
template <> struct Fn<ScalarOp::ArcSin> : FloatOp {
  template <class T> static T apply(T a) { return std::asin(a); }
};
template <> struct Fn<ScalarOp::ArcCos> : FloatOp {
  template <class T> static T apply(T a) { return std::acos(a); }
};
template <> struct Fn<ScalarOp::ArcTan> : FloatOp {
  template <class T> static T apply(T a) { return std::atan(a); }
};
template <> struct Fn<ScalarOp::Erf> : FloatOp {
  template <class T> static T apply(T a) { return std::erf(a); }
};
template <> struct Fn<ScalarOp::Erfc> : FloatOp {
  template <class T> static T apply(T a) { return std::erfc(a); }
};
// Special functions without a std:: form go through double (special_math.hpp).
template <> struct Fn<ScalarOp::Erfinv> : FloatOp {
  template <class T> static T apply(T a) { return static_cast<T>(special::erfinv(a)); }
};
template <> struct Fn<ScalarOp::Erfcinv> : FloatOp {
  template <class T> static T apply(T a) { return static_cast<T>(special::erfcinv(a)); }
};
template <> struct Fn<ScalarOp::Erfcx> : FloatOp {
  template <class T> static T apply(T a) { return static_cast<T>(special::erfcx(a)); }
};
template <> struct Fn<ScalarOp::Gammaln> : FloatOp {
  template <class T> static T apply(T a) { return std::lgamma(a); }
};
template <> struct Fn<ScalarOp::Digamma> : FloatOp {
  template <class T> static T apply(T a) { return static_cast<T>(special::digamma(a)); }
};
template <> struct Fn<ScalarOp::Trigamma> : FloatOp {
  template <class T> static T apply(T a) { return static_cast<T>(special::trigamma(a)); }
};
template <> struct Fn<ScalarOp::Betaln> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a, T b) {
    return std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b);
  }
};
// log1p(-e^x) where e^x is small, log(-expm1(x)) where it is near 1
// (Mächler's switch at -log 2).
template <> struct Fn<ScalarOp::Log1mexp> : FloatOp {
  template <class T> static T apply(T a) {
    return a < T(-0.6931471805599453) ? std::log1p(-std::exp(a)) : std::log(-std::expm1(a));
  }
};
// log(a / (1 - a)): near 1/2, where the result is near 0, log1p of
// (2a - 1) / (1 - a), whose numerator and denominator are exact there;
// elsewhere log(a) - log1p(-a), which does not cancel.
template <> struct Fn<ScalarOp::Logit> : FloatOp {
  template <class T> static T apply(T a) {
    return a > T(0.25) && a < T(0.75) ? std::log1p((T(2) * a - T(1)) / (T(1) - a))
                                      : std::log(a) - std::log1p(-a);
  }
};
// x * log(y) and x * log1p(y) with 0 where x is 0 (unless y is NaN), as SciPy.
template <> struct Fn<ScalarOp::Xlogy> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a, T b) {
    return a == T(0) && !std::isnan(b) ? T(0) : a * std::log(b);
  }
};
template <> struct Fn<ScalarOp::Xlog1py> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a, T b) {
    return a == T(0) && !std::isnan(b) ? T(0) : a * std::log1p(b);
  }
};
// The modified Bessel functions of the first kind, orders 0 and 1, from
// libstdc++'s std::cyl_bessel_i, which takes x >= 0 only: i0 is even and i1
// odd. It throws for an infinite x (where both are infinite) and overflows
// to inf from 714 on.
template <> struct Fn<ScalarOp::I0> : FloatOp {
  template <class T> static T apply(T a) {
    if (std::isinf(a)) return std::numeric_limits<T>::infinity();
    return static_cast<T>(std::cyl_bessel_i(0.0, std::abs(static_cast<double>(a))));
  }
};
template <> struct Fn<ScalarOp::I1> : FloatOp {
  template <class T> static T apply(T a) {
    if (std::isinf(a)) return a;
    const double v = std::cyl_bessel_i(1.0, std::abs(static_cast<double>(a)));
    return static_cast<T>(a < 0 ? -v : v);
  }
};
template <> struct Fn<ScalarOp::Softsign> : FloatOp {
  template <class T> static T apply(T a) { return a / (T(1) + std::fabs(a)); }
};
/// 1/√2 as the sum of the nearest T and the rest (what gelu's argument needs).
template <class T> inline constexpr T kSqrtHalfHi = static_cast<T>(0.707106781186547524400844362104849039L);
template <class T>
inline constexpr T kSqrtHalfLo =
    static_cast<T>(0.707106781186547524400844362104849039L - static_cast<long double>(kSqrtHalfHi<T>));

// x Φ(x) = x erfc(z) / 2 with z = -x / √2: erfc keeps the digits for negative
// x. For z > 0, erfc(z) falls like e^{-z²}, so the rounding error z_lo of z
// would cost 2z² ulp (1000 at x = -29): erfc(z + z_lo) = erfc(z)(1 - 2 z z_lo)
// to first order puts it back.
template <> struct Fn<ScalarOp::Gelu> : FloatOp {
  template <class T> static T apply(T a) {
    const T z = -a * kSqrtHalfHi<T>;
    const T z_lo = std::fma(-a, kSqrtHalfHi<T>, -z) + -a * kSqrtHalfLo<T>;
    T e = std::erfc(z);
    if (z > T(0) && z < T(30)) e -= e * (T(2) * z * z_lo);
    return T(0.5) * a * e;
  }
};
// max(x, 0): NaN stays NaN (as NumPy's maximum), a bool is its own relu.
template <> struct Fn<ScalarOp::Relu> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a) {
    if constexpr (kIsBool<T>) return a;
    else if constexpr (kIsFloat<T>) return a > T(0) || std::isnan(a) ? a : T(0);
    else return a > T(0) ? a : T(0);
  }
};
template <> struct Fn<ScalarOp::Floor> : FloatOp {
  template <class T> static T apply(T a) { return std::floor(a); }
};
template <> struct Fn<ScalarOp::Ceil> : FloatOp {
  template <class T> static T apply(T a) { return std::ceil(a); }
};
// nearbyint in the default rounding mode rounds half to even, as NumPy's round.
template <> struct Fn<ScalarOp::Round> : FloatOp {
  template <class T> static T apply(T a) { return std::nearbyint(a); }
};

template <> struct Fn<ScalarOp::Reciprocal> : FloatOp {
  template <class T> static T apply(T a) { return T(1) / a; }
};

// 1 / (1 + e^-x) with a single exp of -|x|, so neither branch overflows.
template <> struct Fn<ScalarOp::Sigmoid> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a) {
    const T e = std::exp(-std::fabs(a));
    return a >= 0 ? T(1) / (T(1) + e) : e / (T(1) + e);
  }
};

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|): no overflow for large x, no loss
// of the tiny result for very negative x.
template <> struct Fn<ScalarOp::Softplus> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a) {
    return (a > 0 ? a : T(0)) + std::log1p(std::exp(-std::fabs(a)));
  }
};

template <> struct Fn<ScalarOp::Add> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsBool<T>) return a | b;
    else if constexpr (kIsInt<T>) return wrap_add(a, b);
    else return a + b;
  }
};

template <> struct Fn<ScalarOp::Sub> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsInt<T>) return wrap_sub(a, b);
    else return a - b;
  }
};

template <> struct Fn<ScalarOp::Mul> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsBool<T>) return a & b;
    else if constexpr (kIsInt<T>) return wrap_mul(a, b);
    else return a * b;
  }
};

template <> struct Fn<ScalarOp::TrueDiv> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = kIsFloat<T>;
  template <class T> static T apply(T a, T b) { return a / b; }
};

template <> struct Fn<ScalarOp::IntDiv> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsInt<T>) return int_floor_div(a, b);
    else return float_floor_div(a, b);
  }
};

template <> struct Fn<ScalarOp::Mod> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsInt<T>) return int_floor_mod(a, b);
    else return float_floor_mod(a, b);
  }
};

template <> struct Fn<ScalarOp::Pow> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsInt<T>) return int_pow(a, b);
    else return std::pow(a, b);
  }
};

template <> struct Fn<ScalarOp::Neg> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a) {
    if constexpr (kIsInt<T>) return wrap_sub(T(0), a);
    else return -a;
  }
};

template <> struct Fn<ScalarOp::Abs> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a) {
    if constexpr (kIsBool<T> || std::is_unsigned_v<T>) return a;
    else if constexpr (kIsInt<T>) return a < 0 ? wrap_sub(T(0), a) : a;
    else return std::fabs(a);
  }
};

template <> struct Fn<ScalarOp::Sign> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = !kIsBool<T>;
  template <class T> static T apply(T a) {
    if constexpr (kIsInt<T>) return static_cast<T>((a > 0) - (a < 0));
    else return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;  // NaN stays NaN
  }
};

template <> struct Fn<ScalarOp::Sqr> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a) { return Fn<ScalarOp::Mul>::apply(a, a); }
};

// NaN-propagating, as NumPy's maximum and minimum.
template <> struct Fn<ScalarOp::Maximum> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsBool<T>) return a | b;
    else if constexpr (kIsInt<T>) return a > b ? a : b;
    else return (a > b || a != a) ? a : b;
  }
};

template <> struct Fn<ScalarOp::Minimum> {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a, T b) {
    if constexpr (kIsBool<T>) return a & b;
    else if constexpr (kIsInt<T>) return a < b ? a : b;
    else return (a < b || a != a) ? a : b;
  }
};

/// Arity and domain of a comparison: any compute dtype, a bool result.
struct CompareOp {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = true;
};

template <> struct Fn<ScalarOp::Lt> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a < b; }
};
template <> struct Fn<ScalarOp::Gt> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a > b; }
};
template <> struct Fn<ScalarOp::Le> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a <= b; }
};
template <> struct Fn<ScalarOp::Ge> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a >= b; }
};
template <> struct Fn<ScalarOp::Eq> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a == b; }
};
template <> struct Fn<ScalarOp::Neq> : CompareOp {
  template <class T> static bool apply(T a, T b) { return a != b; }
};

/// Arity and domain of a bitwise op: integers, and bools (where it is logical).
struct BitwiseOp {
  static constexpr int arity = 2;
  template <class T> static constexpr bool ok = !kIsFloat<T>;
};

template <> struct Fn<ScalarOp::And> : BitwiseOp {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a & b); }
};
template <> struct Fn<ScalarOp::Or> : BitwiseOp {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a | b); }
};
template <> struct Fn<ScalarOp::Xor> : BitwiseOp {
  template <class T> static T apply(T a, T b) { return static_cast<T>(a ^ b); }
};

template <> struct Fn<ScalarOp::Not> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = !kIsFloat<T>;
  template <class T> static T apply(T a) {
    if constexpr (kIsBool<T>) return !a;
    else return static_cast<T>(~a);
  }
};

// switch(cond, a, b): the condition operand is bool, the others T.
template <> struct Fn<ScalarOp::Switch> {
  static constexpr int arity = 3;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(bool c, T a, T b) { return c ? a : b; }
};

template <> struct Fn<ScalarOp::Clip> {
  static constexpr int arity = 3;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T x, T lo, T hi) {
    return Fn<ScalarOp::Minimum>::apply(Fn<ScalarOp::Maximum>::apply(x, lo), hi);
  }
};

template <> struct Fn<ScalarOp::Identity> {
  static constexpr int arity = 1;
  template <class T> static constexpr bool ok = true;
  template <class T> static T apply(T a) { return a; }
};

}  // namespace rw::detail::scalar

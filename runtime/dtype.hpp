// Element types of tensors: names, sizes, classes, NumPy promotion, dispatch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "support/error.hpp"

namespace rw {

/// The element type of a tensor.
enum class DType : std::uint8_t { Bool, Int8, Int16, Int32, Int64, UInt8, Float32, Float64 };

inline constexpr DType kAllDTypes[] = {DType::Bool,  DType::Int8,  DType::Int16,   DType::Int32,
                                       DType::Int64, DType::UInt8, DType::Float32, DType::Float64};

/// Short aliases used by the C++ API: `rw::vector("x", rw::f64)`.
inline constexpr DType b8 = DType::Bool;
inline constexpr DType i8 = DType::Int8;
inline constexpr DType i16 = DType::Int16;
inline constexpr DType i32 = DType::Int32;
inline constexpr DType i64 = DType::Int64;
inline constexpr DType u8 = DType::UInt8;
inline constexpr DType f32 = DType::Float32;
inline constexpr DType f64 = DType::Float64;

/// Size of one element in bytes.
constexpr std::size_t itemsize(DType t) {
  switch (t) {
    case DType::Bool: case DType::Int8: case DType::UInt8: return 1;
    case DType::Int16: return 2;
    case DType::Int32: case DType::Float32: return 4;
    case DType::Int64: case DType::Float64: return 8;
  }
  return 0;
}

/// NumPy-style name: "float64", "int32", "bool".
constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "int8";
    case DType::Int16: return "int16";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::UInt8: return "uint8";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
  }
  return "?";
}

/// Short name used by type printing and graph files: "f64", "i32", "b8".
constexpr std::string_view dtype_short_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "i8";
    case DType::Int16: return "i16";
    case DType::Int32: return "i32";
    case DType::Int64: return "i64";
    case DType::UInt8: return "u8";
    case DType::Float32: return "f32";
    case DType::Float64: return "f64";
  }
  return "?";
}

/// Parses either spelling ("float64" or "f64"); nullopt when unknown.
std::optional<DType> parse_dtype(std::string_view s);

constexpr bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64; }
constexpr bool is_bool(DType t) { return t == DType::Bool; }
constexpr bool is_integer(DType t) { return !is_float(t) && !is_bool(t); }
constexpr bool is_signed(DType t) { return t != DType::UInt8 && t != DType::Bool; }

/// NumPy's result type of a binary operation on arrays of these dtypes.
DType promote(DType a, DType b);

/// The float type that holds every value of `t` exactly, which operations such
/// as exp, sqrt and true division compute in: float32 stays float32; bool,
/// int8, uint8 and int16 become float32; int32, int64 and float64 become
/// float64. (Aesara's `upgrade_to_float`. NumPy would give float16 for the
/// 8-bit types; rwgraph has no float16, and float32 is the next type that holds
/// them exactly, the same choice `promote(int16, float32) == float32` makes.)
constexpr DType float_result(DType t) {
  switch (t) {
    case DType::Bool: case DType::Int8: case DType::UInt8: case DType::Int16:
    case DType::Float32: return DType::Float32;
    case DType::Int32: case DType::Int64: case DType::Float64: return DType::Float64;
  }
  return DType::Float64;
}

/// The C++ element type of a dtype.
template <DType T> struct dtype_traits;
template <> struct dtype_traits<DType::Bool> { using type = bool; };
template <> struct dtype_traits<DType::Int8> { using type = std::int8_t; };
template <> struct dtype_traits<DType::Int16> { using type = std::int16_t; };
template <> struct dtype_traits<DType::Int32> { using type = std::int32_t; };
template <> struct dtype_traits<DType::Int64> { using type = std::int64_t; };
template <> struct dtype_traits<DType::UInt8> { using type = std::uint8_t; };
template <> struct dtype_traits<DType::Float32> { using type = float; };
template <> struct dtype_traits<DType::Float64> { using type = double; };
template <DType T> using ctype_t = typename dtype_traits<T>::type;

/// The dtype of a C++ element type.
template <class T> constexpr DType dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, bool>) return DType::Bool;
  else if constexpr (std::is_same_v<U, std::int8_t>) return DType::Int8;
  else if constexpr (std::is_same_v<U, std::int16_t>) return DType::Int16;
  else if constexpr (std::is_same_v<U, std::int32_t>) return DType::Int32;
  else if constexpr (std::is_same_v<U, std::int64_t>) return DType::Int64;
  else if constexpr (std::is_same_v<U, std::uint8_t>) return DType::UInt8;
  else if constexpr (std::is_same_v<U, float>) return DType::Float32;
  else if constexpr (std::is_same_v<U, double>) return DType::Float64;
  else static_assert(sizeof(T) == 0, "no rwgraph dtype for this C++ type");
}

/// Calls `f.template operator()<T>()` with T the C++ type of `t`:
/// `visit_dtype(t, [&]<class T>() { ... })`.
template <class F> decltype(auto) visit_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f.template operator()<bool>();
    case DType::Int8: return f.template operator()<std::int8_t>();
    case DType::Int16: return f.template operator()<std::int16_t>();
    case DType::Int32: return f.template operator()<std::int32_t>();
    case DType::Int64: return f.template operator()<std::int64_t>();
    case DType::UInt8: return f.template operator()<std::uint8_t>();
    case DType::Float32: return f.template operator()<float>();
    case DType::Float64: return f.template operator()<double>();
  }
  RW_UNREACHABLE("visit_dtype: a DType outside the enumeration");
}

}  // namespace rw

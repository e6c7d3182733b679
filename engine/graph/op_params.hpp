// ParamsOp: an Op whose properties are one typed value (Aesara's ParamsType),
// handed to its perform and, being plain data, to native code.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/graph/op.hpp"

namespace rw {

/// One field of an Op's params: the property's name and the member.
template <class P, class T> struct ParamField {
  std::string_view name;
  T P::*member;
};
/// `rw::param("axis", &SumParams::axis)`.
template <class P, class T> constexpr ParamField<P, T> param(std::string_view name, T P::*member) {
  return {name, member};
}

/// A field's value as a property: bool, integers (as int64), floats (as
/// double), strings, int64 vectors, dtypes, and std::optional of those
/// (none when empty).
template <class T> PropValue to_prop_value(const T& value) {
  if constexpr (std::is_same_v<T, bool>) {
    return value;
  } else if constexpr (std::is_same_v<T, DType>) {
    return value;
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<std::int64_t>(value);
  } else if constexpr (std::integral<T>) {
    return static_cast<std::int64_t>(value);
  } else if constexpr (std::floating_point<T>) {
    return static_cast<double>(value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return value;
  } else if constexpr (std::is_same_v<T, std::vector<std::int64_t>>) {
    return value;
  } else {
    static_assert(requires { value.has_value(); }, "a params field must be a property value");
    if (!value) return std::monostate{};
    return to_prop_value(*value);
  }
}

/// An Op whose properties are the fields of one value of type `P` (Aesara's
/// ParamsType). `P` is plain data that lists its fields in order:
///
///     struct GemmParams {
///       bool inplace = false;
///       static constexpr auto fields() { return std::tuple{rw::param("inplace", &GemmParams::inplace)}; }
///     };
///     class Gemm final : public rw::ParamsOp<GemmParams> { … };
///
/// The fields are the Op's props(), so they define its equality and hash
/// and are printed with it (`gemm{inplace=true}`); perform hands them to
/// `perform_with`, which native code will be given as well.
template <class P> class ParamsOp : public Op {
 public:
  using Params = P;

  explicit ParamsOp(P params) : params_(std::move(params)) {}
  const P& params() const { return params_; }

  /// The fields' names, in order.
  static std::vector<std::string_view> param_names() {
    return std::apply([](const auto&... f) { return std::vector<std::string_view>{f.name...}; },
                      P::fields());
  }

  Props props() const final {
    return std::apply(
        [&](const auto&... f) {
          return Props{Prop{std::string(f.name), to_prop_value(params_.*(f.member))}...};
        },
        P::fields());
  }

  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const final {
    perform_with(params_, node, inputs, outputs);
  }

 protected:
  /// Computes the outputs, given the params.
  virtual void perform_with(const P& params, const Apply& node, std::span<const Tensor> inputs,
                            std::span<Tensor> outputs) const = 0;

 private:
  P params_;
};

}  // namespace rw

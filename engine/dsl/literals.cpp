// Literal encodings.
#include "engine/dsl/literals.hpp"

#include <limits>

namespace rw::dsl {

std::optional<std::int64_t> tuple_word_value(std::string_view word) {
  if (word == "x") return kTupleNewAxis;
  if (word == "i") return kTupleIndexInput;
  return std::nullopt;
}

std::optional<DType> dtype_word(std::string_view word) {
  return parse_dtype(word);
}

std::optional<PropValue> word_value(std::string_view word) {
  if (word == "true") return PropValue{true};
  if (word == "false") return PropValue{false};
  if (word == "none" || word == "all") return PropValue{std::monostate{}};
  if (auto d = dtype_word(word)) return PropValue{*d};
  return std::nullopt;
}

DType int_literal_dtype(std::int64_t v) {
  auto fits = [v](auto limit_type) {
    using L = decltype(limit_type);
    return v >= std::numeric_limits<L>::min() && v <= std::numeric_limits<L>::max();
  };
  if (fits(std::int8_t{})) return DType::Int8;
  if (fits(std::int16_t{})) return DType::Int16;
  if (fits(std::int32_t{})) return DType::Int32;
  return DType::Int64;
}

DType literal_dtype(const NumberValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return int_literal_dtype(*i);
  return DType::Float64;
}

Var literal_constant(const NumberValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return Constant::make(Tensor::scalar(*d));
  const std::int64_t v = std::get<std::int64_t>(value);
  switch (int_literal_dtype(v)) {
    case DType::Int8:
      return Constant::make(Tensor::scalar(static_cast<std::int8_t>(v)));
    case DType::Int16:
      return Constant::make(Tensor::scalar(static_cast<std::int16_t>(v)));
    case DType::Int32:
      return Constant::make(Tensor::scalar(static_cast<std::int32_t>(v)));
    default:
      return Constant::make(Tensor::scalar(v));
  }
}

NumberValue negate(const NumberValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return -*i;
  return -std::get<double>(value);
}

}  // namespace rw::dsl

// Literal encodings shared by rule and graph files: the words a parameter
// value may be, the words of integer tuples, and the dtype of numeric constants.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <variant>

#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/dtype.hpp"

namespace rw::dsl {

/// A numeric literal's value.
using NumberValue = std::variant<std::int64_t, double>;

/// `x` in an integer tuple: a new broadcastable axis (dimshuffle's `order`).
inline constexpr std::int64_t kTupleNewAxis = -1;
/// `i` in an integer tuple: an integer index read from the next input
/// (subtensor's `index`).
inline constexpr std::int64_t kTupleIndexInput = -2;

/// The value of a word in an integer tuple (`x`, `i`), or nullopt.
std::optional<std::int64_t> tuple_word_value(std::string_view word);
/// The value of a bare word used as a parameter value: `true`, `false`,
/// `none`, `all` (the same as `none`: every axis), or a dtype name in either
/// spelling (`float64`, `f64`). nullopt for any other word (in rules, a
/// parameter variable).
std::optional<PropValue> word_value(std::string_view word);
/// A dtype name in either spelling, or nullopt.
std::optional<DType> dtype_word(std::string_view word);

/// The dtype an integer literal gets: the smallest of int8, int16, int32 and
/// int64 that holds it (as PyTensor types Python integers).
DType int_literal_dtype(std::int64_t value);
/// The dtype of a literal: as above for integers, float64 for floats.
DType literal_dtype(const NumberValue& value);
/// A 0-d constant holding the literal, of `literal_dtype`.
Var literal_constant(const NumberValue& value);
/// `-value`.
NumberValue negate(const NumberValue& value);

}  // namespace rw::dsl

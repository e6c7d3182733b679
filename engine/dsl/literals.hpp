// Literal encodings shared by rule and graph files: the words a parameter
// value may be, the words of integer tuples, and the dtype of numeric constants.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <tuple>
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

/// The reserved words of the rules and graph languages: they start
/// statements, separate clauses or are literals, so they are never names
/// (the grammar's and the graph-file writer's one list).
inline constexpr std::string_view kKeywords[] = {"import", "ruleset", "rule", "declare", "input",
                                                 "output", "where",   "and",  "or",      "not",
                                                 "inf",    "nan",     "def",  "const"};

/// Whether `word` is one of kKeywords. Most names are not: they are ruled out
/// by length and first letter before any string is compared.
inline bool is_keyword(std::string_view word) {
  constexpr auto bounds = [] {
    std::size_t lo = 64, hi = 0;
    std::uint32_t first = 0;  // bit c - 'a' for each keyword's first letter
    for (std::string_view k : kKeywords) {
      lo = std::min(lo, k.size());
      hi = std::max(hi, k.size());
      first |= std::uint32_t{1} << (k[0] - 'a');
    }
    return std::tuple{lo, hi, first};
  }();
  const auto [lo, hi, first] = bounds;
  if (word.size() < lo || word.size() > hi || word[0] < 'a' || word[0] > 'z' ||
      !(first >> (word[0] - 'a') & 1))
    return false;
  for (std::string_view k : kKeywords)
    if (k == word) return true;
  return false;
}

/// Whether `text` is written as a name: a letter or `_`, then letters,
/// digits and `_` (a keyword still is not one; see is_keyword).
inline bool is_identifier(std::string_view text) {
  const auto start = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (text.empty() || !start(text[0])) return false;
  for (char c : text)
    if (!start(c) && !(c >= '0' && c <= '9')) return false;
  return true;
}

}  // namespace rw::dsl

// A small streaming JSON writer: objects, arrays, strings escaped per RFC 8259,
// printed with two-space indentation, keys in the order written.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rw::check {

/// `s` as a JSON string literal: quotes, backslashes and control characters
/// escaped (`\n`, `\u001b`); other bytes (UTF-8) kept as they are.
std::string json_quote(std::string_view s);

/// Writes one JSON value into a string. Calls must nest properly: `key` only
/// inside an object, before each of its values.
class JsonWriter {
 public:
  /// Starts an object or array (as a value, or the value of the last key).
  void begin_object();
  void begin_array();
  /// Ends the innermost object or array.
  void end_object();
  void end_array();
  /// The key of the next value of the current object.
  void key(std::string_view k);
  /// Values.
  void value(std::string_view s);
  void value(const char* s) { value(std::string_view(s)); }
  void value(const std::string& s) { value(std::string_view(s)); }
  void value(std::int64_t n);
  void value(std::size_t n) { value(static_cast<std::int64_t>(n)); }
  void value(int n) { value(static_cast<std::int64_t>(n)); }
  void value(double x);
  void value(bool b);
  void null();
  /// A number, or null when there is none.
  void value_or_null(std::optional<std::size_t> n);
  /// `key(k)` then `value(v)`.
  template <class T>
  void field(std::string_view k, const T& v) {
    key(k);
    value(v);
  }
  /// The text so far, ending with a newline once the top value is complete.
  std::string str() const;

 private:
  void before_value();
  void close(char c);
  std::string out_;
  // One entry per open container: the number of values written in it so far.
  std::vector<std::size_t> counts_;
  bool after_key_ = false;
};

}  // namespace rw::check

// The JSON writer.
#include "tools/rwcheck/json.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rw::check {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20)
          out += fmt::format("\\u{:04x}", static_cast<unsigned>(static_cast<unsigned char>(c)));
        else
          out += c;
    }
  }
  out += '"';
  return out;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!counts_.empty()) {
    if (counts_.back()++ > 0) out_ += ',';
    out_ += '\n';
    out_.append(2 * counts_.size(), ' ');
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  counts_.push_back(0);
}

void JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  counts_.push_back(0);
}

void JsonWriter::close(char c) {
  const std::size_t n = counts_.back();
  counts_.pop_back();
  if (n > 0) {
    out_ += '\n';
    out_.append(2 * counts_.size(), ' ');
  }
  out_ += c;
}

void JsonWriter::end_object() {
  close('}');
}
void JsonWriter::end_array() {
  close(']');
}

void JsonWriter::key(std::string_view k) {
  before_value();
  out_ += json_quote(k);
  out_ += ": ";
  after_key_ = true;
}

void JsonWriter::value(std::string_view s) {
  before_value();
  out_ += json_quote(s);
}

void JsonWriter::value(std::int64_t n) {
  before_value();
  out_ += std::to_string(n);
}

void JsonWriter::value(double x) {
  before_value();
  // JSON has no inf or nan.
  if (!std::isfinite(x))
    out_ += "null";
  else
    out_ += fmt::format("{}", x);
}

void JsonWriter::value(bool b) {
  before_value();
  out_ += b ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::value_or_null(std::optional<std::size_t> n) {
  if (n)
    value(*n);
  else
    null();
}

std::string JsonWriter::str() const {
  return counts_.empty() ? out_ + "\n" : out_;
}

}  // namespace rw::check

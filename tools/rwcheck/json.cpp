// The JSON writer.
#include "tools/rwcheck/json.hpp"

#include <cmath>

#include <fmt/format.h>

namespace rw::check {

namespace {

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong
// forms, no surrogates, nothing above U+10FFFF), or 0 when there is none.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = byte(i);
  std::size_t n = 0;
  unsigned lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;
    if (c == 0xED) hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;
  } else {
    return 0;
  }
  if (i + n > s.size() || byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (static_cast<unsigned char>(c) >= 0x80) {
      // JSON is UTF-8 (RFC 8259): a byte that starts no valid sequence (a
      // path or name in another encoding) becomes U+FFFD.
      if (const std::size_t n = utf8_length(s, i)) {
        out += s.substr(i, n);
        i += n - 1;
      } else {
        out += "\\ufffd";
      }
      continue;
    }
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

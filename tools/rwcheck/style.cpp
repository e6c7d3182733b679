// Colour and ASCII passes over rwcheck's text.
#include "tools/rwcheck/style.hpp"

#include <clocale>
#include <cstdint>
#include <cstring>
#include <langinfo.h>

namespace rw::check {

namespace {

constexpr std::string_view kReset = "\x1b[0m";
constexpr std::string_view kBold = "\x1b[1m";
constexpr std::string_view kRed = "\x1b[1;31m";
constexpr std::string_view kGreen = "\x1b[1;32m";
constexpr std::string_view kMagenta = "\x1b[1;35m";
constexpr std::string_view kCyan = "\x1b[1;36m";

// `file:12:3` (a diagnostic's location) or `rwcheck`.
bool is_location(std::string_view s) {
  if (s == "rwcheck") return true;
  const std::size_t col = s.rfind(':');
  if (col == std::string_view::npos || col + 1 == s.size()) return false;
  const std::size_t line = s.rfind(':', col - 1);
  if (line == std::string_view::npos || line == 0) return false;
  const auto digits = [](std::string_view d) {
    return !d.empty() && d.find_first_not_of("0123456789") == std::string_view::npos;
  };
  return digits(s.substr(col + 1)) && digits(s.substr(line + 1, col - line - 1));
}

void colorize_line(std::string_view line, std::string& out) {
  struct Label {
    std::string_view text, color;
  };
  static constexpr Label kLabels[] = {
      {": error: ", kRed}, {": warning: ", kMagenta}, {": note: ", kCyan}};
  for (const Label& l : kLabels) {
    const std::size_t at = line.find(l.text);
    if (at == std::string_view::npos || !is_location(line.substr(0, at))) continue;
    const std::string_view word = l.text.substr(2, l.text.size() - 3);  // `error:`
    out.append(kBold).append(line.substr(0, at + 1)).append(kReset).append(" ");
    out.append(l.color).append(word).append(kReset).append(" ");
    out.append(line.substr(at + l.text.size()));
    return;
  }
  if (line.starts_with("error: ")) {  // a diagnostic about no file
    out.append(kRed).append("error:").append(kReset).append(line.substr(6));
    return;
  }
  const std::size_t caret = line.find_first_not_of(' ');
  if (caret != std::string_view::npos && line[caret] == '^' &&
      line.find_first_not_of("^~", caret) == std::string_view::npos) {
    out.append(line.substr(0, caret)).append(kGreen).append(line.substr(caret)).append(kReset);
    return;
  }
  if (line.starts_with("FAILED ")) {
    out.append(kRed).append("FAILED").append(kReset).append(line.substr(6));
    return;
  }
  if (line.starts_with("ok ")) {
    out.append(kGreen).append("ok").append(kReset).append(line.substr(2));
    return;
  }
  out.append(line);
}

// The code point of the UTF-8 sequence at text[i] and its length, or
// nullopt-like {0, 0} when the bytes there are not UTF-8.
std::pair<std::uint32_t, std::size_t> decode(std::string_view text, std::size_t i) {
  const auto b = static_cast<unsigned char>(text[i]);
  std::size_t n = b >= 0xF0 && b < 0xF5 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > text.size()) return {0, 0};
  std::uint32_t cp = b & (0x3F >> (n - 1));
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(text[i + k]);
    if ((c & 0xC0) != 0x80) return {0, 0};
    cp = cp << 6 | (c & 0x3F);
  }
  return {cp, n};
}

}  // namespace

bool color_wanted(bool is_terminal, const char* no_color, const char* term) {
  if (!is_terminal) return false;
  if (no_color && *no_color) return false;
  return !(term && std::strcmp(term, "dumb") == 0);
}

bool locale_is_utf8() {
  std::setlocale(LC_CTYPE, "");
  const char* codeset = nl_langinfo(CODESET);
  return codeset && (std::strcmp(codeset, "UTF-8") == 0 || std::strcmp(codeset, "utf8") == 0);
}

std::string colorize(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t b = 0; b < text.size();) {
    std::size_t e = text.find('\n', b);
    const bool newline = e != std::string_view::npos;
    if (!newline) e = text.size();
    colorize_line(text.substr(b, e - b), out);
    if (newline) out += '\n';
    b = e + 1;
  }
  return out;
}

std::string to_ascii(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      out += text[i++];
      continue;
    }
    const auto [cp, n] = decode(text, i);
    if (n == 0) {
      out += '?';
      ++i;
      continue;
    }
    i += n;
    switch (cp) {
      case 0x251C: out += '|'; break;    // ├
      case 0x2514: out += '`'; break;    // └
      case 0x2500: out += '-'; break;    // ─
      case 0x2502: out += '|'; break;    // │
      case 0x00B7: out += '.'; break;    // ·
      case 0x2026: out += "..."; break;  // …
      case 0x250A: out += ':'; break;    // ┊
      default: out += '?';
    }
  }
  return out;
}

}  // namespace rw::check

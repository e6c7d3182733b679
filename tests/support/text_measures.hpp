// Measures of printed text for tests that bound a printer's output: the
// widest line, how often a piece occurs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace rw::test {

/// Bytes in the longest line of `text` (lines end in '\n').
inline std::size_t widest_line(std::string_view text) {
  std::size_t widest = 0;
  for (std::size_t b = 0; b < text.size();) {
    std::size_t e = text.find('\n', b);
    if (e == std::string_view::npos) e = text.size();
    widest = std::max(widest, e - b);
    b = e + 1;
  }
  return widest;
}

/// How many times `what` occurs in `text` (overlaps counted).
inline std::size_t count_of(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

}  // namespace rw::test

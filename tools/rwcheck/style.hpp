// How rwcheck's text reaches a terminal: colour (when it is one and NO_COLOR
// is not set) and ASCII in place of box-drawing characters (when the locale
// is not UTF-8). Both are passes over finished text, so every report gets
// them alike.
#pragma once

#include <string>
#include <string_view>

namespace rw::check {

/// Whether to colour a stream: it is a terminal, `no_color` (the NO_COLOR
/// variable, https://no-color.org) is unset or empty, and `term` is not `dumb`.
bool color_wanted(bool is_terminal, const char* no_color, const char* term);

/// Whether the locale's character set (`nl_langinfo(CODESET)` after
/// `setlocale(LC_CTYPE, "")`) is UTF-8.
bool locale_is_utf8();

/// `text` with ANSI colours: `rwcheck: error:` and a diagnostic's `error:`
/// red, `warning:` magenta, `note:` cyan, its location bold, the caret line
/// green; `FAILED` red and `ok` green at the start of verify's lines.
std::string colorize(std::string_view text);

/// `text` in ASCII: `├─ ` as `|- `, `└─ ` as `` `- ``, `│` as `|`, `···` and
/// `…` as `...`, `┊` as `:`; any other non-ASCII character (or byte that is
/// not UTF-8) as `?`.
std::string to_ascii(std::string_view text);

}  // namespace rw::check

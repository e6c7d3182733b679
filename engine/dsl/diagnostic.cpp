// Diagnostic rendering: location, source line and caret.
#include "engine/dsl/diagnostic.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace rw::dsl {

LineCol Diagnostic::location() const {
  return file ? file->location(span.begin) : LineCol{};
}

namespace {

bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// Source lines longer than this many characters are shown as a window
/// around the caret, cut ends marked `…`.
constexpr std::size_t kMaxExcerptColumns = 120;

// The source line, then a caret under the span's first character and `~` under
// the rest of it on that line. Tabs in the prefix are kept so that the caret
// lines up in a terminal; columns are characters (UTF-8 code points).
void render_excerpt(const Diagnostic& d, std::string& out) {
  const SourceFile& f = *d.file;
  if (f.text().empty()) return;
  const LineCol at = f.location(d.span.begin);
  const std::string_view line = f.line_text(at.line);
  const std::uint32_t start = f.line_start(at.line);
  std::vector<std::size_t> chars;  // byte offset of each character of the line
  for (std::size_t i = 0; i < line.size(); ++i)
    if (!is_continuation_byte(line[i])) chars.push_back(i);
  const std::size_t n = chars.size();
  auto char_at = [&](std::uint32_t offset) {  // index of the character at a file offset
    const std::size_t byte =
        std::min<std::size_t>(offset > start ? offset - start : 0, line.size());
    return static_cast<std::size_t>(std::lower_bound(chars.begin(), chars.end(), byte) -
                                    chars.begin());
  };
  const std::size_t caret = char_at(d.span.begin);
  const std::size_t span_end = std::max(char_at(d.span.end), caret + 1);

  std::size_t first = 0, last = n;
  if (n > kMaxExcerptColumns) {
    first = caret > kMaxExcerptColumns / 2 ? caret - kMaxExcerptColumns / 2 : 0;
    last = std::min(n, first + kMaxExcerptColumns);
    first = last - kMaxExcerptColumns;
  }
  auto byte_of = [&](std::size_t c) { return c < n ? chars[c] : line.size(); };
  if (first > 0) out += "\u2026";
  out += line.substr(byte_of(first), byte_of(last) - byte_of(first));
  if (last < n) out += "\u2026";
  out += '\n';
  if (first > 0) out += ' ';
  for (std::size_t c = first; c < caret; ++c) out += line[chars[c]] == '\t' ? '\t' : ' ';
  out += '^';
  for (std::size_t c = caret + 1; c < std::min(span_end, last); ++c) out += '~';
  out += '\n';
}

void render_one(const Diagnostic& d, std::string& out) {
  const char* kind = d.severity == Severity::Error     ? "error"
                     : d.severity == Severity::Warning ? "warning"
                                                       : "note";
  if (d.file) {
    const LineCol at = d.location();
    out += fmt::format("{}:{}:{}: {}: {}\n", d.file->name(), at.line, at.column, kind, d.message);
    render_excerpt(d, out);
  } else {
    out += fmt::format("{}: {}\n", kind, d.message);
  }
  for (const Diagnostic& n : d.notes) render_one(n, out);
}

/// A quoted name or token longer than this many characters is shown as its
/// start and `…`; a whole message is cut after kMaxMessageBytes.
constexpr std::size_t kMaxQuotedChars = 60;
constexpr std::size_t kMaxMessageBytes = 2000;

// Windows what a message quotes, as the source line is windowed: a 100 MB name
// must not make a 100 MB message.
std::string window_message(std::string message) {
  if (message.size() <= kMaxQuotedChars) return message;
  std::string out;
  out.reserve(std::min(message.size(), kMaxMessageBytes + 8));
  bool quoted = false;
  std::size_t chars = 0;  // characters of the current quotation
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    if (c == '`') {
      quoted = !quoted;
      chars = 0;
      out += c;
      continue;
    }
    if (quoted && !is_continuation_byte(c) && ++chars == kMaxQuotedChars + 1) {
      out += "\u2026";
      const std::size_t close = message.find('`', i);
      if (close == std::string::npos) break;
      i = close - 1;  // the closing backquote comes next
      continue;
    }
    if (quoted && chars > kMaxQuotedChars) continue;
    out += c;
    if (out.size() >= kMaxMessageBytes) {
      while (!out.empty() && is_continuation_byte(out.back())) out.pop_back();
      if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
      out += "\u2026";
      break;
    }
  }
  return out;
}

}  // namespace

std::string Diagnostic::render() const {
  std::string out;
  render_one(*this, out);
  return out;
}

Diagnostic make_error(SourcePtr file, Span span, std::string message) {
  return {Severity::Error, std::move(file), span, window_message(std::move(message)), {}};
}

Diagnostic make_warning(SourcePtr file, Span span, std::string message) {
  return {Severity::Warning, std::move(file), span, window_message(std::move(message)), {}};
}

Diagnostic make_note(SourcePtr file, Span span, std::string message) {
  return {Severity::Note, std::move(file), span, window_message(std::move(message)), {}};
}

std::string render(std::span<const Diagnostic> diagnostics) {
  std::string out;
  for (const Diagnostic& d : diagnostics) render_one(d, out);
  return out;
}

std::size_t count_errors(std::span<const Diagnostic> diagnostics) {
  return static_cast<std::size_t>(
      std::count_if(diagnostics.begin(), diagnostics.end(),
                    [](const Diagnostic& d) { return d.severity == Severity::Error; }));
}

LoadError::LoadError(std::vector<Diagnostic> diagnostics)
    : Error(render(diagnostics)), diagnostics_(std::move(diagnostics)) {}

}  // namespace rw::dsl

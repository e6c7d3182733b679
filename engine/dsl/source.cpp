// SourceFile: line index and offset-to-line/column mapping.
#include "engine/dsl/source.hpp"

#include <algorithm>

namespace rw::dsl {

SourceFile::SourceFile(std::string name, std::string text, std::string key)
    : name_(std::move(name)), key_(std::move(key)), text_(std::move(text)) {
  if (key_.empty()) key_ = name_;
  // Line ends are LF, CRLF or a lone CR (old Mac files): a lone CR becomes an
  // LF in place, so offsets are unchanged and everything after sees one kind.
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\r' && (i + 1 == text_.size() || text_[i + 1] != '\n')) text_[i] = '\n';
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(static_cast<std::uint32_t>(i + 1));
}

std::shared_ptr<const SourceFile> SourceFile::make(std::string name, std::string text,
                                                   std::string key) {
  return std::make_shared<const SourceFile>(std::move(name), std::move(text), std::move(key));
}

std::string_view SourceFile::slice(Span span) const {
  const std::size_t b = std::min<std::size_t>(span.begin, text_.size());
  const std::size_t e = std::clamp<std::size_t>(span.end, b, text_.size());
  return std::string_view(text_).substr(b, e - b);
}

namespace {
bool is_continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}
}  // namespace

LineCol SourceFile::location(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  const auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  const auto line = static_cast<std::uint32_t>(it - line_starts_.begin());
  std::uint32_t column = 1;
  for (std::uint32_t i = line_starts_[line - 1]; i < offset; ++i)
    if (!is_continuation_byte(text_[i])) ++column;
  return {line, column};
}

std::string_view SourceFile::line_text(std::uint32_t line) const {
  if (line == 0 || line > line_starts_.size()) return {};
  const std::size_t b = line_starts_[line - 1];
  std::size_t e = line < line_starts_.size() ? line_starts_[line] - 1 : text_.size();
  if (e > b && text_[e - 1] == '\r') --e;
  return std::string_view(text_).substr(b, e - b);
}

}  // namespace rw::dsl

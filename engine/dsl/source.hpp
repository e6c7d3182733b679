// SourceFile: the text of one rule or graph file, with line and column lookup.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rw::dsl {

/// A range of bytes [begin, end) in a source text.
struct Span {
  std::uint32_t begin = 0;
  std::uint32_t end = 0;
  friend bool operator==(const Span&, const Span&) = default;
};

/// The smallest span covering both.
constexpr Span join(Span a, Span b) {
  return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
}

/// A 1-based line and column. Columns count characters (UTF-8 code points),
/// so a tab is one column.
struct LineCol {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  friend bool operator==(const LineCol&, const LineCol&) = default;
};

/// The text of one file, immutable once made, shared by the parse tree, the
/// checked rules and the diagnostics that point into it.
class SourceFile {
 public:
  /// `name` is what diagnostics print; `key` identifies the file for import
  /// cycles and de-duplication (a canonical path), and defaults to `name`.
  SourceFile(std::string name, std::string text, std::string key = {});
  /// A shared SourceFile.
  static std::shared_ptr<const SourceFile> make(std::string name, std::string text,
                                                std::string key = {});

  /// What diagnostics call the file.
  const std::string& name() const { return name_; }
  /// Its identity among the files of a load.
  const std::string& key() const { return key_; }
  /// The whole text.
  std::string_view text() const { return text_; }
  /// The text a span covers.
  std::string_view slice(Span span) const;

  /// Line and column of a byte offset (offsets past the end map to the end).
  LineCol location(std::uint32_t offset) const;
  /// The 1-based line `line` without its line break.
  std::string_view line_text(std::uint32_t line) const;
  /// Number of lines (a final line break starts an empty last line).
  std::uint32_t line_count() const { return static_cast<std::uint32_t>(line_starts_.size()); }
  /// Byte offset where line `line` starts.
  std::uint32_t line_start(std::uint32_t line) const { return line_starts_[line - 1]; }

 private:
  std::string name_;
  std::string key_;
  std::string text_;
  std::vector<std::uint32_t> line_starts_;
};

/// Shared handle to a source file.
using SourcePtr = std::shared_ptr<const SourceFile>;

}  // namespace rw::dsl

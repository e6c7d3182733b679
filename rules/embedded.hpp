// The standard rule library (rules/*.rules), embedded into the library at
// build time so that loading it needs nothing on disk.
#pragma once

#include <span>
#include <string_view>

namespace rw {

/// One embedded rule file: its name as diagnostics print it
/// (`rules/stabilize.rules`) and its text.
struct EmbeddedRuleFile {
  /// `rules/<file>.rules`.
  std::string_view name;
  /// The whole file, as it is in the source tree.
  std::string_view text;
};

/// The files of the standard rule library, sorted by name. The views point
/// into static storage and stay valid for the life of the program.
std::span<const EmbeddedRuleFile> standard_rule_files();

}  // namespace rw

// Parsing a rule or graph file into its parse tree, collecting every syntax
// error (recovery at statement boundaries). No Spirit X3 here: the grammar is
// compiled once, in grammar.cpp.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/source.hpp"

namespace rw::dsl {

/// How deeply the parser may recurse: each parenthesis, call argument, unary
/// minus, `**` operand and `not` nests one level, and the expression itself is
/// the first. Deeper input is refused with a diagnostic instead of exhausting
/// the stack (a level costs a few kilobytes of stack in the recursive descent).
inline constexpr int kMaxNesting = 100;
/// How tall an expression tree may be, so that code walking it recursively
/// stays within a small stack: a leaf is 1, and a chain `a + b + c` of n
/// operands is n deep.
inline constexpr int kMaxTreeDepth = 500;
/// A file with more errors than this reports the first ones and stops.
inline constexpr std::size_t kMaxErrorsPerFile = 50;
/// The longest chain of imports (a file, the file it imports, the file that
/// one imports…): files are loaded depth first, and a deeper chain is refused
/// at the import that would pass the limit.
inline constexpr std::size_t kMaxImportDepth = 256;
/// Largest source text accepted, in bytes.
inline constexpr std::size_t kMaxSourceBytes = std::size_t{1} << 30;

/// The parse tree of one file and its syntax errors.
struct ParsedFile {
  SourcePtr source;
  ast::File ast;
  std::vector<Diagnostic> diagnostics;
  /// Names that statements with a syntax error would have defined (`NAME =
  /// …`, `(NAME, …) = …`, `input NAME …`, `def NAME`), so that a graph file
  /// does not report their uses (or calls) as undefined as well.
  std::vector<std::string> failed_names;
  /// True when there were no errors.
  bool ok() const { return count_errors(diagnostics) == 0; }
};

/// Parses `source`. Statements with a syntax error are left out of the tree
/// and reported; parsing resumes at the next line that starts a statement.
ParsedFile parse(SourcePtr source);

}  // namespace rw::dsl

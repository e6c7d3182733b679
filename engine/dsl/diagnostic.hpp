// Diagnostic: a user error in a rule or graph file, rendered as
// `file:line:col: error: message`, the source line, and a caret under the fault.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/dsl/source.hpp"
#include "engine/graph/errors.hpp"

namespace rw::dsl {

/// Whether a diagnostic is an error, a warning (a tool's finding, e.g.
/// `rwcheck lint`) or a note attached to one of them.
enum class Severity : std::uint8_t { Error, Note, Warning };

/// One message about one place in a source file. Messages are lowercase and
/// put names in backticks.
struct Diagnostic {
  Severity severity = Severity::Error;
  /// The file the span points into; null for a message about no file.
  SourcePtr file;
  Span span;
  std::string message;
  /// Further places that explain this one ("first defined here").
  std::vector<Diagnostic> notes;

  /// The position of the span's start.
  LineCol location() const;
  /// `file:line:col: error: message`, the source line, a caret line, then the notes.
  std::string render() const;
};

/// An error at `span` of `file`.
Diagnostic make_error(SourcePtr file, Span span, std::string message);
/// A warning at `span` of `file`.
Diagnostic make_warning(SourcePtr file, Span span, std::string message);
/// A note at `span` of `file`.
Diagnostic make_note(SourcePtr file, Span span, std::string message);

/// Every diagnostic rendered, in order.
std::string render(std::span<const Diagnostic> diagnostics);
/// Number of errors (notes attached to them not counted).
std::size_t count_errors(std::span<const Diagnostic> diagnostics);

/// What a load produced: the value when there was no error, and every
/// diagnostic (a load with errors produces nothing).
template <class T>
struct LoadResult {
  std::optional<T> value;
  std::vector<Diagnostic> diagnostics;
  /// True when the load succeeded (there were no errors).
  bool ok() const { return value.has_value(); }
  /// The value; throws LoadError with the diagnostics when there is none.
  T take();
};

/// Thrown by the loaders when a file has errors; nothing was loaded.
class LoadError : public Error {
 public:
  /// An error whose message is the rendered diagnostics.
  explicit LoadError(std::vector<Diagnostic> diagnostics);
  /// Every diagnostic of the failed load.
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

template <class T>
T LoadResult<T>::take() {
  if (!value) throw LoadError(std::move(diagnostics));
  return std::move(*value);
}

}  // namespace rw::dsl

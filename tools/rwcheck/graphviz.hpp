// Graphviz as a subprocess: finding `dot` on $PATH and drawing SVG with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rw::check {

/// The path of the executable `program`: itself when it holds a `/`, else
/// the first `dir/program` of `$PATH` that is an executable file; nullopt
/// when there is none.
std::optional<std::string> find_program(std::string_view program);

/// What drawing one graph gave: the SVG, or why there is none.
struct SvgResult {
  std::optional<std::string> svg;
  std::string why_not;
};

/// Runs `dot_program -Tsvg` on `dot_text` (through temporary files) and
/// returns its SVG, from `<svg` on (the XML prolog is left out, so that it
/// can stand inside an HTML page); or why not: it could not be started, or
/// it failed (its exit status and first line of error output).
SvgResult render_svg(const std::string& dot_program, const std::string& dot_text);

}  // namespace rw::check

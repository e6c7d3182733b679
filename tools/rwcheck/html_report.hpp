// --html FILE: one self-contained page with the graph before and after as
// inline SVG (drawn by Graphviz), the rewrite trace and the profile.
#pragma once

#include <string>
#include <string_view>

namespace rw::check {

/// One picture of the page: its heading and its Graphviz text.
struct HtmlGraph {
  std::string title;  ///< `before: 11 nodes`
  std::string dot;    ///< dot_graph()'s text
};

/// What the page shows.
struct HtmlReport {
  std::string heading;  ///< the first line of the text report
  HtmlGraph before, after;
  std::string trace;    ///< as `--trace` prints it
  std::string profile;  ///< as `--profile` prints it
};

/// The page, and the warning rwcheck prints when it has no pictures.
struct HtmlPage {
  std::string html;
  /// Empty when both graphs were drawn; else why not (Graphviz is not on
  /// `$PATH`, or it failed), which the page says in one line above the DOT
  /// text it shows instead.
  std::string why_no_svg;
};

/// The page for `report`, the graphs drawn by the Graphviz program
/// `graphviz` (found as find_program does). It needs nothing outside itself:
/// the style and a small script are inline. The script records script errors
/// (`window.onerror`) and counts the SVG nodes, as the attributes
/// `data-errors` and `data-svg-nodes` of the `<html>` element, which a
/// headless browser's DOM shows.
HtmlPage html_page(const HtmlReport& report, const std::string& graphviz);

/// `s` with `&`, `<`, `>`, `"` and `'` as HTML character references.
std::string html_escape(std::string_view s);

}  // namespace rw::check

// The --html page.
#include "tools/rwcheck/html_report.hpp"

#include <optional>

#include <fmt/format.h>

#include "tools/rwcheck/graphviz.hpp"

namespace rw::check {

namespace {

constexpr std::string_view kStyle = R"(body { font-family: sans-serif; margin: 1em 2em; }
h1 { font-size: 1.3em; }
h2 { font-size: 1.1em; margin-top: 1.5em; }
pre { background: #f6f6f6; padding: 0.5em; overflow-x: auto; }
.graph svg { max-width: 100%; height: auto; }
.note { color: #8a5a00; }
)";

// Records script errors and counts the drawn nodes where a headless browser
// can read them: attributes of <html>.
constexpr std::string_view kScript = R"((function () {
  var root = document.documentElement, errors = 0;
  root.setAttribute('data-errors', '0');
  window.onerror = function () {
    errors += 1;
    root.setAttribute('data-errors', String(errors));
  };
  document.addEventListener('DOMContentLoaded', function () {
    root.setAttribute('data-svg-nodes', String(document.querySelectorAll('svg g.node').length));
  });
})();
)";

std::string section(std::string_view id, std::string_view title, const std::string& body) {
  return fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n", id, html_escape(title),
                     body);
}

}  // namespace

std::string html_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

HtmlPage html_page(const HtmlReport& report, const std::string& graphviz) {
  HtmlPage page;
  const std::optional<std::string> program = find_program(graphviz);
  if (!program) page.why_no_svg = fmt::format("Graphviz's `{}` is not on $PATH", graphviz);
  // Both drawn, or neither: a page of one picture and one text is confusing.
  std::string before_svg, after_svg;
  if (program) {
    SvgResult b = render_svg(*program, report.before.dot);
    SvgResult a = b.svg ? render_svg(*program, report.after.dot) : SvgResult{};
    if (b.svg && a.svg) {
      before_svg = std::move(*b.svg);
      after_svg = std::move(*a.svg);
    } else {
      page.why_no_svg = b.svg ? a.why_not : b.why_not;
    }
  }
  const auto picture = [&](const HtmlGraph& g, const std::string& svg) {
    return page.why_no_svg.empty()
               ? fmt::format("<div class=\"graph\">\n{}</div>\n", svg)
               : fmt::format("<pre class=\"dot\">{}</pre>\n", html_escape(g.dot));
  };
  std::string& h = page.html;
  h += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += fmt::format("<title>rwcheck: {}</title>\n", html_escape(report.heading));
  h += fmt::format("<style>\n{}</style>\n<script>\n{}</script>\n</head>\n<body>\n", kStyle,
                   kScript);
  h += fmt::format("<h1>rwcheck</h1>\n<p>{}</p>\n", html_escape(report.heading));
  if (!page.why_no_svg.empty())
    h += fmt::format("<p class=\"note\">{}: the graphs are shown as Graphviz text.</p>\n",
                     html_escape(page.why_no_svg));
  h += section("before", report.before.title, picture(report.before, before_svg));
  h += section("after", report.after.title, picture(report.after, after_svg));
  h += section("trace", "trace", fmt::format("<pre>{}</pre>\n", html_escape(report.trace)));
  h += section("profile", "profile", fmt::format("<pre>{}</pre>\n", html_escape(report.profile)));
  h += "</body>\n</html>\n";
  return page;
}

}  // namespace rw::check

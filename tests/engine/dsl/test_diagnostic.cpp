// Source files (line/column lookup) and diagnostic rendering.
#include <catch2/catch.hpp>

#include "engine/dsl/diagnostic.hpp"
#include "engine/dsl/source.hpp"

using namespace rw::dsl;

TEST_CASE("offsets map to 1-based lines and columns counted in characters", "[dsl]") {
  const auto f = SourceFile::make("a.rules", "ab\n\tcd\n\xc3\xa9x\nlast");
  REQUIRE(f->line_count() == 4);
  REQUIRE(f->location(0) == LineCol{1, 1});
  REQUIRE(f->location(2) == LineCol{1, 3});  // the newline itself
  REQUIRE(f->location(3) == LineCol{2, 1});
  REQUIRE(f->location(4) == LineCol{2, 2});  // a tab is one column
  REQUIRE(f->location(9) == LineCol{3, 2});  // é is two bytes, one column
  REQUIRE(f->location(1000) == LineCol{4, 5});
  REQUIRE(f->line_text(2) == "\tcd");
  REQUIRE(f->line_text(4) == "last");
  REQUIRE(f->line_text(5).empty());
  REQUIRE(f->slice({3, 6}) == "\tcd");
  REQUIRE(f->key() == "a.rules");
}

TEST_CASE("carriage returns are not part of a line's text", "[dsl]") {
  const auto f = SourceFile::make("w.rules", "rule a: x => y\r\nrule b\r\n");
  REQUIRE(f->line_text(1) == "rule a: x => y");
  REQUIRE(f->location(16) == LineCol{2, 1});
}

TEST_CASE("a diagnostic renders location, source line and a caret under the span", "[dsl]") {
  const auto f = SourceFile::make("s.rules", "rule r: lgo(x) => x\n");
  Diagnostic d = make_error(f, {8, 11}, "unknown op `lgo`; did you mean `log`?");
  REQUIRE(d.render() ==
          "s.rules:1:9: error: unknown op `lgo`; did you mean `log`?\n"
          "rule r: lgo(x) => x\n"
          "        ^~~\n");
}

TEST_CASE("carets keep tabs and count characters, not bytes", "[dsl]") {
  const auto f = SourceFile::make("t.graph", "\t\xc3\xa9 = foo(x)\n");
  const Diagnostic d = make_error(f, {6, 9}, "undefined");
  REQUIRE(d.render() ==
          "t.graph:1:6: error: undefined\n"
          "\t\xc3\xa9 = foo(x)\n"
          "\t    ^~~\n");
}

TEST_CASE("a span running past its line is underlined to the end of the line", "[dsl]") {
  const auto f = SourceFile::make("m.rules", "rule r: a +\n  b => c\n");
  const Diagnostic d = make_error(f, {8, 15}, "m");
  REQUIRE(d.render() == "m.rules:1:9: error: m\nrule r: a +\n        ^~~\n");
}

TEST_CASE("notes follow their error, and a file-less diagnostic has no excerpt", "[dsl]") {
  const auto f = SourceFile::make("n.rules", "rule a: x => x\nrule a: y => y\n");
  Diagnostic d = make_error(f, {20, 21}, "rule `a` is defined twice");
  d.notes.push_back(make_note(f, {5, 6}, "first defined here"));
  const std::vector<Diagnostic> all{d, make_error(nullptr, {}, "cannot load rule file `z`")};
  REQUIRE(render(all) ==
          "n.rules:2:6: error: rule `a` is defined twice\n"
          "rule a: y => y\n"
          "     ^\n"
          "n.rules:1:6: note: first defined here\n"
          "rule a: x => x\n"
          "     ^\n"
          "error: cannot load rule file `z`\n");
  REQUIRE(count_errors(all) == 2);
  const LoadError e(all);
  REQUIRE(std::string(e.what()) == render(all));
  REQUIRE(e.diagnostics().size() == 2);
}

TEST_CASE("a diagnostic at the end of a file points past the last character", "[dsl]") {
  const auto f = SourceFile::make("e.graph", "input x f64");
  const Diagnostic d = make_error(f, {11, 11}, "a graph file needs at least one `output`");
  REQUIRE(d.render() ==
          "e.graph:1:12: error: a graph file needs at least one `output`\n"
          "input x f64\n"
          "           ^\n");
}

TEST_CASE("long lines are shown as a window around the caret", "[dsl]") {
  std::string line = "rule r: " + std::string(300, 'a') + "b" + std::string(300, 'c');
  const auto f = SourceFile::make("l.rules", line + "\n");
  const Diagnostic d = make_error(f, {308, 309}, "here");
  const std::string r = d.render();
  const std::string expected_line =
      "\u2026" + std::string(60, 'a') + "b" + std::string(59, 'c') + "\u2026";
  CHECK(r == "l.rules:1:309: error: here\n" + expected_line + "\n " + std::string(60, ' ') + "^\n");
  const Diagnostic start = make_error(f, {0, 4}, "start");
  CHECK(start.render() == "l.rules:1:1: error: start\n" + line.substr(0, 120) + "\u2026\n^~~~\n");
}

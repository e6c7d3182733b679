// --dot and --html: the Graphviz files, and the page as a headless browser
// loads it (skipped, with a warning, only where Graphviz or Chromium is not
// installed; scripts/deps.sh installs both).
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "support/text_measures.hpp"
#include "tools/rwcheck/dot.hpp"
#include "tools/rwcheck/graphviz.hpp"
#include "tools/rwcheck/html_report.hpp"
#include "tools/rwcheck/rwcheck_fixtures.hpp"

using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::rwcheck;
using rw::test::standard_environment;

namespace {

const std::filesystem::path kOut = std::filesystem::path(RW_BINARY_DIR) / "rwcheck_pictures";

std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> softplus_args(std::vector<std::string> options) {
  std::vector<std::string> args = {"--rules", "examples/rules"};
  args.insert(args.end(), options.begin(), options.end());
  args.push_back("examples/softplus.graph");
  return args;
}

// The nodes a DOT text draws: its `name [label=…]` lines that are not edges.
std::size_t dot_nodes(const std::string& dot) {
  std::size_t n = 0;
  std::istringstream lines(dot);
  for (std::string line; std::getline(lines, line);)
    n += line.find(" [label=") != std::string::npos && line.find(" -> ") == std::string::npos;
  return n;
}

// Chromium's DOM of the page at `path`, after its scripts ran.
std::string dumped_dom(const std::string& chromium, const std::filesystem::path& path) {
  const std::filesystem::path profile = kOut / "chromium-profile";
  const std::string command = "'" + chromium +
                              "' --headless --no-sandbox --disable-gpu --user-data-dir='" +
                              profile.string() + "' --dump-dom 'file://" + path.string() +
                              "' 2>/dev/null";
  std::string dom;
  if (FILE* p = popen(command.c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) dom.append(buf, n);
    pclose(p);
  }
  std::filesystem::remove_all(profile);
  return dom;
}

// The value of `data-NAME` on the <html> element of a dumped DOM, or "".
std::string html_attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  const std::regex re("<html[^>]* data-" + name + "=\"([^\"]*)\"");
  return std::regex_search(dom, m, re) ? m[1].str() : std::string();
}

}  // namespace

TEST_CASE("an Op is labelled as a graph file calls it", "[rwcheck]") {
  std::filesystem::create_directories(kOut);
  const auto r = rwcheck({"--dot", (kOut / "mlp").string(), "examples/mlp.graph"},
                         standard_environment());
  CHECK(r.status == 0);
  const std::string before = slurp(kOut / "mlp.before.dot");
  // examples/mlp.graph writes `dimshuffle{order=(x, 0)}(b0)`: the same words.
  CHECK(before.find("[label=\"#1 dimshuffle{order=(x, 0)}\"") != std::string::npos);
  CHECK(before.find("(-1") == std::string::npos);
  // Outputs by the names the file gives them.
  CHECK(before.find("out0 [label=\"mse\", shape=doubleoctagon];") != std::string::npos);
  CHECK(before.find("out1 [label=\"penalty\", shape=doubleoctagon];") != std::string::npos);
  // `i` in subtensor's index, as examples/rnn.graph writes `subtensor{index=(i)}`.
  const auto rnn = rwcheck({"--dot", (kOut / "rnn").string(), "examples/rnn.graph"},
                           standard_environment());
  CHECK(rnn.status == 0);
  CHECK(slurp(kOut / "rnn.before.dot").find("\"#4 subtensor{index=(i)}\"") != std::string::npos);
}

TEST_CASE("labels are cut to a bounded width", "[rwcheck]") {
  using rw::check::cut_label;
  CHECK(cut_label("short", 40) == "short");
  CHECK(cut_label("abcdefghij", 10) == "abcdefghij");
  CHECK(cut_label("abcdefghijk", 10) == "abcdefghi…");
  // Characters, not bytes: a UTF-8 sequence is never split.
  CHECK(cut_label("ééééééé", 4) == "ééé…");
}

TEST_CASE("--dot PREFIX writes the graph before and after as two files", "[rwcheck]") {
  std::filesystem::create_directories(kOut);
  const std::string prefix = (kOut / "softplus").string();
  std::filesystem::remove(prefix + ".before.dot");
  std::filesystem::remove(prefix + ".after.dot");
  const auto r = rwcheck(softplus_args({"--dot", prefix}), pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus.before.dot", slurp(prefix + ".before.dot"));
  check_golden("softplus.after.dot", slurp(prefix + ".after.dot"));

  const auto bad = rwcheck(softplus_args({"--dot", "/nonexistent/dir/x"}), pt_environment());
  CHECK(bad.status == 2);
  CHECK(bad.err == "rwcheck: error: --dot: cannot write `/nonexistent/dir/x.before.dot`\n");
}

TEST_CASE("--html without Graphviz shows the DOT text and warns once", "[rwcheck]") {
  std::filesystem::create_directories(kOut);
  rw::check::CheckEnvironment env = pt_environment();
  env.graphviz = "rwcheck-test-no-such-graphviz";
  const std::filesystem::path page = kOut / "no_graphviz.html";
  const auto r = rwcheck(softplus_args({"--html", page.string()}), env);
  CHECK(r.status == 0);
  CHECK(r.err ==
        "rwcheck: warning: --html: Graphviz's `rwcheck-test-no-such-graphviz` is not on $PATH; "
        "the page shows the graphs as Graphviz text\n");
  const std::string html = slurp(page);
  CHECK(html.find("<p class=\"note\">Graphviz&#39;s `rwcheck-test-no-such-graphviz` is not on "
                  "$PATH: the graphs are shown as Graphviz text.</p>") != std::string::npos);
  CHECK(rw::test::count_of(html, "<pre class=\"dot\">digraph ") == 2);
  CHECK(html.find("<svg") == std::string::npos);
  // The trace and the profile, as --trace and --profile print them, escaped.
  const auto text = rwcheck(softplus_args({"--trace", "--profile", "--no-times"}), env);
  const std::string trace = text.out.substr(text.out.find("trace: "),
                                            text.out.find("after: ") - text.out.find("trace: "));
  CHECK(html.find(rw::check::html_escape(trace)) != std::string::npos);
  CHECK(html.find("=&gt; #13 softplus(x)") != std::string::npos);
  const auto no_times = rwcheck(softplus_args({"--html", page.string(), "--no-times"}), env);
  CHECK(no_times.status == 0);
  CHECK(slurp(page).find(rw::check::html_escape(text.out.substr(text.out.find("rewriter ")))) !=
        std::string::npos);

  // A Graphviz that fails: the page says so the same way.
  env.graphviz = "false";
  const auto failed = rwcheck(softplus_args({"--html", page.string()}), env);
  CHECK(failed.status == 0);
  CHECK(failed.err.starts_with("rwcheck: warning: --html: `"));
  CHECK(failed.err.ends_with("false -Tsvg` failed (exit status 1); the page shows the graphs as "
                             "Graphviz text\n"));
  CHECK(rw::test::count_of(slurp(page), "<pre class=\"dot\">digraph ") == 2);

  const auto bad = rwcheck(softplus_args({"--html", "/nonexistent/dir/x.html"}), env);
  CHECK(bad.status == 2);
  CHECK(bad.err == "rwcheck: error: --html: cannot write `/nonexistent/dir/x.html`\n");
}

TEST_CASE("--html draws both graphs, and Chromium loads the page cleanly", "[rwcheck]") {
  const auto dot = rw::check::find_program("dot");
  const auto chromium = rw::check::find_program("chromium");
  if (!dot || !chromium) {
    WARN("skipped: " << (dot ? "" : "Graphviz's `dot` ") << (dot || chromium ? "" : "and ")
                     << (chromium ? "" : "`chromium` ")
                     << "not on PATH (scripts/deps.sh installs graphviz and chromium)");
    return;
  }
  std::filesystem::create_directories(kOut);
  const std::filesystem::path page = kOut / "softplus.html";
  const std::string prefix = (kOut / "softplus").string();
  const auto r = rwcheck(softplus_args({"--html", page.string(), "--dot", prefix}),
                         pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  const std::string html = slurp(page);
  CHECK(rw::test::count_of(html, "<svg ") == 2);
  // Self-contained: nothing fetched from elsewhere.
  for (const char* fetches : {"<link", " src=", "href=", "url(", "@import"})
    CHECK(html.find(fetches) == std::string::npos);

  const std::string dom = dumped_dom(*chromium, page);
  REQUIRE(dom.find("<html") != std::string::npos);
  CHECK(html_attribute(dom, "errors") == "0");
  const std::size_t drawn =
      dot_nodes(slurp(prefix + ".before.dot")) + dot_nodes(slurp(prefix + ".after.dot"));
  CHECK(drawn == 27);  // 19 before (3 inputs, 3 constants, 11 nodes, 2 outputs), 8 after
  CHECK(html_attribute(dom, "svg-nodes") == std::to_string(drawn));
  for (const char* label : {">loss<", ">#13 softplus<", ">by softplus<", ">#12 log1p<",
                            ">by log1p_of_add<", ">#7 true_div<", ">before: 11 nodes<",
                            ">after: 3 nodes<"})
    CHECK(dom.find(label) != std::string::npos);

  SECTION("a script error is seen") {
    // The check above can fail: the same page with a broken script counts it.
    const std::filesystem::path broken = kOut / "broken.html";
    std::string text = html;
    text.insert(text.rfind("</body>"), "<script>no_such_function();</script>\n");
    std::ofstream(broken, std::ios::binary) << text;
    CHECK(html_attribute(dumped_dom(*chromium, broken), "errors") == "1");
  }
}

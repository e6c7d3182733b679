// rwcheck GRAPH: the final graph, --trace, --json, --why-not and --profile,
// checked against golden files; and the built executable.
#include <cstdio>
#include <filesystem>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/trace.hpp"
#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/inplace.hpp"
#include "tools/rwcheck/json.hpp"
#include "tools/rwcheck/provenance.hpp"
#include "support/text_measures.hpp"
#include "tools/rwcheck/rwcheck_fixtures.hpp"

using rw::test::check_golden;
using rw::test::count_of;
using rw::test::widest_line;
using rw::test::pt_environment;
using rw::test::read_text;
using rw::test::rwcheck;

namespace {
const std::vector<std::string> kRules = {"--rules", "examples/rules"};

std::vector<std::string> with_rules(std::vector<std::string> args) {
  args.insert(args.begin(), kRules.begin(), kRules.end());
  return args;
}
}  // namespace

TEST_CASE("the final graph and node counts", "[rwcheck]") {
  const auto r = rwcheck(with_rules({"examples/softplus.graph"}), pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus.txt", r.out);
}

TEST_CASE("--trace lists every replacement in order", "[rwcheck]") {
  const auto r = rwcheck(with_rules({"--trace", "examples/softplus.graph"}), pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus_trace.txt", r.out);
  // The rules fire in pipeline order: canonicalize before stabilize.
  const auto div = r.out.find("canonicalize / div_cancel");
  const auto sp = r.out.find("stabilize / softplus");
  CHECK(div != std::string::npos);
  CHECK(sp != std::string::npos);
  CHECK(div < sp);
}

TEST_CASE("--json gives the trace as one object", "[rwcheck]") {
  const auto r = rwcheck(with_rules({"--json", "--profile", "--no-times", "--why-not",
                                     "log1p_of_add", "examples/softplus.graph"}),
                         pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus.json", r.out);
  CHECK(r.out.starts_with("{\n  \"schema\": 1,\n"));
  CHECK(r.out.find("\"problems\": [],") != std::string::npos);
}

TEST_CASE("json strings are escaped", "[rwcheck]") {
  using rw::check::Json;
  using rw::check::json_text;
  CHECK(json_text(Json("a\"b\\c\nd\te\x01")) == "\"a\\\"b\\\\c\\nd\\te\\u0001\"\n");
  CHECK(json_text(Json("é")) == "\"é\"\n");
  // A byte sequence that is not UTF-8 (RFC 8259 allows nothing else) becomes
  // U+FFFD, one for each maximal bad part.
  const std::string fffd = "\xef\xbf\xbd";
  CHECK(json_text(Json("a\xff" "b")) == "\"a" + fffd + "b\"\n");
  CHECK(json_text(Json("\xc0\xaf")) == "\"" + fffd + fffd + "\"\n");  // overlong
  CHECK(json_text(Json("\xed\xa0\x80")) == "\"" + fffd + fffd + fffd + "\"\n");  // a surrogate
  CHECK(json_text(Json("x\xe2\x82")) == "\"x" + fffd + "\"\n");  // cut short
  CHECK(json_text(Json("\xe2\x82\xac\xf0\x9f\x98\x80")) == "\"\xe2\x82\xac\xf0\x9f\x98\x80\"\n");
  // Keys in the order set, two-space indentation, empty containers on one line.
  const Json j = {{"k", "v"}, {"list", {1, nullptr}}, {"empty", Json::array()}};
  CHECK(json_text(j) ==
        "{\n  \"k\": \"v\",\n  \"list\": [\n    1,\n    null\n  ],\n  \"empty\": []\n}\n");
}

TEST_CASE("--why-not explains every node the rule could root at", "[rwcheck]") {
  SECTION("a rule beaten to a node by a rule of higher priority") {
    const auto r = rwcheck(with_rules({"--why-not", "log1p_of_add", "examples/softplus.graph"}),
                           pt_environment());
    CHECK(r.status == 0);  // it fired on log(1 + y)
    check_golden("why_not_log1p.txt", r.out);
  }
  SECTION("a rule that never fires exits 1") {
    const auto r =
        rwcheck(with_rules({"--why-not", "exp_log", "examples/softplus.graph"}), pt_environment());
    CHECK(r.status == 1);
    check_golden("why_not_exp_log.txt", r.out);
  }
  SECTION("a rule the mode does not run") {
    const auto r = rwcheck(
        with_rules({"--why-not", "softplus", "--mode", "fast_compile", "examples/softplus.graph"}),
        pt_environment());
    CHECK(r.status == 1);
    check_golden("why_not_not_run.txt", r.out);
  }
}

TEST_CASE("--show-program prints what a rule compiled to", "[rwcheck]") {
  SECTION("as text: the match program, its guard's slots, the build, filter and depth") {
    const auto r = rwcheck(with_rules({"--show-program", "div_cancel"}), pt_environment());
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    check_golden("show_program_div_cancel.txt", r.out);
  }
  SECTION("as JSON, one line of the listing per element") {
    const auto r = rwcheck(with_rules({"--json", "--show-program", "log1p_of_add"}), pt_environment());
    CHECK(r.status == 0);
    CHECK(r.out.find("\"command\": \"show-program\"") != std::string::npos);
    CHECK(r.out.find("\"rule\": \"log1p_of_add\"") != std::string::npos);
    CHECK(r.out.find("\"build `log1p(?x)`\"") != std::string::npos);
  }
  SECTION("an unknown rule is bad input, with the closest name") {
    const auto r = rwcheck(with_rules({"--show-program", "div_cancl"}), pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("--show-program: no rule `div_cancl`"));
    CHECK_THAT(r.err, Catch::Contains("did you mean `div_cancel`?"));
  }
  SECTION("it takes no graph") {
    const auto r = rwcheck(with_rules({"--show-program", "div_cancel", "examples/softplus.graph"}),
                           pt_environment());
    CHECK(r.status == 2);
    CHECK_THAT(r.err, Catch::Contains("`--show-program` prints a rule's program and takes no graph; "
                                      "got `examples/softplus.graph`"));
  }
}

TEST_CASE("--profile counts per rule and lists rules that never fired", "[rwcheck]") {
  const auto r =
      rwcheck(with_rules({"--profile", "--no-times", "examples/mlp.graph"}), pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("mlp_profile.txt", r.out);
  // Times are shown unless masked.
  const auto timed = rwcheck(with_rules({"--profile", "examples/mlp.graph"}), pt_environment());
  CHECK(timed.out.find("  -\n") == std::string::npos);
}

TEST_CASE("--mode, --include and --exclude select what runs", "[rwcheck]") {
  const auto none =
      rwcheck(with_rules({"--mode", "none", "examples/softplus.graph"}), pt_environment());
  CHECK(none.status == 0);
  CHECK(none.out.find("before: 11 nodes") != std::string::npos);
  CHECK(none.out.find("after: 11 nodes") != std::string::npos);

  const auto no_stabilize =
      rwcheck(with_rules({"--trace", "--exclude", "stabilize", "examples/softplus.graph"}),
              pt_environment());
  CHECK(no_stabilize.status == 0);
  CHECK(no_stabilize.out.find("softplus(") == std::string::npos);
  CHECK(no_stabilize.out.find("canonicalize / div_cancel") != std::string::npos);

  // fast_compile leaves stabilize out; --include brings it back. The
  // canonicalize rules are tagged fast_run only, so fast_compile does not run
  // them (a query selects at every level of the database, as in Aesara).
  const auto fc = rwcheck(
      with_rules({"--mode", "fast_compile", "--include", "stabilize", "examples/softplus.graph"}),
      pt_environment());
  CHECK(fc.out.find("output 0: softplus(x * w / w * 1)") != std::string::npos);
}

TEST_CASE("rules come from files or directories, in order", "[rwcheck]") {
  const auto files = rwcheck({"--rules", "examples/rules/canonicalize.rules", "--rules",
                              "examples/rules/stabilize.rules", "examples/softplus.graph"},
                             pt_environment());
  const auto dir = rwcheck(with_rules({"examples/softplus.graph"}), pt_environment());
  CHECK(files.status == 0);
  CHECK(files.out == dir.out);
  // Without --rules: the environment's built-in rules (here none).
  const auto builtin = rwcheck({"examples/softplus.graph"}, pt_environment());
  CHECK(builtin.status == 0);
  CHECK(builtin.out.find("mode fast_run, no rules") != std::string::npos);
}

TEST_CASE("def blocks: folded, expanded, traced and in JSON", "[rwcheck]") {
  // The standard Op library (the defs run their inner graphs through it), the
  // example rules, and a rule naming the def `axpy` of the graph.
  auto args = [](std::vector<std::string> more) {
    std::vector<std::string> a = {"--rules", "examples/rules", "--rules", "examples/ofg.rules"};
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  const auto& env = rw::test::standard_environment();
  auto count = [](const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t p = 0; (p = text.find(what, p)) != std::string::npos; p += what.size()) ++n;
    return n;
  };

  SECTION("folded: each def's inner graph once, below the graph") {
    const auto r = rwcheck(args({"examples/ofg.graph"}), env);
    CHECK(r.status == 0);
    CHECK(r.err.empty());
    check_golden("ofg.txt", r.out);
    CHECK(count(r.out, "def axpy(a f64[], x f64[?], y f64[?]):\n") == 1);
    CHECK(count(r.out, "def step(x f64[?], y f64[?]):\n") == 1);
    // The inline def was expanded: the final graph calls it no more.
    const auto after = r.out.find("after:");
    REQUIRE(after != std::string::npos);
    CHECK(r.out.find("softplus_naive", after) == std::string::npos);
    CHECK(r.out.find("softplus_naive") < after);
    CHECK(r.out.find("┊") == std::string::npos);
  }
  SECTION("--expand-ofg: each node's inner graph beneath it") {
    const auto r = rwcheck(args({"--expand-ofg", "examples/ofg.graph"}), env);
    CHECK(r.status == 0);
    check_golden("ofg_expanded.txt", r.out);
    // axpy is called at the top level and inside step: expanded at each node.
    CHECK(count(r.out, "┊ def axpy(a f64[], x f64[?], y f64[?]):\n") == 2);
  }
  SECTION("--trace: the inlining and the rule naming a def fire") {
    const auto r = rwcheck(args({"--trace", "examples/ofg.graph"}), env);
    CHECK(r.status == 0);
    check_golden("ofg_trace.txt", r.out);
    const auto inl = r.out.find("canonicalize / inline_op_from_graph");
    const auto soft = r.out.find("stabilize / softplus");
    CHECK(inl != std::string::npos);
    CHECK(soft != std::string::npos);
    CHECK(inl < soft);
    CHECK(r.out.find("canonicalize / axpy_unscaled") != std::string::npos);
  }
  SECTION("--json: the defs the graph uses") {
    const auto r = rwcheck(args({"--json", "examples/ofg.graph"}), env);
    CHECK(r.status == 0);
    check_golden("ofg.json", r.out);
  }
  SECTION("a rule naming a def needs the graph that defines it") {
    const auto r = rwcheck({"--rules", "examples/ofg.rules", "examples/softplus.graph"}, env);
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err.find("examples/ofg.rules:5:21: error: unknown op `axpy`") != std::string::npos);
  }
}

TEST_CASE("the examples of docs/rwcheck.md print what the page shows", "[rwcheck]") {
  // Each "```console" block: `$ rwcheck ARGS`, then the exact output (stdout,
  // then stderr), and `[exit N]` as its last line when the status is not 0.
  // They run with the standard Op library, as the executable does.
  const std::string doc = read_text("docs/rwcheck.md");
  std::size_t pos = 0, blocks = 0;
  while ((pos = doc.find("```console", pos)) != std::string::npos) {
    const std::size_t eol = doc.find('\n', pos);
    pos = eol + 1;
    const std::size_t end = doc.find("```\n", pos);
    REQUIRE(end != std::string::npos);
    const std::string block = doc.substr(pos, end - pos);
    pos = end + 4;
    REQUIRE(block.starts_with("$ rwcheck "));
    const std::size_t nl = block.find('\n');
    std::vector<std::string> args;
    std::istringstream words(block.substr(10, nl - 10));
    for (std::string w; words >> w;) args.push_back(w);
    std::string expected = block.substr(nl + 1);
    int status = 0;
    if (const auto e = expected.rfind("[exit ");
        e != std::string::npos && expected.find('\n', e) == expected.size() - 1) {
      status = std::stoi(expected.substr(e + 6));
      expected.erase(e);
    }
    const auto r = rwcheck(args, rw::test::standard_environment());
    INFO("docs/rwcheck.md: $ rwcheck " << block.substr(10, nl - 10));
    CHECK(r.status == status);
    CHECK(r.out + r.err == expected);
    ++blocks;
  }
  CHECK(blocks == 17);
}

TEST_CASE("the built executable behaves as the library entry point", "[rwcheck]") {
  const std::filesystem::path exe = std::filesystem::path(RW_BINARY_DIR) / "tools" / "rwcheck";
  if (!std::filesystem::exists(exe)) {
    WARN("tools are not built; skipping " << exe.string());
    return;
  }
  // A UTF-8 locale whatever the caller's (C.UTF-8 is built into glibc).
  const std::string cmd = "cd '" RW_SOURCE_DIR "' && LC_ALL=C.UTF-8 '" + exe.string() +
                          "' --rules examples/rules --trace examples/softplus.graph";
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  const int status = pclose(pipe);
  CHECK(WEXITSTATUS(status) == 0);
  const auto lib = rwcheck({"--rules", "examples/rules", "--trace", "examples/softplus.graph"},
                           rw::test::standard_environment());
  CHECK(out == lib.out);
  CHECK(out.find("stabilize / softplus") != std::string::npos);

  const std::string bad = "'" + exe.string() + "' --trce x.graph 2>/dev/null";
  CHECK(WEXITSTATUS(std::system(bad.c_str())) == 2);

  // Under the C locale, the tree is drawn in ASCII.
  const std::string c_locale = "cd '" RW_SOURCE_DIR "' && LC_ALL=C '" + exe.string() +
                               "' --rules examples/rules examples/softplus.graph";
  pipe = popen(c_locale.c_str(), "r");
  REQUIRE(pipe);
  std::string ascii;
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) ascii.append(buf, n);
  pclose(pipe);
  CHECK(ascii.find(" |- log1p [id D] <f64[?]>\n |  `- y [id E] <f64[?]>\n") != std::string::npos);
}

TEST_CASE("a pass stopped by a limit is reported and exits 1", "[rwcheck]") {
  const auto r =
      rwcheck({"--rules", "tests/tools/rwcheck/golden/loop.rules", "examples/softplus.graph"},
              pt_environment());
  CHECK(r.status == 1);
  CHECK(r.err.empty());
  check_golden("loop.txt", r.out);
  const auto json = rwcheck(
      {"--json", "--rules", "tests/tools/rwcheck/golden/loop.rules", "examples/softplus.graph"},
      pt_environment());
  CHECK(json.status == 1);
  CHECK(json.out.find("\"complete\": false,") != std::string::npos);
  // `problems` is a list: one string per line of the text report's problems.
  const std::string problems = "\"problems\": [\n    \"";
  CHECK(json.out.find(problems) != std::string::npos);
  const std::string text_line = r.out.substr(r.out.find("rewriting stopped early:\n") + 25);
  const std::string first = text_line.substr(0, text_line.find('\n'));
  CHECK(json.out.find(rw::check::Json(first).dump()) != std::string::npos);
}

TEST_CASE("without --rules, the environment's built-in rules are used", "[rwcheck]") {
  rw::check::CheckEnvironment env = rw::check::make_environment(rw::test::pt_registry());
  // One load of a root that imports the example files, as the standard rule
  // library is loaded.
  env.load_builtin = [](rw::RewriteDB& db, const rw::OpRegistry& ops,
                        const rw::dsl::PredicateRegistry& predicates) {
    return rw::dsl::check_rules_text_into(db, "<examples>",
                                          "import \"" RW_SOURCE_DIR
                                          "/examples/rules/canonicalize.rules\"\n"
                                          "import \"" RW_SOURCE_DIR
                                          "/examples/rules/stabilize.rules\"\n",
                                          ops, predicates);
  };
  env.builtin_name = "<examples>";
  const auto r = rwcheck({"examples/softplus.graph"}, env);
  CHECK(r.status == 0);
  CHECK(
      r.out.starts_with("graph examples/softplus.graph: mode fast_run, 6 rules from <examples>\n"));
  CHECK(r.out.find("output 0: softplus(x)\n") != std::string::npos);
  const auto lint = rwcheck({"lint"}, env);
  CHECK(lint.status == 0);
  CHECK(lint.out == "6 rules checked, 0 findings\n");
  // --rules replaces them.
  const auto other =
      rwcheck({"--rules", "examples/rules/canonicalize.rules", "examples/softplus.graph"}, env);
  CHECK(other.out.find("3 rules from examples/rules/canonicalize.rules\n") != std::string::npos);
}

TEST_CASE("--why-not says when a node appeared after the rule's group ran", "[rwcheck]") {
  const auto r = rwcheck({"--rules", "tests/tools/rwcheck/golden/late.rules", "--why-not",
                          "neg_neg", "tests/tools/rwcheck/golden/late.graph"},
                         pt_environment());
  CHECK(r.status == 1);
  check_golden("why_not_late.txt", r.out);
}

TEST_CASE("provenance records a change of Op as a firing on one node", "[rwcheck]") {
  const rw::Var a = rw::matrix("a"), b = rw::matrix("b");
  rw::FunctionGraph fg({a, b}, {rw::exp(a + b) * b}, /*clone=*/false);
  auto provenance = std::make_shared<rw::check::Provenance>();
  fg.attach_feature(provenance);
  rw::Trace trace;
  trace.subscribe(provenance);
  rw::RewriteContext ctx{.trace = &trace};
  rw::InplacePass().rewrite(fg, ctx);
  // exp(…) and … * b overwrite their first inputs; no node came or went.
  REQUIRE(provenance->firings().size() == 2);
  const rw::check::Firing& f = provenance->firings()[0];
  CHECK(f.pass == "insert_inplace");
  CHECK(f.rule == "insert_inplace");
  REQUIRE(f.before_node);
  CHECK(f.before_node == f.after_node);
  CHECK(f.before == "exp");
  CHECK(f.after == "exp{inplace=0}");
  CHECK(f.created.empty());
  CHECK(f.removed.empty());
  CHECK(provenance->nodes().size() == 3);
  for (const rw::check::NodeHistory& h : provenance->nodes()) CHECK(h.removed_by.empty());
}

namespace {
/// Refuses every change while `armed`.
class RefuseAll final : public rw::Feature {
 public:
  bool armed = false;
  void validate(const rw::FunctionGraph&) override {
    if (armed) throw rw::InconsistencyError("no");
  }
};
}  // namespace

TEST_CASE("provenance forgets a change of Op the graph refused", "[rwcheck]") {
  const rw::Var x = rw::vector("x");
  rw::FunctionGraph fg({x}, {rw::exp(x)}, /*clone=*/false);
  auto provenance = std::make_shared<rw::check::Provenance>();
  auto refuse = std::make_shared<RefuseAll>();
  fg.attach_feature(provenance);
  fg.attach_feature(refuse);
  rw::Apply& node = *fg.outputs()[0]->owner();
  refuse->armed = true;
  CHECK_THROWS(fg.change_op(node, rw::elemwise_op(rw::ScalarOp::Log), "mine"));
  CHECK(provenance->firings().empty());
  CHECK(provenance->nodes()[0].op == "exp");
  refuse->armed = false;
  fg.change_op(node, rw::elemwise_op(rw::ScalarOp::Log), "mine");
  REQUIRE(provenance->firings().size() == 1);
  CHECK(provenance->firings()[0].rule == "mine");
  CHECK(provenance->firings()[0].before == "exp");
  CHECK(provenance->firings()[0].after == "log");
  CHECK(provenance->nodes()[0].op == "log");
}

namespace {
// A graph file of `n` nodes alternating exp and tanh over `x`, each node an
// output when `every_output` (else only the last), written to a temporary file.
std::string write_chain(const std::string& name, int n, bool every_output) {
  std::string text = "input x f64[?]\n";
  for (int i = 0; i < n; ++i)
    text += fmt::format("%{} = {}({})\n", i, i % 2 ? "tanh" : "exp",
                        i ? fmt::format("%{}", i - 1) : std::string("x"));
  for (int i = every_output ? 0 : n - 1; i < n; ++i) text += fmt::format("output %{}\n", i);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path, std::ios::binary) << text;
  return path.string();
}
}  // namespace

TEST_CASE("a big graph's report is capped, and --full prints it linearly", "[rwcheck]") {
  // 3,000 levels: the report printed 14,000-character lines and 20 MB.
  const std::string graph = write_chain("rwcheck_chain_3000.graph", 3000, false);
  const auto r = rwcheck({"--rules", "examples/rules", "--mode", "none", graph},
                         rw::test::standard_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  // 200 lines of the tree, of which 6 repeat the head of a continued tree.
  CHECK(r.out.ends_with("… 2806 more nodes (--full prints them all)\n"));
  CHECK(r.out.size() < 30000);
  CHECK(count_of(r.out, " (continued below)\n") == 6);

  const auto full = rwcheck({"--rules", "examples/rules", "--mode", "none", "--full", graph},
                            rw::test::standard_environment());
  CHECK(full.status == 0);
  CHECK(full.out.find("more nodes") == std::string::npos);
  CHECK(count_of(full.out, "[id ") == 3001 + 3000 / 32);  // x, the nodes, the repeated heads
  CHECK(widest_line(full.out) < 200);
  CHECK(full.out.size() < 3000 * 150);
  std::filesystem::remove(graph);
}

TEST_CASE("the outputs are capped at 100 lines, and --full lifts the cap", "[rwcheck]") {
  const std::string graph = write_chain("rwcheck_outputs_150.graph", 150, true);
  const auto r = rwcheck({"--rules", "examples/rules", "--mode", "none", graph},
                         rw::test::standard_environment());
  CHECK(r.status == 0);
  CHECK(count_of(r.out, "  … 50 more outputs (--full prints them all)\n") == 2);
  CHECK(r.out.find("  output 99: ") != std::string::npos);
  CHECK(r.out.find("  output 100: ") == std::string::npos);
  const auto full = rwcheck({"--rules", "examples/rules", "--mode", "none", "--full", graph},
                            rw::test::standard_environment());
  CHECK(count_of(full.out, "  output 149: ") == 2);
  CHECK(full.out.find("more outputs") == std::string::npos);
  std::filesystem::remove(graph);
}

TEST_CASE("--add-rules loads files after the built-in rules or the --rules files", "[rwcheck]") {
  const std::string add = "tests/tools/rwcheck/golden/add.rules";
  const std::string graph = "tests/tools/rwcheck/golden/cosh.graph";
  const auto r = rwcheck({"--add-rules", add, "--trace", graph}, rw::test::standard_environment());
  CHECK(r.status == 0);
  // The standard library's rules and the one added.
  CHECK(r.out.starts_with(fmt::format("graph {}: mode fast_run, {} rules from "
                                      "<standard rule library>, {}\n",
                                      graph, rw::standard_rules().size() + 1, add)));
  CHECK(r.out.find("  [1] canonicalize / cosh_as_exp\n") != std::string::npos);
  // A standard rule worked on what the added one made.
  CHECK(r.out.find("specialize / div_by_constant\n") != std::string::npos);
  // With --rules, added to those files instead.
  const auto with = rwcheck({"--rules", "examples/rules", "--add-rules", add, graph},
                            rw::test::standard_environment());
  CHECK(with.out.starts_with("graph " + graph + ": mode fast_run, 7 rules from "
                             "examples/rules/canonicalize.rules, "
                             "examples/rules/stabilize.rules, " + add + "\n"));
  CHECK(with.out.find("output 0: (exp(x) + exp(-x)) / 2.0\n") != std::string::npos);

  SECTION("a bad file loads nothing and is located") {
    const auto bad = rwcheck({"--add-rules", "tests/tools/rwcheck/golden/bad.rules", graph},
                             rw::test::standard_environment());
    CHECK(bad.status == 2);
    CHECK(bad.out.empty());
    CHECK(bad.err.starts_with("tests/tools/rwcheck/golden/bad.rules:"));
    CHECK(bad.err.find(": error: ") != std::string::npos);
  }
  SECTION("only for rwcheck GRAPH") {
    const auto lint = rwcheck({"lint", "--add-rules", add}, rw::test::standard_environment());
    CHECK(lint.status == 2);
    CHECK(lint.err.starts_with("rwcheck: error: `--add-rules` is an option of `rwcheck GRAPH`"));
  }
}

TEST_CASE("--debug-mode runs the graph in DebugMode and names the rule that changed a value",
          "[rwcheck][debug_mode]") {
  const std::string graph = "tests/tools/rwcheck/golden/tanh_softplus.graph";
  const auto ok = rwcheck({"--debug-mode", graph}, rw::test::standard_environment());
  CHECK(ok.status == 0);
  CHECK(ok.out.ends_with("debug mode: no finding (seed 0: `x` f64 of shape (3,))\n"));

  const auto bad = rwcheck({"--debug-mode", "--seed", "7", "--add-rules",
                            "tests/tools/rwcheck/golden/wrong.rules", graph},
                           rw::test::standard_environment());
  CHECK(bad.status == 1);
  CHECK(bad.out.find("debug mode: DebugMode: output 0 of the function is not what the "
                     "unrewritten graph computes: element 0 (row-major) is") != std::string::npos);
  CHECK(bad.out.find("[tanh_is_x] (pass specialize, rewriter tanh_is_x)") != std::string::npos);

  const auto json = rwcheck({"--json", "--debug-mode", "--add-rules",
                             "tests/tools/rwcheck/golden/wrong.rules", graph},
                            rw::test::standard_environment());
  CHECK(json.status == 1);
  const auto at = json.out.find("\"debug_mode\": {");
  REQUIRE(at != std::string::npos);
  CHECK(json.out.find("\"ok\": false", at) != std::string::npos);
  CHECK(json.out.find("\"arguments\": \"`x` f64 of shape (3,)\"", at) != std::string::npos);
  CHECK(json.out.find("\"finding\": \"DebugMode: output 0", at) != std::string::npos);

  const auto lint = rwcheck({"lint", "--debug-mode"}, rw::test::standard_environment());
  CHECK(lint.status == 2);
  CHECK(lint.err.starts_with("rwcheck: error: `--debug-mode` is an option of `rwcheck GRAPH`"));
}

TEST_CASE("rwcheck --print-after PASS and --print-after-all show the graph as each pass leaves it",
          "[rwcheck]") {
  const auto r = rwcheck(with_rules({"--print-after", "canonicalize", "--print-after", "stabilize",
                                     "examples/softplus.graph"}),
                         pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("softplus_print_after.txt", r.out);
  // In pipeline order, between the trace's place and the final graph.
  const auto canon = r.out.find("after pass canonicalize: ");
  const auto stab = r.out.find("after pass stabilize: ");
  const auto fin = r.out.find("\nafter: ");
  REQUIRE(canon != std::string::npos);
  REQUIRE(stab != std::string::npos);
  CHECK(canon < stab);
  CHECK(stab < fin);
  CHECK(count_of(r.out, "after pass ") == 2);

  const auto all = rwcheck(with_rules({"--print-after-all", "examples/softplus.graph"}),
                           pt_environment());
  CHECK(all.status == 0);
  CHECK(count_of(all.out, "after pass ") > 5);
  CHECK(all.out.find("after pass specialize: ") != std::string::npos);

  const auto typo = rwcheck(with_rules({"--print-after", "canonicalise", "examples/softplus.graph"}),
                            pt_environment());
  CHECK(typo.status == 2);
  CHECK(typo.out.empty());
  CHECK(typo.err.find("--print-after: no pass `canonicalise` ran; the passes were merge1, ") !=
        std::string::npos);
  CHECK(typo.err.find("did you mean `canonicalize`?") != std::string::npos);

  const auto json =
      rwcheck(with_rules({"--json", "--print-after-all", "examples/softplus.graph"}), pt_environment());
  CHECK(json.status == 2);
  CHECK(json.err.find("do not go with `--json`") != std::string::npos);
}

TEST_CASE("rwcheck --explain OUTPUT lists the replacements that made an output, oldest first",
          "[rwcheck]") {
  const auto r = rwcheck(with_rules({"--explain", "0", "--explain", "1", "examples/softplus.graph"}),
                         pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  const auto first = r.out.find("explain output 0: softplus(x)\n");
  const auto second = r.out.find("explain output 1: log1p(y) + y\n");
  REQUIRE(first != std::string::npos);
  REQUIRE(second != std::string::npos);
  const std::string out0 = r.out.substr(first, second - first);
  const std::string out1 = r.out.substr(second, r.out.find("\nafter: ") - second);
  // Output 0: the replacements below it (which created nothing) and the one at its root.
  const auto div = out0.find("canonicalize / div_cancel");
  const auto one = out0.find("canonicalize / mul_by_one");
  const auto sp = out0.find("stabilize / softplus");
  CHECK(div != std::string::npos);
  CHECK(div < one);
  CHECK(one < sp);
  CHECK(out0.find("log1p") == std::string::npos);   // output 1's, not 0's
  CHECK(out0.find("neg_neg") == std::string::npos);
  CHECK(out1.find("canonicalize / neg_neg") != std::string::npos);
  CHECK(out1.find("stabilize / log1p_of_add") != std::string::npos);
  CHECK(out1.find("softplus") == std::string::npos);

  const auto none = rwcheck(with_rules({"--mode", "none", "--explain", "0", "examples/softplus.graph"}),
                            pt_environment());
  CHECK(none.out.find("no replacement made a node of it") != std::string::npos);
  const auto bad = rwcheck(with_rules({"--explain", "2", "examples/softplus.graph"}), pt_environment());
  CHECK(bad.status == 2);
  CHECK(bad.err.find("--explain: the graph has 2 outputs (0 to 1), not 2") != std::string::npos);
}

TEST_CASE("rwcheck --trace --attempts adds every failed attempt with its reason", "[rwcheck]") {
  const auto r = rwcheck(with_rules({"--trace", "--attempts", "examples/softplus.graph"}),
                         pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  const auto at = r.out.find("attempts: ");
  REQUIRE(at != std::string::npos);
  CHECK(r.out.find("trace: ") < at);
  // A rule that did not match says where its pattern parted from the graph.
  CHECK(r.out.find("stabilize / softplus on #4: input 0 of `log`, input 1 of `add`: expected "
                   "`exp`, got `y` (a graph input)\n") != std::string::npos);
  CHECK(r.out.find("canonicalize / mul_by_one on #6: input 1 of `mul`: expected constant 1, got "
                   "`w`\n") != std::string::npos);
  // Without --attempts, none of that.
  const auto plain = rwcheck(with_rules({"--trace", "examples/softplus.graph"}), pt_environment());
  CHECK(plain.out.find("attempts: ") == std::string::npos);
  const auto alone = rwcheck(with_rules({"--attempts", "examples/softplus.graph"}), pt_environment());
  CHECK(alone.status == 2);
  CHECK(alone.err.find("`--attempts` adds the failed attempts to `--trace`; give both") !=
        std::string::npos);
}

TEST_CASE("--trace shows the scan rewrites on the bundled RNN", "[rwcheck][scan]") {
  const auto r = rwcheck({"--trace", "examples/rnn.graph"}, rw::test::standard_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  // x_t @ U leaves the loop, the loop stops reading x, and keeps its last state.
  const auto seq = r.out.find("scan_eqopt1 / scan_push_out_seq");
  const auto unused = r.out.find("scan_eqopt1 / remove_constants_and_unused_inputs_scan");
  const auto mem = r.out.find("scan_save_mem_db / scan_save_mem");
  CHECK(seq != std::string::npos);
  CHECK(unused != std::string::npos);
  CHECK(mem != std::string::npos);
  CHECK(seq < unused);
  CHECK(r.out.find("rnn{keep=1}(shape_i{i=0}(x), matmul(x, U)") != std::string::npos);
}

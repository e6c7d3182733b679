// rwcheck's command line: parsing, help, and bad input (exit status 2).
#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"
#include "tools/rwcheck/cli.hpp"
#include "tools/rwcheck/rwcheck_fixtures.hpp"
#include "tools/rwcheck/style.hpp"

using rw::check::CliError;
using rw::check::Command;
using rw::check::parse_args;
using rw::test::check_golden;
using rw::test::pt_environment;
using rw::test::read_text;
using rw::test::rwcheck;

namespace {
rw::check::Options parse(std::vector<std::string> args) {
  return parse_args(args);
}
}  // namespace

TEST_CASE("options are parsed with values apart or after =", "[rwcheck]") {
  const auto o = parse({"--rules", "a.rules", "--rules=dir", "--mode=fast_compile", "--include",
                        "x", "--exclude", "y", "--trace", "--why-not", "softplus", "--profile",
                        "--no-times", "--dot", "out.dot", "--json", "g.graph"});
  CHECK(o.command == Command::Run);
  CHECK(o.rules == std::vector<std::string>{"a.rules", "dir"});
  CHECK(o.mode == "fast_compile");
  CHECK(o.include == std::vector<std::string>{"x"});
  CHECK(o.exclude == std::vector<std::string>{"y"});
  CHECK((o.trace && o.profile && o.no_times && o.json));
  CHECK(o.why_not == "softplus");
  CHECK(o.dot == "out.dot");
  CHECK(o.graph == "g.graph");

  const auto lint = parse({"lint", "a.rules", "b"});
  CHECK(lint.command == Command::Lint);
  CHECK(lint.rules == std::vector<std::string>{"a.rules", "b"});
  const auto verify = parse({"verify", "--seed", "7", "--trials=3", "--rule", "r", "a.rules"});
  CHECK(verify.command == Command::Verify);
  CHECK(verify.seed == 7);
  CHECK(verify.trials == 3);
  CHECK(verify.only_rule == "r");
  CHECK(parse({"--trace", "--help"}).command == Command::Help);
  // A single value given twice: the last. A repeatable option takes one
  // value each time, so the graph after it stays the graph.
  CHECK(parse({"--mode", "none", "--mode=merge", "g.graph"}).mode == "merge");
  const auto rules = parse({"--rules", "a.rules", "g.graph"});
  CHECK(rules.rules == std::vector<std::string>{"a.rules"});
  CHECK(rules.graph == "g.graph");
  // After `--`, an argument that looks like an option is the graph.
  CHECK(parse({"--trace", "--", "-g.graph"}).graph == "-g.graph");
  CHECK(parse({"-"}).graph == "-");
}

TEST_CASE("bad command lines are refused with the argument named", "[rwcheck]") {
  auto message = [](std::vector<std::string> args) {
    try {
      parse_args(args);
    } catch (const CliError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  CHECK(message({"--trce", "g.graph"}) == "unknown option `--trce`; did you mean `--trace`?");
  CHECK(message({"--frobnicate", "g.graph"}) == "unknown option `--frobnicate`");
  CHECK(message({}) == "no graph file given (usage: rwcheck [OPTIONS] GRAPH)");
  CHECK(message({"a.graph", "b.graph"}) == "one graph file at a time; got `a.graph` and `b.graph`");
  CHECK(message({"g.graph", "--mode"}) == "`--mode` needs a value");
  CHECK(message({"g.graph", "--trace=yes"}) == "`--trace` takes no value");
  CHECK(message({"--help=1"}) == "`--help` takes no value");
  CHECK(message({"--frobnicate=3", "g.graph"}) == "unknown option `--frobnicate`");
  CHECK(message({"--rules"}) == "`--rules` needs a value");
  CHECK(message({"lint", "--trace", "a.rules"}) == "`--trace` is an option of `rwcheck GRAPH`");
  CHECK(message({"verify", "--trials", "x", "a.rules"}) ==
        "`--trials` takes a non-negative integer, not `x`");
  CHECK(message({"verify", "--trials", "0", "a.rules"}) == "`--trials` must be at least 1");
  // `--json` goes with every command.
  CHECK(message({"lint", "--json", "a.rules"}) == "(accepted)");
  CHECK(message({"verify", "--json", "a.rules"}) == "(accepted)");
  CHECK(message({"lint", "--seed", "1"}) ==
        "`--seed` is an option of `rwcheck GRAPH` and `rwcheck verify`");
}

TEST_CASE("--help prints every option and exits 0", "[rwcheck]") {
  const auto r = rwcheck({"--help"}, pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  check_golden("help.txt", r.out);
  for (const char* opt :
       {"--rules", "--mode", "--include", "--exclude", "--trace", "--why-not", "--profile",
        "--no-times", "--dot", "--json", "--trials", "--seed", "--rule", "lint", "verify"})
    CHECK(r.out.find(opt) != std::string::npos);
}

TEST_CASE("bad input exits 2 with the error on stderr", "[rwcheck]") {
  SECTION("an unknown option") {
    const auto r = rwcheck({"--trce", "examples/softplus.graph"}, pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "rwcheck: error: unknown option `--trce`; did you mean `--trace`?\n"
          "run `rwcheck --help` for usage\n");
  }
  SECTION("a missing graph file") {
    const auto r =
        rwcheck({"--rules", "examples/rules", "examples/missing.graph"}, pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "rwcheck: error: cannot load graph file `examples/missing.graph`: cannot open "
          "`examples/missing.graph`: No such file or directory\n");
  }
  SECTION("a missing rule file") {
    const auto r =
        rwcheck({"--rules", "nowhere.rules", "examples/softplus.graph"}, pt_environment());
    CHECK(r.status == 2);
    check_golden("missing_rules.txt", r.err);
  }
  SECTION("a directory without rule files") {
    const auto r = rwcheck({"--rules", "docs", "examples/softplus.graph"}, pt_environment());
    CHECK(r.status == 2);
    // Not a usage error: no pointer to --help.
    CHECK(r.err == "rwcheck: error: the directory `docs` has no `*.rules` files\n");
  }
  SECTION("a graph file with errors: every diagnostic with its caret") {
    const auto r = rwcheck({"--rules", "examples/rules", "tests/tools/rwcheck/golden/bad.graph"},
                           pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    check_golden("bad_graph.txt", r.err);
  }
  SECTION("a rule file with errors") {
    const auto r =
        rwcheck({"--rules", "tests/tools/rwcheck/golden/bad.rules", "examples/softplus.graph"},
                pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    check_golden("bad_rules.txt", r.err);
  }
  SECTION("an unknown mode") {
    const auto r =
        rwcheck({"--rules", "examples/rules", "--mode", "fastrun", "examples/softplus.graph"},
                pt_environment());
    CHECK(r.status == 2);
    check_golden("bad_mode.txt", r.err);
  }
  SECTION("lint and verify without files, and no built-in rules") {
    const auto r = rwcheck({"lint"}, pt_environment());
    CHECK(r.status == 2);
    CHECK(r.err ==
          "rwcheck: error: `rwcheck lint` needs rule files or directories (there are no built-in "
          "rules)\n"
          "run `rwcheck --help` for usage\n");
    CHECK(rwcheck({"verify"}, pt_environment()).status == 2);
  }
  SECTION("an unknown rule for --why-not, with the closest name") {
    const auto r =
        rwcheck({"--rules", "examples/rules", "--why-not", "sofplus", "examples/softplus.graph"},
                pt_environment());
    CHECK(r.status == 2);
    CHECK(r.out.empty());
    CHECK(r.err ==
          "rwcheck: error: --why-not: no rule `sofplus` in 6 rules from "
          "examples/rules/canonicalize.rules, examples/rules/stabilize.rules; did you mean "
          "`softplus`?\n");
  }
}

TEST_CASE("--version names the version and the installed rule files", "[rwcheck]") {
  const auto r = rwcheck({"--version"}, pt_environment());
  CHECK(r.status == 0);
  CHECK(r.err.empty());
  CHECK(r.out.starts_with(std::string("rwcheck ") + rw::version() + "\nstandard rule files: "));
  CHECK(parse({"--trace", "--version", "x.graph"}).command == Command::Version);
  CHECK_THROWS_AS(parse({"--version=1"}), CliError);
}

TEST_CASE("the graph `-` is read from standard input", "[rwcheck]") {
  rw::check::CheckEnvironment env = pt_environment();
  const std::string text = read_text("examples/softplus.graph");
  env.read_stdin = [&](std::string&) { return std::optional<std::string>(text); };
  const auto r = rwcheck({"--rules", "examples/rules", "-"}, env);
  CHECK(r.status == 0);
  const auto file = rwcheck({"--rules", "examples/rules", "examples/softplus.graph"}, env);
  // The same report, the graph called <stdin>.
  CHECK(r.out.starts_with("graph <stdin>: mode fast_run, 6 rules from "));
  CHECK(r.out.substr(r.out.find('\n')) == file.out.substr(file.out.find('\n')));
  const auto json = rwcheck({"--json", "--rules", "examples/rules", "-"}, env);
  CHECK(json.out.find("\"graph\": \"<stdin>\",") != std::string::npos);

  SECTION("errors in it are located in <stdin>") {
    env.read_stdin = [](std::string&) { return std::optional<std::string>("input x f64[?]\noutput lgo(x)\n"); };
    const auto bad = rwcheck({"--rules", "examples/rules", "-"}, env);
    CHECK(bad.status == 2);
    CHECK(bad.err.starts_with("<stdin>:2:"));
  }
  SECTION("standard input that cannot be read") {
    env.read_stdin = [](std::string& why) {
      why = "larger than 1 GiB";
      return std::optional<std::string>();
    };
    const auto bad = rwcheck({"--rules", "examples/rules", "-"}, env);
    CHECK(bad.status == 2);
    CHECK(bad.err ==
          "rwcheck: error: cannot read the graph from standard input: larger than 1 GiB\n");
  }
}

TEST_CASE("--include and --exclude refuse a tag nothing has", "[rwcheck]") {
  const auto r = rwcheck({"--rules", "examples/rules", "--include", "fast_rn",
                          "examples/softplus.graph"},
                         pt_environment());
  CHECK(r.status == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "rwcheck: error: --include: no entry of the rewrite database is named or tagged "
        "`fast_rn`; did you mean `fast_run`?\n");
  const auto ex = rwcheck({"--rules", "examples/rules", "--exclude", "stabilise",
                           "examples/softplus.graph"},
                          pt_environment());
  CHECK(ex.status == 2);
  CHECK(ex.err.find("--exclude: no entry of the rewrite database is named or tagged "
                    "`stabilise`; did you mean `stabilize`?") != std::string::npos);
  // A rule's name selects it, at any level, as a tag does.
  const auto rule = rwcheck({"--rules", "examples/rules", "--exclude", "softplus",
                             "examples/softplus.graph"},
                            pt_environment());
  CHECK(rule.status == 0);
  CHECK(rule.out.find("output 0: log1p(exp(x))\n") != std::string::npos);  // log1p_of_add, not softplus
}

TEST_CASE("colour and ASCII are passes over the text", "[rwcheck]") {
  using rw::check::color_wanted;
  CHECK(color_wanted(true, nullptr, "xterm"));
  CHECK(color_wanted(true, "", "xterm"));  // NO_COLOR empty: as if unset
  CHECK_FALSE(color_wanted(true, "1", "xterm"));
  CHECK_FALSE(color_wanted(true, nullptr, "dumb"));
  CHECK_FALSE(color_wanted(false, nullptr, "xterm"));

  CHECK(rw::check::to_ascii("add [id C]\n ├─ log1p\n │  └─ y ···\nexp(…\xff") ==
        "add [id C]\n |- log1p\n |  `- y ...\nexp(...?");
  CHECK(rw::check::colorize("a.rules:3:7: error: unknown op `lgo`\nrule r: lgo(x) => x\n"
                            "        ^~~\nrwcheck: error: no\n") ==
        "\x1b[1ma.rules:3:7:\x1b[0m \x1b[1;31merror:\x1b[0m unknown op `lgo`\n"
        "rule r: lgo(x) => x\n"
        "        \x1b[1;32m^~~\x1b[0m\n"
        "\x1b[1mrwcheck:\x1b[0m \x1b[1;31merror:\x1b[0m no\n");
  // Not a location: left alone.
  CHECK(rw::check::colorize("output 0: error: x\n") == "output 0: error: x\n");

  rw::check::CheckEnvironment env = pt_environment();
  env.utf8 = false;
  const auto ascii = rwcheck({"--rules", "examples/rules", "examples/softplus.graph"}, env);
  CHECK(ascii.out.find(" |- log1p [id D] <f64[?]>\n |  `- y [id E] <f64[?]>\n") !=
        std::string::npos);
  const auto json = rwcheck({"--json", "--rules", "examples/rules", "examples/softplus.graph"}, env);
  CHECK(json.out == rwcheck({"--json", "--rules", "examples/rules", "examples/softplus.graph"},
                            pt_environment()).out);
  env.utf8 = true;
  env.color_err = true;
  const auto bad = rwcheck({"--trce", "examples/softplus.graph"}, env);
  CHECK(bad.err.starts_with("\x1b[1mrwcheck:\x1b[0m \x1b[1;31merror:\x1b[0m unknown option"));
  CHECK(bad.err.ends_with("run `rwcheck --help` for usage\n"));
}

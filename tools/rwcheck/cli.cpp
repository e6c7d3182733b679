// Parsing rwcheck's command line.
#include "tools/rwcheck/cli.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include <fmt/format.h>

#include "engine/graph/suggest.hpp"

namespace rw::check {

namespace {

const std::vector<std::string>& known_options() {
  static const std::vector<std::string> names = {
      "--rules",   "--mode",     "--include", "--exclude", "--trace",  "--json", "--why-not",
      "--profile", "--no-times", "--dot",     "--seed",    "--trials", "--rule", "--help",
      "--expand-ofg", "--strict", "--full", "--version", "--add-rules", "--print-after",
      "--print-after-all", "--explain", "--attempts", "--debug-mode"};
  return names;
}

std::uint64_t parse_number(std::string_view option, const std::string& text) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw CliError(fmt::format("`{}` takes a non-negative integer, not `{}`", option, text));
  return n;
}

}  // namespace

Options parse_args(std::span<const std::string> args) {
  Options o;
  std::vector<std::string> positional;
  std::size_t i = 0;
  if (!args.empty() && (args[0] == "lint" || args[0] == "verify")) {
    o.command = args[0] == "lint" ? Command::Lint : Command::Verify;
    i = 1;
  }
  bool only_positional = false;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (only_positional || a.size() < 2 || a[0] != '-') {
      positional.push_back(a);
      continue;
    }
    if (a == "--") {
      only_positional = true;
      continue;
    }
    std::string name = a;
    std::optional<std::string> inline_value;
    if (const auto eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      inline_value = a.substr(eq + 1);
    }
    auto value = [&]() -> std::string {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) throw CliError(fmt::format("`{}` needs a value", name));
      return args[++i];
    };
    auto flag = [&](bool& f) {
      if (inline_value) throw CliError(fmt::format("`{}` takes no value", name));
      f = true;
    };
    const bool run = o.command == Command::Run, verify = o.command == Command::Verify;
    auto only = [&](bool allowed, std::string_view where) {
      if (!allowed) throw CliError(fmt::format("`{}` is an option of {}", name, where));
    };
    if (name == "-h" || name == "--help") {
      bool unused = false;
      flag(unused);
      o.command = Command::Help;
      return o;
    } else if (name == "--version") {
      bool unused = false;
      flag(unused);
      o.command = Command::Version;
      return o;
    } else if (name == "--rules") {
      only(run, "`rwcheck GRAPH`; `lint` and `verify` take rule files as arguments");
      o.rules.push_back(value());
    } else if (name == "--add-rules") {
      only(run, "`rwcheck GRAPH`");
      o.add_rules.push_back(value());
    } else if (name == "--mode") {
      only(run, "`rwcheck GRAPH`");
      o.mode = value();
    } else if (name == "--include") {
      only(run, "`rwcheck GRAPH`");
      o.include.push_back(value());
    } else if (name == "--exclude") {
      only(run, "`rwcheck GRAPH`");
      o.exclude.push_back(value());
    } else if (name == "--strict") {
      only(run, "`rwcheck GRAPH`");
      flag(o.strict);
    } else if (name == "--trace") {
      only(run, "`rwcheck GRAPH`");
      flag(o.trace);
    } else if (name == "--expand-ofg") {
      only(run, "`rwcheck GRAPH`");
      flag(o.expand_ofg);
    } else if (name == "--full") {
      only(run, "`rwcheck GRAPH`");
      flag(o.full);
    } else if (name == "--json") {
      flag(o.json);
    } else if (name == "--profile") {
      only(run, "`rwcheck GRAPH`");
      flag(o.profile);
    } else if (name == "--no-times") {
      only(run, "`rwcheck GRAPH`");
      flag(o.no_times);
    } else if (name == "--print-after") {
      only(run, "`rwcheck GRAPH`");
      o.print_after.push_back(value());
    } else if (name == "--print-after-all") {
      only(run, "`rwcheck GRAPH`");
      flag(o.print_after_all);
    } else if (name == "--attempts") {
      only(run, "`rwcheck GRAPH`");
      flag(o.attempts);
    } else if (name == "--explain") {
      only(run, "`rwcheck GRAPH`");
      o.explain.push_back(static_cast<std::size_t>(parse_number(name, value())));
    } else if (name == "--why-not") {
      only(run, "`rwcheck GRAPH`");
      o.why_not = value();
    } else if (name == "--dot") {
      only(run, "`rwcheck GRAPH`");
      o.dot = value();
    } else if (name == "--debug-mode") {
      only(run, "`rwcheck GRAPH`");
      flag(o.debug_mode);
    } else if (name == "--seed") {
      only(run || verify, "`rwcheck GRAPH` and `rwcheck verify`");
      o.seed = parse_number(name, value());
    } else if (name == "--trials") {
      only(verify, "`rwcheck verify`");
      o.trials = static_cast<std::size_t>(parse_number(name, value()));
      if (o.trials == 0) throw CliError("`--trials` must be at least 1");
    } else if (name == "--rule") {
      only(verify, "`rwcheck verify`");
      o.only_rule = value();
    } else {
      std::string msg = fmt::format("unknown option `{}`", name);
      if (const auto c = closest_name(name, known_options()))
        msg += fmt::format("; did you mean `{}`?", *c);
      throw CliError(msg);
    }
  }
  if (o.attempts && !o.trace)
    throw CliError("`--attempts` adds the failed attempts to `--trace`; give both");
  if (o.json && (o.print_after_all || !o.print_after.empty() || !o.explain.empty() || o.attempts))
    throw CliError("`--print-after`, `--print-after-all`, `--explain` and `--attempts` print "
                   "text; they do not go with `--json`");
  if (o.command == Command::Run) {
    if (positional.empty()) throw CliError("no graph file given (usage: rwcheck [OPTIONS] GRAPH)");
    if (positional.size() > 1)
      throw CliError(
          fmt::format("one graph file at a time; got `{}` and `{}`", positional[0], positional[1]));
    o.graph = positional[0];
  } else {
    o.rules = std::move(positional);
  }
  return o;
}

std::string help_text() {
  return R"(rwcheck: see what rules do to a graph, and check rules.

usage:
  rwcheck [OPTIONS] GRAPH           rewrite GRAPH (a .graph file; - reads standard input)
                                    and report
  rwcheck lint [RULES...]           find rules that are shadowed, undo each other,
                                    grow the graph, or name unknown ops
  rwcheck verify [OPTIONS] [RULES...]
                                    check each rule on random inputs: left side == right side

RULES are .rules files or directories (every *.rules in one, sorted by name);
without them, lint and verify check the built-in rules.

options of `rwcheck GRAPH`:
  --rules PATH      load these rule files instead of the built-in rules (repeatable)
  --add-rules PATH  load these rule files after the built-in rules, or after the
                    --rules files (repeatable)
  --mode NAME       the pipeline: fast_run (default), fast_compile, stabilize, merge, none
  --include TAG     also run the entries tagged TAG (repeatable)
  --exclude TAG     leave out the entries tagged TAG (repeatable)
  --strict          leave out the rules that hold only under a value assumption
                    (tag `assumes`: `x / x => 1` needs x != 0); docs/rules-library.md
  --trace           print each replacement in order: pass, rule, the node before, after
  --attempts        with --trace: also every attempt that failed, with its reason
  --print-after PASS
                    print the graph each time the pass PASS (canonicalize, stabilize,
                    specialize, merge1, …) ends (repeatable)
  --print-after-all print the graph after every pass, nested ones included
  --explain OUTPUT  the replacements that made output OUTPUT (0, 1, …) what it is,
                    oldest first, back to the node of the graph as loaded (repeatable)
  --why-not RULE    for each node RULE could apply to, why it did not (or which rule
                    rewrote the node first); exit 1 when RULE never fired
  --profile         per rule: attempts, applications, nodes created and removed, time;
                    and the rules that never fired
  --no-times        print `-` for times (output that is the same run after run)
  --dot FILE        write the graph before and after as Graphviz, nodes created by
                    rules marked with the rule's name
  --expand-ofg      print each OpFromGraph node (a `def` of the graph file) with its
                    inner graph beneath it, instead of each inner graph once at the end
  --full            print the whole graph: without it, the tree stops after 200 lines
                    and the outputs after 100, with a count of what was left out
  --debug-mode      compile the graph in DebugMode with the pipeline and call it on
                    random arguments: every node checked against its Op's contract,
                    the outputs against the unrewritten graph's (a difference names
                    the rule that made it); exit 1 on a finding. docs/debugging.md
  --seed N          with --debug-mode: seed of the random arguments (default 0)

options of `rwcheck verify`:
  --trials N        random inputs per rule (default 100)
  --seed N          seed of the random inputs (default 0)
  --rule NAME       verify only this rule

options of every command:
  --json            print one JSON object instead of text (schemas: docs/rwcheck.md)

  -h, --help        this text
  --version         the version, and where the standard rule files are installed

exit status:
  0  success: no finding, no counterexample, and the --why-not rule fired
  1  a check failed: a lint finding, a verify counterexample, a --why-not rule
     that never fired, a --debug-mode finding, or a rewrite pass that stopped
     early (a limit)
  2  bad input: unknown option, unreadable file, rule or graph file error

example:
  rwcheck --rules examples/rules --trace examples/softplus.graph
  rwcheck --rules examples/rules --why-not log1p_of_add examples/softplus.graph
  rwcheck lint examples/rules
)";
}

}  // namespace rw::check

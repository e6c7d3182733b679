// Parsing rwcheck's command line: CLI11 reads the options (values apart or
// after `=`, repeatable ones, `--`), this file says which command takes
// which, and words CLI11's errors as rwcheck's other errors are worded.
#include "tools/rwcheck/cli.hpp"

#include <algorithm>
#include <charconv>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "engine/graph/suggest.hpp"

namespace rw::check {

namespace {

// The commands an option belongs to, and how an error says so.
struct Belongs {
  bool run = true, lint = false, verify = false;
  std::string_view where = "`rwcheck GRAPH`";
};
constexpr Belongs kRunOnly{};
constexpr Belongs kEvery{.lint = true, .verify = true};
constexpr Belongs kRunAndVerify{.verify = true, .where = "`rwcheck GRAPH` and `rwcheck verify`"};
constexpr Belongs kVerifyOnly{.run = false, .verify = true, .where = "`rwcheck verify`"};
constexpr Belongs kRulesOption{
    .where = "`rwcheck GRAPH`; `lint` and `verify` take rule files as arguments"};

std::uint64_t parse_number(std::string_view option, const std::string& text) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size())
    throw CliError(fmt::format("`{}` takes a non-negative integer, not `{}`", option, text));
  return n;
}

/// The options of rwcheck as one CLI11 app, and which command takes each.
class CommandLine {
 public:
  explicit CommandLine(Options& o) {
    app_.set_help_flag();  // --help prints help_text(), not CLI11's
    app_.allow_extras();   // unknown options are reported below, with a suggestion
    flag("-h,--help", help_, kEvery);
    flag("--version", version_, kEvery);
    values("--rules", o.rules, kRulesOption);
    values("--add-rules", o.add_rules, kRunOnly);
    value("--mode", o.mode, kRunOnly);
    values("--include", o.include, kRunOnly);
    values("--exclude", o.exclude, kRunOnly);
    flag("--strict", o.strict, kRunOnly);
    flag("--trace", o.trace, kRunOnly);
    flag("--expand-ofg", o.expand_ofg, kRunOnly);
    flag("--full", o.full, kRunOnly);
    flag("--json", o.json, kEvery);
    flag("--profile", o.profile, kRunOnly);
    flag("--no-times", o.no_times, kRunOnly);
    values("--print-after", o.print_after, kRunOnly);
    flag("--print-after-all", o.print_after_all, kRunOnly);
    flag("--attempts", o.attempts, kRunOnly);
    values("--explain", explain_, kRunOnly);
    value("--why-not", o.why_not, kRunOnly);
    value("--show-program", o.show_program, kRunOnly);
    value("--dot", o.dot, kRunOnly);
    value("--html", o.html, kRunOnly);
    flag("--debug-mode", o.debug_mode, kRunOnly);
    seed_ = value("--seed", seed_text_, kRunAndVerify);
    trials_ = value("--trials", trials_text_, kVerifyOnly);
    value("--rule", o.only_rule, kVerifyOnly);
    app_.add_option("arguments", positional_);
  }

  /// Parses `args` into `o`, whose command is already set; throws CliError.
  void parse(std::span<const std::string> args, Options& o) {
    // CLI11 takes the arguments last first.
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
      app_.parse(reversed);
    } catch (const CLI::ParseError& e) {
      throw CliError(reword(e));
    }
    if (help_ || version_) {
      o.command = help_ ? Command::Help : Command::Version;
      return;
    }
    for (const std::string& extra : app_.remaining()) {
      if (extra == "--") continue;  // what follows it was taken as positional
      const std::string name = extra.substr(0, extra.find('='));
      std::string msg = fmt::format("unknown option `{}`", name);
      if (const auto c = closest_name(name, names_)) msg += fmt::format("; did you mean `{}`?", *c);
      throw CliError(msg);
    }
    for (const CLI::Option* opt : app_.parse_order()) {
      const auto it = std::find_if(belongs_.begin(), belongs_.end(),
                                   [&](const auto& b) { return b.first == opt; });
      if (it == belongs_.end()) continue;  // a positional argument
      const Belongs& b = it->second;
      const bool ok = o.command == Command::Run ? b.run
                      : o.command == Command::Lint ? b.lint
                                                   : b.verify;
      if (!ok) throw CliError(fmt::format("`{}` is an option of {}", name_of(*opt), b.where));
    }
    for (const std::string& k : explain_)
      o.explain.push_back(static_cast<std::size_t>(parse_number("--explain", k)));
    if (seed_->count()) o.seed = parse_number("--seed", seed_text_);
    if (trials_->count()) {
      o.trials = static_cast<std::size_t>(parse_number("--trials", trials_text_));
      if (o.trials == 0) throw CliError("`--trials` must be at least 1");
    }
  }

  const std::vector<std::string>& positional() const { return positional_; }

 private:
  void add(CLI::Option* opt, const Belongs& b) {
    belongs_.emplace_back(opt, b);
    names_.push_back(name_of(*opt));
  }
  void flag(const std::string& name, bool& f, const Belongs& b) {
    add(app_.add_flag(name, f)->disable_flag_override(), b);
  }
  template <class T>
  CLI::Option* value(const std::string& name, T& v, const Belongs& b) {
    // Given twice, the last one counts.
    CLI::Option* opt =
        app_.add_option(name, v)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    add(opt, b);
    return opt;
  }
  void values(const std::string& name, std::vector<std::string>& v, const Belongs& b) {
    // One value each time: `--rules a.rules g.graph` leaves the graph alone.
    add(app_.add_option(name, v)->allow_extra_args(false)->take_all(), b);
  }
  static std::string name_of(const CLI::Option& opt) {
    return opt.get_lnames().empty() ? "-" + opt.get_snames().front()
                                    : "--" + opt.get_lnames().front();
  }

  // CLI11's message (`--mode: 1 required TEXT missing`, `trace was given a
  // disallowed flag override`) as rwcheck words it.
  std::string reword(const CLI::ParseError& e) const {
    const std::string what = e.what();
    std::string word = what.substr(0, what.find_first_of(": "));
    word.erase(0, word.find_first_not_of('-'));
    const CLI::Option* opt = app_.get_option_no_throw("--" + word);
    if (!opt) opt = app_.get_option_no_throw("-" + word);
    if (!opt) return what;
    if (what.find("flag override") != std::string::npos)
      return fmt::format("`{}` takes no value", name_of(*opt));
    if (what.find("missing") != std::string::npos)
      return fmt::format("`{}` needs a value", name_of(*opt));
    return fmt::format("`{}`: {}", name_of(*opt), what.substr(what.find(':') + 1));
  }

  CLI::App app_{"rwcheck"};
  std::vector<std::pair<const CLI::Option*, Belongs>> belongs_;
  std::vector<std::string> names_;  // for suggestions
  std::vector<std::string> positional_;
  std::vector<std::string> explain_;
  std::string seed_text_, trials_text_;
  CLI::Option* seed_ = nullptr;
  CLI::Option* trials_ = nullptr;
  bool help_ = false, version_ = false;
};

}  // namespace

Options parse_args(std::span<const std::string> args) {
  Options o;
  // A command is the first argument only: `rwcheck lint.graph` is a graph.
  if (!args.empty() && (args[0] == "lint" || args[0] == "verify")) {
    o.command = args[0] == "lint" ? Command::Lint : Command::Verify;
    args = args.subspan(1);
  }
  CommandLine line(o);
  line.parse(args, o);
  if (o.command == Command::Help || o.command == Command::Version) return o;
  if (o.attempts && !o.trace)
    throw CliError("`--attempts` adds the failed attempts to `--trace`; give both");
  if (o.json && (o.print_after_all || !o.print_after.empty() || !o.explain.empty() || o.attempts))
    throw CliError("`--print-after`, `--print-after-all`, `--explain` and `--attempts` print "
                   "text; they do not go with `--json`");
  const std::vector<std::string>& positional = line.positional();
  if (o.command == Command::Run && o.show_program) {
    if (!positional.empty())
      throw CliError(fmt::format("`--show-program` prints a rule's program and takes no graph; "
                                 "got `{}` (usage: rwcheck --show-program RULE [--rules PATH])",
                                 positional[0]));
  } else if (o.command == Command::Run) {
    if (positional.empty()) throw CliError("no graph file given (usage: rwcheck [OPTIONS] GRAPH)");
    if (positional.size() > 1)
      throw CliError(
          fmt::format("one graph file at a time; got `{}` and `{}`", positional[0], positional[1]));
    o.graph = positional[0];
  } else {
    o.rules = positional;
  }
  return o;
}
std::string help_text() {
  return R"(rwcheck: see what rules do to a graph, and check rules.

usage:
  rwcheck [OPTIONS] GRAPH           rewrite GRAPH (a .graph file; - reads standard input)
                                    and report
  rwcheck --show-program RULE       print what RULE compiled to: its match program, the
                                    right side it builds, its filter and depth
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
  --show-program RULE
                    print RULE's compiled program instead of rewriting a graph (with
                    --rules and --add-rules; no GRAPH)
  --profile         per rule: attempts, applications, nodes created and removed, time;
                    and the rules that never fired
  --no-times        print `-` for times (output that is the same run after run)
  --dot PREFIX      write the graph before and after as Graphviz files,
                    PREFIX.before.dot and PREFIX.after.dot; nodes created by rules
                    marked with the rule's name
  --html FILE       write one page with both graphs as pictures (drawn by Graphviz's
                    `dot`, when it is on PATH), the trace and the profile
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
  rwcheck --show-program log1p_of_add --rules examples/rules
  rwcheck lint examples/rules
)";
}

}  // namespace rw::check

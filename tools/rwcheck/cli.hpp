// rwcheck's command line: the options, their parsing, and the help text.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rw::check {

/// Bad input on the command line or a path that cannot be read: rwcheck
/// prints `rwcheck: error: <message>` and exits with status 2.
class CliError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input that is not a usage error (a directory without rule files):
/// rwcheck prints `rwcheck: error: <message>`, without the pointer to
/// --help, and exits with status 2.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What rwcheck was asked to do.
enum class Command : std::uint8_t {
  Run,     ///< rewrite a graph and report (the default)
  Lint,    ///< `rwcheck lint RULES…`
  Verify,  ///< `rwcheck verify RULES…`
  Help,    ///< `--help`
  Version, ///< `--version`
};

/// The parsed command line.
struct Options {
  Command command = Command::Run;
  /// `--rules PATH`, repeatable (Run); the positional paths (Lint, Verify;
  /// none: the built-in rules).
  std::vector<std::string> rules;
  /// `--add-rules PATH`, repeatable (Run): loaded after the built-in rules
  /// (or after the --rules files).
  std::vector<std::string> add_rules;
  /// The graph file (Run); `-` is standard input.
  std::string graph;
  /// `--mode NAME` (fast_run, fast_compile, none, merge, stabilize).
  std::string mode = "fast_run";
  /// `--include TAG`, `--exclude TAG`, repeatable.
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  /// `--strict`: the mode without rules that hold only under a value
  /// assumption (Mode::strict()).
  bool strict = false;
  /// `--trace`, `--profile`, `--no-times`; `--json` (every command).
  bool trace = false;
  bool json = false;
  bool profile = false;
  bool no_times = false;
  /// `--expand-ofg`: OpFromGraph nodes printed with their inner graph in place.
  bool expand_ofg = false;
  /// `--full`: the whole graph, without the cap on the tree and the outputs.
  bool full = false;
  /// `--print-after PASS` (repeatable) and `--print-after-all`: the graph
  /// each time those passes (every pass) end, in the manner of mlir-opt.
  std::vector<std::string> print_after;
  bool print_after_all = false;
  /// `--attempts` (with `--trace`): the failed attempts, with their reasons.
  bool attempts = false;
  /// `--explain OUTPUT` (repeatable): the chain of replacements that made
  /// each of these outputs, from rwcheck's provenance.
  std::vector<std::size_t> explain;
  /// `--debug-mode`: the graph compiled in DebugMode and called on random
  /// arguments (drawn from `seed`).
  bool debug_mode = false;
  /// `--why-not RULE`.
  std::optional<std::string> why_not;
  /// `--show-program RULE`: print what RULE compiled to, and take no graph.
  std::optional<std::string> show_program;
  /// `--dot PREFIX`: PREFIX.before.dot and PREFIX.after.dot.
  std::optional<std::string> dot;
  /// `--html FILE`.
  std::optional<std::string> html;
  /// Verify (and --debug-mode): `--seed N`; verify: `--trials N`, `--rule
  /// NAME` (only that rule).
  std::uint64_t seed = 0;
  std::size_t trials = 100;
  std::optional<std::string> only_rule;
};

/// Parses the arguments after the program name. Options take their value
/// as the next argument or after `=` (`--mode=fast_compile`). Throws
/// CliError naming the bad argument (with the closest option for an unknown
/// one).
Options parse_args(std::span<const std::string> args);

/// The `--help` text: usage, every option, exit codes, examples.
std::string help_text();

}  // namespace rw::check

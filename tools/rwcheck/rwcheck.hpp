// rwcheck's entry point as a library function, so that tests run it without
// spawning a process: arguments in, text out, an exit status back.
#pragma once

#include <iosfwd>
#include <span>
#include <string>

#include "tools/rwcheck/environment.hpp"

namespace rw::check {

/// Exit statuses (docs/rwcheck.md).
inline constexpr int kExitOk = 0;
/// A check failed: a lint finding, a verify counterexample, a --why-not rule
/// that never fired, or a rewrite pass stopped early by a limit.
inline constexpr int kExitFindings = 1;
/// Bad input: command line, unreadable file, rule or graph file error.
inline constexpr int kExitBadInput = 2;

/// Runs rwcheck with `args` (without the program name) against `env`:
/// reports go to `out`, errors and diagnostics to `err`. Returns the exit
/// status.
int run_rwcheck(std::span<const std::string> args, std::ostream& out, std::ostream& err,
                const CheckEnvironment& env);

}  // namespace rw::check

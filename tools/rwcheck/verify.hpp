// rwcheck verify: each rule's two sides evaluated on random inputs that
// satisfy its guards and compared; a counterexample is shrunk and printed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/rwcheck/environment.hpp"
#include "tools/rwcheck/rule_sources.hpp"

namespace rw::check {

/// How verify searches.
struct VerifyOptions {
  /// Random input sets tried per rule.
  std::size_t trials = 100;
  /// Seed of the generator (each rule gets its own stream from it).
  std::uint64_t seed = 0;
};

/// What verify found for one rule.
struct RuleVerdict {
  /// What happened.
  enum class Kind : unsigned char {
    Passed,          ///< both sides agreed on every trial
    Counterexample,  ///< they disagreed; `details` is the shrunk input
    Skipped,         ///< no input could be built that the rule rewrites, or an op cannot run
  };
  std::string rule;
  Kind kind = Kind::Skipped;
  /// Trials that ran (both sides evaluated).
  std::size_t trials = 0;
  /// Counterexample: the inputs, both results, the difference, the dtypes and
  /// tolerance, and the values of each side's top-level subterms; Skipped: why.
  std::string details;
};

/// Verifies every rule of `rules` (or only `only`, when not empty).
std::vector<RuleVerdict> verify_rules(const RuleSet& rules, const CheckEnvironment& env,
                                      const VerifyOptions& options, const std::string& only = {});

/// The verdicts as text, one block per rule and a summary line.
std::string format_verdicts(const std::vector<RuleVerdict>& verdicts);

}  // namespace rw::check

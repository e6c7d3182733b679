// Helpers of the rwcheck tests: run the tool's entry point in the source
// directory against the test Op family, and compare output with golden files.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rw/registry.hpp"
#include "rw/standard_rules.hpp"
#include "support/pt_ops.hpp"
#include "support/rule_fixtures.hpp"
#include "tools/rwcheck/environment.hpp"
#include "tools/rwcheck/rwcheck.hpp"

namespace rw::test {

/// What one run of rwcheck printed and returned.
struct CheckRun {
  int status = -1;
  std::string out;
  std::string err;
};

/// Runs rwcheck's entry point with `args`, the working directory being the
/// source tree (so paths read `examples/softplus.graph`), restored after.
inline CheckRun rwcheck(const std::vector<std::string>& args, const check::CheckEnvironment& env) {
  const std::filesystem::path before = std::filesystem::current_path();
  std::filesystem::current_path(RW_SOURCE_DIR);
  std::ostringstream out, err;
  CheckRun r;
  try {
    r.status = check::run_rwcheck(args, out, err, env);
  } catch (...) {
    std::filesystem::current_path(before);
    throw;
  }
  std::filesystem::current_path(before);
  r.out = out.str();
  r.err = err.str();
  return r;
}

/// The test Op family (PyTensor's names, no perform) with the standard
/// database and no built-in rules.
inline const check::CheckEnvironment& pt_environment() {
  static const check::CheckEnvironment env = check::make_environment(pt_registry());
  return env;
}

/// What the executable uses: the standard Op library, and the standard rule
/// library as the built-in rules.
inline const check::CheckEnvironment& standard_environment() {
  static const check::CheckEnvironment env = [] {
    check::CheckEnvironment e = check::make_environment(standard_registry());
    e.load_builtin = load_standard_rules_into;
    e.builtin_name = kStandardRulesRoot;
    return e;
  }();
  return env;
}

/// The toy ops, which can run (perform), with `/` as `true_div`.
inline const check::CheckEnvironment& toy_environment() {
  static const check::CheckEnvironment env = check::make_environment(toy_rule_registry());
  return env;
}

/// The text of `path` (relative to the source tree), or "" when missing.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(std::filesystem::path(RW_SOURCE_DIR) / path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Compares `actual` with tests/tools/rwcheck/golden/`name` exactly. With
/// RW_UPDATE_GOLDEN=1 in the environment, writes the file instead.
inline void check_golden(const std::string& name, const std::string& actual) {
  const std::filesystem::path rel = std::filesystem::path("tests/tools/rwcheck/golden") / name;
  if (const char* update = std::getenv("RW_UPDATE_GOLDEN"); update && std::string(update) == "1") {
    std::ofstream(std::filesystem::path(RW_SOURCE_DIR) / rel, std::ios::binary) << actual;
    return;
  }
  const std::string expected = read_text(rel);
  INFO("golden file " << rel.string());
  INFO("Output:\n" << actual);
  INFO("Expected output:\n" << expected);
  CHECK(actual == expected);
}

}  // namespace rw::test

// rwcheck: see what rules do to a graph, why a rule did not fire, and check
// rule files (docs/rwcheck.md).
#include <iostream>
#include <string>
#include <vector>

#include "rw/registry.hpp"
#include "rw/standard_rules.hpp"
#include "tools/rwcheck/rwcheck.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // The standard Op library and, without --rules, the standard rule library.
  rw::check::CheckEnvironment env = rw::check::make_environment(rw::standard_registry());
  env.load_builtin = rw::load_standard_rules_into;
  env.builtin_name = rw::kStandardRulesRoot;
  return rw::check::run_rwcheck(args, std::cout, std::cerr, env);
}

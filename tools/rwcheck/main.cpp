// rwcheck: see what rules do to a graph, why a rule did not fire, and check
// rule files (docs/rwcheck.md).
#include <iostream>
#include <string>
#include <vector>

#include "rw/registry.hpp"
#include "tools/rwcheck/rwcheck.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // The standard Op library. Once the standard rule library is merged, its
  // rules become the default too: env.load_builtin = rw::load_standard_rules_into.
  const rw::check::CheckEnvironment env = rw::check::make_environment(rw::standard_registry());
  return rw::check::run_rwcheck(args, std::cout, std::cerr, env);
}

// rwcheck: see what rules do to a graph, why a rule did not fire, and check
// rule files (docs/rwcheck.md).
#include <iostream>
#include <string>
#include <vector>

#include "support/pt_ops.hpp"
#include "tools/rwcheck/rwcheck.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // The test Op family under PyTensor's names until the standard Op library
  // (rw::standard_registry()) is merged; then this line, and the built-in
  // rules, come from the umbrella.
  const rw::check::CheckEnvironment env = rw::check::make_environment(rw::test::pt_registry());
  return rw::check::run_rwcheck(args, std::cout, std::cerr, env);
}

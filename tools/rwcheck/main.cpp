// rwcheck: see what rules do to a graph, why a rule did not fire, and check
// rule files (docs/rwcheck.md).
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "engine/rewrite/database.hpp"
#include "ops/elemwise/canonizer.hpp"
#include "ops/reduce/sum_of_product.hpp"
#include "rw/registry.hpp"
#include "rw/standard_rules.hpp"
#include "tools/rwcheck/rwcheck.hpp"
#include "tools/rwcheck/style.hpp"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  // The standard Op library and, without --rules, the standard rule library.
  rw::check::CheckEnvironment env = rw::check::make_environment(rw::standard_registry());
  // The built-in library is the rule files and the C++ canonizers that run
  // among them (`--trace` shows `add_canonizer`, `sum_of_scaled_product`…); rule
  // files given with --rules are run alone.
  env.load_builtin = [](rw::RewriteDB& db, const rw::OpRegistry& ops,
                        const rw::dsl::PredicateRegistry& predicates) {
    if (auto* seq = dynamic_cast<rw::SequenceDB*>(&db)) {
      rw::register_canonizers(*seq);
      rw::register_reduce_rewrites(*seq);
    }
    return rw::load_standard_rules_into(db, ops, predicates);
  };
  env.builtin_name = rw::kStandardRulesRoot;
  env.color_out = rw::check::color_wanted(isatty(STDOUT_FILENO), std::getenv("NO_COLOR"),
                                          std::getenv("TERM"));
  env.color_err = rw::check::color_wanted(isatty(STDERR_FILENO), std::getenv("NO_COLOR"),
                                          std::getenv("TERM"));
  env.utf8 = rw::check::locale_is_utf8();
  return rw::check::run_rwcheck(args, std::cout, std::cerr, env);
}

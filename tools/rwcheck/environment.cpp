// CheckEnvironment defaults.
#include "tools/rwcheck/environment.hpp"

#include "engine/rewrite/standard.hpp"

namespace rw::check {

CheckEnvironment make_environment(const OpRegistry& ops) {
  CheckEnvironment env;
  env.ops = &ops;
  env.make_db = [] { return make_standard_db(); };
  return env;
}

}  // namespace rw::check

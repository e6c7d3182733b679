// standard_registry(): assembled once, by explicit calls.
#include "rw/registry.hpp"

#include "engine/compile/compile_ops.hpp"
#include "engine/grad/gradient_ops.hpp"
#include "ops/register.hpp"

namespace rw {

const OpRegistry& standard_registry() {
  static const OpRegistry registry = [] {
    OpRegistry r;
    register_standard_ops(r);
    register_compile_ops(r);
    register_gradient_ops(r);
    return r;
  }();
  return registry;
}

}  // namespace rw

// standard_registry(): the Op registry a program gets by default.
#pragma once

#include "engine/graph/op_registry.hpp"

namespace rw {

/// Every standard Op (register_standard_ops) and the compile layer's
/// deep_copy and view (register_compile_ops) and the gradient Ops
/// (register_gradient_ops), built once on first use. The
/// registry graph files and rule files resolve Op names through by default.
const OpRegistry& standard_registry();

}  // namespace rw

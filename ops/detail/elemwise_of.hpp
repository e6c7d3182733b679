// Reading elementwise nodes: which scalar operation a variable's owner
// applies, and whether an Op computes elementwise (its result has the
// broadcast shape of its inputs).
#pragma once

#include "engine/graph/variable.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/elemwise.hpp"

namespace rw::ops_detail {

/// The Elemwise computing `v` when it applies `op` and is not in place, else null.
inline const Elemwise* elemwise_of(const Variable& v, ScalarOp op) {
  const Apply* owner = v.owner();
  if (!owner) return nullptr;
  const auto* e = op_as<Elemwise>(owner->op());
  return e && e->scalar_op() == op && !e->inplace_input() ? e : nullptr;
}

/// Elemwise, Fill or Composite: the result has its inputs' broadcast shape.
inline bool is_elementwise(const Op& op) {
  return op_as<Elemwise>(op) || op_as<Fill>(op) || op_as<Composite>(op);
}

}  // namespace rw::ops_detail

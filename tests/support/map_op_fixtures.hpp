// Helpers of the MapOp and jacobian tests: run a function, read a result as
// doubles, find the MapOp behind a variable.
#pragma once

#include <rw/rw.hpp>
#include <vector>

#include "engine/compile/map_op.hpp"

namespace rw::test {

/// The elements of `t` as doubles, in row-major order.
inline std::vector<double> values(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.size());
}

/// Compiles `outputs` of `inputs` (unused inputs allowed) and calls it once.
inline std::vector<Tensor> run(std::vector<In> inputs, std::vector<Var> outputs,
                               std::vector<Tensor> args) {
  auto f = function(std::move(inputs), std::move(outputs),
                    {.on_unused_input = UnusedInput::Ignore});
  return f.call(args);
}

/// The MapOp that computes `v`, or null.
inline const MapOp* map_of(const Var& v) {
  return v->owner() ? dynamic_cast<const MapOp*>(&v->owner()->op()) : nullptr;
}

}  // namespace rw::test

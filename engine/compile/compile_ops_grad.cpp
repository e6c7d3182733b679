// Gradients of deep_copy and view: both are the identity.
#include "engine/compile/compile_ops.hpp"

namespace rw {

std::vector<Var> DeepCopyOp::grad(const Apply&, std::span<const Var> output_grads) const {
  return {output_grads[0]};
}

std::vector<Var> DeepCopyOp::R_op(const Apply&, std::span<const Var> eval_points) const {
  return {eval_points[0]};
}

std::vector<Var> ViewOp::R_op(const Apply&, std::span<const Var> eval_points) const {
  return {eval_points[0]};
}

}  // namespace rw

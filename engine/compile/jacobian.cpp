// jacobian and hessian: stacked gradients, or a MapOp over one.
#include "engine/compile/jacobian.hpp"

#include <fmt/format.h>

#include "engine/compile/map_op.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"

namespace rw {

std::vector<Var> jacobian(const Var& expression, std::span<const Var> wrt,
                          const GradOptions& options) {
  if (!expression) throw TypeError("`jacobian`: the expression is null");
  const TensorType* t = expression->tensor_type();
  if (!t || t->ndim() > 1)
    throw TypeError(fmt::format("`jacobian`: the expression must be 0-d or a vector, not `{}`",
                                expression->type()->to_string()));
  if (t->ndim() == 0) return grad(expression, wrt, options);
  const std::int64_t n = t->shape()[0];
  if (n == kUnknownDim) {
    // Row k is the gradient of expression[k]: one inner graph run n times.
    Var k = Variable::make(TensorType::make(DType::Int64, {}), "k");
    const std::vector<Var> rows = grad(subtensor(expression, {k}), wrt, options);
    std::vector<Var> shapes;
    for (const Var& w : wrt) shapes.push_back(shape(w));
    return map_steps(shape_i(expression, 0), k, rows, shapes, "jacobian");
  }
  std::vector<std::vector<Var>> rows(wrt.size());
  for (std::int64_t k = 0; k < n; ++k) {
    const std::vector<Var> g = grad(subtensor(expression, {k}), wrt, options);
    for (std::size_t i = 0; i < wrt.size(); ++i) rows[i].push_back(g[i]);
  }
  std::vector<Var> out;
  for (std::size_t i = 0; i < wrt.size(); ++i) {
    if (n == 0) {
      std::vector<Operand> dims{0};
      for (std::size_t a = 0; a < wrt[i]->tensor_type()->ndim(); ++a)
        dims.emplace_back(shape_i(wrt[i], static_cast<std::int64_t>(a)));
      out.push_back(alloc(constant(0.0, wrt[i]->tensor_type()->dtype()), dims));
    } else {
      out.push_back(stack(rows[i], 0));
    }
  }
  return out;
}

Var jacobian(const Var& expression, const Var& wrt, const GradOptions& options) {
  const Var w[] = {wrt};
  return jacobian(expression, w, options)[0];
}

std::vector<Var> hessian(const Var& cost, std::span<const Var> wrt, const GradOptions& options) {
  std::vector<Var> out;
  for (const Var& w : wrt) {
    if (!w || !w->tensor_type() || w->tensor_type()->ndim() > 1)
      throw TypeError(fmt::format("`hessian`: each variable must be 0-d or a vector, not `{}`",
                                  w ? w->type()->to_string() : "null"));
    Var g = grad(cost, w, options);
    // The gradient has w's shape; say so when its static type lost it.
    if (g->tensor_type() && !(g->tensor_type()->shape() == w->tensor_type()->shape()))
      g = specify_shape(g, w->tensor_type()->shape());
    out.push_back(jacobian(g, w, options));
  }
  return out;
}

Var hessian(const Var& cost, const Var& wrt, const GradOptions& options) {
  const Var w[] = {wrt};
  return hessian(cost, w, options)[0];
}

}  // namespace rw

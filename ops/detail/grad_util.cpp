// Helpers the Ops' L_op and R_op share.
#include "ops/detail/grad_util.hpp"

#include <fmt/format.h>

#include "ops/api.hpp"
#include "engine/graph/type.hpp"

namespace rw::ops_detail {

Var disconnected_grad_var() { return Variable::make(DisconnectedType::make()); }

Var null_grad_var(const Op& op, std::size_t input, std::string_view why) {
  return Variable::make(NullType::make(fmt::format("`{}` input {}: {}", op.to_string(), input, why)));
}

bool is_disconnected(const Var& v) {
  return !v || dynamic_cast<const DisconnectedType*>(v->type().get()) != nullptr;
}

DType var_dtype(const Var& v) { return v->tensor_type()->dtype(); }
std::size_t var_rank(const Var& v) { return v->tensor_type()->ndim(); }

Var sum_to(const Var& g, const Var& x) {
  const TensorType& gt = *g->tensor_type();
  const TensorType& xt = *x->tensor_type();
  const std::size_t lead = gt.ndim() - xt.ndim();
  std::vector<std::int64_t> axes;
  for (std::size_t a = 0; a < lead; ++a) axes.push_back(static_cast<std::int64_t>(a));
  for (std::size_t a = 0; a < xt.ndim(); ++a)
    if (xt.shape()[a] == 1 && gt.shape()[lead + a] != 1)
      axes.push_back(static_cast<std::int64_t>(lead + a));
  Var out = g;
  if (!axes.empty()) {
    // keepdims keeps the broadcast axes as extent 1; the leading ones are then dropped.
    out = sum(g, Axes(std::span<const std::int64_t>(axes)), /*keepdims=*/true);
    if (lead > 0) {
      std::vector<std::int64_t> order;
      for (std::size_t a = 0; a < xt.ndim(); ++a) order.push_back(static_cast<std::int64_t>(lead + a));
      out = dimshuffle(out, std::move(order));
    }
  } else if (lead > 0) {
    out = sum(g, Axes(std::span<const std::int64_t>(axes.data(), lead)));
  }
  const DType xd = xt.dtype();
  if (is_float(xd) && var_dtype(out) != xd) out = cast(out, xd);
  return out;
}

Var broadcast_like(const Var& v, const Var& like) {
  Var out = v;
  if (!(v->tensor_type()->shape() == like->tensor_type()->shape())) out = fill(like, v);
  if (var_dtype(out) != var_dtype(like)) out = cast(out, var_dtype(like));
  return out;
}

Var for_input(const Var& g, const Var& x) {
  if (!is_float(var_dtype(x))) return float_zeros_like(x);
  return var_dtype(g) == var_dtype(x) ? g : cast(g, var_dtype(x));
}

Var float_zeros_like(const Var& x) {
  const DType d = var_dtype(x);
  return zeros_like(x, is_float(d) ? d : DType::Float64);
}

}  // namespace rw::ops_detail

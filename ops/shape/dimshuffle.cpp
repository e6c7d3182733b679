// DimShuffle.
#include "ops/shape/dimshuffle.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"

namespace rw {

DimShuffle::DimShuffle(std::vector<std::int64_t> order)
    : ParamsOp(DimShuffleParams{std::move(order)}) {}

ApplyRef DimShuffle::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& t = ops_detail::tensor_input(*this, inputs, 0);
  const auto n = static_cast<std::int64_t>(t.ndim());
  std::vector<bool> kept(t.ndim(), false);
  StaticShape shape;
  for (std::int64_t a : order()) {
    if (a == kNewAxis) {
      shape.push_back(1);
      continue;
    }
    if (a < 0 || a >= n)
      throw TypeError(fmt::format("`{}`: axis {} is out of range for {} of rank {}", to_string(),
                                  a, ops_detail::input_label(0, inputs[0]), n));
    if (kept[static_cast<std::size_t>(a)])
      throw TypeError(fmt::format("`{}`: axis {} appears twice", to_string(), a));
    kept[static_cast<std::size_t>(a)] = true;
    shape.push_back(t.shape()[static_cast<std::size_t>(a)]);
  }
  for (std::size_t a = 0; a < kept.size(); ++a)
    if (!kept[a] && t.shape()[a] != 1)
      throw TypeError(fmt::format(
          "`{}`: axis {} of {} ({}) is dropped, but only axes of static extent 1 can be",
          to_string(), a, ops_detail::input_label(0, inputs[0]), t.to_string()));
  return ops_detail::make_apply(*this, inputs, t.dtype(), std::move(shape));
}

void DimShuffle::perform_with(const DimShuffleParams& params, const Apply&,
                              std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  Shape shape;
  Strides strides;
  for (std::int64_t a : params.order) {
    if (a == kNewAxis) {
      shape.push_back(1);
      strides.push_back(0);
    } else {
      shape.push_back(x.shape()[static_cast<std::size_t>(a)]);
      strides.push_back(x.strides()[static_cast<std::size_t>(a)]);
    }
  }
  outputs[0] = TensorAccess::make(x.storage(), x.dtype(), std::move(shape), std::move(strides),
                                  x.offset());
}

std::vector<ShapeVars> DimShuffle::infer_shape(const Apply&,
                                               std::span<const ShapeVars> input_shapes) const {
  ShapeVars out;
  for (std::int64_t a : order())
    out.push_back(a == kNewAxis ? ops_detail::int64_constant(1)
                                : input_shapes[0][static_cast<std::size_t>(a)]);
  return {out};
}

}  // namespace rw

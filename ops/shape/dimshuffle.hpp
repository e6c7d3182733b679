// DimShuffle: axes reordered, added and dropped, as a view.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/op_params.hpp"

namespace rw {

/// Result axis i is input axis order[i], or a new axis of extent 1 where
/// order[i] is kNewAxis (`x`). Input axes left out are dropped, which only
/// axes of static extent 1 may be. The output is a view of the input
/// (Aesara's DimShuffle). Its params are the order.
struct DimShuffleParams {
  std::vector<std::int64_t> order;
  static constexpr auto fields() { return std::tuple{param("order", &DimShuffleParams::order)}; }
};

class DimShuffle final : public ParamsOp<DimShuffleParams> {
 public:
  explicit DimShuffle(std::vector<std::int64_t> order);
  const std::vector<std::int64_t>& order() const { return params().order; }

  std::string_view name() const override { return "dimshuffle"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/shape/shape_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  IoMap view_map() const override { return {{0, 0}}; }

 protected:
  void perform_with(const DimShuffleParams& params, const Apply& node,
                    std::span<const Tensor> inputs, std::span<Tensor> outputs) const override;
};

}  // namespace rw

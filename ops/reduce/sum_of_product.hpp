// SumOfScaledProduct: 0-d factors taken out of the sum or mean of a product
// of any length (PyTensor's local_sum_prod_of_mul_or_div), and its
// registration.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `sum(mul(s, x, t, y), axis=a) -> mul(s, t, sum(x * y, axis=a))`, and the
/// same for `mean`, where s and t are 0-d: they scale every element alike, so
/// they can scale the reduction once instead. The product must be float, of
/// one dtype with what stays inside (a float64 scalar does not take a float32
/// sum's precision away), and used by the reduction alone (otherwise it is
/// computed anyway, and a second product would be work added). A 0-d factor
/// cannot change the product's shape, so nothing about shapes is assumed.
/// The two-operand forms are also the rules `sum_of_scale_left/right` and
/// `mean_of_scale_*`, which go first (this rewriter's benefit is -1); it
/// exists for products of three or more operands, which those cannot match,
/// as `mul_canonizer` builds them.
class SumOfScaledProduct final : public NodeRewriter {
 public:
  SumOfScaledProduct();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Registers `sum_of_scaled_product` (SumOfScaledProduct) in the `specialize`
/// group of a standard database (make_standard_db), where PyTensor runs
/// local_sum_prod_of_mul_or_div; tags `fast_run`.
void register_reduce_rewrites(SequenceDB& db);

}  // namespace rw

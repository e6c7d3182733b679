// SumOfScaledProduct and its registration.
#include "ops/reduce/sum_of_product.hpp"

#include <vector>

#include "ops/detail/op_cast.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/reduce/reduce.hpp"

namespace rw {

SumOfScaledProduct::SumOfScaledProduct()
    : NodeRewriter("sum_of_scaled_product", Tracks{"sum", "mean"}, /*depth=*/1, /*benefit=*/-1) {
  // The product is taken apart only when the reduction is its sole use.
  set_reads_uses();
}

RewriteResult SumOfScaledProduct::transform(FunctionGraph& fgraph, Apply& node,
                                            const RewriteContext&) const {
  const auto* reduce = ops_detail::op_as<Reduce>(node.op());
  if (!reduce || (reduce->reduce_op() != ReduceOp::Sum && reduce->reduce_op() != ReduceOp::Mean))
    return RewriteResult::fail("not a sum or mean");
  const Var& product = node.input(0);
  const Apply* mul = product->owner();
  const auto* e = mul ? ops_detail::op_as<Elemwise>(mul->op()) : nullptr;
  if (!e || e->scalar_op() != ScalarOp::Mul || e->inplace_input())
    return RewriteResult::fail("the input is not a product");
  const DType dtype = product->tensor_type()->dtype();
  if (!is_float(dtype)) return RewriteResult::fail("the product is not float");
  if (fgraph.num_clients(*product) != 1)
    return RewriteResult::fail("the product has other uses");

  std::vector<Var> scalars, rest;
  for (const Var& in : mul->inputs())
    (in->tensor_type()->ndim() == 0 ? scalars : rest).push_back(in);
  if (scalars.empty()) return RewriteResult::fail("no factor is 0-d");
  if (rest.empty()) return RewriteResult::fail("every factor is 0-d");

  Var inner = rest.size() == 1 ? rest[0] : elemwise_op(ScalarOp::Mul)->make_node(rest)->output(0);
  if (inner->tensor_type()->dtype() != dtype)
    return RewriteResult::fail("without the 0-d factors the product has another dtype");
  scalars.push_back(node.op().make_node(std::vector<Var>{inner})->output(0));
  Var result = elemwise_op(ScalarOp::Mul)->make_node(scalars)->output(0);
  if (!result->type()->equals(*node.output_var(0).type()))
    return RewriteResult::fail("the scaled reduction would have another type");
  return RewriteResult::replace_output(std::move(result));
}

void register_reduce_rewrites(SequenceDB& db) {
  db.sub<EquilibriumDB>("specialize").add(std::make_shared<SumOfScaledProduct>(), {"fast_run"});
}

}  // namespace rw

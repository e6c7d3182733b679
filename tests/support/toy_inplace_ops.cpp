// The in-place toy Ops.
#include "support/toy_inplace_ops.hpp"

#include "engine/graph/errors.hpp"

namespace rw::test {

ApplyRef ToyNegInplace::make_node(std::span<const Var> inputs) const {
  if (inputs.size() != 1) throw TypeError("neg_inplace takes one input");
  const TypePtr type = inputs[0]->type();
  return Apply::create(ptr(), inputs, std::span(&type, 1));
}

void ToyNegInplace::perform(const Apply&, std::span<const Tensor> in,
                            std::span<Tensor> out) const {
  Tensor x = in[0];  // a handle on the same buffer: writing through it is the point
  if (!x.is_contiguous()) throw NotImplementedError("neg_inplace needs a contiguous input");
  double* p = x.data<double>();
  for (std::int64_t i = 0, n = x.size(); i < n; ++i) p[i] = -p[i];
  out[0] = x;
}

Var neg_inplace(const Var& x) { return (*std::make_shared<ToyNegInplace>())({x}); }

}  // namespace rw::test

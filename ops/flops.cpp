// The floating-point work the Ops report for the function profile's GFLOP/s
// (Op::flops): a multiply-add counts two, a transcendental function one.
#include <algorithm>

#include "engine/graph/apply.hpp"
#include "engine/graph/type.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/linalg/linalg.hpp"
#include "ops/nnet/softmax.hpp"
#include "ops/reduce/reduce.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

namespace {

double elements(const Shape& s) {
  double n = 1;
  for (std::int64_t e : s) n *= static_cast<double>(e);
  return n;
}

/// A product whose every output element sums `k` products: 2k each.
double product(const Shape& out, std::int64_t k) { return 2 * elements(out) * static_cast<double>(k); }

std::int64_t last(const Shape& s) { return s.empty() ? 1 : s.back(); }

}  // namespace

std::optional<double> ElemwiseBase::flops(const Apply& node, std::span<const Shape>,
                                          std::span<const Shape> out) const {
  SmallVec<DType, 4> dtypes;
  for (const Var& v : node.inputs()) dtypes.push_back(v->tensor_type()->dtype());
  const double per_element = static_cast<double>(program(dtypes).instructions().size());
  return out.empty() ? 0.0 : per_element * elements(out[0]);
}

std::optional<double> CompositeReduce::flops(const Apply&, std::span<const Shape> in,
                                             std::span<const Shape>) const {
  // The program on every element of the broadcast inputs, then one
  // accumulation each: the inputs' largest element count stands for it.
  double n = 0;
  for (const Shape& s : in) n = std::max(n, elements(s));
  return (static_cast<double>(scalar_program().instructions().size()) + 1) * n;
}

std::optional<double> Reduce::flops(const Apply&, std::span<const Shape> in,
                                    std::span<const Shape>) const {
  return elements(in[0]);
}

std::optional<double> Softmax::flops(const Apply&, std::span<const Shape> in,
                                     std::span<const Shape>) const {
  // The maximum, the shift and exp, the sum, the division (or log and shift).
  return 5 * elements(in[0]);
}

std::optional<double> Dot::flops(const Apply&, std::span<const Shape> in,
                                 std::span<const Shape> out) const {
  return product(out[0], last(in[0]));
}

std::optional<double> MatMul::flops(const Apply&, std::span<const Shape> in,
                                    std::span<const Shape> out) const {
  return product(out[0], last(in[0]));
}

std::optional<double> Outer::flops(const Apply&, std::span<const Shape>,
                                   std::span<const Shape> out) const {
  return elements(out[0]);
}

std::optional<double> Gemm::flops(const Apply&, std::span<const Shape> in,
                                  std::span<const Shape> out) const {
  // alpha · x @ y + beta · z: the product, two scalings and the sum.
  return product(out[0], last(in[2])) + 3 * elements(out[0]);
}

std::optional<double> Gemv::flops(const Apply&, std::span<const Shape> in,
                                  std::span<const Shape> out) const {
  return product(out[0], last(in[2])) + 3 * elements(out[0]);
}

std::optional<double> Ger::flops(const Apply&, std::span<const Shape>,
                                 std::span<const Shape> out) const {
  // a + alpha · x_i · y_j.
  return 3 * elements(out[0]);
}

std::optional<double> Dot22Scalar::flops(const Apply&, std::span<const Shape> in,
                                         std::span<const Shape> out) const {
  return product(out[0], last(in[0])) + elements(out[0]);
}

}  // namespace rw

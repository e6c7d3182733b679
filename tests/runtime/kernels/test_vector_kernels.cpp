// Every scalar op through the elementwise engine (the kernels Elemwise and the
// Composite interpreter run, vector ones included) against the scalar path
// (detail::find_scalar_kernel: scalar::Fn with the C library, one element at a
// time), on every dtype the op defines: lengths around the vector width and
// several blocks long, strided, reversed and broadcast operands. Results
// agree within the ulp docs/runtime.md documents (bitwise for ops without a
// vector form).
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/detail/kernel_table.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/rng.hpp"
#include "runtime/scalar_op.hpp"
#include "runtime/shape.hpp"

using namespace rw;

namespace {

constexpr DType kDtypes[] = {DType::Bool,  DType::Int8,  DType::Int16,   DType::Int32,
                             DType::Int64, DType::UInt8, DType::Float32, DType::Float64};

/// Largest distance, in ulp of the result, between the vector kernel and the
/// scalar path: each is within about 1 ulp of the exact result (the vector
/// one as measured in test_vector_math.cpp), so 2 apart, more for the ops
/// composed of several functions. Ops without a vector form must agree
/// exactly (0).
double tolerance(ScalarOp op, DType t) {
  switch (op) {
    case ScalarOp::Sigmoid:
    case ScalarOp::Softplus:
    case ScalarOp::Log1mexp:
    case ScalarOp::Xlogy:
    case ScalarOp::Xlog1py:
      return 4;
    case ScalarOp::Logit:
    case ScalarOp::Gelu:
      return 6;
    case ScalarOp::Erfc:  // SLEEF's is within 1.5 ulp
      return 3;
    case ScalarOp::Gammaln:
      // Near its zeros (1, 2 and between the poles below 0) the result is
      // small and each path accurate to an ulp of 1: relative to 1.
      return 4;
    case ScalarOp::Betaln:
      // lgamma(a) + lgamma(b) - lgamma(a + b) cancels: an ulp of each term
      // (up to about 40 here) is many of the result's. Relative to 64.
      return 16;
    default: break;
  }
  if (t != DType::Float32 && t != DType::Float64) return 0;
  if (detail::find_kernel(op, t) == detail::find_scalar_kernel(op, t)) return 0;
  return 2;
}

/// Values for an operand of dtype t: small integers, or floats over
/// [-4, 4] with zeros, infinities, NaN and a subnormal among them.
Tensor operand(DType t, std::int64_t n, std::uint64_t seed) {
  Rng rng(seed);
  if (t == DType::Bool) return cast(rng.integers({n}, 0, 2, DType::Int8), DType::Bool);
  if (t == DType::UInt8) return rng.integers({n}, 0, 60, t);
  if (t != DType::Float32 && t != DType::Float64) return rng.integers({n}, -30, 30, t);
  Tensor x = rng.uniform({n}, -4.0, 4.0, t);
  const double specials[] = {0.0, -0.0, std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(), 1e-310, 0.5, 1.0};
  for (std::int64_t i = 3; i < n; i += 11) {
    const double v = specials[(i / 11) % 8];
    if (t == DType::Float64) x.data<double>()[i] = v;
    else x.data<float>()[i] = static_cast<float>(v);
  }
  return x;
}

/// Whether `got` and `want` (elements of a result of dtype t, read as double)
/// agree within `ulps` of t.
bool close(double got, double want, double ulps, DType t, double floor) {
  if (std::isnan(want)) return std::isnan(got);
  if (ulps == 0 || std::isinf(want)) return std::bit_cast<std::uint64_t>(got) == std::bit_cast<std::uint64_t>(want);
  const double eps = t == DType::Float32 ? std::numeric_limits<float>::epsilon()
                                         : std::numeric_limits<double>::epsilon();
  const double tiny = t == DType::Float32 ? std::numeric_limits<float>::min()
                                          : std::numeric_limits<double>::min();
  return std::abs(got - want) <= ulps * eps * std::max({std::abs(want), tiny, floor});
}

/// The scalar path of `op` on `inputs` broadcast together: each operand
/// densely copied, then the scalar kernel over the flat elements.
Tensor scalar_path(ScalarOp op, std::span<const Tensor> inputs, const ScalarSignature& sig) {
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) shapes.push_back(t.shape());
  const Shape shape = broadcast_shapes(shapes);
  std::vector<Tensor> dense;
  const void* args[3] = {};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    dense.push_back(cast(inputs[i], sig.operands[i]).broadcast_to(shape).copy());
    args[i] = dense.back().raw_data();
  }
  Tensor out = Tensor::empty(sig.result, shape);
  const DType compute = op == ScalarOp::Switch ? sig.operands[1] : sig.operands[0];
  const detail::KernelFn k = detail::find_scalar_kernel(op, compute);
  REQUIRE(k);
  k(shape_size(shape), args, out.raw_data());
  return out;
}

void check_same(ScalarOp op, std::span<const Tensor> inputs, const std::string& layout) {
  std::vector<DType> dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  const ScalarSignature sig = scalar_signature(op, dtypes);
  const Tensor got = cast(elemwise(op, inputs), DType::Float64);
  const Tensor want = cast(scalar_path(op, inputs, sig), DType::Float64);
  REQUIRE(got.shape() == want.shape());
  const double ulps = tolerance(op, sig.operands[op == ScalarOp::Switch ? 1 : 0]);
  const Tensor g = got.copy(), w = want.copy();
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < g.size(); ++i)
    if (!close(g.data<double>()[i], w.data<double>()[i], ulps, sig.result,
               op == ScalarOp::Betaln ? 64.0 : op == ScalarOp::Gammaln ? 1.0 : 0.0)) {
      if (first < 0) first = i;
      ++bad;
    }
  INFO(scalar_op_name(op) << " on " << dtype_name(dtypes[0]) << ", " << layout << ", "
                          << g.size() << " elements: " << bad << " differ"
                          << (first >= 0 ? ", first at " + std::to_string(first) + ": " +
                                               std::to_string(g.data<double>()[first]) + " vs " +
                                               std::to_string(w.data<double>()[first])
                                         : std::string()));
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("every scalar op gives the scalar path's results on every layout", "[runtime]") {
  // Around the widest vector (16 float32 lanes), several blocks, the pool.
  const std::int64_t lengths[] = {1, 2, 3, 7, 8, 9, 15, 16, 17, 33, 1005, 20011};
  for (ScalarOp op : kAllScalarOps) {
    if (op == ScalarOp::Cast) continue;  // its kernels have no vector form
    const int arity = scalar_op_arity(op);
    for (DType t : kDtypes) {
      std::vector<DType> dtypes(static_cast<std::size_t>(arity), t);
      if (op == ScalarOp::Switch) dtypes[0] = DType::Bool;
      try {
        (void)scalar_signature(op, dtypes);
      } catch (const rw::ValueError&) {
        continue;  // not defined on t
      }
      for (std::int64_t n : lengths) {
        std::vector<Tensor> dense;
        for (int k = 0; k < arity; ++k)
          dense.push_back(operand(dtypes[static_cast<std::size_t>(k)], n, 17 + 5 * k));
        check_same(op, dense, "contiguous");
        if (n < 3) continue;
        // Every other element, and reversed.
        std::vector<Tensor> strided, reversed;
        for (int k = 0; k < arity; ++k) {
          const Tensor wide = operand(dtypes[static_cast<std::size_t>(k)], 2 * n, 29 + k);
          strided.push_back(wide.slice(0, 0, 2 * n, 2));
          reversed.push_back(dense[static_cast<std::size_t>(k)].slice(0, -1, -n - 1, -1));
        }
        check_same(op, strided, "strided");
        check_same(op, reversed, "reversed");
      }
      // Broadcast: a column against a row (binary and ternary ops), a
      // transposed matrix (unary ones).
      std::vector<Tensor> bc;
      for (int k = 0; k < arity; ++k) {
        const Tensor v = operand(dtypes[static_cast<std::size_t>(k)], 37 * 13, 41 + k);
        bc.push_back(k == 0 ? v.reshape(std::vector<std::int64_t>{37, 13}).transpose()
                            : v.slice(0, 0, 37).reshape(std::vector<std::int64_t>{1, 37}));
      }
      check_same(op, bc, "broadcast");
    }
  }
}

// Dot, MatMul, Outer, Gemm, Gemv, Ger, Dot22Scalar, MatrixInverse, Det, Solve,
// BlockDiag, Kron and their registration.
#include "ops/linalg/linalg.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/matrix_checks.hpp"
#include "ops/detail/util.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/indexing.hpp"
#include "runtime/kernels/linalg.hpp"

namespace rw {

using ops_detail::extents_agree;
using ops_detail::input_label;
using ops_detail::merge_extent;
using ops_detail::square_float_input;
using ops_detail::shape_str;

namespace {

void check_inner(const Op& op, std::span<const Var> inputs, std::int64_t ka, std::int64_t kb) {
  if (!extents_agree(ka, kb))
    throw TypeError(fmt::format(
        "`{}`: {} of shape {} and {} of shape {} do not multiply: inner extents {} and {}",
        op.to_string(), input_label(0, inputs[0]), shape_str(inputs[0]->tensor_type()->shape()),
        input_label(1, inputs[1]), shape_str(inputs[1]->tensor_type()->shape()), ka, kb));
}

void check_numeric(const Op& op, std::span<const Var> inputs, std::size_t i) {
  const TensorType& t = ops_detail::tensor_input(op, inputs, i);
  if (t.dtype() == DType::Bool)
    throw TypeError(fmt::format("`{}`: {} is {}, expected numbers", op.to_string(),
                                input_label(i, inputs[i]), t.to_string()));
}

}  // namespace

// ---------------------------------------------------------------------------
// dot

ApplyRef Dot::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  for (std::size_t i = 0; i < 2; ++i) {
    check_numeric(*this, inputs, i);
    const std::size_t r = inputs[i]->tensor_type()->ndim();
    if (r != 1 && r != 2)
      throw TypeError(fmt::format("`{}`: {} has rank {}, expected a vector or a matrix",
                                  to_string(), input_label(i, inputs[i]), r));
  }
  const StaticShape& a = inputs[0]->tensor_type()->shape();
  const StaticShape& b = inputs[1]->tensor_type()->shape();
  check_inner(*this, inputs, a.back(), b[0]);
  StaticShape out;
  if (a.size() == 2) out.push_back(a[0]);
  if (b.size() == 2) out.push_back(b[1]);
  return ops_detail::make_apply(
      *this, inputs,
      promote(inputs[0]->tensor_type()->dtype(), inputs[1]->tensor_type()->dtype()),
      std::move(out));
}

void Dot::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  Tensor& slot = outputs[0];
  // A matrix product of floats goes into the tensor left in the output slot
  // when it fits (the VM leaves one only when nothing else holds its buffer):
  // no allocation, and no first-touch page faults, per call.
  const bool reuse = a.ndim() == 2 && b.ndim() == 2 && is_float(a.dtype()) &&
                     a.dtype() == b.dtype() && slot.valid() && slot.dtype() == a.dtype() &&
                     slot.ndim() == 2 && slot.shape()[0] == a.shape()[0] &&
                     slot.shape()[1] == b.shape()[1] && a.shape()[1] == b.shape()[0] &&
                     slot.is_contiguous();
  if (reuse) {
    ops_detail::run_kernel(*this, [&] { gemm(slot, 1.0, a, b, 0.0); });
    return;
  }
  slot = ops_detail::run_kernel(*this, [&] { return dot(a, b); });
}

std::vector<ShapeVars> Dot::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  ShapeVars out;
  if (in[0].size() == 2) out.push_back(in[0][0]);
  if (in[1].size() == 2) out.push_back(in[1][1]);
  return {out};
}

// ---------------------------------------------------------------------------
// matmul

namespace {

// The static shape of a @ b (NumPy's matmul), checked.
StaticShape matmul_shape(const Op& op, std::span<const Var> inputs) {
  StaticShape a = inputs[0]->tensor_type()->shape();
  StaticShape b = inputs[1]->tensor_type()->shape();
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  check_inner(op, inputs, a.back(), b[b.size() - 2]);
  const std::size_t ba = a.size() - 2, bb = b.size() - 2;
  const std::size_t batch = std::max(ba, bb);
  StaticShape out(batch, 1);
  for (std::size_t d = 0; d < batch; ++d) {
    const std::int64_t ea = d + ba >= batch ? a[d + ba - batch] : 1;
    const std::int64_t eb = d + bb >= batch ? b[d + bb - batch] : 1;
    if (ea == 1) out[d] = eb;
    else if (eb == 1) out[d] = ea;
    else if (extents_agree(ea, eb)) out[d] = merge_extent(ea, eb);
    else
      throw TypeError(fmt::format(
          "`{}`: the batch axes of {} of shape {} and {} of shape {} do not broadcast",
          op.to_string(), input_label(0, inputs[0]), shape_str(inputs[0]->tensor_type()->shape()),
          input_label(1, inputs[1]), shape_str(inputs[1]->tensor_type()->shape())));
  }
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return out;
}

}  // namespace

ApplyRef MatMul::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  for (std::size_t i = 0; i < 2; ++i) {
    check_numeric(*this, inputs, i);
    if (inputs[i]->tensor_type()->ndim() == 0)
      throw TypeError(fmt::format("`{}`: {} is 0-d, expected at least a vector", to_string(),
                                  input_label(i, inputs[i])));
  }
  return ops_detail::make_apply(
      *this, inputs,
      promote(inputs[0]->tensor_type()->dtype(), inputs[1]->tensor_type()->dtype()),
      matmul_shape(*this, inputs));
}

void MatMul::perform(const Apply&, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  // The buffer left from an earlier call, when it fits (a loop's body).
  outputs[0] =
      ops_detail::run_kernel(*this, [&] { return matmul(inputs[0], inputs[1], outputs[0]); });
}

std::vector<ShapeVars> MatMul::infer_shape(const Apply& node,
                                           std::span<const ShapeVars> in) const {
  const ShapeVars& a = in[0];
  const ShapeVars& b = in[1];
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  const std::size_t ba = a_vec ? 0 : a.size() - 2, bb = b_vec ? 0 : b.size() - 2;
  const std::size_t batch = std::max(ba, bb);
  const StaticShape& sa = node.input(0)->tensor_type()->shape();
  ShapeVars out;
  for (std::size_t d = 0; d < batch; ++d) {
    const bool has_a = d + ba >= batch, has_b = d + bb >= batch;
    const std::size_t ia = d + ba - batch, ib = d + bb - batch;
    // An axis of static extent 1 broadcasts; the other operand's extent is the result's.
    if (has_a && !(sa[ia] == 1 && has_b)) out.push_back(a[ia]);
    else if (has_b) out.push_back(b[ib]);
    else out.push_back(a[ia]);
  }
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return {out};
}

// ---------------------------------------------------------------------------
// outer

ApplyRef Outer::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  for (std::size_t i = 0; i < 2; ++i) {
    check_numeric(*this, inputs, i);
    if (inputs[i]->tensor_type()->ndim() != 1)
      throw TypeError(fmt::format("`{}`: {} has rank {}, expected a vector", to_string(),
                                  input_label(i, inputs[i]), inputs[i]->tensor_type()->ndim()));
  }
  return ops_detail::make_apply(
      *this, inputs,
      promote(inputs[0]->tensor_type()->dtype(), inputs[1]->tensor_type()->dtype()),
      {inputs[0]->tensor_type()->shape()[0], inputs[1]->tensor_type()->shape()[0]});
}

void Outer::perform(const Apply&, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return outer(inputs[0], inputs[1]); });
}

std::vector<ShapeVars> Outer::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {ShapeVars{in[0][0], in[1][0]}};
}

// ---------------------------------------------------------------------------
// gemm

ApplyRef Gemm::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 5, 5);
  const TensorType& z = ops_detail::tensor_input(*this, inputs, 0);
  if (!is_float(z.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected float32 or float64", to_string(),
                                input_label(0, inputs[0]), z.to_string()));
  for (std::size_t i : {0, 2, 3}) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, i);
    if (t.ndim() != 2 || t.dtype() != z.dtype())
      throw TypeError(fmt::format("`{}`: {} is {}, expected a matrix of {}", to_string(),
                                  input_label(i, inputs[i]), t.to_string(),
                                  dtype_name(z.dtype())));
  }
  for (std::size_t i : {1, 4}) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, i);
    if (t.ndim() != 0 || t.dtype() == DType::Bool)
      throw TypeError(fmt::format("`{}`: {} ({}) is {}, expected a 0-d number", to_string(),
                                  input_label(i, inputs[i]), i == 1 ? "alpha" : "beta",
                                  t.to_string()));
  }
  const StaticShape& zs = z.shape();
  const StaticShape& xs = inputs[2]->tensor_type()->shape();
  const StaticShape& ys = inputs[3]->tensor_type()->shape();
  const std::span<const Var> xy = inputs.subspan(2, 2);
  check_inner(*this, xy, xs[1], ys[0]);
  if (!extents_agree(zs[0], xs[0]) || !extents_agree(zs[1], ys[1]))
    throw TypeError(fmt::format("`{}`: {} of shape {} does not fit the product of shape ({}, {})",
                                to_string(), input_label(0, inputs[0]), shape_str(zs),
                                xs[0] == kUnknownDim ? "?" : std::to_string(xs[0]),
                                ys[1] == kUnknownDim ? "?" : std::to_string(ys[1])));
  return ops_detail::make_apply(*this, inputs, z.dtype(),
                                {merge_extent(zs[0], xs[0]), merge_extent(zs[1], ys[1])});
}

void Gemm::perform_with(const GemmParams& params, const Apply&, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  const double alpha = inputs[1].item<double>();
  const double beta = inputs[4].item<double>();
  Tensor out;
  if (params.inplace) {
    out = inputs[0];
  } else {
    // Reuse the tensor left in the output slot when it fits; beta == 0 never reads z.
    Tensor& slot = outputs[0];
    const bool fits = slot.valid() && slot.dtype() == inputs[0].dtype() &&
                      slot.shape() == inputs[0].shape() && slot.is_contiguous();
    out = fits ? slot : Tensor::empty(inputs[0].dtype(), inputs[0].shape());
    if (beta != 0) ops_detail::run_kernel(*this, [&] { copy_into(out, inputs[0]); });
  }
  ops_detail::run_kernel(*this, [&] { gemm(out, alpha, inputs[2], inputs[3], beta); });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> Gemm::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0]};
}

IoMap Gemm::destroy_map() const {
  if (!inplace()) return {};
  return {{0, 0}};
}

// ---------------------------------------------------------------------------
// gemv, ger

namespace {

/// Checks that inputs `tensors` are float tensors of these ranks and of one
/// dtype (input 0's), and inputs `scalars` 0-d numbers named by `roles`.
void check_blas_inputs(const Op& op, std::span<const Var> inputs,
                       std::initializer_list<std::pair<std::size_t, std::size_t>> tensors,
                       std::initializer_list<std::pair<std::size_t, const char*>> scalars) {
  const TensorType& first = ops_detail::tensor_input(op, inputs, 0);
  if (!is_float(first.dtype()))
    throw TypeError(fmt::format("`{}`: {} is {}, expected float32 or float64", op.to_string(),
                                input_label(0, inputs[0]), first.to_string()));
  for (const auto& [i, rank] : tensors) {
    const TensorType& t = ops_detail::tensor_input(op, inputs, i);
    if (t.ndim() != rank || t.dtype() != first.dtype())
      throw TypeError(fmt::format("`{}`: {} is {}, expected a {} of {}", op.to_string(),
                                  input_label(i, inputs[i]), t.to_string(),
                                  rank == 2 ? "matrix" : "vector", dtype_name(first.dtype())));
  }
  for (const auto& [i, role] : scalars) {
    const TensorType& t = ops_detail::tensor_input(op, inputs, i);
    if (t.ndim() != 0 || t.dtype() == DType::Bool)
      throw TypeError(fmt::format("`{}`: {} ({}) is {}, expected a 0-d number", op.to_string(),
                                  input_label(i, inputs[i]), role, t.to_string()));
  }
}

/// A copy of `t` to compute into: the tensor left in the output slot when it
/// fits, else a new one; filled with t's values unless `fill` is false.
Tensor output_copy(const Op& op, Tensor& slot, const Tensor& t, bool fill) {
  const bool fits = slot.valid() && slot.dtype() == t.dtype() && slot.shape() == t.shape() &&
                    slot.is_contiguous();
  Tensor out = fits ? slot : Tensor::empty(t.dtype(), t.shape());
  if (fill) ops_detail::run_kernel(op, [&] { copy_into(out, t); });
  return out;
}

}  // namespace

ApplyRef Gemv::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 5, 5);
  check_blas_inputs(*this, inputs, {{0, 1}, {2, 2}, {3, 1}}, {{1, "alpha"}, {4, "beta"}});
  const StaticShape& ys = inputs[0]->tensor_type()->shape();
  const StaticShape& as = inputs[2]->tensor_type()->shape();
  const StaticShape& xs = inputs[3]->tensor_type()->shape();
  check_inner(*this, inputs.subspan(2, 2), as[1], xs[0]);
  if (!extents_agree(ys[0], as[0]))
    throw TypeError(fmt::format("`{}`: {} of shape {} does not fit the product of shape ({})",
                                to_string(), input_label(0, inputs[0]), shape_str(ys),
                                as[0] == kUnknownDim ? "?" : std::to_string(as[0])));
  return ops_detail::make_apply(*this, inputs, inputs[0]->tensor_type()->dtype(),
                                {merge_extent(ys[0], as[0])});
}

void Gemv::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const double alpha = inputs[1].item<double>();
  const double beta = inputs[4].item<double>();
  Tensor out = output_copy(*this, outputs[0], inputs[0], beta != 0);
  ops_detail::run_kernel(*this, [&] { gemv(out, alpha, inputs[2], inputs[3], beta); });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> Gemv::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0]};
}

ApplyRef Ger::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 4, 4);
  check_blas_inputs(*this, inputs, {{0, 2}, {2, 1}, {3, 1}}, {{1, "alpha"}});
  const StaticShape& as = inputs[0]->tensor_type()->shape();
  const StaticShape& xs = inputs[2]->tensor_type()->shape();
  const StaticShape& ys = inputs[3]->tensor_type()->shape();
  if (!extents_agree(as[0], xs[0]) || !extents_agree(as[1], ys[0]))
    throw TypeError(fmt::format("`{}`: {} of shape {} does not fit the outer product of shape ({}, {})",
                                to_string(), input_label(0, inputs[0]), shape_str(as),
                                xs[0] == kUnknownDim ? "?" : std::to_string(xs[0]),
                                ys[0] == kUnknownDim ? "?" : std::to_string(ys[0])));
  return ops_detail::make_apply(*this, inputs, inputs[0]->tensor_type()->dtype(),
                                {merge_extent(as[0], xs[0]), merge_extent(as[1], ys[0])});
}

void Ger::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const double alpha = inputs[1].item<double>();
  Tensor out = output_copy(*this, outputs[0], inputs[0], true);
  ops_detail::run_kernel(*this, [&] { ger(out, alpha, inputs[2], inputs[3]); });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> Ger::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[0]};
}

ApplyRef Dot22Scalar::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  check_blas_inputs(*this, inputs, {{0, 2}, {1, 2}}, {{2, "alpha"}});
  const StaticShape& xs = inputs[0]->tensor_type()->shape();
  const StaticShape& ys = inputs[1]->tensor_type()->shape();
  check_inner(*this, inputs.subspan(0, 2), xs[1], ys[0]);
  return ops_detail::make_apply(*this, inputs, inputs[0]->tensor_type()->dtype(), {xs[0], ys[1]});
}

void Dot22Scalar::perform(const Apply&, std::span<const Tensor> inputs,
                          std::span<Tensor> outputs) const {
  const double alpha = inputs[2].item<double>();
  const Tensor& x = inputs[0];
  const Tensor& y = inputs[1];
  const std::vector<std::int64_t> shape = {x.shape()[0], y.shape()[1]};
  Tensor& slot = outputs[0];
  const bool fits = slot.valid() && slot.dtype() == x.dtype() && slot.is_contiguous() &&
                    std::equal(slot.shape().begin(), slot.shape().end(), shape.begin(), shape.end());
  // beta 0: gemm never reads what the output held.
  Tensor out = fits ? slot : Tensor::empty(x.dtype(), shape);
  ops_detail::run_kernel(*this, [&] { gemm(out, alpha, x, y, 0.0); });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> Dot22Scalar::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {{in[0][0], in[1][1]}};
}

// ---------------------------------------------------------------------------
// matrix_inverse, det, solve

ApplyRef MatrixInverse::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  const std::int64_t n = merge_extent(a.shape()[0], a.shape()[1]);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {n, n});
}

void MatrixInverse::perform(const Apply&, std::span<const Tensor> inputs,
                            std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return matrix_inverse(inputs[0]); });
}

std::vector<ShapeVars> MatrixInverse::infer_shape(const Apply&,
                                                  std::span<const ShapeVars> in) const {
  return {in[0]};
}

ApplyRef Det::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& a = square_float_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, a.dtype(), {});
}

void Det::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return det(inputs[0]); });
}

std::vector<ShapeVars> Det::infer_shape(const Apply&, std::span<const ShapeVars>) const {
  return {ShapeVars{}};
}

ApplyRef Solve::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& a = square_float_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, a.dtype(),
                                ops_detail::solve_result_shape(*this, inputs));
}

void Solve::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return solve(inputs[0], inputs[1]); });
}

std::vector<ShapeVars> Solve::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[1]};
}

// ---------------------------------------------------------------------------
// block_diag

ApplyRef BlockDiag::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, -1);
  DType dtype = ops_detail::tensor_input(*this, inputs, 0).dtype();
  std::int64_t rows = 0, cols = 0;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    check_numeric(*this, inputs, i);
    const TensorType& t = *inputs[i]->tensor_type();
    if (t.ndim() != 2)
      throw TypeError(fmt::format("`{}`: {} has rank {}, expected a matrix", to_string(),
                                  input_label(i, inputs[i]), t.ndim()));
    dtype = promote(dtype, t.dtype());
    auto add = [](std::int64_t total, std::int64_t e) {
      return total == kUnknownDim || e == kUnknownDim ? kUnknownDim : total + e;
    };
    rows = add(rows, t.shape()[0]);
    cols = add(cols, t.shape()[1]);
  }
  return ops_detail::make_apply(*this, inputs, dtype, {rows, cols});
}

void BlockDiag::perform(const Apply& node, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  std::int64_t rows = 0, cols = 0;
  for (const Tensor& t : inputs) {
    rows += t.shape()[0];
    cols += t.shape()[1];
  }
  const std::int64_t shape[] = {rows, cols};
  Tensor out = Tensor::zeros(shape, node.output(0)->tensor_type()->dtype());
  std::int64_t r = 0, c = 0;
  for (const Tensor& t : inputs) {
    Tensor block = out.slice(0, r, r + t.shape()[0]).slice(1, c, c + t.shape()[1]);
    ops_detail::run_kernel(*this, [&] { copy_into(block, t); });
    r += t.shape()[0];
    c += t.shape()[1];
  }
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> BlockDiag::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  Var rows = in[0][0], cols = in[0][1];
  for (std::size_t i = 1; i < in.size(); ++i) {
    rows = rows + in[i][0];
    cols = cols + in[i][1];
  }
  return {ShapeVars{rows, cols}};
}

// ---------------------------------------------------------------------------
// kron

ApplyRef Kron::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  StaticShape shape{1, 1};
  for (std::size_t i = 0; i < 2; ++i) {
    check_numeric(*this, inputs, i);
    const TensorType& t = *inputs[i]->tensor_type();
    if (t.ndim() != 2)
      throw TypeError(fmt::format("`{}`: {} has rank {}, expected a matrix", to_string(),
                                  input_label(i, inputs[i]), t.ndim()));
    for (std::size_t a = 0; a < 2; ++a) {
      const std::int64_t e = t.shape()[a];
      // A zero extent makes the product's zero whatever the other is.
      if (shape[a] == 0 || e == 0) shape[a] = 0;
      else shape[a] = shape[a] == kUnknownDim || e == kUnknownDim ? kUnknownDim : shape[a] * e;
    }
  }
  const DType dtype = promote(inputs[0]->tensor_type()->dtype(), inputs[1]->tensor_type()->dtype());
  return ops_detail::make_apply(*this, inputs, dtype, shape);
}

void Kron::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  // (m, 1, n, 1) * (1, p, 1, q) is (m, p, n, q): element (i, k, j, l) = a[i, j] b[k, l].
  const Tensor& a = inputs[0];
  const Tensor& b = inputs[1];
  const std::int64_t m = a.shape()[0], n = a.shape()[1], p = b.shape()[0], q = b.shape()[1];
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    const Tensor blocks = elemwise(ScalarOp::Mul, a.contiguous().reshape(Shape{m, 1, n, 1}),
                                   b.contiguous().reshape(Shape{1, p, 1, q}));
    return blocks.contiguous().reshape(Shape{m * p, n * q});
  });
}

std::vector<ShapeVars> Kron::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {ShapeVars{in[0][0] * in[1][0], in[0][1] * in[1][1]}};
}

// ---------------------------------------------------------------------------

void register_linalg(OpRegistry& r) {
  r.add({.name = "dot",
         .doc = "NumPy's dot of vectors and matrices",
         .params = {},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Dot>();
           return op;
         }});
  r.add({.name = "matmul",
         .doc = "NumPy's matmul (a @ b), batch axes broadcast",
         .params = {},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<MatMul>();
           return op;
         }});
  r.add({.name = "outer",
         .doc = "the outer product of two vectors",
         .params = {},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Outer>();
           return op;
         }});
  r.add({.name = "gemm",
         .doc = "gemm(z, alpha, x, y, beta) = alpha * x @ y + beta * z (BLAS gemm)",
         .params = {{"inplace", ParamKind::Bool, PropValue{false}, false,
                     "compute into z (destroy_map {0: 0})"}},
         .min_inputs = 5,
         .max_inputs = 5,
         .factory = [](const Props& p) -> OpPtr {
           return std::make_shared<Gemm>(std::get<bool>(p[0].value));
         }});
  r.add({.name = "gemv",
         .doc = "gemv(y, alpha, a, x, beta) = alpha * a @ x + beta * y (BLAS gemv)",
         .params = {},
         .min_inputs = 5,
         .max_inputs = 5,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Gemv>();
           return op;
         }});
  r.add({.name = "dot22scalar",
         .doc = "dot22scalar(x, y, alpha) = alpha * x @ y for float matrices (BLAS gemm, beta 0)",
         .params = {},
         .min_inputs = 3,
         .max_inputs = 3,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Dot22Scalar>();
           return op;
         }});
  r.add({.name = "ger",
         .doc = "ger(a, alpha, x, y) = a + alpha * outer(x, y) (BLAS ger)",
         .params = {},
         .min_inputs = 4,
         .max_inputs = 4,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Ger>();
           return op;
         }});
  for (const char* name : {"matrix_inverse", "det"})
    r.add({.name = name,
           .doc = name[0] == 'd' ? "the determinant of a square float matrix"
                                 : "the inverse of a square float matrix",
           .params = {},
           .min_inputs = 1,
           .max_inputs = 1,
           .factory = [det = name[0] == 'd'](const Props&) -> OpPtr {
             static const OpPtr inv = std::make_shared<MatrixInverse>();
             static const OpPtr d = std::make_shared<Det>();
             return det ? d : inv;
           }});
  r.add({.name = "block_diag",
         .doc = "the matrices along the diagonal of one block matrix, zeros elsewhere",
         .params = {},
         .min_inputs = 1,
         .max_inputs = -1,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<BlockDiag>();
           return op;
         }});
  r.add({.name = "kron",
         .doc = "kron(a, b): the Kronecker product of two matrices",
         .params = {},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Kron>();
           return op;
         }});
  r.add({.name = "solve",
         .doc = "solve(a, b): x with a @ x = b for a square float matrix a",
         .params = {},
         .min_inputs = 2,
         .max_inputs = 2,
         .factory = [](const Props&) -> OpPtr {
           static const OpPtr op = std::make_shared<Solve>();
           return op;
         }});
}

}  // namespace rw

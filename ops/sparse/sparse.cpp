// The sparse Ops: make_node, perform and infer_shape, the API functions and
// the registration (gradients in sparse_grad.cpp).
#include "ops/sparse/sparse.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "ops/api.hpp"
#include "ops/detail/matrix_checks.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/sparse.hpp"

namespace rw {

using ops_detail::extents_agree;
using ops_detail::input_label;
using ops_detail::merge_extent;
using ops_detail::shape_str;

namespace {

const SparseType& sparse_input(const Op& op, std::span<const Var> inputs, std::size_t i) {
  const SparseType* t = as_sparse_type(*inputs[i]->type());
  if (!t)
    throw TypeError(fmt::format("`{}`: {} has type `{}`, expected a sparse matrix (`csr_…` or "
                                "`csc_…`)",
                                op.to_string(), input_label(i, inputs[i]),
                                inputs[i]->type()->to_string()));
  return *t;
}

// Input i as a float tensor of rank in [lo, hi], or TypeError naming it.
const TensorType& dense_input(const Op& op, std::span<const Var> inputs, std::size_t i,
                              std::size_t lo, std::size_t hi, std::string_view what) {
  if (as_sparse_type(*inputs[i]->type()))
    throw TypeError(fmt::format("`{}`: {} is sparse (`{}`), expected a dense {}", op.to_string(),
                                input_label(i, inputs[i]), inputs[i]->type()->to_string(), what));
  const TensorType& t = ops_detail::tensor_input(op, inputs, i);
  if (!is_float(t.dtype()) || t.ndim() < lo || t.ndim() > hi)
    throw TypeError(fmt::format("`{}`: {} is `{}`, expected a float32 or float64 {}",
                                op.to_string(), input_label(i, inputs[i]), t.to_string(), what));
  return t;
}

// Input i as an integer vector, or TypeError naming it.
const TensorType& int_vector_input(const Op& op, std::span<const Var> inputs, std::size_t i,
                                   std::string_view role) {
  const TensorType& t = ops_detail::tensor_input(op, inputs, i);
  if (!is_integer(t.dtype()) || t.ndim() != 1)
    throw TypeError(fmt::format("`{}`: {} ({}) is `{}`, expected an integer vector",
                                op.to_string(), input_label(i, inputs[i]), role, t.to_string()));
  return t;
}

ApplyRef apply_one(const Op& op, std::span<const Var> inputs, TypePtr out) {
  return Apply::create(op.ptr(), inputs, std::span(&out, 1));
}

ApplyRef apply_sparse(const Op& op, std::span<const Var> inputs, SparseFormat format, DType dtype,
                      StaticShape shape) {
  return apply_one(op, inputs, SparseType::make(format, dtype, std::move(shape)));
}

// A value converted to `dtype` (dense or sparse), for Ops whose output
// dtype is their operands' promoted one.
Tensor dense_as(const Tensor& t, DType dtype) { return t.dtype() == dtype ? t : t.astype(dtype); }
Tensor sparse_as(const Tensor& t, DType dtype) {
  const SparseView v = sparse_view(t);
  return v.dtype == dtype ? t : rw::sparse_convert(t, v.format, dtype);
}

DType out_dtype(const Apply& node) {
  const Type& t = *node.output_var(0).type();
  if (const SparseType* s = as_sparse_type(t)) return s->dtype();
  return t.as_tensor()->dtype();
}

void check_extent_pair(const Op& op, std::span<const Var> inputs, std::size_t i, std::int64_t a,
                       std::size_t j, std::int64_t b, std::string_view what) {
  if (!extents_agree(a, b))
    throw TypeError(fmt::format("`{}`: {} (`{}`) and {} (`{}`) do not agree: {} {} and {}",
                                op.to_string(), input_label(i, inputs[i]),
                                inputs[i]->type()->to_string(), input_label(j, inputs[j]),
                                inputs[j]->type()->to_string(), what, a, b));
}

}  // namespace

ShapeVars SparseOp::sparse_dims(const Var& x, const ShapeVars& given) {
  if (given.size() == 2) return given;
  const Var shape = rw::csm_properties(x).shape;
  return {ops_detail::vector_element(shape, 0), ops_detail::vector_element(shape, 1)};
}

// ---------------------------------------------------------------------------
// csm_properties

ApplyRef CsmProperties::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const SparseType& s = sparse_input(*this, inputs, 0);
  const std::int64_t outer = s.format() == SparseFormat::Csr ? s.shape()[0] : s.shape()[1];
  const TypePtr outs[] = {TensorType::make(s.dtype(), {kUnknownDim}),
                          TensorType::make(DType::Int32, {kUnknownDim}),
                          TensorType::make(DType::Int32, {outer == kUnknownDim ? kUnknownDim : outer + 1}),
                          TensorType::make(DType::Int64, {2})};
  return Apply::create(ptr(), inputs, outs);
}

void CsmProperties::perform(const Apply&, std::span<const Tensor> inputs,
                            std::span<Tensor> outputs) const {
  const SparseView v = sparse_view(inputs[0]);
  outputs[0] = sparse_data(inputs[0]);
  outputs[1] = sparse_indices(inputs[0]);
  outputs[2] = sparse_indptr(inputs[0]);
  outputs[3] = Tensor::from<std::int64_t>({v.rows, v.cols});
}

std::vector<ShapeVars> CsmProperties::infer_shape(const Apply& node,
                                                  std::span<const ShapeVars> in) const {
  const Var& x = node.input(0);
  const ShapeVars dims = sparse_dims(x, in[0]);
  const bool csr = as_sparse_type(*x->type())->format() == SparseFormat::Csr;
  // The number of entries, from another (mergeable) node on the same input.
  const Var nnz = cast(subtensor(rw::csm_properties(x).indptr, {-1}), DType::Int64);
  return {{nnz}, {nnz}, {(csr ? dims[0] : dims[1]) + 1}, {ops_detail::int64_constant(2)}};
}

// ---------------------------------------------------------------------------
// csr, csc

ApplyRef Csm::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 4, 4);
  const TensorType& data = dense_input(*this, inputs, 0, 1, 1, "vector (data)");
  int_vector_input(*this, inputs, 1, "indices");
  int_vector_input(*this, inputs, 2, "indptr");
  const TensorType& shape = int_vector_input(*this, inputs, 3, "shape");
  if (shape.shape()[0] != kUnknownDim && shape.shape()[0] != 2)
    throw TypeError(fmt::format("`{}`: {} (shape) has {} elements, expected 2", to_string(),
                                input_label(3, inputs[3]), shape.shape()[0]));
  StaticShape out{kUnknownDim, kUnknownDim};
  if (const auto c = ops_detail::constant_ints(inputs[3]); c && c->size() == 2) {
    for (std::size_t k = 0; k < 2; ++k) {
      if ((*c)[k] < 0)
        throw TypeError(fmt::format("`{}`: {} (shape) has a negative extent {}", to_string(),
                                    input_label(3, inputs[3]), (*c)[k]));
      out[k] = (*c)[k];
    }
  }
  return apply_sparse(*this, inputs, format_, data.dtype(), std::move(out));
}

void Csm::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor& shape = inputs[3];
  if (shape.size() != 2)
    throw ValueError(fmt::format("`{}`: shape has {} elements, expected 2", to_string(), shape.size()));
  const Tensor s = shape.astype(DType::Int64);
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return make_sparse_value(format_, s.data<std::int64_t>()[0], s.data<std::int64_t>()[1],
                             inputs[0], inputs[1], inputs[2]);
  });
}

std::vector<ShapeVars> Csm::infer_shape(const Apply& node, std::span<const ShapeVars>) const {
  return {{ops_detail::vector_element(node.input(3), 0), ops_detail::vector_element(node.input(3), 1)}};
}

std::vector<std::vector<bool>> Csm::connection_pattern(const Apply&) const {
  return {{true}, {false}, {false}, {false}};
}

// ---------------------------------------------------------------------------
// csm_grad

Props CsmGrad::props() const { return {{"format", std::string(sparse_format_name(format_))}}; }

ApplyRef CsmGrad::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  const SparseType& g = sparse_input(*this, inputs, 0);
  const TensorType& indices = int_vector_input(*this, inputs, 1, "indices");
  int_vector_input(*this, inputs, 2, "indptr");
  return ops_detail::make_apply(*this, inputs, g.dtype(), {indices.shape()[0]});
}

void CsmGrad::perform(const Apply&, std::span<const Tensor> inputs,
                      std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_values_at(inputs[0], format_, inputs[1], inputs[2]); });
}

std::vector<ShapeVars> CsmGrad::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[1]};
}

std::vector<std::vector<bool>> CsmGrad::connection_pattern(const Apply&) const {
  return {{true}, {false}, {false}};
}

// ---------------------------------------------------------------------------
// dense_from_sparse, csr_from_dense, csc_from_dense, sparse_convert

ApplyRef DenseFromSparse::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const SparseType& s = sparse_input(*this, inputs, 0);
  return ops_detail::make_apply(*this, inputs, s.dtype(), s.shape());
}

void DenseFromSparse::perform(const Apply&, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return sparse_to_dense(inputs[0]); });
}

std::vector<ShapeVars> DenseFromSparse::infer_shape(const Apply& node,
                                                    std::span<const ShapeVars> in) const {
  return {sparse_dims(node.input(0), in[0])};
}

std::string_view SparseFromDense::name() const {
  return format_ == SparseFormat::Csr ? "csr_from_dense" : "csc_from_dense";
}

ApplyRef SparseFromDense::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& x = dense_input(*this, inputs, 0, 2, 2, "matrix");
  return apply_sparse(*this, inputs, format_, x.dtype(), x.shape());
}

void SparseFromDense::perform(const Apply&, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return sparse_from_dense(inputs[0], format_); });
}

std::vector<ShapeVars> SparseFromDense::infer_shape(const Apply&,
                                                    std::span<const ShapeVars> in) const {
  return {in[0]};
}

Props SparseConvert::props() const {
  return {{"format", std::string(sparse_format_name(format_))}, {"dtype", dtype_}};
}

ApplyRef SparseConvert::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const SparseType& s = sparse_input(*this, inputs, 0);
  if (!is_sparse_dtype(dtype_))
    throw TypeError(fmt::format("`{}`: a sparse matrix holds float32 or float64, not {}",
                                to_string(), dtype_name(dtype_)));
  return apply_sparse(*this, inputs, format_, dtype_, s.shape());
}

void SparseConvert::perform(const Apply&, std::span<const Tensor> inputs,
                            std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return rw::sparse_convert(inputs[0], format_, dtype_); });
}

std::vector<ShapeVars> SparseConvert::infer_shape(const Apply& node,
                                                  std::span<const ShapeVars> in) const {
  return {sparse_dims(node.input(0), in[0])};
}

// ---------------------------------------------------------------------------
// sparse_transpose

ApplyRef SparseTranspose::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const SparseType& s = sparse_input(*this, inputs, 0);
  return apply_sparse(*this, inputs, other_format(s.format()), s.dtype(),
                      {s.shape()[1], s.shape()[0]});
}

void SparseTranspose::perform(const Apply&, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(*this, [&] { return rw::sparse_transpose(inputs[0]); });
}

std::vector<ShapeVars> SparseTranspose::infer_shape(const Apply& node,
                                                    std::span<const ShapeVars> in) const {
  const ShapeVars d = sparse_dims(node.input(0), in[0]);
  return {{d[1], d[0]}};
}

// ---------------------------------------------------------------------------
// structured_dot, sparse_dot

ApplyRef StructuredDot::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const SparseType& s = sparse_input(*this, inputs, 0);
  const TensorType& d = dense_input(*this, inputs, 1, 1, 2, "vector or matrix");
  const std::size_t inner = transpose_s_ ? 0 : 1;
  check_extent_pair(*this, inputs, 0, s.shape()[inner], 1, d.shape()[0], "inner extents");
  StaticShape out{s.shape()[1 - inner]};
  if (d.ndim() == 2) out.push_back(d.shape()[1]);
  return ops_detail::make_apply(*this, inputs, promote(s.dtype(), d.dtype()), std::move(out));
}

void StructuredDot::perform(const Apply& node, std::span<const Tensor> inputs,
                            std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return sparse_dense_dot(sparse_as(inputs[0], dt), dense_as(inputs[1], dt), outputs[0],
                            transpose_s_);
  });
}

std::vector<ShapeVars> StructuredDot::infer_shape(const Apply& node,
                                                  std::span<const ShapeVars> in) const {
  ShapeVars out{sparse_dims(node.input(0), in[0])[transpose_s_ ? 1 : 0]};
  if (in[1].size() == 2) out.push_back(in[1][1]);
  return {out};
}

ApplyRef SparseDot::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const SparseType& a = sparse_input(*this, inputs, 0);
  const SparseType& b = sparse_input(*this, inputs, 1);
  check_extent_pair(*this, inputs, 0, a.shape()[1], 1, b.shape()[0], "inner extents");
  return apply_sparse(*this, inputs, a.format(), promote(a.dtype(), b.dtype()),
                      {a.shape()[0], b.shape()[1]});
}

void SparseDot::perform(const Apply& node, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_sparse_dot(sparse_as(inputs[0], dt), sparse_as(inputs[1], dt)); });
}

std::vector<ShapeVars> SparseDot::infer_shape(const Apply& node,
                                              std::span<const ShapeVars> in) const {
  return {{sparse_dims(node.input(0), in[0])[0], sparse_dims(node.input(1), in[1])[1]}};
}

// ---------------------------------------------------------------------------
// add_ss, add_sd, mul_sd

ApplyRef AddSS::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const SparseType& a = sparse_input(*this, inputs, 0);
  const SparseType& b = sparse_input(*this, inputs, 1);
  if (a.format() != b.format())
    throw TypeError(fmt::format("`{}`: {} is {} and {} is {}; convert one (sparse_convert)",
                                to_string(), input_label(0, inputs[0]), sparse_format_name(a.format()),
                                input_label(1, inputs[1]), sparse_format_name(b.format())));
  for (std::size_t k = 0; k < 2; ++k)
    check_extent_pair(*this, inputs, 0, a.shape()[k], 1, b.shape()[k],
                      k == 0 ? "numbers of rows" : "numbers of columns");
  return apply_sparse(*this, inputs, a.format(), promote(a.dtype(), b.dtype()),
                      {merge_extent(a.shape()[0], b.shape()[0]), merge_extent(a.shape()[1], b.shape()[1])});
}

void AddSS::perform(const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_add(sparse_as(inputs[0], dt), sparse_as(inputs[1], dt)); });
}

std::vector<ShapeVars> AddSS::infer_shape(const Apply& node, std::span<const ShapeVars> in) const {
  return {sparse_dims(node.input(0), in[0])};
}

ApplyRef AddSD::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const SparseType& s = sparse_input(*this, inputs, 0);
  const TensorType& d = dense_input(*this, inputs, 1, 2, 2, "matrix");
  for (std::size_t k = 0; k < 2; ++k)
    check_extent_pair(*this, inputs, 0, s.shape()[k], 1, d.shape()[k],
                      k == 0 ? "numbers of rows" : "numbers of columns");
  return ops_detail::make_apply(
      *this, inputs, promote(s.dtype(), d.dtype()),
      {merge_extent(s.shape()[0], d.shape()[0]), merge_extent(s.shape()[1], d.shape()[1])});
}

void AddSD::perform(const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_add_dense(sparse_as(inputs[0], dt), dense_as(inputs[1], dt)); });
}

std::vector<ShapeVars> AddSD::infer_shape(const Apply&, std::span<const ShapeVars> in) const {
  return {in[1]};
}

ApplyRef MulSD::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const SparseType& s = sparse_input(*this, inputs, 0);
  const TensorType& d = dense_input(*this, inputs, 1, 0, 2, "scalar, vector or matrix");
  // d's axes line up with s's last ones; an axis of static extent 1 broadcasts.
  const std::size_t lead = 2 - d.ndim();
  for (std::size_t k = 0; k < d.ndim(); ++k) {
    const std::int64_t e = d.shape()[k];
    if (e != 1) check_extent_pair(*this, inputs, 0, s.shape()[k + lead], 1, e, "extents");
  }
  return apply_sparse(*this, inputs, s.format(), promote(s.dtype(), d.dtype()), s.shape());
}

void MulSD::perform(const Apply& node, std::span<const Tensor> inputs,
                    std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  const SparseView v = sparse_view(inputs[0]);
  const Tensor& d = inputs[1];
  // The static rule at run time: every axis of d equals s's or is 1.
  for (std::int64_t k = 0; k < d.ndim(); ++k) {
    const std::int64_t target = k + 2 - d.ndim() == 0 ? v.rows : v.cols;
    if (d.shape()[k] != 1 && d.shape()[k] != target)
      throw ValueError(fmt::format("`{}`: the dense operand of shape {} does not broadcast to the "
                                   "sparse matrix's ({}, {})",
                                   to_string(), shape_to_string(d.shape()), v.rows, v.cols));
  }
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_mul_dense(sparse_as(inputs[0], dt), dense_as(d, dt)); });
}

std::vector<ShapeVars> MulSD::infer_shape(const Apply& node, std::span<const ShapeVars> in) const {
  return {sparse_dims(node.input(0), in[0])};
}

// ---------------------------------------------------------------------------
// sp_sum

Props SpSum::props() const {
  if (axis_) return {{"axis", *axis_}};
  return {{"axis", std::monostate{}}};
}

ApplyRef SpSum::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const SparseType& s = sparse_input(*this, inputs, 0);
  if (axis_ && *axis_ != 0 && *axis_ != 1)
    throw TypeError(fmt::format("`{}`: axis {} is not none, 0 or 1", to_string(), *axis_));
  StaticShape out;
  if (axis_) out.push_back(*axis_ == 0 ? s.shape()[1] : s.shape()[0]);
  return ops_detail::make_apply(*this, inputs, s.dtype(), std::move(out));
}

void SpSum::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  outputs[0] = ops_detail::run_kernel(
      *this, [&] { return sparse_sum(inputs[0], axis_ ? static_cast<int>(*axis_) : -1); });
}

std::vector<ShapeVars> SpSum::infer_shape(const Apply& node, std::span<const ShapeVars> in) const {
  if (!axis_) return {ShapeVars{}};
  const ShapeVars d = sparse_dims(node.input(0), in[0]);
  return {{*axis_ == 0 ? d[1] : d[0]}};
}

// ---------------------------------------------------------------------------
// sampling_dot

ApplyRef SamplingDot::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 3, 3);
  const TensorType& x = dense_input(*this, inputs, 0, 2, 2, "matrix");
  const TensorType& y = dense_input(*this, inputs, 1, 2, 2, "matrix");
  const SparseType& p = sparse_input(*this, inputs, 2);
  check_extent_pair(*this, inputs, 0, x.shape()[1], 1, y.shape()[1], "numbers of columns");
  check_extent_pair(*this, inputs, 0, x.shape()[0], 2, p.shape()[0], "numbers of rows");
  check_extent_pair(*this, inputs, 1, y.shape()[0], 2, p.shape()[1], "rows of y and columns of p:");
  return apply_sparse(*this, inputs, p.format(), promote(promote(x.dtype(), y.dtype()), p.dtype()),
                      {merge_extent(p.shape()[0], x.shape()[0]), merge_extent(p.shape()[1], y.shape()[0])});
}

void SamplingDot::perform(const Apply& node, std::span<const Tensor> inputs,
                          std::span<Tensor> outputs) const {
  const DType dt = out_dtype(node);
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return rw::sampling_dot(dense_as(inputs[0], dt), dense_as(inputs[1], dt), sparse_as(inputs[2], dt));
  });
}

std::vector<ShapeVars> SamplingDot::infer_shape(const Apply& node,
                                                std::span<const ShapeVars> in) const {
  return {sparse_dims(node.input(2), in[2])};
}

// ---------------------------------------------------------------------------
// The C++ API

namespace {

Var apply_op(const OpPtr& op, std::initializer_list<Var> inputs) { return (*op)(inputs); }

template <class O, class... A> Var make(std::initializer_list<Var> inputs, A&&... args) {
  return apply_op(std::make_shared<O>(std::forward<A>(args)...), inputs);
}

}  // namespace

const SparseType* sparse_type_of(const Var& v) { return v ? as_sparse_type(*v->type()) : nullptr; }

Var sparse_matrix(std::string name, SparseFormat format, DType dtype, std::int64_t rows,
                  std::int64_t cols) {
  return Variable::make(SparseType::make(format, dtype, {rows, cols}), std::move(name));
}

Var sparse_constant(const Tensor& value, std::string name) {
  const SparseView v = sparse_view(value);
  return Constant::make(value.copy(), SparseType::make(v.format, v.dtype, {v.rows, v.cols}),
                        std::move(name));
}

CsmParts csm_properties(const Var& s) {
  const ApplyRef node = std::make_shared<CsmProperties>()->make_node(std::span(&s, 1));
  return {node->output(0), node->output(1), node->output(2), node->output(3)};
}

Var csm(SparseFormat format, const Var& data, const Var& indices, const Var& indptr,
        const Var& shape) {
  return make<Csm>({data, indices, indptr, shape}, format);
}
Var csr(const Var& data, const Var& indices, const Var& indptr, const Var& shape) {
  return csm(SparseFormat::Csr, data, indices, indptr, shape);
}
Var csc(const Var& data, const Var& indices, const Var& indptr, const Var& shape) {
  return csm(SparseFormat::Csc, data, indices, indptr, shape);
}
Var csm_grad(const Var& g, SparseFormat format, const Var& indices, const Var& indptr) {
  return make<CsmGrad>({g, indices, indptr}, format);
}
Var dense_from_sparse(const Var& s) { return make<DenseFromSparse>({s}); }
Var csr_from_dense(const Var& x) { return make<SparseFromDense>({x}, SparseFormat::Csr); }
Var csc_from_dense(const Var& x) { return make<SparseFromDense>({x}, SparseFormat::Csc); }
Var sparse_convert(const Var& s, SparseFormat format, DType dtype) {
  return make<SparseConvert>({s}, format, dtype);
}
Var sparse_like(const Var& s, const SparseType& like) {
  const SparseType* t = sparse_type_of(s);
  if (t && t->format() == like.format() && t->dtype() == like.dtype()) return s;
  return sparse_convert(s, like.format(), like.dtype());
}
Var sparse_transpose(const Var& s) { return make<SparseTranspose>({s}); }
Var structured_dot(const Var& s, const Var& d) { return make<StructuredDot>({s, d}, false); }
Var structured_dot_t(const Var& s, const Var& d) { return make<StructuredDot>({s, d}, true); }
Var sparse_dot(const Var& a, const Var& b) { return make<SparseDot>({a, b}); }
Var add_ss(const Var& a, const Var& b) { return make<AddSS>({a, b}); }
Var add_sd(const Var& s, const Var& d) { return make<AddSD>({s, d}); }
Var mul_sd(const Var& s, const Var& d) { return make<MulSD>({s, d}); }
Var mul_sd(const Var& s, double scalar) {
  const SparseType* t = sparse_type_of(s);
  return mul_sd(s, constant(scalar, t ? t->dtype() : DType::Float64));
}
Var sp_sum(const Var& s, std::optional<std::int64_t> axis) { return make<SpSum>({s}, axis); }
Var sampling_dot(const Var& x, const Var& y, const Var& p) { return make<SamplingDot>({x, y, p}); }
Var sp_ones_like(const Var& s) {
  const SparseType* t = sparse_type_of(s);
  if (!t)
    throw TypeError(fmt::format("`sp_ones_like`: {} has type `{}`, expected a sparse matrix",
                                describe(*s), s->type()->to_string()));
  const CsmParts p = csm_properties(s);
  return csm(t->format(), ones_like(p.data), p.indices, p.indptr, p.shape);
}

// ---------------------------------------------------------------------------
// Registration

void register_sparse(OpRegistry& r) {
  auto simple = [&r](std::string name, std::string doc, int n, std::function<OpPtr()> f) {
    r.add(OpInfo{.name = std::move(name), .doc = std::move(doc), .params = {}, .min_inputs = n,
                 .max_inputs = n, .factory = [f = std::move(f)](const Props&) { return f(); }});
  };
  auto format_param = [](const char* doc) {
    return ParamSpec{"format", ParamKind::String, PropValue{std::string("csr")}, false, doc};
  };
  auto format_of = [](const Props& p) {
    const std::string& f = std::get<std::string>(p[0].value);
    const auto format = parse_sparse_format(f);
    if (!format) throw Error(fmt::format("`format` must be `csr` or `csc`, got `{}`", f));
    return *format;
  };
  simple("csm_properties", "the data, indices, indptr and shape of a sparse matrix", 1,
         [] { return std::make_shared<CsmProperties>(); });
  simple("csr", "the CSR matrix of (data, indices, indptr, shape)", 4,
         [] { return std::make_shared<Csm>(SparseFormat::Csr); });
  simple("csc", "the CSC matrix of (data, indices, indptr, shape)", 4,
         [] { return std::make_shared<Csm>(SparseFormat::Csc); });
  r.add(OpInfo{.name = "csm_grad",
               .doc = "the entries of a sparse matrix at the positions of a pattern",
               .params = {format_param("the pattern's format")},
               .min_inputs = 3,
               .max_inputs = 3,
               .factory = [format_of](const Props& p) -> OpPtr {
                 return std::make_shared<CsmGrad>(format_of(p));
               }});
  simple("dense_from_sparse", "the dense matrix of a sparse one", 1,
         [] { return std::make_shared<DenseFromSparse>(); });
  simple("csr_from_dense", "the nonzeros of a matrix, compressed by rows", 1,
         [] { return std::make_shared<SparseFromDense>(SparseFormat::Csr); });
  simple("csc_from_dense", "the nonzeros of a matrix, compressed by columns", 1,
         [] { return std::make_shared<SparseFromDense>(SparseFormat::Csc); });
  r.add(OpInfo{.name = "sparse_convert",
               .doc = "a sparse matrix in another format and dtype",
               .params = {format_param("the result's format"),
                          {"dtype", ParamKind::DType, PropValue{DType::Float64}, false,
                           "the result's dtype"}},
               .min_inputs = 1,
               .max_inputs = 1,
               .factory = [format_of](const Props& p) -> OpPtr {
                 return std::make_shared<SparseConvert>(format_of(p), std::get<DType>(p[1].value));
               }});
  simple("sparse_transpose", "the transpose of a sparse matrix (CSR <-> CSC)", 1,
         [] { return std::make_shared<SparseTranspose>(); });
  simple("structured_dot", "sparse times dense, dense", 2,
         [] { return std::make_shared<StructuredDot>(false); });
  simple("structured_dot_t", "the transpose of a sparse matrix times dense, dense", 2,
         [] { return std::make_shared<StructuredDot>(true); });
  simple("sparse_dot", "sparse times sparse, sparse", 2, [] { return std::make_shared<SparseDot>(); });
  simple("add_ss", "sparse plus sparse, sparse", 2, [] { return std::make_shared<AddSS>(); });
  simple("add_sd", "sparse plus dense, dense", 2, [] { return std::make_shared<AddSD>(); });
  simple("mul_sd", "sparse times a broadcast dense tensor on the stored entries", 2,
         [] { return std::make_shared<MulSD>(); });
  r.add(OpInfo{.name = "sp_sum",
               .doc = "the sum of a sparse matrix's entries, all or along an axis",
               .params = {{"axis", ParamKind::Int, PropValue{std::monostate{}}, true,
                           "0 or 1, or none for all"}},
               .min_inputs = 1,
               .max_inputs = 1,
               .factory = [](const Props& p) -> OpPtr {
                 if (std::holds_alternative<std::monostate>(p[0].value))
                   return std::make_shared<SpSum>(std::nullopt);
                 return std::make_shared<SpSum>(std::get<std::int64_t>(p[0].value));
               }});
  simple("sampling_dot", "p * (x . y^T) on the entries of the sparse p", 3,
         [] { return std::make_shared<SamplingDot>(); });
}

}  // namespace rw

// repeat, tile and roll: each builds the source index of every result slice
// along an axis and gathers with the runtime's take.
#include "ops/shape/gather_shape.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/indexing.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;

namespace {

PropValue axis_prop(std::optional<std::int64_t> axis) {
  if (!axis) return std::monostate{};
  return *axis;
}

/// x's slices at `index` along `axis`, as a new tensor.
Tensor gather(const Op& op, const Tensor& x, const std::vector<std::int64_t>& index,
              std::int64_t axis) {
  const auto n = static_cast<std::int64_t>(index.size());
  const Tensor idx = Tensor::from_vector(index, std::span(&n, 1));
  return ops_detail::run_kernel(op, [&] { return take(x, idx, axis); });
}

/// n * k, or ValueError when no tensor has that many slices.
std::int64_t checked_product(const Op& op, std::int64_t n, std::int64_t k) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(n, k, &out) || out > (std::int64_t{1} << 40))
    throw ValueError(fmt::format("`{}`: {} x {} slices is too many", op.to_string(), n, k));
  return out;
}

Tensor flattened(const Tensor& x) {
  const std::int64_t n = x.size();
  return x.reshape(std::span(&n, 1));
}

}  // namespace

// ---------------------------------------------------------------------------
// repeat

Props Repeat::props() const { return {{"axis", axis_prop(axis_)}}; }

ApplyRef Repeat::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& x = ops_detail::tensor_input(*this, inputs, 0);
  const TensorType& r = ops_detail::tensor_input(*this, inputs, 1);
  if (!is_integer(r.dtype()) || r.ndim() > 1)
    throw TypeError(fmt::format("`{}`: {} (repeats) is {}, expected a 0-d or 1-d integer",
                                to_string(), input_label(1, inputs[1]), r.to_string()));
  StaticShape out = axis_ ? x.shape() : StaticShape{ops_detail::static_size(x.shape())};
  const std::int64_t a = ops_detail::checked_axis(*this, inputs, axis_.value_or(0), out.size());
  const std::int64_t n = out[static_cast<std::size_t>(a)];
  std::int64_t extent = kUnknownDim;
  if (r.ndim() == 0) {
    if (const auto c = ops_detail::constant_int(inputs[1])) {
      if (*c < 0)
        throw TypeError(fmt::format("`{}`: {} (repeats) is {}, expected a count >= 0",
                                    to_string(), input_label(1, inputs[1]), *c));
      if (n != kUnknownDim) extent = n * *c;
    }
  } else {
    const std::int64_t len = r.shape()[0];
    if (len != kUnknownDim && n != kUnknownDim && len != n)
      throw TypeError(fmt::format("`{}`: {} (repeats) has {} entries where axis {} of {} has {}",
                                  to_string(), input_label(1, inputs[1]), len, a,
                                  input_label(0, inputs[0]), n));
    if (const auto c = ops_detail::constant_ints(inputs[1])) {
      extent = 0;
      for (std::int64_t k : *c) {
        if (k < 0)
          throw TypeError(fmt::format("`{}`: {} (repeats) has a negative count {}", to_string(),
                                      input_label(1, inputs[1]), k));
        extent += k;
      }
    }
  }
  out[static_cast<std::size_t>(a)] = extent;
  return ops_detail::make_apply(*this, inputs, x.dtype(), std::move(out));
}

void Repeat::perform(const Apply& node, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  const Tensor x = axis_ ? inputs[0] : flattened(inputs[0]);
  const std::int64_t a = axis_ ? (*axis_ < 0 ? *axis_ + x.ndim() : *axis_) : 0;
  const std::int64_t n = x.shape()[static_cast<std::size_t>(a)];
  const Tensor r = inputs[1].astype(DType::Int64);
  if (r.ndim() == 1 && r.size() != n)
    throw ValueError(fmt::format("`{}`: {} (repeats) has {} entries where axis {} of {} has {}",
                                 to_string(), input_label(1, node.input(1)), r.size(), a,
                                 input_label(0, node.input(0)), n));
  std::vector<std::int64_t> index;
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = r.data<std::int64_t>()[r.ndim() == 0 ? 0 : i];
    if (k < 0)
      throw ValueError(fmt::format("`{}`: {} (repeats) has a negative count {}", to_string(),
                                   input_label(1, node.input(1)), k));
    total = checked_product(*this, 1, total + k);
    index.insert(index.end(), static_cast<std::size_t>(k), i);
  }
  outputs[0] = gather(*this, x, index, a);
}

std::vector<ShapeVars> Repeat::infer_shape(const Apply& node,
                                           std::span<const ShapeVars> input_shapes) const {
  ShapeVars shape = input_shapes[0];
  if (!axis_) {
    Var n = int64_constant(1);
    for (const Var& d : shape) n = n * d;
    shape = {n};
  }
  const auto a = static_cast<std::size_t>(
      axis_ ? (*axis_ < 0 ? *axis_ + static_cast<std::int64_t>(shape.size()) : *axis_) : 0);
  const Var& r = node.input(1);
  shape[a] = r->tensor_type()->ndim() == 0 ? shape[a] * cast(r, DType::Int64)
                                           : cast(sum(r), DType::Int64);
  return {shape};
}

std::vector<std::vector<bool>> Repeat::connection_pattern(const Apply&) const {
  return {{true}, {false}};
}

// ---------------------------------------------------------------------------
// tile

ApplyRef Tile::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, 1);
  const TensorType& x = ops_detail::tensor_input(*this, inputs, 0);
  for (std::int64_t r : reps_)
    if (r < 0) throw TypeError(fmt::format("`{}`: a repetition count is negative", to_string()));
  const std::size_t d = std::max(x.ndim(), reps_.size());
  StaticShape out(d, 1);
  std::vector<std::int64_t> reps(d, 1);
  std::copy(x.shape().begin(), x.shape().end(), out.begin() + static_cast<std::ptrdiff_t>(d - x.ndim()));
  std::copy(reps_.begin(), reps_.end(), reps.begin() + static_cast<std::ptrdiff_t>(d - reps_.size()));
  for (std::size_t a = 0; a < d; ++a)
    out[a] = reps[a] == 0 ? 0 : out[a] == kUnknownDim ? kUnknownDim : out[a] * reps[a];
  return ops_detail::make_apply(*this, inputs, x.dtype(), std::move(out));
}

void Tile::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor& x = inputs[0];
  const std::size_t d = std::max(static_cast<std::size_t>(x.ndim()), reps_.size());
  std::vector<std::int64_t> shape(d, 1), reps(d, 1);
  std::copy(x.shape().begin(), x.shape().end(), shape.begin() + static_cast<std::ptrdiff_t>(d - x.shape().size()));
  std::copy(reps_.begin(), reps_.end(), reps.begin() + static_cast<std::ptrdiff_t>(d - reps_.size()));
  Tensor cur = x.reshape(shape);
  bool copied = false;
  for (std::size_t a = 0; a < d; ++a) {
    if (reps[a] == 1) continue;
    const std::int64_t n = shape[a];
    std::vector<std::int64_t> index(static_cast<std::size_t>(checked_product(*this, n, reps[a])));
    for (std::size_t k = 0; k < index.size(); ++k) index[k] = static_cast<std::int64_t>(k) % n;
    cur = gather(*this, cur, index, static_cast<std::int64_t>(a));
    copied = true;
  }
  outputs[0] = copied ? cur : cur.copy();
}

std::vector<ShapeVars> Tile::infer_shape(const Apply&,
                                         std::span<const ShapeVars> input_shapes) const {
  const ShapeVars& in = input_shapes[0];
  const std::size_t d = std::max(in.size(), reps_.size());
  ShapeVars out;
  for (std::size_t a = 0; a < d; ++a) {
    const Var n = a + in.size() >= d ? in[a + in.size() - d] : int64_constant(1);
    const std::int64_t r = a + reps_.size() >= d ? reps_[a + reps_.size() - d] : 1;
    out.push_back(r == 1 ? n : n * int64_constant(r));
  }
  return {out};
}

// ---------------------------------------------------------------------------
// roll

Props Roll::props() const { return {{"axis", axis_prop(axis_)}}; }

ApplyRef Roll::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  const TensorType& x = ops_detail::tensor_input(*this, inputs, 0);
  ops_detail::int_scalar_input(*this, inputs, 1, "shift");
  if (axis_) ops_detail::checked_axis(*this, inputs, *axis_, x.ndim());
  return ops_detail::make_apply(*this, inputs, x.dtype(), x.shape());
}

void Roll::perform(const Apply&, std::span<const Tensor> inputs, std::span<Tensor> outputs) const {
  const Tensor x = axis_ ? inputs[0] : flattened(inputs[0]);
  const std::int64_t a = axis_ ? (*axis_ < 0 ? *axis_ + x.ndim() : *axis_) : 0;
  const std::int64_t n = x.shape()[static_cast<std::size_t>(a)];
  if (n == 0) {
    outputs[0] = inputs[0].copy();
    return;
  }
  // out[j] = x[(j - shift) mod n].
  const std::int64_t s = ((inputs[1].item<std::int64_t>() % n) + n) % n;
  std::vector<std::int64_t> index(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) index[static_cast<std::size_t>(j)] = (j - s + n) % n;
  Tensor out = gather(*this, x, index, a);
  outputs[0] = axis_ ? out : out.reshape(inputs[0].shape());
}

std::vector<ShapeVars> Roll::infer_shape(const Apply&,
                                         std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<std::vector<bool>> Roll::connection_pattern(const Apply&) const {
  return {{true}, {false}};
}

}  // namespace rw

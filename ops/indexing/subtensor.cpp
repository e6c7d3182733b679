// BasicIndex, Subtensor and IncSubtensor.
#include "ops/indexing/subtensor.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/indexing.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::int64_constant;

// ---------------------------------------------------------------------------
// IndexEntry, BasicIndex

std::size_t IndexEntry::num_inputs() const {
  if (!is_slice) return 1;
  return std::size_t{has_start} + std::size_t{has_stop} + std::size_t{has_step};
}

std::int64_t IndexEntry::code() const {
  if (!is_slice) return kIndexFromInput;
  return kSliceCode - (has_start ? 1 : 0) - (has_stop ? 2 : 0) - (has_step ? 4 : 0);
}

std::optional<IndexEntry> IndexEntry::decode(std::int64_t code) {
  if (code == kIndexFromInput) return IndexEntry{};
  const std::int64_t mask = kSliceCode - code;
  if (mask < 0 || mask > 7) return std::nullopt;
  return IndexEntry{true, (mask & 1) != 0, (mask & 2) != 0, (mask & 4) != 0};
}

BasicIndex::BasicIndex(std::vector<std::int64_t> codes) : codes_(std::move(codes)) {
  for (std::int64_t c : codes_) {
    const auto e = IndexEntry::decode(c);
    if (!e)
      throw Error(fmt::format(
          "index code {} is neither `i` ({}) nor a slice ({} to {})", c, kIndexFromInput,
          kSliceCode - 7, kSliceCode));
    entries_.push_back(*e);
    num_inputs_ += e->num_inputs();
  }
}

namespace {

constexpr std::int64_t kFar = std::int64_t{1} << 62;  // beyond any extent: an absent bound

// Python's slice.indices() length for one axis of extent n.
std::int64_t slice_len(std::int64_t n, std::int64_t start, std::int64_t stop, std::int64_t step) {
  auto clamp = [&](std::int64_t v) {
    if (v < 0) v += n;
    return step > 0 ? std::clamp<std::int64_t>(v, 0, n) : std::clamp<std::int64_t>(v, -1, n - 1);
  };
  const std::int64_t b = clamp(start), e = clamp(stop);
  return step > 0 ? (e > b ? (e - b + step - 1) / step : 0)
                  : (b > e ? (b - e - step - 1) / (-step) : 0);
}

Var as_int64(const Var& v) {
  return v->tensor_type()->dtype() == DType::Int64 ? v : cast(v, DType::Int64);
}

// The symbolic length of start:stop:step on an axis of extent n (absent
// bounds are null).
Var slice_length(const Var& n, Var start, Var stop, Var step) {
  if (start) start = as_int64(start);
  if (stop) stop = as_int64(stop);
  auto clamp = [&](const Var& v, std::int64_t low, const Var& high) {
    return where(lt(v, 0), maximum(v + n, low), minimum(v, high));
  };
  auto positive = [&](const Var& s) {
    const Var b = start ? clamp(start, 0, n) : int64_constant(0);
    const Var e = stop ? clamp(stop, 0, n) : n;
    return maximum(int_div(e - b + s - 1, s), 0);
  };
  auto negative = [&](const Var& s) {
    const Var b = start ? clamp(start, -1, n - 1) : n - 1;
    const Var e = stop ? clamp(stop, -1, n - 1) : int64_constant(-1);
    return maximum(int_div(b - e - s - 1, -s), 0);
  };
  if (!step) return positive(int64_constant(1));
  step = as_int64(step);
  if (auto s = ops_detail::constant_int(step)) return *s > 0 ? positive(step) : negative(step);
  return where(gt(step, 0), positive(step), negative(step));
}

}  // namespace

StaticShape BasicIndex::check(const Op& op, std::span<const Var> inputs, std::size_t x_index,
                              std::size_t first) const {
  const TensorType& x = ops_detail::tensor_input(op, inputs, x_index);
  if (entries_.size() > x.ndim())
    throw TypeError(fmt::format("`{}`: {} entries index {} of rank {}", op.to_string(),
                                entries_.size(), input_label(x_index, inputs[x_index]), x.ndim()));
  if (inputs.size() != first + num_inputs_)
    throw TypeError(fmt::format("`{}` takes {} inputs, got {}", op.to_string(),
                                first + num_inputs_, inputs.size()));
  StaticShape shape;
  std::size_t k = first;
  for (std::size_t a = 0; a < entries_.size(); ++a) {
    const IndexEntry& e = entries_[a];
    const std::int64_t n = x.shape()[a];
    if (!e.is_slice) {
      ops_detail::int_scalar_input(op, inputs, k, "an index");
      if (auto i = ops_detail::constant_int(inputs[k]); i && n != kUnknownDim && (*i < -n || *i >= n))
        throw TypeError(fmt::format("`{}`: index {} is out of bounds for axis {} with size {}",
                                    op.to_string(), *i, a, n));
      ++k;
      continue;
    }
    std::optional<std::int64_t> bounds[3] = {std::nullopt, std::nullopt, std::int64_t{1}};
    const bool has[3] = {e.has_start, e.has_stop, e.has_step};
    bool known = n != kUnknownDim;
    static constexpr const char* kRoles[3] = {"a slice start", "a slice stop", "a slice step"};
    for (int b = 0; b < 3; ++b) {
      if (!has[b]) continue;
      ops_detail::int_scalar_input(op, inputs, k, kRoles[b]);
      bounds[b] = ops_detail::constant_int(inputs[k]);
      known = known && bounds[b].has_value();
      ++k;
    }
    if (bounds[2] && *bounds[2] == 0)
      throw TypeError(fmt::format("`{}`: the slice step of axis {} is zero", op.to_string(), a));
    if (!e.has_start && !e.has_stop && !e.has_step) {
      shape.push_back(n);
    } else if (known) {
      const std::int64_t step = *bounds[2];
      const std::int64_t start = bounds[0].value_or(step > 0 ? -kFar : kFar);
      const std::int64_t stop = bounds[1].value_or(step > 0 ? kFar : -kFar);
      shape.push_back(slice_len(n, start, stop, step));
    } else {
      shape.push_back(kUnknownDim);
    }
  }
  for (std::size_t a = entries_.size(); a < x.ndim(); ++a) shape.push_back(x.shape()[a]);
  return shape;
}

Tensor BasicIndex::apply(const Op& op, const Tensor& x, std::span<const Tensor> values) const {
  Tensor t = x;
  std::size_t k = 0;
  std::int64_t axis = 0;  // the axis of t the next entry indexes
  for (std::size_t a = 0; a < entries_.size(); ++a) {
    const IndexEntry& e = entries_[a];
    const std::int64_t n = t.shape()[static_cast<std::size_t>(axis)];
    if (!e.is_slice) {
      const auto i = values[k++].item<std::int64_t>();
      if (i < -n || i >= n)
        throw IndexError(fmt::format("`{}`: index {} is out of bounds for axis {} with size {}",
                                     op.to_string(), i, a, n));
      t = t.select(axis, i);
      continue;
    }
    std::optional<std::int64_t> start, stop;
    std::int64_t step = 1;
    if (e.has_start) start = values[k++].item<std::int64_t>();
    if (e.has_stop) stop = values[k++].item<std::int64_t>();
    if (e.has_step) step = values[k++].item<std::int64_t>();
    if (step == 0)
      throw ValueError(fmt::format("`{}`: the slice step of axis {} is zero", op.to_string(), a));
    t = t.slice(axis, start.value_or(step > 0 ? -kFar : kFar),
                stop.value_or(step > 0 ? kFar : -kFar), step);
    ++axis;
  }
  return t;
}

ShapeVars BasicIndex::shape(const ShapeVars& x_shape, std::span<const Var> index_inputs) const {
  ShapeVars out;
  std::size_t k = 0;
  for (std::size_t a = 0; a < entries_.size(); ++a) {
    const IndexEntry& e = entries_[a];
    if (!e.is_slice) {
      ++k;
      continue;
    }
    Var start, stop, step;
    if (e.has_start) start = index_inputs[k++];
    if (e.has_stop) stop = index_inputs[k++];
    if (e.has_step) step = index_inputs[k++];
    if (!start && !stop && !step) out.push_back(x_shape[a]);
    else out.push_back(slice_length(x_shape[a], start, stop, step));
  }
  for (std::size_t a = entries_.size(); a < x_shape.size(); ++a) out.push_back(x_shape[a]);
  return out;
}

// ---------------------------------------------------------------------------
// Subtensor

ApplyRef Subtensor::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 1, -1);
  StaticShape shape = index_.check(*this, inputs, 0, 1);
  return ops_detail::make_apply(*this, inputs, inputs[0]->tensor_type()->dtype(),
                                std::move(shape));
}

void Subtensor::perform(const Apply&, std::span<const Tensor> inputs,
                        std::span<Tensor> outputs) const {
  outputs[0] = index_.apply(*this, inputs[0], inputs.subspan(1));
}

std::vector<ShapeVars> Subtensor::infer_shape(const Apply& node,
                                              std::span<const ShapeVars> input_shapes) const {
  return {index_.shape(input_shapes[0], node.inputs().subspan(1))};
}

std::vector<std::vector<bool>> Subtensor::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> out(node.num_inputs(), {false});
  out[0] = {true};
  return out;
}

// ---------------------------------------------------------------------------
// IncSubtensor

Props IncSubtensor::props() const {
  return {{"index", index_.codes()}, {"inplace", inplace_}};
}

ApplyRef IncSubtensor::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, -1);
  const StaticShape part = index_.check(*this, inputs, 0, 2);
  const TensorType& x = *inputs[0]->tensor_type();
  ops_detail::check_written_value(*this, inputs, part);
  return ops_detail::make_apply(*this, inputs, x.dtype(), x.shape());
}

void IncSubtensor::perform(const Apply& node, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  Tensor out = inplace_ ? inputs[0] : inputs[0].copy();
  Tensor part = index_.apply(*this, out, inputs.subspan(2));
  ops_detail::check_value_broadcast(*this, 1, node.input(1), inputs[1], part.shape());
  ops_detail::run_kernel(*this, [&] {
    if (set_) copy_into(part, inputs[1]);
    else add_into(part, inputs[1]);
  });
  outputs[0] = std::move(out);
}

std::vector<ShapeVars> IncSubtensor::infer_shape(const Apply&,
                                                 std::span<const ShapeVars> input_shapes) const {
  return {input_shapes[0]};
}

std::vector<std::vector<bool>> IncSubtensor::connection_pattern(const Apply& node) const {
  std::vector<std::vector<bool>> out(node.num_inputs(), {false});
  out[0] = {true};
  out[1] = {true};
  return out;
}

IoMap IncSubtensor::destroy_map() const {
  if (!inplace_) return {};
  return {{0, 0}};
}

}  // namespace rw

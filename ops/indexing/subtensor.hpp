// Basic indexing: Subtensor (x[i, a:b:c, …], a view) and IncSubtensor (set
// or increase such a part), with integer indices and slice bounds taken from
// inputs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/tuple_codes.hpp"

namespace rw {

/// One entry of a basic index, as the `index` property encodes it: an
/// integer index (code kIndexFromInput, `i`), or a slice whose present
/// bounds are inputs (code kSliceCode - mask, with mask bit 1 for a start, 2
/// for a stop, 4 for a step: -3 is `:`, -6 is `a:b`, -10 is `a:b:c`). Each
/// entry takes the inputs it needs, in order, after the Op's other inputs.
struct IndexEntry {
  bool is_slice = false;
  bool has_start = false;
  bool has_stop = false;
  bool has_step = false;

  /// How many inputs the entry takes.
  std::size_t num_inputs() const;
  /// The entry's code.
  std::int64_t code() const;
  /// The entry of a code, or nullopt for a code that is none.
  static std::optional<IndexEntry> decode(std::int64_t code);
};

/// The code of the full slice `:`; a slice's code is kSliceCode - mask.
inline constexpr std::int64_t kSliceCode = -3;

/// A basic index: the entries of the `index` property, each applying to the
/// next axis of the tensor, and the number of inputs they take.
class BasicIndex {
 public:
  /// Throws rw::Error for a code that is not an entry.
  explicit BasicIndex(std::vector<std::int64_t> codes);
  const std::vector<std::int64_t>& codes() const { return codes_; }
  const std::vector<IndexEntry>& entries() const { return entries_; }
  std::size_t num_inputs() const { return num_inputs_; }

  /// Checks the index inputs starting at `first` (0-d integers) and that x
  /// has enough axes; returns the static shape of the indexed part.
  StaticShape check(const Op& op, std::span<const Var> inputs, std::size_t x_index,
                    std::size_t first) const;
  /// The indexed part of x, a view. Throws IndexError for an integer index
  /// out of bounds and ValueError for a zero step, naming the op and axis.
  Tensor apply(const Op& op, const Tensor& x, std::span<const Tensor> index_values) const;
  /// The shape of the indexed part from x's shape and the index inputs.
  ShapeVars shape(const ShapeVars& x_shape, std::span<const Var> index_inputs) const;

 private:
  std::vector<std::int64_t> codes_;
  std::vector<IndexEntry> entries_;
  std::size_t num_inputs_ = 0;
};

/// `x[index…]`: inputs x, then the index inputs. Integer entries drop their
/// axis, slices keep it; axes past the entries are kept whole. The output is
/// a view of x (Aesara's Subtensor; PyTensor's graph files write
/// `subtensor{index=(i)}(x, 1)` for `x[1]`).
class Subtensor final : public Op {
 public:
  explicit Subtensor(std::vector<std::int64_t> index) : index_(std::move(index)) {}
  const BasicIndex& index() const { return index_; }
  std::string_view name() const override { return "subtensor"; }
  Props props() const override { return {{"index", index_.codes()}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/indexing/indexing_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap view_map() const override { return {{0, 0}}; }

 private:
  BasicIndex index_;
};

/// `inc_subtensor(x, y, index…)`: x with y (broadcast, converted to x's
/// dtype without loss) added to `x[index…]`; `set_subtensor` writes y there
/// instead. `inplace` writes into x (destroy_map {0: 0}); otherwise x is
/// copied first (Aesara's IncSubtensor).
class IncSubtensor final : public Op {
 public:
  IncSubtensor(std::vector<std::int64_t> index, bool set, bool inplace = false)
      : index_(std::move(index)), set_(set), inplace_(inplace) {}
  const BasicIndex& index() const { return index_; }
  bool is_set() const { return set_; }
  bool inplace() const { return inplace_; }
  std::string_view name() const override { return set_ ? "set_subtensor" : "inc_subtensor"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Reverse and forward mode (ops/indexing/indexing_grad.cpp).
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  IoMap destroy_map() const override;

 private:
  BasicIndex index_;
  bool set_;
  bool inplace_;
};

}  // namespace rw

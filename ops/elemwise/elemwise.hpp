// Elementwise Ops: ElemwiseBase (broadcast typing, run-time checks, in-place
// outputs, one ScalarProgram run per call) and Elemwise, the Op of one scalar
// operation (Aesara's Elemwise(scalar_op)); Fill, which broadcasts one input
// to the shape of both.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "runtime/program_codegen.hpp"
#include "runtime/scalar_op.hpp"
#include "runtime/scalar_program.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

/// Dtypes of a node's inputs, the key of a compiled program.
using DTypes = SmallVec<DType, 4>;

/// What every elementwise Op shares: inputs broadcast as in NumPy, except
/// that an axis broadcasts only when its static extent is 1 (as PyTensor: so
/// that static types, infer_shape and gradients agree with what runs); each
/// output has the broadcast static shape; perform runs one ScalarProgram over
/// the inputs; an output may overwrite an input (`inplace_pattern`, which is
/// the destroy_map). A fused elementwise Op (a Composite over a longer
/// ScalarProgram) is another subclass.
class ElemwiseBase : public Op {
 public:
  ~ElemwiseBase() override;
  /// Pairs (output, input): the output is computed into the input's buffer.
  const IoMap& inplace_pattern() const { return inplace_; }
  IoMap destroy_map() const override { return inplace_; }

  /// The broadcast of the inputs' shapes, axis by axis.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Checks the run-time extents (ValueError naming the input whose extent
  /// does not fit), then runs program() into the outputs: an in-place output
  /// into its input, others into the tensors left in the output slots when
  /// they fit, or new ones.
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;

  /// The program run for inputs of these dtypes (built once, then cached).
  const ScalarProgram& program(std::span<const DType> input_dtypes) const;
  /// Native code generated from the node's program (program_native_source),
  /// specialised on its dtypes and on each input's layout (native_layout):
  /// dense (the output's shape, contiguous), one element broadcast, or
  /// broadcast along some axes (a bias vector over a matrix's rows), read
  /// through its strides.
  std::optional<NativeCode> native_code(const Apply& node,
                                        const NativeNames& names) const override;

 protected:
  explicit ElemwiseBase(IoMap inplace = {});
  /// The dtype of each output for inputs of these dtypes; throws TypeError
  /// naming the op and dtypes when the combination is undefined.
  virtual SmallVec<DType, 2> output_dtypes(std::span<const DType> input_dtypes) const = 0;
  /// Builds the program for inputs of these dtypes (called once per
  /// combination; the result is cached by `program`).
  virtual ScalarProgram build_program(std::span<const DType> input_dtypes) const = 0;
  /// Checks each input is a tensor, broadcasts their static shapes (TypeError
  /// naming both inputs and shapes for known extents that differ), types the
  /// outputs and checks the in-place pattern against them.
  ApplyRef make_broadcast_node(std::span<const Var> inputs) const;

 private:
  struct CacheEntry;
  IoMap inplace_;
  mutable std::atomic<CacheEntry*> cache_{nullptr};
  mutable std::mutex cache_mutex_;
};

/// How native code reads the inputs of `node`, whose output 0 has their
/// broadcast shape: each input dense (its static type has the output's
/// rank and the output's axes of extent 1), one element broadcast (every
/// static extent 1) or broadcast along the axes its static type says (the
/// leading axes it lacks, those of static extent 1 where the output's is
/// not), and the output's static size when known. Nullopt when an input is
/// not a tensor.
std::optional<ElemwiseLayout> native_layout(const Apply& node);
/// `src` as an Op's native code (nullopt stays nullopt).
std::optional<NativeCode> native_code_of(std::optional<ProgramSource> src);

/// One scalar operation applied elementwise: `add`, `exp`, `cast{dtype=…}`…
/// (Aesara's Elemwise(scalar_op)). The Op's name is the scalar operation's;
/// `add` and `mul` take two or more inputs, other operations their arity.
/// Output dtype from scalar_signature. `inplace=k` computes the output into
/// input k (destroy_map {0: k}); the input must have the output's type.
class Elemwise final : public ElemwiseBase {
 public:
  /// `cast_to` is required for Cast and refused otherwise; throws
  /// ValueError.
  explicit Elemwise(ScalarOp op, std::optional<DType> cast_to = std::nullopt,
                    std::optional<std::size_t> inplace = std::nullopt);

  ScalarOp scalar_op() const { return op_; }
  std::optional<DType> cast_to() const { return cast_to_; }
  /// The input output 0 overwrites, if any.
  std::optional<std::size_t> inplace_input() const;
  /// This Op with output 0 written into input `input` (nullopt: not in place).
  std::shared_ptr<const Elemwise> with_inplace(std::optional<std::size_t> input) const;
  /// Whether the Op takes any number (two or more) of inputs.
  bool variadic() const;

  std::string_view name() const override;
  /// `dtype` for cast, `inplace` when set; nothing otherwise.
  Props props() const override;
  /// `+ - * / **` infix, unary `-` prefix.
  PrintStyle print_style() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// The scalar operation's partial derivatives times the output gradient,
  /// summed back to each input's broadcast shape (ops/elemwise/elemwise_grad.cpp);
  /// zero for discrete results and inputs.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// The partial derivatives contracted with the eval points.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 protected:
  SmallVec<DType, 2> output_dtypes(std::span<const DType> input_dtypes) const override;
  ScalarProgram build_program(std::span<const DType> input_dtypes) const override;

 private:
  ScalarOp op_;
  std::optional<DType> cast_to_;
};

/// `fill(a, b)`: b broadcast to the broadcast shape of a and b, with b's
/// dtype (Aesara's `second`). Only b's values flow: a is not connected to
/// the output for gradients.
class Fill final : public ElemwiseBase {
 public:
  explicit Fill(std::optional<std::size_t> inplace = std::nullopt);
  std::string_view name() const override { return "fill"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  /// b's gradient is the output's, summed back to b's shape; a is disconnected.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// `fill(a, v_b)`.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;

 protected:
  SmallVec<DType, 2> output_dtypes(std::span<const DType> input_dtypes) const override;
  ScalarProgram build_program(std::span<const DType> input_dtypes) const override;
};

/// The shared instance of the (not in-place) Elemwise of `op`; `cast_op` for
/// casts.
const std::shared_ptr<const Elemwise>& elemwise_op(ScalarOp op);
std::shared_ptr<const Elemwise> cast_op(DType dtype);
const OpPtr& fill_op();

/// Registers every scalar operation by its name (`add`, `true_div`, `cast`
/// with `dtype`, …, each with an optional `inplace`), the aliases `where`
/// (switch) and `div` (true_div), and `fill`.
void register_elemwise(OpRegistry& registry);

}  // namespace rw

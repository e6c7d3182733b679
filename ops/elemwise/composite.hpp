// Composite: a fused elementwise Op over a whole ScalarProgram (Aesara's
// Elemwise(Composite)), and CompositeReduce, a reduction of such a program
// that never stores the elementwise result.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ops/elemwise/elemwise.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/scalar_program.hpp"

namespace rw {

/// The outputs of `program` as infix expressions over its inputs `i0, i1, …`,
/// joined by ", ": `exp(-i0) * i1 + 1.5`. Casts the program inserted show as
/// `float64(i1)`; a value used twice is written out twice, and the text of
/// any subexpression longer than 400 characters is cut there, ending in "...".
std::string program_expression(const ScalarProgram& program);

/// Appends `source` to `target`: source's input k reads `args[k]` (converted
/// to source's input dtype when it differs); returns the registers holding
/// source's outputs. Constants keep their exact bits. Throws
/// ValueError when `args` has the wrong length.
std::vector<Reg> inline_program(ScalarProgram& target, const ScalarProgram& source,
                                std::span<const Reg> args);

/// inline_program for many programs into one (what fusion does for every
/// node of a group), keeping its buffers from one call to the next.
class ProgramInliner {
 public:
  /// As inline_program; the registers returned stay valid until the next call.
  std::span<const Reg> inline_into(ScalarProgram& target, const ScalarProgram& source,
                                   std::span<const Reg> args);

 private:
  std::vector<Reg> map_;   // source register -> target register
  std::vector<Reg> outs_;
};

/// A chain of elementwise operations run as one loop (Aesara's
/// Elemwise(Composite)): the inputs broadcast as for any elementwise Op, and
/// `program` runs over them in cache-sized blocks on every thread, reading
/// each input and writing each output once, whatever the length of the chain.
/// Input k of a node must have the dtype of the program's input k; output k
/// has the dtype of its output k. Two Composites over equal programs (same
/// listing) with the same in-place pattern are equal, so merging joins them.
/// The fusion rewrite (`ops/elemwise/fusion.hpp`) builds them.
class Composite final : public ElemwiseBase {
 public:
  /// Throws ValueError when `program` has no input or no output, or when
  /// `inplace` names an output or input the program does not have, or one
  /// input for two outputs.
  explicit Composite(ScalarProgram program, IoMap inplace = {});

  /// The fused program.
  const ScalarProgram& scalar_program() const { return program_; }
  /// This Op with the outputs written into the inputs of `inplace`.
  std::shared_ptr<const Composite> with_inplace(IoMap inplace) const;

  /// "composite".
  std::string_view name() const override { return "composite"; }
  /// `program` (the listing of ScalarProgram::to_string) and, when set,
  /// `inplace` as a flat tuple (output, input, output, input…).
  Props props() const override;
  /// Same in-place pattern and program; the pattern is compared first, so
  /// that a Composite and its in-place variant differ without writing out
  /// their programs.
  bool equals(const Op& other) const override;
  /// `Composite{exp(-i0) * i1 + 1.5}`; in place: `Composite{…}{inplace=(0, 1)}`.
  std::string to_string() const override;
  /// Checks the input count and dtypes (TypeError naming the input), then
  /// types the outputs with the broadcast shape.
  ApplyRef make_node(std::span<const Var> inputs) const override;

 protected:
  SmallVec<DType, 2> output_dtypes(std::span<const DType> input_dtypes) const override;
  ScalarProgram build_program(std::span<const DType> input_dtypes) const override;

 private:
  /// The program and its texts, shared by a Composite and its in-place
  /// variants (which the in-place pass makes for every Composite).
  struct Shared;
  Composite(std::shared_ptr<Shared> shared, IoMap inplace);
  std::shared_ptr<Shared> shared_;
  const ScalarProgram& program_;  // shared_->program
};

/// `op` (sum, prod, max, min, mean, any, all) over `axis` (none: all) of the
/// single output of `program` run on the broadcast inputs, in one pass
/// (runtime's reduce_program): `sum(exp(x) * y)` reads x and y once and
/// stores nothing else. Reduced axes are removed, as by Reduce; the dtype is
/// reduce_result_dtype of the program's output.
class CompositeReduce final : public Op {
 public:
  /// Throws ValueError when `program` has no input or more or fewer than one
  /// output.
  CompositeReduce(ReduceOp op, std::optional<std::vector<std::int64_t>> axis,
                  ScalarProgram program);

  ReduceOp reduce_op() const { return op_; }
  const std::optional<std::vector<std::int64_t>>& axis() const { return axis_; }
  const ScalarProgram& scalar_program() const { return composite_->scalar_program(); }

  /// "composite_reduce".
  std::string_view name() const override { return "composite_reduce"; }
  /// `op`, `axis` and `program`.
  Props props() const override;
  /// `sum{axis=(0)}(Composite{exp(i0) * i1})` style: `sum[Composite{…}]{axis=…}`.
  std::string to_string() const override;
  /// Checks the inputs as Composite does and the axes against the broadcast
  /// rank (TypeError naming the axis).
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Floating-point operations for the profile (ops/flops.cpp).
  std::optional<double> flops(const Apply& node, std::span<const Shape> input_shapes,
                              std::span<const Shape> output_shapes) const override;
  /// The broadcast extents of the kept axes.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// reduce_native_source over the layout of the elementwise node this
  /// reduction stands for: the program in registers, the values accumulated
  /// in the interpreter's order. Empty when an input broadcasts along some
  /// axes only or the reduced axes neither trail nor lead.
  std::optional<NativeCode> native_code(const Apply& node,
                                        const NativeNames& names) const override;

 private:
  std::vector<bool> reduced(std::size_t rank) const;
  ReduceOp op_;
  std::optional<std::vector<std::int64_t>> axis_;
  std::shared_ptr<const Composite> composite_;
};

}  // namespace rw

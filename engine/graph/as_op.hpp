// as_op: an Op made from a C++ callable with declared input and output types
// (Aesara's `as_op` decorator), registrable by name for rules and graph files.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/type.hpp"

namespace rw {

/// What `as_op` wraps. Only `name`, the types and `perform` are required.
struct AsOpSpec {
  /// The Op's name, as printers, rules and graph files write it.
  std::string name;
  /// The type each input must have (or a more specific one: a known extent
  /// where the declared type has none), and the type of each output.
  std::vector<TypePtr> input_types;
  std::vector<TypePtr> output_types;
  /// Computes the outputs from the inputs; returns one tensor per output,
  /// each valid for its output type (the function checks it).
  std::function<std::vector<Tensor>(std::span<const Tensor> inputs)> perform;
  /// Optional: the outputs' shapes from the inputs and their shapes (one
  /// 0-d int64 variable per axis), as Op::infer_shape.
  std::function<std::vector<ShapeVars>(std::span<const Var> inputs,
                                       std::span<const ShapeVars> input_shapes)>
      infer_shape;
  /// Optional: the gradient with respect to each input given the inputs,
  /// the outputs and the gradients of the outputs, as Op::L_op.
  std::function<std::vector<Var>(std::span<const Var> inputs, std::span<const Var> outputs,
                                 std::span<const Var> output_grads)>
      grad;
  /// One line for the registry: what the Op computes.
  std::string doc;
};

/// The Op `spec` describes. Throws rw::Error naming what is missing or
/// wrong: an empty name, no perform, a null type, or a name the rules
/// language could not write (letters, digits and `_`, not starting with a
/// digit). Two calls give two Ops that are never equal (their callables
/// cannot be compared), so build one and reuse it; each node of it prints as
/// `name(…)`. Not constant-folded, as a callable may have effects.
OpPtr as_op(AsOpSpec spec);

/// Registers `op` (made by as_op) under its name with its number of inputs
/// and no parameters, so that rules and graph files loaded with `registry`
/// can use it. Throws rw::Error when `op` is not an as_op, or
/// ValueError when the name is taken.
void register_as_op(OpRegistry& registry, const OpPtr& op);

}  // namespace rw

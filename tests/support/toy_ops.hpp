// A toy Op family for graph-level tests: elementwise ops on float64 tensors and
// a two-output op, independent of the standard Op library.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/op_registry.hpp"
#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"

namespace rw::test {

/// An elementwise op on float64 tensors of one rank: add, sub, mul, div (binary),
/// neg, exp, log (unary), or any other name (no perform). `tag` is a property
/// that only distinguishes otherwise equal ops. perform writes into the tensor
/// already in the output slot when it is a contiguous float64 of the right
/// shape, as the Op interface allows.
class ToyOp final : public Op {
 public:
  ToyOp(std::string name, int arity, std::int64_t tag = 0);
  std::string_view name() const override { return name_; }
  Props props() const override { return tag_ ? Props{{"tag", tag_}} : Props{}; }
  PrintStyle print_style() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  int arity() const { return arity_; }

 private:
  std::string name_;
  int arity_;
  std::int64_t tag_;
  double (*unary_)(double) = nullptr;
  double (*binary_)(double, double) = nullptr;
};

/// Splits x into (x, -x): two outputs, for multi-output tests. perform
/// handles contiguous float64 tensors.
class ToyTwoOut final : public Op {
 public:
  std::string_view name() const override { return "two_out"; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
};

/// Sums a float64 tensor over `axis` (none: every axis), keeping reduced axes
/// as extent 1 when `keepdims`: an op with an int-tuple property.
class ToySum final : public Op {
 public:
  explicit ToySum(std::optional<std::vector<std::int64_t>> axis, bool keepdims = false)
      : axis_(std::move(axis)), keepdims_(keepdims) {}
  std::string_view name() const override { return "sum"; }
  Props props() const override;
  ApplyRef make_node(std::span<const Var> inputs) const override;

 private:
  std::optional<std::vector<std::int64_t>> axis_;
  bool keepdims_;
};

/// Splits x into (x, -x) with output 0 as the default output.
class ToySplit final : public Op {
 public:
  std::string_view name() const override { return "split"; }
  std::optional<std::size_t> default_output() const override { return 0; }
  ApplyRef make_node(std::span<const Var> inputs) const override;
};

OpPtr toy(const std::string& name, int arity, std::int64_t tag = 0);
OpPtr toy_sum(std::optional<std::vector<std::int64_t>> axis, bool keepdims = false);

/// A registry of the toy ops: add, sub, mul, div (binary, `tag` property),
/// neg, exp, log (unary), and sum (`axis`, `keepdims`).
OpRegistry toy_registry();

/// A float64 vector input (shape unknown) or a float64 input of a given static shape.
Var fvec(const std::string& name);
Var ftensor(const std::string& name, StaticShape shape);
/// A float64 0-d constant.
Var fconst(double v);

Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
Var div(const Var& a, const Var& b);
Var neg(const Var& a);
Var exp(const Var& a);
Var log(const Var& a);

}  // namespace rw::test

// as_op's Op.
#include "engine/graph/as_op.hpp"

#include <cctype>
#include <memory>
#include <utility>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

namespace {

class AsOp final : public Op {
 public:
  explicit AsOp(std::shared_ptr<const AsOpSpec> spec) : spec_(std::move(spec)) {}

  const AsOpSpec& spec() const { return *spec_; }
  std::string_view name() const override { return spec_->name; }
  bool equals(const Op& other) const override {
    const auto* o = dynamic_cast<const AsOp*>(&other);
    return o && o->spec_ == spec_;
  }

  ApplyRef make_node(std::span<const Var> inputs) const override {
    const AsOpSpec& s = *spec_;
    if (inputs.size() != s.input_types.size())
      throw TypeError(fmt::format("`{}` takes {} input{}, not {}", s.name, s.input_types.size(),
                                  s.input_types.size() == 1 ? "" : "s", inputs.size()));
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      if (!inputs[i]) throw TypeError(fmt::format("`{}`: input {} is null", s.name, i));
      const Type& want = *s.input_types[i];
      const Type& got = *inputs[i]->type();
      if (!want.equals(got) && !want.is_super(got))
        throw TypeError(fmt::format("`{}`: input {} ({}) has type {}, but the Op takes {}", s.name,
                                    i, describe(*inputs[i]), got.to_string(), want.to_string()));
    }
    return Apply::create(ptr(), inputs, s.output_types);
  }

  void perform(const Apply&, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override {
    std::vector<Tensor> got = spec_->perform(inputs);
    if (got.size() != outputs.size())
      throw Error(fmt::format("`{}`: its function returned {} tensor{}, not {}", spec_->name,
                                   got.size(), got.size() == 1 ? "" : "s", outputs.size()));
    for (std::size_t j = 0; j < outputs.size(); ++j) outputs[j] = std::move(got[j]);
  }

  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override {
    if (!spec_->infer_shape) return Op::infer_shape(node, input_shapes);
    return spec_->infer_shape(node.inputs(), input_shapes);
  }

  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override {
    if (!spec_->grad)
      throw NotImplementedError(
          fmt::format("`{}` (an as_op) was given no gradient (AsOpSpec::grad)", spec_->name));
    const std::vector<Var> outs = node.outputs();
    std::vector<Var> g = spec_->grad(node.inputs(), outs, output_grads);
    if (g.size() != node.num_inputs())
      throw Error(fmt::format("`{}`: its gradient returned {} variables for {} inputs",
                                   spec_->name, g.size(), node.num_inputs()));
    return g;
  }

  bool do_constant_folding(const Apply&) const override { return false; }

 private:
  std::shared_ptr<const AsOpSpec> spec_;
};

bool writable_name(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

}  // namespace

OpPtr as_op(AsOpSpec spec) {
  if (spec.name.empty()) throw Error("as_op: the spec has no name");
  if (!writable_name(spec.name))
    throw Error(fmt::format("as_op: the name `{}` is not an identifier (letters, digits and `_`, "
                            "not starting with a digit), so rules and graph files could not "
                            "write it",
                            spec.name));
  if (!spec.perform) throw Error(fmt::format("as_op `{}`: the spec has no perform", spec.name));
  for (std::size_t i = 0; i < spec.input_types.size(); ++i)
    if (!spec.input_types[i])
      throw Error(fmt::format("as_op `{}`: input type {} is null", spec.name, i));
  if (spec.output_types.empty())
    throw Error(fmt::format("as_op `{}`: the spec declares no output", spec.name));
  for (std::size_t j = 0; j < spec.output_types.size(); ++j)
    if (!spec.output_types[j])
      throw Error(fmt::format("as_op `{}`: output type {} is null", spec.name, j));
  return std::make_shared<AsOp>(std::make_shared<const AsOpSpec>(std::move(spec)));
}

void register_as_op(OpRegistry& registry, const OpPtr& op) {
  const auto* a = dynamic_cast<const AsOp*>(op.get());
  if (!a) throw Error(fmt::format("register_as_op: `{}` was not made by as_op",
                                  op ? op->to_string() : std::string("null")));
  const int n = static_cast<int>(a->spec().input_types.size());
  registry.add({.name = a->spec().name,
                .doc = a->spec().doc.empty() ? "an Op made by as_op" : a->spec().doc,
                .params = {},
                .min_inputs = n,
                .max_inputs = n,
                .factory = [op](const Props&) { return op; }});
}

}  // namespace rw

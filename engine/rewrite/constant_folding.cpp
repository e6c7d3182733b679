// ConstantFolding.
#include "engine/rewrite/constant_folding.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"

namespace rw {

ConstantFolding::ConstantFolding(std::string name)
    : NodeRewriter(std::move(name), Tracks::any(), /*depth=*/0) {
  set_filter(NodeFilter().all_inputs_constant());
}

RewriteResult ConstantFolding::transform(FunctionGraph&, Apply& node,
                                         const RewriteContext& ctx) const {
  for (const Var& in : node.inputs())
    if (!in->is_constant()) return RewriteResult::fail("an input is not a constant");
  if (!node.op().do_constant_folding(node))
    return ctx.fail([&] {
      return fmt::format("op `{}` asks not to be constant-folded", node.op().to_string());
    });
  std::vector<Tensor> inputs;
  inputs.reserve(node.num_inputs());
  for (const Var& in : node.inputs()) inputs.push_back(in->as_constant()->value());
  std::vector<Tensor> outputs(node.num_outputs());
  try {
    node.op().perform(node, inputs, outputs);
  } catch (const NotImplementedError& e) {
    return RewriteResult::fail_owned(e.what());
  }
  std::vector<Var> folded;
  folded.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].valid())
      return ctx.fail([&] {
        return fmt::format("op `{}` left output {} without a value", node.op().to_string(), i);
      });
    // The output's type, so that no client sees its input's type change.
    // Moved: a result nobody else holds becomes the constant's value uncopied.
    folded.push_back(Constant::make(std::move(outputs[i]), node.output_var(i).type()));
  }
  return RewriteResult::replace_outputs(std::move(folded));
}

std::string ConstantFolding::describe() const { return "op(constants…) -> constant"; }

}  // namespace rw

// ConstantFolding.
#include "engine/rewrite/constant_folding.hpp"

#include <limits>
#include <new>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"

namespace rw {

ConstantFolding::ConstantFolding(std::string name, Tracks tracks)
    : NodeRewriter(std::move(name), std::move(tracks), /*depth=*/0) {
  set_filter(NodeFilter().all_inputs_constant());
}

namespace {
RewriteResult too_large(std::int64_t elements, std::int64_t bound, const RewriteContext& ctx) {
  return ctx.fail([&] {
    return fmt::format("the result would have {} elements, more than folding makes ({})",
                       elements, bound);
  });
}
}  // namespace

ConstantFolding& ConstantFolding::with_max_elements(std::int64_t elements) {
  max_elements_ = elements;
  return *this;
}

RewriteResult ConstantFolding::transform(FunctionGraph&, Apply& node,
                                         const RewriteContext& ctx) const {
  for (const Var& in : node.inputs())
    if (!in->is_constant()) return RewriteResult::fail("an input is not a constant");
  if (!node.op().do_constant_folding(node))
    return ctx.fail([&] {
      return fmt::format("op `{}` asks not to be constant-folded", node.op().to_string());
    });
  // Outputs whose types give their shapes are counted before anything runs.
  std::int64_t known = 0;
  for (std::size_t i = 0; i < node.num_outputs(); ++i) {
    const TensorType* t = node.output_var(i).type()->as_tensor();
    if (!t || !t->shape_known()) continue;
    const std::int64_t n = shape_size(t->shape());  // a TensorType's shape is countable
    if (n > max_elements_ - known)
      return too_large(n > std::numeric_limits<std::int64_t>::max() - known ? n : known + n,
                       max_elements_, ctx);
    known += n;
  }
  std::vector<Tensor> inputs;
  inputs.reserve(node.num_inputs());
  for (const Var& in : node.inputs()) inputs.push_back(in->as_constant()->value());
  std::vector<Tensor> outputs(node.num_outputs());
  try {
    node.op().perform(node, inputs, outputs);
  } catch (const NotImplementedError& e) {
    return RewriteResult::fail_owned(e.what());
  } catch (const std::bad_alloc&) {
    return ctx.fail([&] {
      return fmt::format("evaluating `{}` ran out of memory", node.op().to_string());
    });
  }
  std::int64_t made = 0;
  for (const Tensor& t : outputs)
    if (t.valid()) made += t.size();
  if (made > max_elements_) return too_large(made, max_elements_, ctx);
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

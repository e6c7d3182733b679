// SubstitutionNodeRewriter and RemovalNodeRewriter.
#include "engine/rewrite/substitution.hpp"

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"

namespace rw {

namespace {
const OpPtr& checked(const OpPtr& op, const char* what) {
  if (!op) throw RewriteError(fmt::format("{}: the op is null", what));
  return op;
}
}  // namespace

SubstitutionNodeRewriter::SubstitutionNodeRewriter(OpPtr op1, OpPtr op2, std::string name)
    : NodeRewriter(name.empty() ? checked(op1, "SubstitutionNodeRewriter")->to_string() + "->" +
                                      checked(op2, "SubstitutionNodeRewriter")->to_string()
                                : std::move(name),
                   Tracks{checked(op1, "SubstitutionNodeRewriter")->name()}, /*depth=*/0),
      op1_(std::move(op1)), op2_(checked(op2, "SubstitutionNodeRewriter")) {}

RewriteResult SubstitutionNodeRewriter::transform(FunctionGraph&, Apply& node,
                                                  const RewriteContext& ctx) const {
  if (!(node.op() == *op1_))
    return ctx.fail([&] {
      return fmt::format("op `{}` is not `{}`", node.op().to_string(), op1_->to_string());
    });
  ApplyRef repl = op2_->make_node(node.inputs());
  if (repl->num_outputs() != node.num_outputs())
    return ctx.fail([&] {
      return fmt::format("`{}` has {} outputs where `{}` has {}", op2_->to_string(),
                         repl->num_outputs(), op1_->to_string(), node.num_outputs());
    });
  return RewriteResult::replace_outputs(repl->outputs());
}

std::string SubstitutionNodeRewriter::describe() const {
  return fmt::format("{}(x…) -> {}(x…)", op1_->to_string(), op2_->to_string());
}

RemovalNodeRewriter::RemovalNodeRewriter(OpPtr op, std::string name)
    : NodeRewriter(name.empty() ? "remove_" + checked(op, "RemovalNodeRewriter")->to_string()
                                : std::move(name),
                   Tracks{checked(op, "RemovalNodeRewriter")->name()}, /*depth=*/0),
      op_(std::move(op)) {}

RewriteResult RemovalNodeRewriter::transform(FunctionGraph&, Apply& node,
                                             const RewriteContext& ctx) const {
  if (!(node.op() == *op_))
    return ctx.fail([&] {
      return fmt::format("op `{}` is not `{}`", node.op().to_string(), op_->to_string());
    });
  if (node.num_inputs() != node.num_outputs())
    return ctx.fail([&] {
      return fmt::format("`{}` has {} inputs and {} outputs; removal needs one input per output",
                         op_->to_string(), node.num_inputs(), node.num_outputs());
    });
  for (std::size_t i = 0; i < node.num_inputs(); ++i)
    if (!node.output_var(i).type()->is_super(*node.input(i)->type()))
      return ctx.fail([&] {
        return fmt::format("input {} has type {}, less specific than output type {}", i,
                           node.input(i)->type()->to_string(),
                           node.output_var(i).type()->to_string());
      });
  return RewriteResult::replace_outputs({node.inputs().begin(), node.inputs().end()});
}

std::string RemovalNodeRewriter::describe() const {
  return fmt::format("{}(x) -> x", op_->to_string());
}

}  // namespace rw

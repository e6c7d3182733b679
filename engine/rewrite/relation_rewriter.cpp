// RelationNodeRewriter: rewrite_with_relation as a node rewriter.
#include "engine/rewrite/relation_rewriter.hpp"

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/type.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/trace.hpp"

namespace rw {

RelationNodeRewriter::RelationNodeRewriter(std::string name, Relation relation, Tracks tracks,
                                           RelationRewriteOptions options, int depth, int benefit,
                                           std::string description)
    : NodeRewriter(std::move(name), std::move(tracks), depth, benefit),
      relation_(std::move(relation)),
      options_(options),
      description_(std::move(description)) {
  if (!relation_) throw RewriteError(fmt::format("`{}`: the relation is empty", this->name()));
}

std::string RelationNodeRewriter::describe() const {
  return description_.empty() ? name() + " (relation)" : description_;
}

RewriteResult RelationNodeRewriter::transform(FunctionGraph&, Apply& node,
                                              const RewriteContext& ctx) const {
  std::size_t index = 0;
  if (node.num_outputs() != 1) {
    const auto d = node.op().default_output();
    if (!d) return RewriteResult::fail("the node has several outputs and no default one");
    index = *d;
  }
  GraphResult r = rewrite_with_relation(relation_, node, options_);
  if (!r) return ctx.fail([&] { return std::move(r.why); });
  const Variable& out = node.output_var(index);
  if (!out.type()->is_super(*r.var->type()))
    return ctx.fail([&] {
      return fmt::format("the answer `{}` is {}, which cannot replace `{}` of type {}",
                         brief(*r.var), r.var->type()->to_string(), brief(out),
                         out.type()->to_string());
    });
  if (node.num_outputs() == 1) return RewriteResult::replace_output(std::move(r.var));
  return RewriteResult::replace({{node.output(index), std::move(r.var)}});
}

}  // namespace rw

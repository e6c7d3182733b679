// Tracks, and the NodeRewriter bases.
#include "engine/rewrite/node_rewriter.hpp"

#include <algorithm>
#include <typeinfo>

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"

namespace rw {

Tracks::Tracks(std::initializer_list<std::string_view> op_names) {
  if (op_names.size() == 0)
    throw RewriteError("a node rewriter must track at least one op; use Tracks::any() for all");
  and_ops(op_names);
}

Tracks::Tracks(std::vector<std::string> op_names) {
  if (op_names.empty())
    throw RewriteError("a node rewriter must track at least one op; use Tracks::any() for all");
  for (auto& n : op_names)
    if (std::find(names_.begin(), names_.end(), n) == names_.end()) names_.push_back(std::move(n));
}

Tracks& Tracks::and_ops(std::initializer_list<std::string_view> op_names) {
  for (std::string_view n : op_names) {
    if (n.empty()) throw RewriteError("a tracked op name is empty");
    if (std::find(names_.begin(), names_.end(), n) == names_.end()) names_.emplace_back(n);
  }
  return *this;
}

bool Tracks::matches(const Op& op) const {
  if (tracks_any()) return true;
  const std::string_view n = op.name();
  if (std::find(names_.begin(), names_.end(), n) != names_.end()) return true;
  const std::type_index t(typeid(op));
  return std::find(classes_.begin(), classes_.end(), t) != classes_.end();
}

std::string Tracks::to_string() const {
  if (tracks_any()) return "any";
  std::string out;
  for (const auto& n : names_) out += (out.empty() ? "" : ", ") + n;
  for (const auto& c : classes_) out += (out.empty() ? "class " : ", class ") + std::string(c.name());
  return out;
}

NodeRewriter::NodeRewriter(std::string name, Tracks tracks, int depth, int benefit)
    : name_(std::move(name)), tracks_(std::move(tracks)), depth_(depth), benefit_(benefit) {
  if (name_.empty()) throw RewriteError("a node rewriter needs a name");
  if (depth_ < 0)
    throw RewriteError(fmt::format("node rewriter `{}`: depth must not be negative", name_));
}

FunctionNodeRewriter::FunctionNodeRewriter(std::string name, Tracks tracks, NodeRewriteFn fn,
                                           int depth, int benefit, std::string description)
    : NodeRewriter(std::move(name), std::move(tracks), depth, benefit), fn_(std::move(fn)),
      description_(std::move(description)) {
  if (!fn_) throw RewriteError(fmt::format("node rewriter `{}` has no function", this->name()));
}

RewriteResult FunctionNodeRewriter::transform(FunctionGraph& fgraph, Apply& node,
                                              const RewriteContext& ctx) const {
  return fn_(fgraph, node, ctx);
}

std::string FunctionNodeRewriter::describe() const {
  return description_.empty() ? name() : description_;
}

NodeRewriterPtr make_node_rewriter(std::string name, Tracks tracks, NodeRewriteFn fn, int depth,
                                   int benefit, std::string description) {
  return std::make_shared<FunctionNodeRewriter>(std::move(name), std::move(tracks), std::move(fn),
                                                depth, benefit, std::move(description));
}

}  // namespace rw

// DestroyHandler.
#include "engine/rewrite/destroy_handler.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

DestroyHandler::DestroyHandler(std::vector<Var> mutable_inputs) : keep_(std::move(mutable_inputs)) {
  for (const Var& v : keep_) mutable_.insert(v.get());
}

void DestroyHandler::on_attach(FunctionGraph& fgraph) {
  destroyers_.clear();
  for (Apply* node : fgraph.nodes())
    if (!node->op().destroy_map().empty()) destroyers_.insert(node);
}

void DestroyHandler::on_detach(FunctionGraph&) { destroyers_.clear(); }

void DestroyHandler::on_import(FunctionGraph&, Apply& node, std::string_view) {
  if (!node.op().destroy_map().empty()) destroyers_.insert(&node);
}

void DestroyHandler::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  destroyers_.erase(&node);
}

std::optional<std::string> DestroyHandler::why_not_destroy(const FunctionGraph& fgraph,
                                                           const Apply& node, std::size_t input,
                                                           const Apply* replacing) const {
  // `reader` is the one node allowed to read `v`; it moves up the chain of views.
  const Apply* reader = &node;
  const Variable* v = node.input(input).get();
  for (;;) {
    if (v->is_constant()) return fmt::format("{} is a constant", describe(*v));
    for (const Client& c : fgraph.clients(*v)) {
      if (c.is_output()) return fmt::format("{} is an output of the graph", describe(*v));
      if (c.node != reader && !(reader == &node && c.node == replacing))
        return fmt::format("{} is also read by `{}`", describe(*v), c.node->op().to_string());
    }
    const Apply* owner = v->owner();
    if (!owner) {
      if (is_mutable(*v)) return std::nullopt;
      return fmt::format("{} is an input of the graph not declared mutable", describe(*v));
    }
    // A view: the viewed variable must be read by the view's node alone, and
    // no other output of that node may view it and be read.
    std::optional<std::size_t> viewed;
    for (const auto& [o, i] : owner->op().view_map())
      if (o == v->index()) viewed = i;
    if (!viewed) return std::nullopt;  // a buffer of its own, or a new version (destroy_map)
    for (const auto& [o, i] : owner->op().view_map())
      if (i == *viewed && o != v->index() && fgraph.num_clients(owner->output_var(o)) > 0)
        return fmt::format("{} is a view of `{}` that another view of it shares", describe(*v),
                           describe(*owner->input(*viewed)));
    reader = owner;
    v = owner->input(*viewed).get();
  }
}

void DestroyHandler::validate(const FunctionGraph& fgraph) {
  // The set is unordered: when several nodes are at fault, the earliest in
  // the graph's order is named, so the message does not depend on addresses.
  const Apply* worst = nullptr;
  std::string message;
  for (const Apply* node : destroyers_)
    for (const auto& [o, i] : node->op().destroy_map()) {
      if (i >= node->num_inputs()) continue;
      if (worst && fgraph.order_of(*worst) <= fgraph.order_of(*node)) break;
      if (auto why = why_not_destroy(fgraph, *node, i)) {
        worst = node;
        message = fmt::format("`{}` would overwrite its input {}, which is still needed: {}",
                              node->op().to_string(), i, *why);
        break;
      }
    }
  if (worst) throw InconsistencyError(message);
}

DestroyHandler& require_destroy_handler(FunctionGraph& fgraph) {
  if (DestroyHandler* dh = fgraph.find_feature<DestroyHandler>()) return *dh;
  auto dh = std::make_shared<DestroyHandler>();
  fgraph.attach_feature(dh);
  return *dh;
}

}  // namespace rw

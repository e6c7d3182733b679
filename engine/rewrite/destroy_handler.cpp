// DestroyHandler.
#include "engine/rewrite/destroy_handler.hpp"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

DestroyHandler::DestroyHandler(std::vector<Var> mutable_inputs) : keep_(std::move(mutable_inputs)) {
  for (const Var& v : keep_) mutable_.insert(v.get());
}

void DestroyHandler::on_attach(FunctionGraph& fgraph) {
  destroyers_.clear();
  for (Apply* node : fgraph.nodes())
    if (!node->op().cached_destroy_map().empty()) destroyers_.insert(node);
  changed_vars_.clear();
  changed_nodes_.clear();
  check_all_ = true;
}

void DestroyHandler::on_detach(FunctionGraph&) {
  destroyers_.clear();
  changed_vars_.clear();
  changed_nodes_.clear();
}

void DestroyHandler::on_import(FunctionGraph&, Apply& node, std::string_view) {
  if (!node.op().cached_destroy_map().empty()) {
    destroyers_.insert(&node);
    changed_nodes_.emplace_back(&node);
  }
  // While no node overwrites anything, no reader can be in the way; a
  // destroyer imported later in the same change is checked whole.
  if (destroyers_.empty()) return;
  for (const Var& in : node.inputs()) changed_vars_.push_back(in);
}

void DestroyHandler::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  destroyers_.erase(&node);
}

void DestroyHandler::on_change_input(FunctionGraph&, const Client& client, const Var&,
                                     const Var& new_var, std::string_view) {
  if (destroyers_.empty()) return;
  changed_vars_.push_back(new_var);  // it gained a reader
  if (client.node) {
    // The node reads something else now: as a destroyer it overwrites
    // another value, as a view it shows another buffer to what reads it.
    // Outputs that are no view show buffers of their own: nothing changed
    // for their readers.
    if (destroyers_.contains(client.node)) changed_nodes_.emplace_back(client.node);
    if (!client.node->op().cached_view_map().empty())
      for (std::size_t o = 0; o < client.node->num_outputs(); ++o)
        changed_vars_.push_back(client.node->output(o));
  }
}

void DestroyHandler::on_change_op(FunctionGraph&, Apply& node, const OpPtr& old_op,
                                  std::string_view) {
  if (node.op().cached_destroy_map().empty()) {
    destroyers_.erase(&node);
  } else {
    destroyers_.insert(&node);
    changed_nodes_.emplace_back(&node);
  }
  if (destroyers_.empty()) return;
  // What the node views may have changed: what it reads now reaches what its
  // outputs' readers overwrite, and the other way round.
  if (!node.op().cached_view_map().empty() || !old_op->cached_view_map().empty()) {
    for (const Var& in : node.inputs()) changed_vars_.push_back(in);
    for (std::size_t o = 0; o < node.num_outputs(); ++o) changed_vars_.push_back(node.output(o));
  }
}

namespace {
/// The input that output `out` of `node` is a view of, if it is one.
std::optional<std::size_t> viewed_input(const Apply& node, std::size_t out) {
  for (const auto& [o, i] : node.op().cached_view_map())
    if (o == out) return i;
  return std::nullopt;
}
}  // namespace

DestroyHandler::Fault DestroyHandler::fault(const FunctionGraph& fgraph, const Apply& node,
                                            std::size_t input, const Apply* replacing) const {
  using Kind = Fault::Kind;
  // `reader` is the one node allowed to read `v`; it moves up the chain of views.
  const Apply* reader = &node;
  const Variable* v = node.input(input).get();
  for (;;) {
    if (v->is_constant()) return {Kind::Constant, v};
    for (const Client& c : fgraph.clients(*v)) {
      if (c.is_output()) return {Kind::Output, v};
      if (c.node != reader && !(reader == &node && c.node == replacing))
        return {Kind::Read, v, c.node};
    }
    const Apply* owner = v->owner();
    if (!owner) return is_mutable(*v) ? Fault{} : Fault{Kind::Input, v};
    // A view: the viewed variable must be read by the view's node alone, and
    // no other output of that node may view it and be read.
    const std::optional<std::size_t> viewed = viewed_input(*owner, v->index());
    if (!viewed) return {};  // a buffer of its own, or a new version (destroy_map)
    for (const auto& [o, i] : owner->op().cached_view_map())
      if (i == *viewed && o != v->index() && fgraph.num_clients(owner->output_var(o)) > 0)
        return {Kind::SharedView, v, nullptr, owner->input(*viewed).get()};
    reader = owner;
    v = owner->input(*viewed).get();
  }
}

std::optional<std::string> DestroyHandler::why_not_destroy(const FunctionGraph& fgraph,
                                                           const Apply& node, std::size_t input,
                                                           const Apply* replacing) const {
  const Fault f = fault(fgraph, node, input, replacing);
  switch (f.kind) {
    case Fault::Kind::None: return std::nullopt;
    case Fault::Kind::Constant: return fmt::format("{} is a constant", describe(*f.var));
    case Fault::Kind::Output: return fmt::format("{} is an output of the graph", describe(*f.var));
    case Fault::Kind::Read:
      return fmt::format("{} is also read by `{}`", describe(*f.var), f.reader->op().to_string());
    case Fault::Kind::Input:
      return fmt::format("{} is an input of the graph not declared mutable", describe(*f.var));
    case Fault::Kind::SharedView:
      return fmt::format("{} is a view of `{}` that another view of it shares", describe(*f.var),
                         describe(*f.viewed));
  }
  return std::nullopt;
}

bool DestroyHandler::can_destroy(const FunctionGraph& fgraph, const Apply& node,
                                 std::size_t input, const Apply* replacing) const {
  return fault(fgraph, node, input, replacing).kind == Fault::Kind::None;
}

void DestroyHandler::destroyers_near(const FunctionGraph& fgraph, const Variable& var,
                                     std::vector<const Apply*>& out) const {
  // Up to the buffer `var` shows (the start of its chain of views)...
  const Variable* root = &var;
  while (const Apply* owner = root->owner()) {
    const std::optional<std::size_t> viewed = viewed_input(*owner, root->index());
    if (!viewed) break;
    root = owner->input(*viewed).get();
  }
  // ...then down every view of it to the nodes that overwrite it.
  SmallVec<const Variable*, 8> stack{root};
  SmallVec<const Variable*, 8> seen{root};
  while (!stack.empty()) {
    const Variable* v = stack.back();
    stack.pop_back();
    for (const Client& c : fgraph.clients(*v)) {
      if (c.is_output()) continue;
      if (destroyers_.contains(c.node)) out.push_back(c.node);
      for (const auto& [o, i] : c.node->op().cached_view_map()) {
        const Variable* shown = &c.node->output_var(o);
        if (i == c.slot && std::find(seen.begin(), seen.end(), shown) == seen.end()) {
          seen.push_back(shown);
          stack.push_back(shown);
        }
      }
    }
  }
}

void DestroyHandler::validate(const FunctionGraph& fgraph) {
  std::vector<const Apply*>& candidates = candidates_;
  candidates.clear();
  if (check_all_) {
    destroyers_.for_each([&](const Apply* n) { candidates.push_back(n); });
  } else if (!destroyers_.empty()) {
    for (const ApplyRef& n : changed_nodes_)
      if (fgraph.contains(*n) && destroyers_.contains(n.get())) candidates.push_back(n.get());
    // A replacement reports the same value many times (once per reader it
    // moved): each is looked at once.
    std::sort(changed_vars_.begin(), changed_vars_.end(),
              [](const Var& a, const Var& b) { return std::less<>{}(a.get(), b.get()); });
    const Variable* last = nullptr;
    for (const Var& v : changed_vars_) {
      if (v.get() == last) continue;
      last = v.get();
      if (fgraph.contains(*v)) destroyers_near(fgraph, *v, candidates);
    }
    std::sort(candidates.begin(), candidates.end(), std::less<>{});
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  changed_vars_.clear();
  changed_nodes_.clear();
  // When several nodes are at fault, the earliest in the graph's order is
  // named, so the message does not depend on addresses or on the order of
  // the changes.
  const Apply* worst = nullptr;
  std::size_t worst_input = 0;
  for (const Apply* node : candidates) {
    if (worst && (node == worst || fgraph.order_of(*worst) <= fgraph.order_of(*node))) continue;
    for (const auto& [o, i] : node->op().cached_destroy_map()) {
      if (i >= node->num_inputs()) continue;
      if (!can_destroy(fgraph, *node, i)) {
        worst = node;
        worst_input = i;
        break;
      }
    }
  }
  if (worst)
    throw InconsistencyError(fmt::format(
        "`{}` would overwrite its input {}, which is still needed: {}", worst->op().to_string(),
        worst_input, *why_not_destroy(fgraph, *worst, worst_input)));
  check_all_ = false;
}

DestroyHandler& require_destroy_handler(FunctionGraph& fgraph) {
  if (DestroyHandler* dh = fgraph.find_feature<DestroyHandler>()) return *dh;
  auto dh = std::make_shared<DestroyHandler>();
  fgraph.attach_feature(dh);
  return *dh;
}

}  // namespace rw

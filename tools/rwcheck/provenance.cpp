// Provenance: node ids and histories, firings.
#include "tools/rwcheck/provenance.hpp"

#include <fmt/format.h>

#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"

namespace rw::check {

namespace {
constexpr std::size_t kMaxExprLength = 160;
constexpr std::string_view kRollback = "rollback";

// The default output, or the first when the Op names none.
Var main_output(const Apply& node) {
  const std::optional<std::size_t> d = node.op().default_output();
  return node.output(d && *d < node.num_outputs() ? *d : 0);
}
}  // namespace

std::string expr_of(const Variable& var) {
  return to_infix(Var(const_cast<Variable*>(&var)), kMaxExprLength);
}

std::string leaf_or_expr(const Variable& var) {
  std::string s = expr_of(var);
  if (var.owner()) return s;
  return fmt::format("{} ({} {})", s, var.is_constant() ? "constant" : "input",
                     var.type()->to_string());
}

Provenance::Provenance(std::string failures_of, bool exprs)
    : watched_(std::move(failures_of)), exprs_(exprs) {}

NodeId Provenance::add(Apply& node, std::string_view reason) {
  NodeHistory h;
  h.id = nodes_.size() + 1;
  h.node = ApplyRef(&node);
  h.op = std::string(node.op().name());
  if (!reason.empty()) {
    h.created_by = std::string(reason);
    h.created_pass = current_pass();
  }
  nodes_.push_back(std::move(h));
  ids_.emplace(&node, nodes_.back().id);
  return nodes_.back().id;
}

std::string Provenance::current_pass() const {
  return passes_.empty() ? "" : passes_.back();
}

void Provenance::on_attach(FunctionGraph& fgraph) {
  for (Apply* node : fgraph.toposort())
    if (!ids_.count(node)) add(*node, {});
  original_ = nodes_.size();
}

void Provenance::on_import(FunctionGraph&, Apply& node, std::string_view reason) {
  const auto it = ids_.find(&node);
  if (it == ids_.end()) {
    pending_created_.push_back(add(node, reason));
    return;
  }
  // Back in the graph (a refused replacement was undone).
  NodeHistory& h = nodes_[it->second - 1];
  h.removed_by.clear();
  h.removed_pass.clear();
  h.replaced = false;
  h.removed_in.reset();
}

void Provenance::on_prune(FunctionGraph&, Apply& node, std::string_view reason) {
  const auto it = ids_.find(&node);
  if (it == ids_.end() || reason.substr(0, kRollback.size()) == kRollback) return;
  NodeHistory& h = nodes_[it->second - 1];
  h.removed_by = std::string(reason);
  h.removed_pass = current_pass();
  pending_removed_.push_back(h.id);
}

void Provenance::on_change_op(FunctionGraph&, Apply& node, const OpPtr& old_op,
                              std::string_view reason) {
  const std::optional<NodeId> id = id_of(node);
  if (!id) return;
  nodes_[*id - 1].op = std::string(node.op().name());
  if (reason.substr(0, kRollback.size()) == kRollback) {
    // The graph refused the change: it never stayed.
    if (!firings_.empty() && firings_.back().op_change && firings_.back().before_node == id)
      firings_.pop_back();
    return;
  }
  // The node stays, with its id: a firing from the Op it applied to the one it applies.
  Firing f;
  f.pass = current_pass();
  f.rule = std::string(reason);
  f.before_node = f.after_node = id;
  f.before = old_op->to_string();
  f.after = node.op().to_string();
  f.op_change = true;
  firings_.push_back(std::move(f));
}

void Provenance::on_change_input(FunctionGraph&, const Client& client, const Var&, const Var&,
                                 std::string_view) {
  if (client.node)
    if (const auto id = id_of(*client.node)) pending_users_.push_back(*id);
}

void Provenance::on_event(const TraceEvent& e) {
  switch (e.kind) {
    case TraceKind::PassStarted:
      passes_.emplace_back(e.pass);
      break;
    case TraceKind::PassEnded:
      if (!passes_.empty()) passes_.pop_back();
      break;
    case TraceKind::Tried:
    case TraceKind::Failed:
      if (!watched_.empty() && e.rewriter == watched_ && e.node) {
        if (const auto id = id_of(*e.node)) {
          tried_[*id] = true;
          if (e.kind == TraceKind::Failed) failures_[*id] = std::string(e.message);
        }
      }
      break;
    case TraceKind::Refused:
      // The graph undid the change: what it imported never stayed.
      pending_created_.clear();
      pending_removed_.clear();
      pending_users_.clear();
      break;
    case TraceKind::Replaced: {
      Firing f;
      f.pass = std::string(e.pass);
      f.rule = std::string(e.rewriter);
      const bool exprs = exprs_ || f.rule == watched_;
      if (e.old_var) {
        if (exprs) f.before = leaf_or_expr(*e.old_var);
        if (const Apply* owner = e.old_var->owner()) f.before_node = id_of(*owner);
      }
      if (e.new_var) {
        if (exprs) f.after = leaf_or_expr(*e.new_var);
        if (const Apply* owner = e.new_var->owner()) f.after_node = id_of(*owner);
      }
      f.created = std::move(pending_created_);
      f.removed = std::move(pending_removed_);
      f.users = std::move(pending_users_);
      pending_created_.clear();
      pending_removed_.clear();
      pending_users_.clear();
      const std::size_t index = firings_.size();
      if (f.before_node) {
        NodeHistory& h = nodes_[*f.before_node - 1];
        h.replaced = true;
        if (h.removed_by.empty()) {
          h.removed_by = f.rule;
          h.removed_pass = f.pass;
        }
      }
      for (const NodeId id : f.removed) nodes_[id - 1].removed_in = index;
      if (f.before_node) nodes_[*f.before_node - 1].removed_in = index;
      firings_.push_back(std::move(f));
      break;
    }
    default:
      break;
  }
}

std::optional<NodeId> Provenance::id_of(const Apply& node) const {
  const auto it = ids_.find(&node);
  if (it == ids_.end()) return std::nullopt;
  return it->second;
}

const std::string* Provenance::failure(NodeId id) const {
  const auto it = failures_.find(id);
  return it == failures_.end() ? nullptr : &it->second;
}

bool Provenance::tried(NodeId id) const {
  return tried_.count(id) != 0;
}

std::string Provenance::expr(NodeId id) const {
  const Apply& node = *nodes_.at(id - 1).node;
  return node.num_outputs() ? expr_of(*main_output(node)) : std::string(node.op().name());
}

}  // namespace rw::check

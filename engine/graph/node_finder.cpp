// NodeFinder's index.
#include "engine/graph/node_finder.hpp"

#include <algorithm>

#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"

namespace rw {

void NodeFinder::on_attach(FunctionGraph& fgraph) {
  fgraph_ = &fgraph;
  by_kind_.clear();
  for (Apply* node : fgraph.nodes()) by_kind_[node->op().kind().index()].insert(node);
}

void NodeFinder::on_detach(FunctionGraph&) {
  fgraph_ = nullptr;
  by_kind_.clear();
}

void NodeFinder::on_import(FunctionGraph&, Apply& node, std::string_view) {
  by_kind_[node.op().kind().index()].insert(&node);
}

void NodeFinder::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  auto it = by_kind_.find(node.op().kind().index());
  if (it != by_kind_.end()) it->second.erase(&node);
}

void NodeFinder::on_change_op(FunctionGraph&, Apply& node, const std::shared_ptr<const Op>& old_op,
                              std::string_view) {
  if (old_op->kind() == node.op().kind()) return;
  auto it = by_kind_.find(old_op->kind().index());
  if (it != by_kind_.end()) it->second.erase(&node);
  by_kind_[node.op().kind().index()].insert(&node);
}

std::vector<Apply*> NodeFinder::nodes_of(OpKind kind) const {
  auto it = by_kind_.find(kind.index());
  if (!fgraph_ || it == by_kind_.end()) return {};
  std::vector<Apply*> out(it->second.begin(), it->second.end());
  std::sort(out.begin(), out.end(), [&](const Apply* a, const Apply* b) {
    return fgraph_->order_of(*a) < fgraph_->order_of(*b);
  });
  return out;
}

std::size_t NodeFinder::count(OpKind kind) const {
  auto it = by_kind_.find(kind.index());
  return it == by_kind_.end() ? 0 : it->second.size();
}

}  // namespace rw

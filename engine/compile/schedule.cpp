// Scheduling with in-place constraints: Kahn's algorithm over data edges plus
// "readers before the overwriting node" edges, ties broken by the graph's
// topological order so that a graph without in-place nodes keeps it.
#include "engine/compile/schedule.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/compile/aliasing.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

std::vector<Apply*> schedule(const FunctionGraph& fgraph) {
  std::vector<Apply*> base = fgraph.toposort();

  // Which buffer version each in-place node overwrites.
  std::unordered_map<const Variable*, Apply*> destroyer_of;
  for (Apply* node : base)
    for (const auto& [o, i] : node->op().cached_destroy_map()) {
      if (i >= node->num_inputs()) continue;
      for (const Variable* root : alias_roots(*node->input(i), InPlace::NewVersion)) {
        auto [it, fresh] = destroyer_of.emplace(root, node);
        if (!fresh && it->second != node)
          throw Error(fmt::format("`{}` and `{}` both overwrite the buffer of {}",
                                  it->second->op().to_string(), node->op().to_string(),
                                  describe(*root)));
      }
    }
  if (destroyer_of.empty()) return base;

  std::unordered_map<const Apply*, std::uint32_t> index;
  for (std::uint32_t k = 0; k < base.size(); ++k) index.emplace(base[k], k);
  std::vector<std::vector<std::uint32_t>> preds(base.size());
  for (std::uint32_t k = 0; k < base.size(); ++k)
    for (const Var& in : base[k]->inputs())
      if (in->owner()) preds[k].push_back(index.at(in->owner()));

  // Every reader of an overwritten buffer's old contents runs before the
  // node that overwrites it.
  for (const Var& w : fgraph.variables()) {
    for (const Variable* root : alias_roots(*w, InPlace::NewVersion)) {
      auto it = destroyer_of.find(root);
      if (it == destroyer_of.end()) continue;
      Apply* destroyer = it->second;
      for (const Client& c : fgraph.clients(*w)) {
        if (c.is_output())
          throw Error(fmt::format(
              "`{}` overwrites the buffer of {}, which output {} of the graph returns",
              destroyer->op().to_string(), describe(*w), c.slot));
        if (c.node != destroyer) preds[index.at(destroyer)].push_back(index.at(c.node));
      }
    }
  }

  std::vector<std::vector<std::uint32_t>> succs(base.size());
  std::vector<std::uint32_t> waiting(base.size(), 0);
  for (std::uint32_t k = 0; k < base.size(); ++k) {
    auto& p = preds[k];
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    waiting[k] = static_cast<std::uint32_t>(p.size());
    for (std::uint32_t q : p) succs[q].push_back(k);
  }
  std::priority_queue<std::uint32_t, std::vector<std::uint32_t>, std::greater<>> ready;
  for (std::uint32_t k = 0; k < base.size(); ++k)
    if (waiting[k] == 0) ready.push(k);
  std::vector<Apply*> order;
  order.reserve(base.size());
  while (!ready.empty()) {
    const std::uint32_t k = ready.top();
    ready.pop();
    order.push_back(base[k]);
    for (std::uint32_t s : succs[k])
      if (--waiting[s] == 0) ready.push(s);
  }
  if (order.size() != base.size()) {
    for (std::uint32_t k = 0; k < base.size(); ++k)
      if (waiting[k] != 0 && !base[k]->op().cached_destroy_map().empty())
        throw Error(fmt::format(
            "cannot order the nodes: `{}` overwrites a buffer that a node computed from its "
            "result still has to read",
            base[k]->op().to_string()));
    throw Error("cannot order the nodes: the in-place constraints form a cycle");
  }
  return order;
}

}  // namespace rw

// Alias roots through view_map and destroy_map.
#include "engine/compile/aliasing.hpp"

#include <algorithm>
#include <unordered_set>

#include "engine/graph/op.hpp"

namespace rw {

std::vector<std::size_t> aliased_inputs(const Apply& node, std::size_t output, InPlace in_place) {
  std::vector<std::size_t> out;
  auto collect = [&](const IoMap& map) {
    for (const auto& [o, i] : map)
      if (o == output && i < node.num_inputs() &&
          std::find(out.begin(), out.end(), i) == out.end())
        out.push_back(i);
  };
  collect(node.op().cached_view_map());
  if (in_place == InPlace::SameBuffer) collect(node.op().cached_destroy_map());
  return out;
}

std::vector<const Variable*> alias_roots(const Variable& var, InPlace in_place) {
  std::vector<const Variable*> roots;
  std::unordered_set<const Variable*> seen;
  std::vector<const Variable*> stack{&var};
  while (!stack.empty()) {
    const Variable* v = stack.back();
    stack.pop_back();
    if (!seen.insert(v).second) continue;
    const Apply* owner = v->owner();
    const std::vector<std::size_t> from =
        owner ? aliased_inputs(*owner, v->index(), in_place) : std::vector<std::size_t>{};
    if (from.empty()) {
      roots.push_back(v);
      continue;
    }
    for (std::size_t i : from) stack.push_back(owner->input(i).get());
  }
  return roots;
}

}  // namespace rw

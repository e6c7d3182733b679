// Printing OpFromGraph nodes folded or expanded.
#include "tools/rwcheck/inner_graphs.hpp"

#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"

namespace rw::check {

namespace {

const OpFromGraph* as_ofg(const Variable& v) {
  return v.owner() ? dynamic_cast<const OpFromGraph*>(&v.owner()->op()) : nullptr;
}

// debugprint's tree, with the inner graph of each OpFromGraph node under
// its line. Nested defs recurse once per level of nesting.
std::string print_expanded(std::span<const Var> outputs) {
  std::unordered_map<const Variable*, std::size_t> ids;
  std::unordered_set<const Apply*> expanded;
  std::string out;
  struct Item {
    Variable* var;
    std::string prefix, connector, child_prefix;
  };
  std::vector<Item> stack;
  for (auto it = outputs.rbegin(); it != outputs.rend(); ++it)
    stack.push_back({it->get(), "", "", " "});
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const Variable& v = *item.var;
    const auto id = ids.try_emplace(&v, ids.size()).first->second;
    out += fmt::format("{}{}{} [id {}] <{}>", item.prefix, item.connector, debug_label(v),
                       debug_id(id), v.type()->to_string());
    if (!v.name().empty() && v.owner()) out += " '" + v.name() + "'";
    const Apply* a = v.owner();
    if (!a) {
      out += '\n';
      continue;
    }
    if (!expanded.insert(a).second) {
      out += " ···\n";
      continue;
    }
    out += '\n';
    if (const OpFromGraph* op = as_ofg(v)) {
      const std::string mark = item.child_prefix + (a->num_inputs() ? "│ ┊ " : "  ┊ ");
      out += mark + def_header(*op) + ":\n";
      const std::string inner = print_expanded(op->inner_outputs());
      for (std::size_t b = 0; b < inner.size();) {
        const std::size_t e = inner.find('\n', b);
        out += mark + inner.substr(b, e - b) + '\n';
        b = e + 1;
      }
    }
    const std::size_t n = a->num_inputs();
    for (std::size_t k = n; k-- > 0;) {
      const bool last = k + 1 == n;
      stack.push_back({a->input(k).get(), item.child_prefix, last ? "└─ " : "├─ ",
                       item.child_prefix + (last ? "   " : "│  ")});
    }
  }
  return out;
}

}  // namespace

std::vector<const OpFromGraph*> op_from_graphs(std::span<const Var> outputs) {
  std::vector<const OpFromGraph*> found;
  std::unordered_set<const OpFromGraph*> seen;
  auto collect = [&](std::span<const Var> roots) {
    for (const Var& v : ancestors(roots))
      if (const OpFromGraph* op = as_ofg(*v); op && seen.insert(op).second) found.push_back(op);
  };
  collect(outputs);
  for (std::size_t k = 0; k < found.size(); ++k) collect(found[k]->inner_outputs());
  return found;
}

std::size_t count_nodes(const FunctionGraph& fgraph, const OpFromGraph& op) {
  std::size_t n = 0;
  for (Apply* node : fgraph.toposort()) n += &node->op() == &op;
  return n;
}

std::string def_header(const OpFromGraph& op) {
  std::vector<std::string> params;
  for (const Var& v : op.inner_inputs())
    params.push_back(fmt::format("{} {}", v->name().empty() ? "<input>" : v->name(),
                                 v->type()->to_string()));
  return fmt::format("def {}({}){}", op.name(), fmt::join(params, ", "),
                     op.is_inline() ? " inline=true" : "");
}

std::string print_graph(std::span<const Var> outputs, bool expand) {
  if (expand) return print_expanded(outputs);
  std::string out = debugprint(outputs);
  for (const OpFromGraph* op : op_from_graphs(outputs))
    out += def_header(*op) + ":\n" + debugprint(op->inner_outputs());
  return out;
}

}  // namespace rw::check

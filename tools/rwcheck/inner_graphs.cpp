// Printing OpFromGraph nodes folded or expanded.
#include "tools/rwcheck/inner_graphs.hpp"

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
// its line, marked `┊`. Nested defs recurse once per level of nesting.
std::string print_expanded(std::span<const Var> outputs, const DebugPrintOptions& options) {
  DebugPrintOptions o = options;
  o.below = [&options](const Apply& a) {
    const auto* op = dynamic_cast<const OpFromGraph*>(&a.op());
    if (!op) return std::string();
    const std::string inner = print_expanded(op->inner_outputs(), options);
    std::string out = "┊ " + def_header(*op) + ":\n";
    for (std::size_t b = 0; b < inner.size();) {
      const std::size_t e = inner.find('\n', b);
      out += "┊ ";
      out.append(inner, b, e - b);
      out += '\n';
      b = e + 1;
    }
    return out;
  };
  return debugprint(outputs, o);
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

std::string print_graph(std::span<const Var> outputs, bool expand,
                        const DebugPrintOptions& options) {
  if (expand) return print_expanded(outputs, options);
  std::string out = debugprint(outputs, options);
  for (const OpFromGraph* op : op_from_graphs(outputs))
    out += def_header(*op) + ":\n" + debugprint(op->inner_outputs(), options);
  return out;
}

}  // namespace rw::check

// Graphviz output.
#include "tools/rwcheck/dot.hpp"

#include <unordered_map>

#include <fmt/format.h>

#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"

namespace rw::check {

std::string dot_escape(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string dot_cluster(const FunctionGraph& fgraph, const Provenance& provenance,
                        std::string_view prefix, std::string_view label) {
  std::string out =
      fmt::format("  subgraph cluster_{} {{\n    label=\"{}\";\n", prefix, dot_escape(label));
  std::unordered_map<const Variable*, std::string> names;  // inputs and constants drawn so far
  std::size_t leaves = 0;
  auto source_of = [&](const Var& v) -> std::string {
    if (const Apply* owner = v->owner()) {
      const auto id = provenance.id_of(*owner);
      return fmt::format("{}_n{}", prefix, id ? *id : 0);
    }
    const auto it = names.find(v.get());
    if (it != names.end()) return it->second;
    const std::string name = fmt::format("{}_v{}", prefix, leaves++);
    if (const Constant* c = v->as_constant())
      out += fmt::format("    {} [label=\"{}\", shape=plaintext];\n", name,
                         dot_escape(format_constant(*c)));
    else
      out += fmt::format("    {} [label=\"{}\\n{}\", shape=ellipse];\n", name,
                         dot_escape(v->name().empty() ? "input" : v->name()),
                         dot_escape(v->type()->to_string()));
    names.emplace(v.get(), name);
    return name;
  };
  for (const Var& in : fgraph.inputs()) source_of(in);
  for (Apply* node : fgraph.toposort()) {
    const auto id = provenance.id_of(*node);
    const NodeId n = id ? *id : 0;
    const NodeHistory* h = id ? &provenance.node(n) : nullptr;
    std::string text = fmt::format("#{} {}", n, node->op().to_string());
    std::string style;
    if (h && !h->created_by.empty()) {
      text += "\nby " + h->created_by;
      style = ", style=filled, fillcolor=\"#fff2b3\"";
    }
    out += fmt::format("    {}_n{} [label=\"{}\", shape=box{}];\n", prefix, n, dot_escape(text),
                       style);
    for (std::size_t i = 0; i < node->num_inputs(); ++i)
      out += fmt::format("    {} -> {}_n{} [label=\"{}\"];\n", source_of(node->input(i)), prefix, n,
                         i);
  }
  for (std::size_t i = 0; i < fgraph.outputs().size(); ++i) {
    out += fmt::format("    {}_out{} [label=\"output {}\", shape=doublecircle];\n", prefix, i, i);
    out += fmt::format("    {} -> {}_out{};\n", source_of(fgraph.outputs()[i]), prefix, i);
  }
  out += "  }\n";
  return out;
}

std::string dot_file(const std::string& before_cluster, const std::string& after_cluster) {
  return "digraph rwcheck {\n  rankdir=BT;\n  node [fontname=\"monospace\"];\n" + before_cluster +
         after_cluster + "}\n";
}

}  // namespace rw::check

// Graphviz output.
#include "tools/rwcheck/dot.hpp"

#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"

namespace rw::check {

namespace {

std::string prop_text(const Prop& p) {
  if (const auto* s = std::get_if<std::string>(&p.value)) {
    std::string out = "\"";
    for (const char c : *s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + '"';
  }
  const auto* tuple = std::get_if<std::vector<std::int64_t>>(&p.value);
  if (!tuple) return format_prop_value(p.value);
  std::vector<std::string> items;
  for (const std::int64_t v : *tuple) {
    const std::string_view word = tuple_word(p.name, v);
    items.push_back(word.empty() ? std::to_string(v) : std::string(word));
  }
  return fmt::format("({})", fmt::join(items, ", "));
}

}  // namespace

std::string op_call_text(const Op& op) {
  const Props& props = op.cached_props();
  std::string out(op.name());
  if (props.empty()) return out;
  std::vector<std::string> items;
  for (const Prop& p : props) items.push_back(p.name + "=" + prop_text(p));
  return out + fmt::format("{{{}}}", fmt::join(items, ", "));
}

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

std::string cut_label(std::string_view s, std::size_t n) {
  std::vector<std::size_t> starts;  // where each character begins
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) starts.push_back(i);
  if (starts.size() <= n || n == 0) return std::string(s);
  // n - 1 characters, and the `…`.
  return std::string(s.substr(0, starts[n - 1])) + "…";
}

std::string dot_graph(const FunctionGraph& fgraph, const Provenance& provenance,
                      std::string_view name, std::string_view title,
                      std::span<const std::string> output_labels) {
  std::string out = fmt::format(
      "digraph {} {{\n  label=\"{}\";\n  labelloc=t;\n  rankdir=TB;\n  ranksep=0.3;\n"
      "  nodesep=0.2;\n  node [fontname=\"monospace\", fontsize=10, height=0.3];\n"
      "  edge [fontname=\"monospace\", fontsize=8, arrowsize=0.6];\n",
      name, dot_escape(title));
  std::unordered_map<const Variable*, std::string> names;  // inputs and constants drawn so far
  std::size_t leaves = 0;
  std::string inputs_rank;
  auto source_of = [&](const Var& v) -> std::string {
    if (const Apply* owner = v->owner()) {
      const auto id = provenance.id_of(*owner);
      return fmt::format("n{}", id ? *id : 0);
    }
    const auto it = names.find(v.get());
    if (it != names.end()) return it->second;
    const std::string leaf = fmt::format("v{}", leaves++);
    if (const Constant* c = v->as_constant()) {
      out += fmt::format("  {} [label=\"{}\", shape=plaintext, fontsize=8, height=0.1];\n", leaf,
                         dot_escape(cut_label(format_constant(*c), kMaxDotLabel)));
    } else {
      out += fmt::format("  {} [label=\"{}\\n{}\", shape=ellipse];\n", leaf,
                         dot_escape(cut_label(v->name().empty() ? "input" : v->name(),
                                              kMaxDotLabel)),
                         dot_escape(cut_label(v->type()->to_string(), kMaxDotLabel)));
      inputs_rank += " " + leaf + ";";
    }
    names.emplace(v.get(), leaf);
    return leaf;
  };
  for (const Var& in : fgraph.inputs()) source_of(in);
  for (Apply* node : fgraph.toposort()) {
    const auto id = provenance.id_of(*node);
    const NodeId n = id ? *id : 0;
    const NodeHistory* h = id ? &provenance.node(n) : nullptr;
    std::string text = cut_label(fmt::format("#{} {}", n, op_call_text(node->op())), kMaxDotLabel);
    std::string style;
    if (h && !h->created_by.empty()) {
      text += "\n" + cut_label("by " + h->created_by, kMaxDotLabel);
      style = ", style=filled, fillcolor=\"#fff2b3\"";
    }
    out += fmt::format("  n{} [label=\"{}\", shape=box{}];\n", n, dot_escape(text), style);
    for (std::size_t i = 0; i < node->num_inputs(); ++i) {
      const std::string from = source_of(node->input(i));
      if (node->num_inputs() == 1)
        out += fmt::format("  {} -> n{};\n", from, n);
      else
        out += fmt::format("  {} -> n{} [label=\"{}\"];\n", from, n, i);
    }
  }
  std::string outputs_rank;
  for (std::size_t i = 0; i < fgraph.outputs().size(); ++i) {
    const std::string label =
        i < output_labels.size() ? output_labels[i] : fmt::format("output {}", i);
    out += fmt::format("  out{} [label=\"{}\", shape=doubleoctagon];\n", i,
                       dot_escape(cut_label(label, kMaxDotLabel)));
    out += fmt::format("  {} -> out{};\n", source_of(fgraph.outputs()[i]), i);
    outputs_rank += fmt::format(" out{};", i);
  }
  if (!inputs_rank.empty()) out += "  { rank=source;" + inputs_rank + " }\n";
  if (!outputs_rank.empty()) out += "  { rank=sink;" + outputs_rank + " }\n";
  return out + "}\n";
}

}  // namespace rw::check

// debugprint and the infix printer. Both walk with explicit stacks, so a graph a
// million nodes deep prints without overflowing the call stack.
#include "engine/graph/printing.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"

namespace rw {

namespace {
std::string format_scalar(const Tensor& t) {
  const DType dtype = t.dtype();
  if (is_bool(dtype)) return t.item<bool>() ? "true" : "false";
  // Integers are read as integers: through double, 2^53 + 1 would print as
  // 2^53 and INT64_MAX (a float-cast overflow) as INT64_MIN.
  if (!is_float(dtype)) return fmt::format("{}", t.item<std::int64_t>());
  const double v = t.item<double>();
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string format_constant(const Constant& c) {
  const Tensor& v = c.value();
  if (v.ndim() == 0) return format_scalar(v);
  if (v.size() <= 8) {
    std::string out = v.to_string();
    for (char& ch : out)
      if (ch == '\n') ch = ' ';
    return out;
  }
  return fmt::format("constant{}", shape_to_string(v.shape()));
}

std::string describe(const Variable& var) {
  if (!var.name().empty()) return fmt::format("`{}`", var.name());
  if (const Constant* c = var.as_constant()) return fmt::format("constant `{}`", format_constant(*c));
  if (var.owner()) {
    Var self(const_cast<Variable*>(&var));
    return fmt::format("`{}`", to_infix(self, 60));
  }
  return fmt::format("an unnamed input of type {}", var.type()->to_string());
}

std::string debug_id(std::size_t n) {
  std::string s;
  for (++n; n > 0; n = (n - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (n - 1) % 26));
  return s;
}

std::string debug_label(const Variable& v) {
  if (const Constant* c = v.as_constant()) return format_constant(*c);
  if (const Apply* a = v.owner()) {
    std::string s = a->op().to_string();
    if (a->num_outputs() > 1) s += fmt::format(".{}", v.index());
    return s;
  }
  return v.name().empty() ? std::string("<input>") : v.name();
}

std::string debugprint(std::span<const Var> outputs, const DebugPrintOptions& options) {
  std::unordered_map<const Variable*, std::size_t> ids;
  std::unordered_map<const Apply*, bool> expanded;
  std::string out;
  struct Item {
    Variable* var;
    std::string prefix;     // printed before the connector
    std::string connector;  // "├─ ", "└─ " or "" for a root line
    std::string child_prefix;
    std::size_t depth;
  };
  std::vector<Item> stack;
  for (auto it = outputs.rbegin(); it != outputs.rend(); ++it)
    stack.push_back({it->get(), "", "", " ", 0});
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const Variable& v = *item.var;
    auto [idit, fresh] = ids.try_emplace(&v, ids.size());
    (void)fresh;
    out += item.prefix + item.connector + debug_label(v) + " [id " + debug_id(idit->second) + "]";
    if (options.show_types) out += " <" + v.type()->to_string() + ">";
    if (!v.name().empty() && v.owner()) out += " '" + v.name() + "'";
    const Apply* a = v.owner();
    if (!a) {
      out += '\n';
      continue;
    }
    if (expanded[a]) {
      out += " ···\n";
      continue;
    }
    out += '\n';
    if (options.max_depth && item.depth + 1 > options.max_depth) {
      if (a->num_inputs()) out += item.child_prefix + "└─ ···\n";
      continue;
    }
    expanded[a] = true;
    const std::size_t n = a->num_inputs();
    for (std::size_t k = n; k-- > 0;) {
      const bool last = k + 1 == n;
      stack.push_back({a->input(k).get(), item.child_prefix, last ? "└─ " : "├─ ",
                       item.child_prefix + (last ? "   " : "│  "), item.depth + 1});
    }
  }
  return out;
}

std::string debugprint(const Var& output, const DebugPrintOptions& options) {
  return debugprint(std::span(&output, 1), options);
}

std::string debugprint(const FunctionGraph& fgraph, const DebugPrintOptions& options) {
  return debugprint(fgraph.outputs(), options);
}

std::string to_infix(const Var& root, std::size_t max_length) {
  // Printed left to right from the root, stopping once past `max_length`:
  // the work is bounded by what is printed, not by the size of the graph
  // below (every step prints at least one character).
  const auto leaf_text = [](const Variable& v) -> std::string {
    if (const Constant* c = v.as_constant()) return format_constant(*c);
    if (!v.name().empty()) return v.name();
    return "<" + v.type()->to_string() + ">";
  };
  const auto precedence = [&](const Variable& v) {
    const Apply* a = v.owner();
    if (!a) return v.is_constant() && leaf_text(v).starts_with('-') ? 30 : 100;
    const PrintStyle style = a->op().print_style();
    if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2) return style.precedence;
    if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1) return style.precedence;
    return 100;
  };
  // What is left to print, last first: a variable (in parentheses or not) or text.
  struct Piece {
    const Variable* var;
    bool paren;
    std::string text;
  };
  std::vector<Piece> pending{{root.get(), false, {}}};
  std::string out;
  while (!pending.empty() && out.size() <= max_length) {
    Piece p = std::move(pending.back());
    pending.pop_back();
    if (!p.var) {
      out += p.text;
      continue;
    }
    if (p.paren) {
      out += '(';
      pending.push_back({nullptr, false, ")"});
    }
    const Variable& v = *p.var;
    const Apply* a = v.owner();
    if (!a) {
      out += leaf_text(v);
      continue;
    }
    const PrintStyle style = a->op().print_style();
    if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2) {
      const Variable &l = *a->input(0), &r = *a->input(1);
      const int pl = precedence(l), pr = precedence(r);
      pending.push_back({&r, pr < style.precedence ||
                              (pr == style.precedence && !style.right_assoc), {}});
      pending.push_back({nullptr, false, " " + std::string(style.symbol) + " "});
      pending.push_back({&l, pl < style.precedence ||
                              (pl == style.precedence && style.right_assoc), {}});
    } else if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1) {
      out += style.symbol;
      pending.push_back({a->input(0).get(), precedence(*a->input(0)) < style.precedence, {}});
    } else {
      out += a->op().to_string() + "(";
      pending.push_back({nullptr, false,
                      a->num_outputs() > 1 ? fmt::format(")[{}]", v.index()) : std::string(")")});
      for (std::size_t i = a->num_inputs(); i-- > 0;) {
        pending.push_back({a->input(i).get(), false, {}});
        if (i) pending.push_back({nullptr, false, ", "});
      }
    }
  }
  if (out.size() > max_length || !pending.empty()) {
    if (out.size() > max_length) out.resize(max_length);
    out += "…";
  }
  return out;
}

}  // namespace rw

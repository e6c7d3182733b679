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
std::string format_scalar(double v, DType dtype) {
  if (is_bool(dtype)) return v != 0 ? "true" : "false";
  if (!is_float(dtype)) return fmt::format("{}", static_cast<long long>(v));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

}  // namespace

std::string format_constant(const Constant& c) {
  const Tensor& v = c.value();
  if (v.ndim() == 0) return format_scalar(v.item<double>(), v.dtype());
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
  struct Printed {
    std::string text;
    int precedence;
  };
  std::unordered_map<const Variable*, Printed> memo;
  auto cap = [&](std::string s) {
    if (s.size() > max_length) {
      s.resize(max_length);
      s += "…";
    }
    return s;
  };
  auto leaf = [&](const Variable& v) -> Printed {
    if (const Constant* c = v.as_constant()) {
      std::string s = format_constant(*c);
      return {s, !s.empty() && s[0] == '-' ? 30 : 100};
    }
    if (!v.name().empty()) return {v.name(), 100};
    return {"<" + v.type()->to_string() + ">", 100};
  };
  struct Frame {
    Variable* var;
    std::size_t next;
  };
  std::vector<Frame> stack{{root.get(), 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    Variable* v = f.var;
    if (memo.contains(v)) {
      stack.pop_back();
      continue;
    }
    const Apply* a = v->owner();
    if (!a) {
      memo.emplace(v, leaf(*v));
      stack.pop_back();
      continue;
    }
    if (f.next < a->num_inputs()) {
      Variable* in = a->input(f.next++).get();
      if (!memo.contains(in)) stack.push_back({in, 0});
      continue;
    }
    stack.pop_back();
    const PrintStyle style = a->op().print_style();
    auto arg = [&](std::size_t i) -> const Printed& { return memo.at(a->input(i).get()); };
    auto wrap = [](const Printed& p, bool paren) {
      return paren ? "(" + p.text + ")" : p.text;
    };
    Printed p;
    if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2) {
      const Printed &l = arg(0), &r = arg(1);
      const bool pl = l.precedence < style.precedence ||
                      (l.precedence == style.precedence && style.right_assoc);
      const bool pr = r.precedence < style.precedence ||
                      (r.precedence == style.precedence && !style.right_assoc);
      p = {wrap(l, pl) + " " + std::string(style.symbol) + " " + wrap(r, pr), style.precedence};
    } else if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1) {
      const Printed& x = arg(0);
      p = {std::string(style.symbol) + wrap(x, x.precedence < style.precedence),
           style.precedence};
    } else {
      std::string s = a->op().to_string() + "(";
      for (std::size_t i = 0; i < a->num_inputs(); ++i) {
        if (i) s += ", ";
        s += arg(i).text;
      }
      s += ")";
      if (a->num_outputs() > 1) s += fmt::format("[{}]", v->index());
      p = {std::move(s), 100};
    }
    p.text = cap(std::move(p.text));
    // Every output of the node prints the same way but for the index suffix.
    memo.emplace(v, std::move(p));
  }
  return memo.at(root.get()).text;
}

}  // namespace rw

// debugprint and the infix printer. Both walk with explicit stacks, so a graph a
// million nodes deep prints without overflowing the call stack.
#include "engine/graph/printing.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/traversal.hpp"

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

// Whether a constant prints with a leading minus (and so needs parentheses
// as an operand), decided without printing it.
bool prints_negative(const Constant& c) {
  const Tensor& t = c.value();
  if (t.ndim() != 0 || is_bool(t.dtype())) return false;
  if (!is_float(t.dtype())) return t.item<std::int64_t>() < 0;
  const double v = t.item<double>();
  return !std::isnan(v) && std::signbit(v);
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

std::string detail::debug_id(std::size_t n) {
  std::string s;
  for (++n; n > 0; n = (n - 1) / 26) s.insert(s.begin(), static_cast<char>('A' + (n - 1) % 26));
  return s;
}

std::string detail::debug_label(const Variable& v) {
  if (const Constant* c = v.as_constant()) return format_constant(*c);
  if (const Apply* a = v.owner()) {
    std::string s = a->op().to_string();
    if (a->num_outputs() > 1) s += fmt::format(".{}", v.index());
    return s;
  }
  return v.name().empty() ? std::string("<input>") : v.name();
}

namespace {

// One debugprint: a walk with an explicit stack, the trees continued below
// (nodes past `max_indent`) in a queue, and the line count for `max_lines`.
class TreePrinter {
 public:
  explicit TreePrinter(const DebugPrintOptions& options) : o_(options) {}

  // Prints the tree of `root` and the trees continued from it; false when
  // the line cap stopped it.
  bool print(Variable* root) {
    stack_.push_back({root, "", "", " ", 0, 0, false});
    for (;;) {
      if (stack_.empty()) {
        if (next_ == continued_.size()) return true;
        const auto [var, depth] = continued_[next_++];
        stack_.push_back({var, "", "", " ", depth, 0, true});
      }
      if (o_.max_lines && lines_ >= o_.max_lines) return false;
      Item item = std::move(stack_.back());
      stack_.pop_back();
      line(item);
    }
  }

  // The text, with the count of nodes not printed when the cap stopped it.
  std::string finish(std::span<const Var> outputs, bool cut) {
    if (!cut) return std::move(out_);
    std::unordered_set<const Apply*> all;
    for (const Var& v : ancestors(outputs))
      if (v->owner()) all.insert(v->owner());
    std::size_t hidden = 0;
    for (const Apply* a : all) hidden += !shown_.count(a);
    if (hidden)
      out_ += fmt::format("… {} more node{}", hidden, hidden == 1 ? "" : "s");
    else
      out_ += "… more lines, of nodes shown above";
    out_ += o_.cut_note;
    out_ += '\n';
    return std::move(out_);
  }

 private:
  struct Item {
    Variable* var;
    std::string prefix;          // printed before the connector
    std::string_view connector;  // "├─ ", "└─ " or "" for a root line
    std::string child_prefix;
    std::size_t depth;   // from the output, for max_depth
    std::size_t indent;  // levels of indentation, for max_indent
    bool continued;      // the root of a continued tree: expanded here
  };

  void line(const Item& item) {
    const Variable& v = *item.var;
    const std::size_t id = ids_.try_emplace(&v, ids_.size()).first->second;
    out_ += item.prefix;
    out_ += item.connector;
    out_ += detail::debug_label(v);
    out_ += " [id ";
    out_ += detail::debug_id(id);
    out_ += ']';
    if (o_.show_types) out_ += " <" + v.type()->to_string() + ">";
    if (!v.name().empty() && v.owner()) out_ += " '" + v.name() + "'";
    ++lines_;
    const Apply* a = v.owner();
    if (!a) {
      out_ += '\n';
      return;
    }
    shown_.insert(a);
    if (!item.continued && expanded_.count(a)) {
      out_ += " ···\n";
      return;
    }
    if (!item.continued && o_.max_indent && item.indent >= o_.max_indent && a->num_inputs()) {
      // Marked expanded now, so that later uses print as references.
      expanded_.insert(a);
      continued_.emplace_back(item.var, item.depth);
      out_ += " (continued below)\n";
      return;
    }
    out_ += '\n';
    if (o_.max_depth && item.depth + 1 > o_.max_depth) {
      if (a->num_inputs()) {
        out_ += item.child_prefix + "└─ ···\n";
        ++lines_;
      }
      return;
    }
    expanded_.insert(a);
    if (o_.below) below(item, *a);
    const std::size_t n = a->num_inputs();
    for (std::size_t k = n; k-- > 0;) {
      const bool last = k + 1 == n;
      stack_.push_back({a->input(k).get(), item.child_prefix, last ? "└─ " : "├─ ",
                        item.child_prefix + (last ? "   " : "│  "), item.depth + 1,
                        item.indent + 1, false});
    }
  }

  void below(const Item& item, const Apply& a) {
    const std::string text = o_.below(a);
    const std::string mark = item.child_prefix + (a.num_inputs() ? "│ " : "  ");
    for (std::size_t b = 0; b < text.size();) {
      std::size_t e = text.find('\n', b);
      if (e == std::string::npos) e = text.size();
      out_ += mark;
      out_.append(text, b, e - b);
      out_ += '\n';
      ++lines_;
      b = e + 1;
    }
  }

  const DebugPrintOptions& o_;
  std::string out_;
  std::size_t lines_ = 0;
  std::unordered_map<const Variable*, std::size_t> ids_;
  std::unordered_set<const Apply*> expanded_;
  std::unordered_set<const Apply*> shown_;
  std::vector<Item> stack_;
  std::vector<std::pair<Variable*, std::size_t>> continued_;
  std::size_t next_ = 0;
};

}  // namespace

std::string debugprint(std::span<const Var> outputs, const DebugPrintOptions& options) {
  TreePrinter printer(options);
  bool cut = false;
  for (const Var& v : outputs)
    if (!printer.print(v.get())) {
      cut = true;
      break;
    }
  return printer.finish(outputs, cut);
}

std::string debugprint(const Var& output, const DebugPrintOptions& options) {
  return debugprint(std::span(&output, 1), options);
}

std::string debugprint(const FunctionGraph& fgraph, const DebugPrintOptions& options) {
  return debugprint(fgraph.outputs(), options);
}

std::string to_infix(const Var& root, std::size_t max_length) {
  // Printed left to right from the root, stopping once past `max_length`.
  // A step that prints nothing descends a level (the left operand of an
  // infix node), so with the nesting bounded the work is bounded by what is
  // printed: at most `max_nesting` silent steps lie between two characters.
  const std::size_t max_nesting = std::max<std::size_t>(32, max_length / 4);
  const auto precedence = [](const Variable& v) {
    const Apply* a = v.owner();
    if (!a) {
      const Constant* c = v.as_constant();
      return c && prints_negative(*c) ? 30 : 100;
    }
    const PrintStyle style = a->op().print_style();
    if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2) return style.precedence;
    if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1) return style.precedence;
    return 100;
  };
  // What is left to print, last first: a variable (in parentheses or not),
  // or text (an operator between spaces, a closing parenthesis with the
  // output index of a node with several).
  struct Piece {
    const Variable* var;
    bool paren = false;
    std::size_t depth = 0;
    std::string_view text = {};
    bool spaced = false;
    std::size_t output = 0;
    bool indexed = false;
  };
  std::vector<Piece> pending{{root.get()}};
  std::string out;
  while (!pending.empty() && out.size() <= max_length) {
    const Piece p = pending.back();
    pending.pop_back();
    if (!p.var) {
      if (p.spaced) out += ' ';
      out += p.text;
      if (p.spaced) out += ' ';
      if (p.indexed) fmt::format_to(std::back_inserter(out), "[{}]", p.output);
      continue;
    }
    if (p.paren) {
      out += '(';
      pending.push_back({nullptr, false, 0, ")"});
    }
    const Variable& v = *p.var;
    const Apply* a = v.owner();
    if (!a) {
      if (const Constant* c = v.as_constant())
        out += format_constant(*c);
      else if (!v.name().empty())
        out += v.name();
      else
        out += "<" + v.type()->to_string() + ">";
      continue;
    }
    if (p.depth >= max_nesting) {
      out += "…";
      continue;
    }
    const std::size_t d = p.depth + 1;
    const PrintStyle style = a->op().print_style();
    if (style.kind == PrintStyle::Kind::Infix && a->num_inputs() == 2) {
      const Variable &l = *a->input(0), &r = *a->input(1);
      const int pl = precedence(l), pr = precedence(r);
      pending.push_back({&r, pr < style.precedence || (pr == style.precedence && !style.right_assoc), d});
      pending.push_back({nullptr, false, 0, style.symbol, true});
      pending.push_back({&l, pl < style.precedence || (pl == style.precedence && style.right_assoc), d});
    } else if (style.kind == PrintStyle::Kind::Prefix && a->num_inputs() == 1) {
      out += style.symbol;
      pending.push_back({a->input(0).get(), precedence(*a->input(0)) < style.precedence, d});
    } else {
      out += a->op().to_string();
      out += '(';
      pending.push_back({nullptr, false, 0, ")", false, v.index(), a->num_outputs() > 1});
      for (std::size_t i = a->num_inputs(); i-- > 0;) {
        pending.push_back({a->input(i).get(), false, d});
        if (i) pending.push_back({nullptr, false, 0, ", "});
      }
    }
  }
  if (out.size() > max_length || !pending.empty()) {
    if (out.size() > max_length) {
      // Cut at a character's start: names and `…` are UTF-8.
      std::size_t n = max_length;
      while (n > 0 && (static_cast<unsigned char>(out[n]) & 0xC0) == 0x80) --n;
      out.resize(n);
    }
    out += "…";
  }
  return out;
}

}  // namespace rw

// The term printer: an explicit stack of pieces, so depth costs no recursion.
#include "engine/unify/print.hpp"

#include <cmath>
#include <ostream>

#include <fmt/format.h>

#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

namespace {

bool symbol_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_+-*/<>=!.:@#$%^&~").find(c) != std::string_view::npos;
}

bool looks_like_number(std::string_view s) {
  std::size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return i < s.size() && ((s[i] >= '0' && s[i] <= '9') || (s[i] == '.' && i + 1 < s.size()));
}

// Strings that read back as the same symbol print bare.
bool bare_symbol(std::string_view s) {
  if (s.empty() || s == "." || s[0] == '?' || s[0] == '_' || looks_like_number(s)) return false;
  if (s == "true" || s == "false" || s == "none" || s == "nan" || s == "inf" || s == "-inf")
    return false;
  for (char c : s)
    if (!symbol_char(c)) return false;
  return true;
}

void append_quoted(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  out += '"';
}

std::string format_float(double d) {
  if (std::isnan(d)) return "nan";
  if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

// One entry of the printer's stack: a term to print, or text to emit.
struct Piece {
  const Term* term = nullptr;
  std::string_view text;
};

void print_atom(std::string& out, const Term& t) {
  switch (t.kind()) {
    case TermKind::Null: out += "<null>"; break;
    case TermKind::Var:
      if (t.is_reified_var()) {
        out += t.var_name();
      } else if (std::string n = t.var_name(); !n.empty()) {
        out += '?';
        out += n;
      } else {
        out += "?_";
        out += std::to_string(t.var_id());
      }
      break;
    case TermKind::Int: out += std::to_string(t.as_int()); break;
    case TermKind::Float: out += format_float(t.as_float()); break;
    case TermKind::Bool: out += t.as_bool() ? "true" : "false"; break;
    case TermKind::None: out += "none"; break;
    case TermKind::DType: out += dtype_name(t.as_dtype()); break;
    case TermKind::String:
      if (bare_symbol(t.as_string())) out += t.as_string();
      else append_quoted(out, t.as_string());
      break;
    case TermKind::Nil: out += "()"; break;
    case TermKind::TupleTag: out += "<tuple>"; break;
    case TermKind::Op: out += t.op()->to_string(); break;
    case TermKind::Graph: {
      const Variable* v = t.graph_var();
      out += v->name().empty() ? to_infix(t.as_graph_var(), 80) : v->name();
      break;
    }
    default: break;
  }
}

}  // namespace

std::string to_string(const Term& root) {
  std::string out;
  std::vector<Piece> stack{{&root, {}}};
  while (!stack.empty()) {
    const Piece p = stack.back();
    stack.pop_back();
    if (!p.term) {
      out += p.text;
      continue;
    }
    const Term& t = *p.term;
    switch (t.kind()) {
      case TermKind::Compound: {
        auto args = t.args();
        if (t.is_tuple()) {
          stack.push_back({nullptr, "]"});
        } else {
          stack.push_back({nullptr, ")"});
        }
        for (std::size_t i = args.size(); i-- > 0;) {
          stack.push_back({&args[i], {}});
          if (i) stack.push_back({nullptr, ", "});
        }
        if (t.is_tuple()) {
          stack.push_back({nullptr, "["});
        } else {
          stack.push_back({nullptr, "("});
          stack.push_back({&t.head(), {}});
        }
        break;
      }
      case TermKind::Pair: {
        // Walk the spine first, then push its pieces in reverse.
        std::vector<const Term*> items;
        const Term* cur = &t;
        while (cur->is_pair()) {
          items.push_back(&cur->car());
          cur = &cur->cdr();
        }
        stack.push_back({nullptr, ")"});
        if (!cur->is_nil()) {
          stack.push_back({cur, {}});
          stack.push_back({nullptr, " . "});
        }
        for (std::size_t i = items.size(); i-- > 0;) {
          stack.push_back({items[i], {}});
          if (i) stack.push_back({nullptr, " "});
        }
        stack.push_back({nullptr, "("});
        break;
      }
      case TermKind::OpPattern: {
        out += t.op_pattern_name();
        auto props = t.op_pattern_props();
        if (props.empty()) break;
        stack.push_back({nullptr, "}"});
        for (std::size_t i = props.size(); i-- > 0;) {
          stack.push_back({&props[i].value, {}});
          stack.push_back({nullptr, "="});
          stack.push_back({nullptr, props[i].name});
          if (i) stack.push_back({nullptr, ","});
        }
        stack.push_back({nullptr, "{"});
        break;
      }
      default: print_atom(out, t); break;
    }
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const Term& t) { return os << to_string(t); }

}  // namespace rw

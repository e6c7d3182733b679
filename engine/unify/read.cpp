// A recursive-descent reader for the printed form of terms.
#include "engine/unify/read.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <vector>

namespace rw {

namespace {

constexpr int kMaxDepth = 1000;

bool symbol_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_+-*/<>=!.:@#$%^&~").find(c) != std::string_view::npos;
}

class Reader {
 public:
  Reader(std::string_view text, TermVars& vars) : s_(text), vars_(vars) {}

  Term read_all() {
    Term t = read(0);
    skip_space();
    if (pos_ != s_.size()) fail("unexpected `" + std::string(1, s_[pos_]) + "` after the term");
    return t;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw TermSyntaxError("column " + std::to_string(pos_ + 1) + ": " + what);
  }

  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' ||
                                s_[pos_] == '\r'))
      ++pos_;
  }

  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  void expect(char c) {
    skip_space();
    if (!at(c)) {
      if (pos_ >= s_.size()) fail(std::string("expected `") + c + "`, got the end of the text");
      fail(std::string("expected `") + c + "`, got `" + s_[pos_] + "`");
    }
    ++pos_;
  }

  std::string_view symbol() {
    const std::size_t b = pos_;
    while (pos_ < s_.size() && symbol_char(s_[pos_])) ++pos_;
    return s_.substr(b, pos_ - b);
  }

  // Arguments of a call, after its `(`, up to and including `)`.
  std::vector<Term> call_args(int depth) {
    std::vector<Term> args;
    skip_space();
    if (at(')')) {
      ++pos_;
      return args;
    }
    for (;;) {
      args.push_back(read(depth + 1));
      skip_space();
      if (at(')')) {
        ++pos_;
        return args;
      }
      expect(',');
    }
  }

  // A call after a head, when `(` follows the head immediately.
  Term maybe_call(Term head, int depth) {
    if (!at('(')) return head;
    ++pos_;
    std::vector<Term> args = call_args(depth);
    return compound(std::move(head), args);
  }

  Term number(std::string_view text) {
    const std::string str(text);
    const bool is_float = text.find_first_of(".eE") != std::string_view::npos;
    char* end = nullptr;
    errno = 0;
    if (!is_float) {
      const long long v = std::strtoll(str.c_str(), &end, 10);
      if (end == str.c_str() + str.size() && errno == 0) return Term::integer(std::int64_t{v});
      if (errno == ERANGE) fail("integer `" + str + "` does not fit in int64");
    } else {
      const double v = std::strtod(str.c_str(), &end);
      if (end == str.c_str() + str.size()) return Term::number(v);
    }
    fail("malformed number `" + str + "`");
  }

  Term op_pattern_term(std::string name, int depth) {
    ++pos_;  // `{`
    std::vector<PropTerm> props;
    skip_space();
    if (!at('}')) {
      for (;;) {
        skip_space();
        const std::size_t b = pos_;
        while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_'))
          ++pos_;
        std::string prop(s_.substr(b, pos_ - b));
        if (prop.empty()) fail("expected a property name");
        expect('=');
        props.push_back({std::move(prop), read(depth + 1)});
        skip_space();
        if (at('}')) break;
        expect(',');
      }
    }
    ++pos_;  // `}`
    return op_pattern(std::move(name), std::move(props));
  }

  Term read(int depth) {
    if (depth > kMaxDepth) fail("terms nested deeper than 1000 levels");
    skip_space();
    if (pos_ >= s_.size()) fail("expected a term, got the end of the text");
    const char c = s_[pos_];
    if (c == '?') {
      ++pos_;
      std::string_view name = symbol();
      if (name.empty()) fail("expected a variable name after `?`");
      Term v;
      if (name == "_") {
        v = lvar();
      } else {
        auto it = vars_.find(name);
        if (it == vars_.end()) it = vars_.emplace(std::string(name), lvar(name)).first;
        v = it->second;
      }
      return maybe_call(std::move(v), depth);
    }
    if (c == '"') {
      ++pos_;
      std::string str;
      while (pos_ < s_.size() && s_[pos_] != '"') {
        if (s_[pos_] == '\\' && pos_ + 1 < s_.size()) {
          ++pos_;
          str += s_[pos_] == 'n' ? '\n' : s_[pos_];
        } else {
          str += s_[pos_];
        }
        ++pos_;
      }
      if (pos_ >= s_.size()) fail("unterminated string");
      ++pos_;
      return maybe_call(Term::string(str), depth);
    }
    if (c == '[') {
      ++pos_;
      std::vector<Term> items;
      skip_space();
      if (!at(']')) {
        for (;;) {
          items.push_back(read(depth + 1));
          skip_space();
          if (at(']')) break;
          expect(',');
        }
      }
      ++pos_;
      return tuple(items);
    }
    if (c == '(') {
      ++pos_;
      std::vector<Term> items;
      Term tail = Term::nil();
      for (;;) {
        skip_space();
        if (at(')')) {
          ++pos_;
          break;
        }
        if (at('.') && (pos_ + 1 >= s_.size() || !symbol_char(s_[pos_ + 1]))) {
          if (items.empty()) fail("a dotted list needs an element before `.`");
          ++pos_;
          tail = read(depth + 1);
          expect(')');
          break;
        }
        items.push_back(read(depth + 1));
      }
      return list(items, std::move(tail));
    }
    if (!symbol_char(c)) fail(std::string("unexpected `") + c + "`");
    const std::size_t start = pos_;
    std::string_view sym = symbol();
    const bool numeric = (sym[0] >= '0' && sym[0] <= '9') ||
                         ((sym[0] == '-' || sym[0] == '+' || sym[0] == '.') && sym.size() > 1 &&
                          ((sym[1] >= '0' && sym[1] <= '9') || sym[1] == '.'));
    if (numeric) {
      pos_ = start;
      return number(symbol());
    }
    if (sym[0] == '_' && sym.size() > 1 &&
        sym.find_first_not_of("0123456789", 1) == std::string_view::npos)
      return Term::reified(std::strtoull(std::string(sym.substr(1)).c_str(), nullptr, 10));
    if (sym == "true") return Term::boolean(true);
    if (sym == "false") return Term::boolean(false);
    if (sym == "none") return Term::none();
    if (sym == "nan") return Term::number(std::numeric_limits<double>::quiet_NaN());
    if (sym == "inf") return Term::number(std::numeric_limits<double>::infinity());
    if (sym == "-inf") return Term::number(-std::numeric_limits<double>::infinity());
    if (at('{')) return maybe_call(op_pattern_term(std::string(sym), depth), depth);
    return maybe_call(Term::string(sym), depth);
  }

  std::string_view s_;
  TermVars& vars_;
  std::size_t pos_ = 0;
};

}  // namespace

Term parse_term(std::string_view text, TermVars& vars) { return Reader(text, vars).read_all(); }

Term parse_term(std::string_view text) {
  TermVars vars;
  return parse_term(text, vars);
}

}  // namespace rw

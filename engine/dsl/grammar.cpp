// The one translation unit that compiles Spirit X3: instantiates the grammar
// and drives it statement by statement, recovering from errors.
#define RW_DSL_GRAMMAR_TU
#include "engine/dsl/grammar_def.hpp"

namespace rw::dsl {
namespace grammar {

BOOST_SPIRIT_INSTANTIATE(statement_type, iterator_type, context_type)

ast::ExprId ParseState::push(ast::Expr expr) {
  int depth = 0;
  auto child = [&](ast::ExprId c) { depth = std::max<int>(depth, file_[c].depth); };
  std::visit(
      [&](const auto& n) {
        using T = std::decay_t<decltype(n)>;
        if constexpr (std::is_same_v<T, ast::Unary>) {
          child(n.operand);
        } else if constexpr (std::is_same_v<T, ast::Binary>) {
          child(n.lhs);
          child(n.rhs);
        } else if constexpr (std::is_same_v<T, ast::Logical>) {
          for (ast::ExprId c : n.operands) child(c);
        } else if constexpr (std::is_same_v<T, ast::Call>) {
          for (ast::ExprId c : n.inputs) child(c);
        }
      },
      expr.node);
  if (depth + 1 > kMaxTreeDepth) throw SyntaxError{begin_ + expr.span.begin, tree_depth_message()};
  expr.depth = static_cast<std::uint16_t>(depth + 1);
  file_.exprs.push_back(std::move(expr));
  return ast::ExprId{static_cast<std::uint32_t>(file_.exprs.size() - 1)};
}

}  // namespace grammar

namespace {

using grammar::is_digit;
using grammar::is_ident_char;
using grammar::is_ident_start;

const char* skip_blank(const char* p, const char* end) {
  grammar::skipper_parser const skip{};
  boost::spirit::x3::unused_type u;
  skip.parse(p, end, u, u, u);
  return p;
}

// Length of the token at p, for the caret's extent.
std::size_t token_length(const char* p, const char* end) {
  if (p == end) return 0;
  const char* i = p;
  if (is_ident_char(*i) || *i == '%' || *i == '?') {
    ++i;
    while (i != end && (is_ident_char(*i) || *i == '.')) ++i;
    return static_cast<std::size_t>(i - p);
  }
  static constexpr std::string_view kPairs[] = {"=>", "==", "!=", "<=", ">=", "**"};
  for (std::string_view two : kPairs)
    if (end - p >= 2 && std::string_view(p, 2) == two) return 2;
  return 1;
}

// "found …" for the token at p.
std::string describe_token(const char* p, const char* end) {
  if (p == end) return "end of file";
  const unsigned char c = static_cast<unsigned char>(*p);
  if (*p == '"') return "a string";
  if (c >= 0x80) return "a non-ASCII character";
  if (c < 0x20 || c == 0x7f) return fmt::format("character U+{:04X}", c);
  if (*p == '`') return "a backquote";
  return fmt::format("`{}`", std::string_view(p, token_length(p, end)));
}

// Where to point at a missing token: at the next token when it is on the same
// line, otherwise just after the last token (clang's convention), so that the
// caret stays on the line the author was writing.
struct Blame {
  const char* at;
  std::size_t length;
  std::string found;
};

Blame blame_at(const char* where, const char* end) {
  const char* next = skip_blank(where, end);
  if (next == end) return {where, 0, "end of file"};
  if (std::find(where, next, '\n') != next) return {where, 0, "end of line"};
  return {next, token_length(next, end), describe_token(next, end)};
}

bool starts_statement(const char* p, const char* end) {
  while (p != end && (*p == ' ' || *p == '\t')) ++p;
  if (p == end) return false;
  if (*p == '}' || *p == '(') return true;  // the end of a def block; `(p, q) = …`
  const char* word = p;
  if (*p == '%') {
    ++p;
    while (p != end && is_ident_char(*p)) ++p;
  } else if (is_ident_start(*p)) {
    while (p != end && is_ident_char(*p)) ++p;
    const std::string_view w(word, static_cast<std::size_t>(p - word));
    for (std::string_view kw : {"import", "ruleset", "rule", "declare", "input", "output", "def"})
      if (w == kw) return true;
    if (grammar::is_keyword(w)) return false;
  } else {
    return false;
  }
  if (p == word + 1 && *word == '%') return false;
  while (p != end && (*p == ' ' || *p == '\t')) ++p;
  return p != end && *p == '=' && (p + 1 == end || (p[1] != '=' && p[1] != '>'));
}

// The names a statement starting at p defines (`NAME = …`, `input NAME …`,
// `def NAME(…`, `(NAME, …) = …`), if any.
std::vector<std::string> defined_names(const char* p, const char* end) {
  auto word = [&](const char*& q) {
    const char* b = q;
    if (q != end && *q == '%') ++q;
    while (q != end && is_ident_char(*q)) ++q;
    return std::string_view(b, static_cast<std::size_t>(q - b));
  };
  auto blanks = [&](const char*& q) {
    while (q != end && (*q == ' ' || *q == '\t')) ++q;
  };
  const char* q = p;
  if (q != end && *q == '(') {
    // `(a, b) = …`: the names up to `)` or the end of the line.
    std::vector<std::string> names;
    ++q;
    while (true) {
      blanks(q);
      const std::string_view w = word(q);
      if (w.empty()) break;
      names.emplace_back(w);
      blanks(q);
      if (q == end || *q != ',') break;
      ++q;
    }
    return names;
  }
  std::string_view first = word(q);
  if (first == "input" || first == "def" || first == "const") {
    blanks(q);
    return {std::string(word(q))};
  }
  blanks(q);
  if (!first.empty() && q != end && *q == '=' && (q + 1 == end || (q[1] != '=' && q[1] != '>')))
    return {std::string(first)};
  return {};
}

// For a statement at p that is a `def` header, the start of the line after
// the next line that begins with `}` (or the end); otherwise null.
const char* failed_def_end(const char* p, const char* end) {
  if (end - p < 4 || std::string_view(p, 3) != "def" || is_ident_char(p[3])) return nullptr;
  const char* line = std::find(p, end, '\n');
  while (line != end) {
    const char* q = line + 1;
    while (q != end && (*q == ' ' || *q == '\t')) ++q;
    line = std::find(q, end, '\n');
    if (q != end && *q == '}') return line == end ? end : line + 1;
  }
  return end;
}

// The start of the first line after `from` that begins a statement.
const char* next_statement_line(const char* from, const char* end) {
  const char* p = from;
  while (true) {
    p = std::find(p, end, '\n');
    if (p == end) return end;
    ++p;
    if (starts_statement(p, end)) return p;
  }
}

}  // namespace

ParsedFile parse(SourcePtr source) {
  namespace x3 = boost::spirit::x3;
  ParsedFile out;
  out.source = source;
  const std::string_view text = source->text();
  if (text.size() > kMaxSourceBytes) {
    out.diagnostics.push_back(
        make_error(source, {},
                   fmt::format("file is too large ({} bytes; the limit is {})", text.size(),
                               kMaxSourceBytes)));
    return out;
  }
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  grammar::ParseState st(begin, end, out.ast);
  grammar::skipper_parser const skipper{};
  auto const skip_ctx = x3::make_context<x3::skipper_tag>(skipper);
  auto const ctx = x3::make_context<grammar::state_tag>(st, skip_ctx);
  static_assert(std::is_same_v<std::decay_t<decltype(ctx)>, grammar::context_type>);

  auto error_at = [&](const char* at, std::size_t length, std::string message) {
    const auto b = static_cast<std::uint32_t>(at - begin);
    out.diagnostics.push_back(
        make_error(source, {b, b + static_cast<std::uint32_t>(length)}, std::move(message)));
  };

  std::size_t errors = 0;
  const char* it = begin;
  // A UTF-8 byte-order mark, which some editors write, is not text.
  if (text.starts_with("\xEF\xBB\xBF")) it += 3;
  while (true) {
    it = skip_blank(it, end);
    if (it == end) break;
    const std::size_t expr_mark = out.ast.exprs.size();
    const std::size_t stmt_mark = out.ast.statements.size();
    st.nesting = 0;
    const char* resume = nullptr;
    try {
      const char* first = it;
      if (grammar::statement().parse(first, end, ctx, x3::unused, x3::unused)) {
        // 9223372036854775808 is an int64 only under a minus sign, which
        // the parser folded into it; one left over is too large.
        for (std::size_t k = expr_mark; k < out.ast.exprs.size(); ++k)
          if (const auto* n = std::get_if<ast::Number>(&out.ast.exprs[k].node); n && n->needs_minus)
            throw grammar::SyntaxError{begin + out.ast.exprs[k].span.begin,
                                       "integer literal `9223372036854775808` is too large",
                                       out.ast.exprs[k].span.end - out.ast.exprs[k].span.begin};
        it = first;
        continue;
      }
      error_at(it, token_length(it, end),
               fmt::format("expected a statement (`rule`, `ruleset`, `import`, `declare`, "
                           "`input`, `output`, `const` or `NAME = …`), found {}",
                           describe_token(it, end)));
      resume = it;
    } catch (const x3::expectation_failure<const char*>& e) {
      const Blame b = blame_at(e.where(), end);
      error_at(b.at, b.length, fmt::format("expected {}, found {}", e.which(), b.found));
      resume = e.where();
    } catch (const grammar::SyntaxError& e) {
      const char* at = skip_blank(e.where, end);
      error_at(at, e.length ? e.length : token_length(at, end), e.message);
      resume = e.where;
    }
    out.ast.exprs.resize(expr_mark);
    out.ast.statements.resize(stmt_mark);
    for (std::string& n : defined_names(it, end))
      if (!n.empty()) out.failed_names.push_back(std::move(n));
    // A def whose header failed takes its body with it: parsed on their
    // own, its statements would be reported again as misplaced.
    if (const char* after = failed_def_end(it, end)) {
      if (++errors >= kMaxErrorsPerFile) {
        out.diagnostics.back().notes.push_back(
            make_note(nullptr, {}, fmt::format("too many errors ({}); stopping here", errors)));
        break;
      }
      it = after;
      continue;
    }
    if (++errors >= kMaxErrorsPerFile) {
      out.diagnostics.back().notes.push_back(
          make_note(nullptr, {}, fmt::format("too many errors ({}); stopping here", errors)));
      break;
    }
    it = next_statement_line(resume, end);
  }
  return out;
}

}  // namespace rw::dsl

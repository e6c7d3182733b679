// The X3 grammar's declarations and parse state. Private to grammar.cpp (the
// one translation unit that compiles Spirit X3): nothing else includes it.
#pragma once

#ifndef RW_DSL_GRAMMAR_TU
#error "engine/dsl/grammar.hpp is private to grammar.cpp; include engine/dsl/parse.hpp"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/spirit/home/x3.hpp>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/diagnostic.hpp"

namespace rw::dsl::grammar {

namespace x3 = boost::spirit::x3;

/// Input iterator of the grammar.
using iterator_type = const char*;

/// A syntax error found by a token parser or an action (an unterminated
/// string, a literal out of range, nesting beyond kMaxNesting): the whole
/// statement is dropped and reported with this message.
struct SyntaxError {
  const char* where;
  std::string message;
  /// How many characters the caret covers; 0: the token at `where`.
  std::size_t length = 0;
};

/// What the grammar's actions build into, reached through the context.
class ParseState {
 public:
  ParseState(const char* begin, const char* end, ast::File& file)
      : begin_(begin), end_(end), file_(file) {}

  const char* begin() const { return begin_; }
  const char* end() const { return end_; }
  ast::File& file() { return file_; }
  std::uint32_t offset(const char* p) const { return static_cast<std::uint32_t>(p - begin_); }
  Span span(const char* b, const char* e) const { return {offset(b), offset(e)}; }

  /// Appends an expression node after its children; refuses trees taller than kMaxTreeDepth.
  ast::ExprId push(ast::Expr expr);
  const ast::Expr& operator[](ast::ExprId id) const { return file_[id]; }

  /// Nesting of the recursive descent, bounded by kMaxNesting.
  int nesting = 0;

 private:
  const char* begin_;
  const char* end_;
  ast::File& file_;
};

/// Context tag under which the parse state is found.
struct state_tag;

/// Whitespace and `#` comments.
struct skipper_parser : x3::parser<skipper_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const&, RCtx&, Attr&) const {
    It i = first;
    while (i != last) {
      const char c = *i;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++i;
      } else if (c == '#') {
        while (i != last && *i != '\n') ++i;
      } else {
        break;
      }
    }
    const bool moved = i != first;
    first = i;
    return moved;
  }
};

/// The context the statement rule is instantiated for.
using context_type =
    x3::context<state_tag, ParseState, x3::context<x3::skipper_tag, skipper_parser const>>;

/// One statement of a rule or graph file; its action appends it to the file.
using statement_type = x3::rule<class statement_r>;
BOOST_SPIRIT_DECLARE(statement_type)

/// The grammar's entry point.
statement_type const& statement();

}  // namespace rw::dsl::grammar

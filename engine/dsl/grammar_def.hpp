// The X3 grammar of rule and graph files: token parsers, expressions with
// their precedence levels, parameters, and statements. Private to grammar.cpp.
#pragma once

#ifndef RW_DSL_GRAMMAR_TU
#error "engine/dsl/grammar_def.hpp is private to grammar.cpp"
#endif

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

#include <boost/fusion/include/at_c.hpp>
#include <fmt/format.h>

#include "engine/dsl/grammar.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/parse.hpp"

namespace rw::dsl::grammar {

using boost::fusion::at_c;
using x3::_attr;
using x3::_val;

// ---------------------------------------------------------------------------
// Characters and words

constexpr bool is_ident_start(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
constexpr bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
constexpr bool is_ident_char(char c) {
  return is_ident_start(c) || is_digit(c);
}

/// Reserved words (dsl::kKeywords): they cannot be names.
inline bool is_keyword(std::string_view w) { return dsl::is_keyword(w); }

template <class Ctx>
ParseState& state(Ctx const& ctx) {
  return x3::get<state_tag>(ctx);
}

inline std::string nesting_message() {
  return fmt::format("expression nests too deeply (the limit is {} levels)", kMaxNesting);
}
inline std::string tree_depth_message() {
  return fmt::format("expression is too deep (the limit is a tree {} levels tall)", kMaxTreeDepth);
}

// ---------------------------------------------------------------------------
// Token parsers. Each skips whitespace and comments first (unless inside a
// lexeme) and records spans from the parse state's base pointer.

/// Punctuation or a keyword. A keyword must not run into a following name
/// character; `not_followed_by` lists characters that must not follow (so
/// `*` does not match the start of `**`).
struct token_parser : x3::parser<token_parser> {
  using attribute_type = x3::unused_type;
  static bool const has_attribute = false;

  std::string_view text;
  std::string_view not_followed_by;
  std::string_view description;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr&) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (static_cast<std::size_t>(last - b) < text.size()) return false;
    for (std::size_t k = 0; k < text.size(); ++k)  // tokens are short: no call to memcmp
      if (b[k] != text[k]) return false;
    It i = b + static_cast<std::ptrdiff_t>(text.size());
    if (i != last) {
      if (is_ident_char(text.back()) && is_ident_char(*i)) return false;
      if (not_followed_by.find(*i) != std::string_view::npos) return false;
    }
    first = i;
    return true;
  }
};

constexpr token_parser tok(std::string_view text, std::string_view not_followed_by = {},
                           std::string_view description = {}) {
  return {{}, text, not_followed_by, description};
}

/// A name that is not a keyword.
struct name_parser : x3::parser<name_parser> {
  using attribute_type = ast::Name;
  static bool const has_attribute = true;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (b == last || !is_ident_start(*b)) return false;
    It i = b;
    while (++i != last && is_ident_char(*i)) {
    }
    const std::string_view text(b, static_cast<std::size_t>(i - b));
    if (is_keyword(text)) return false;
    x3::traits::move_to(ast::Name{std::string(text), state(ctx).span(b, i)}, attr);
    first = i;
    return true;
  }
};

/// `%name` or `%3`: a graph-file name.
struct ref_parser : x3::parser<ref_parser> {
  using attribute_type = ast::Name;
  static bool const has_attribute = true;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (b == last || *b != '%') return false;
    It i = b + 1;
    if (i == last || !is_ident_char(*i))
      throw SyntaxError{i, "expected a name or number after `%`"};
    while (i != last && is_ident_char(*i)) ++i;
    x3::traits::move_to(
        ast::Name{std::string(b, static_cast<std::size_t>(i - b)), state(ctx).span(b, i)}, attr);
    first = i;
    return true;
  }
};

/// `?name`: a pattern variable. The name is the text after `?`.
struct qvar_parser : x3::parser<qvar_parser> {
  using attribute_type = ast::Name;
  static bool const has_attribute = true;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (b == last || *b != '?') return false;
    It i = b + 1;
    if (i == last || !is_ident_start(*i))
      throw SyntaxError{i, "expected a variable name after `?`"};
    while (++i != last && is_ident_char(*i)) {
    }
    x3::traits::move_to(
        ast::Name{std::string(b + 1, static_cast<std::size_t>(i - b - 1)), state(ctx).span(b, i)},
        attr);
    first = i;
    return true;
  }
};

/// An unsigned numeric literal and where it was written.
struct NumberToken {
  std::variant<std::int64_t, double> value;
  Span span;
  bool needs_minus = false;  // see ast::Number
};

/// `12`, `1.5`, `.5`, `1.`, `2e-3`, `inf`, `nan`. A literal that runs into a
/// name character (`1x`) is not a number.
struct number_parser : x3::parser<number_parser> {
  using attribute_type = NumberToken;
  static bool const has_attribute = true;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    It i = b;
    auto digits = [&] {
      It s = i;
      while (i != last && is_digit(*i)) ++i;
      return i != s;
    };
    for (std::string_view word : {std::string_view("inf"), std::string_view("nan")}) {
      if (static_cast<std::size_t>(last - i) >= 3 && std::equal(word.begin(), word.end(), i) &&
          (i + 3 == last || !is_ident_char(i[3]))) {
        const double v = word == "inf" ? std::numeric_limits<double>::infinity()
                                       : std::numeric_limits<double>::quiet_NaN();
        x3::traits::move_to(NumberToken{v, state(ctx).span(b, i + 3)}, attr);
        first = i + 3;
        return true;
      }
    }
    bool is_float = false;
    const bool int_part = digits();
    if (i != last && *i == '.') {
      It dot = i;
      ++i;
      const bool frac = digits();
      if (!int_part && !frac) {
        i = dot;
        return false;
      }
      is_float = true;
    } else if (!int_part) {
      return false;
    }
    if (i != last && (*i == 'e' || *i == 'E')) {
      It e = i++;
      if (i != last && (*i == '+' || *i == '-')) ++i;
      if (digits())
        is_float = true;
      else
        i = e;
    }
    if (i != last && is_ident_char(*i)) return false;
    const Span span = state(ctx).span(b, i);
    const std::string_view text(b, static_cast<std::size_t>(i - b));
    if (is_float) {
      double v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      // from_chars calls underflow out of range too; such a literal reads as
      // the nearest double (0 or a subnormal), as strtod gives it.
      if (r.ec == std::errc::result_out_of_range) v = std::strtod(std::string(text).c_str(), nullptr);
      if (r.ec != std::errc() && (r.ec != std::errc::result_out_of_range || !std::isfinite(v)))
        throw SyntaxError{b, fmt::format("float literal `{}` is out of range", text), text.size()};
      x3::traits::move_to(NumberToken{v, span}, attr);
    } else {
      std::int64_t v = 0;
      const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
      std::string_view digits_only = text;
      while (digits_only.size() > 1 && digits_only.front() == '0') digits_only.remove_prefix(1);
      if (r.ec == std::errc::result_out_of_range && digits_only == "9223372036854775808") {
        // 2^63: an int64 only under a minus sign (push_unary folds it).
        x3::traits::move_to(NumberToken{std::numeric_limits<std::int64_t>::min(), span, true},
                            attr);
        first = i;
        return true;
      }
      if (r.ec != std::errc())
        throw SyntaxError{b, fmt::format("integer literal `{}` is too large", text), text.size()};
      x3::traits::move_to(NumberToken{v, span}, attr);
    }
    first = i;
    return true;
  }
};

/// `"text"` with escapes `\"`, `\\`, `\n`, `\t`; the name's text is the
/// unescaped contents, its span covers the quotes. A string ends on its line.
struct string_parser : x3::parser<string_parser> {
  using attribute_type = ast::Name;
  static bool const has_attribute = true;

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx&, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (b == last || *b != '"') return false;
    std::string out;
    It i = b + 1;
    while (true) {
      if (i == last || *i == '\n') throw SyntaxError{b, "unterminated string"};
      const char c = *i;
      if (c == '"') break;
      if (c == '\\') {
        if (i + 1 == last) throw SyntaxError{b, "unterminated string"};
        switch (i[1]) {
          case '"':
            out += '"';
            break;
          case '\\':
            out += '\\';
            break;
          case 'n':
            out += '\n';
            break;
          case 't':
            out += '\t';
            break;
          default:
            throw SyntaxError{i, "unknown escape in string; use `\\\"`, `\\\\`, `\\n` or `\\t`"};
        }
        i += 2;
        continue;
      }
      out += c;
      ++i;
    }
    ++i;
    x3::traits::move_to(ast::Name{std::move(out), state(ctx).span(b, i)}, attr);
    first = i;
    return true;
  }
};

constexpr name_parser name{};
constexpr ref_parser ref{};
constexpr qvar_parser qvar{};
constexpr number_parser number{};
constexpr string_parser string_lit{};

// ---------------------------------------------------------------------------
// Bounded recursion: nest[p] counts one level of nesting around p and
// refuses to go deeper than kMaxNesting, so deep input cannot exhaust the stack.

template <class Subject>
struct nest_directive : x3::unary_parser<Subject, nest_directive<Subject>> {
  using base_type = x3::unary_parser<Subject, nest_directive<Subject>>;
  static bool const is_pass_through_unary = true;
  static bool const handles_container = Subject::handles_container;

  constexpr nest_directive(Subject const& subject) : base_type(subject) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    ParseState& st = state(ctx);
    if (st.nesting >= kMaxNesting) {
      It at = first;
      x3::skip_over(at, last, ctx);
      throw SyntaxError{at, nesting_message()};
    }
    ++st.nesting;
    struct Leave {
      int& n;
      ~Leave() { --n; }
    } leave{st.nesting};
    return this->subject.parse(first, last, ctx, rctx, attr);
  }
};

struct nest_gen {
  template <class Subject>
  constexpr nest_directive<typename x3::extension::as_parser<Subject>::value_type> operator[](
      Subject const& subject) const {
    return {x3::as_parser(subject)};
  }
};
constexpr nest_gen nest{};

/// spanned[p] sets the enclosing rule's `span` to what p matched (without the
/// whitespace before it). X3's `_where` and `on_success` do not see the
/// attribute of a rule with semantic actions in Boost 1.74; the rule
/// context does.
template <class Subject>
struct spanned_directive : x3::unary_parser<Subject, spanned_directive<Subject>> {
  using base_type = x3::unary_parser<Subject, spanned_directive<Subject>>;
  static bool const is_pass_through_unary = true;
  static bool const handles_container = Subject::handles_container;

  constexpr spanned_directive(Subject const& subject) : base_type(subject) {}

  template <class It, class Ctx, class RCtx, class Attr>
  bool parse(It& first, It const& last, Ctx const& ctx, RCtx& rctx, Attr& attr) const {
    It b = first;
    x3::skip_over(b, last, ctx);
    if (!this->subject.parse(first, last, ctx, rctx, attr)) return false;
    rctx.span = state(ctx).span(b, first);
    return true;
  }
};

struct spanned_gen {
  template <class Subject>
  constexpr spanned_directive<typename x3::extension::as_parser<Subject>::value_type> operator[](
      Subject const& subject) const {
    return {x3::as_parser(subject)};
  }
};
constexpr spanned_gen spanned{};

}  // namespace rw::dsl::grammar

namespace boost::spirit::x3 {

/// "expected …" names what a token parser matches.
template <>
struct get_info<rw::dsl::grammar::token_parser> {
  using result_type = std::string;
  std::string operator()(rw::dsl::grammar::token_parser const& p) const {
    if (!p.description.empty()) return std::string(p.description);
    return "`" + std::string(p.text) + "`";
  }
};
template <>
struct get_info<rw::dsl::grammar::name_parser> {
  using result_type = std::string;
  std::string operator()(rw::dsl::grammar::name_parser const&) const { return "a name"; }
};
template <>
struct get_info<rw::dsl::grammar::string_parser> {
  using result_type = std::string;
  std::string operator()(rw::dsl::grammar::string_parser const&) const { return "a quoted string"; }
};
template <>
struct get_info<rw::dsl::grammar::number_parser> {
  using result_type = std::string;
  std::string operator()(rw::dsl::grammar::number_parser const&) const { return "a number"; }
};
/// Directives and actions are named after what they wrap.
template <class Subject>
struct get_info<rw::dsl::grammar::nest_directive<Subject>> {
  using result_type = std::string;
  std::string operator()(rw::dsl::grammar::nest_directive<Subject> const& p) const {
    return what(p.subject);
  }
};
template <class Subject, class Action>
struct get_info<action<Subject, Action>> {
  using result_type = std::string;
  std::string operator()(action<Subject, Action> const& p) const { return what(p.subject); }
};

}  // namespace boost::spirit::x3

namespace rw::dsl::grammar {

// ---------------------------------------------------------------------------
// Attributes of the intermediate rules.

/// `-x` or `not g` before it becomes a node.
struct PrefixSyntax {
  ast::ExprId operand{};
  Span span;
};

/// `a or b or c`: the first operand and the rest.
struct ChainSyntax {
  ast::ExprId first{};
  std::vector<ast::ExprId> rest;
};

/// One argument of a call: a parameter `name=value` or an input.
struct CallArg {
  std::optional<ast::Param> param;
  ast::ExprId input{};
};

/// `name`, `name(args)` or `name{params}(args)`.
struct CallSyntax {
  ast::Name callee;
  std::vector<ast::Param> params;
  std::vector<CallArg> args;
  bool has_args = false;
  Span span;
};

/// A number with an optional leading minus (parameter values, priorities).
struct SignedNumber {
  std::variant<std::int64_t, double> value;
  Span span;
};

// ---------------------------------------------------------------------------
// Rules. Their names are what "expected …" messages say.

x3::rule<class expr_r, ast::ExprId> const expr = "an expression";
x3::rule<class or_r, ast::ExprId> const or_expr = "an expression";
x3::rule<class or_chain_r, ChainSyntax> const or_chain = "an expression";
x3::rule<class and_r, ast::ExprId> const and_expr = "an expression";
x3::rule<class and_chain_r, ChainSyntax> const and_chain = "an expression";
x3::rule<class not_r, ast::ExprId> const not_expr = "an expression";
x3::rule<class not_prefix_r, PrefixSyntax> const not_prefix = "`not`";
x3::rule<class cmp_r, ast::ExprId> const cmp_expr = "an expression";
x3::rule<class cmp_op_r, ast::BinaryOp> const cmp_op = "a comparison";
x3::rule<class add_r, ast::ExprId> const add_expr = "an expression";
x3::rule<class add_op_r, ast::BinaryOp> const add_op = "`+` or `-`";
x3::rule<class mul_r, ast::ExprId> const mul_expr = "an expression";
x3::rule<class mul_op_r, ast::BinaryOp> const mul_op = "`*` or `/`";
x3::rule<class unary_r, ast::ExprId> const unary_expr = "an operand";
x3::rule<class prefix_r, PrefixSyntax> const neg_prefix = "`-`";
x3::rule<class power_r, ast::ExprId> const power_expr = "an operand";
x3::rule<class primary_r, ast::ExprId> const primary = "an operand";
x3::rule<class call_r, CallSyntax> const call_syntax = "a name or a call";
x3::rule<class args_r, std::vector<CallArg>> const call_args = "`(`";
x3::rule<class args_rest_r, std::vector<CallArg>> const call_args_rest = "an argument or `)`";
x3::rule<class arg_r, CallArg> const call_arg = "an argument";
x3::rule<class named_arg_r, ast::Param> const named_arg = "a parameter `name=value`";
x3::rule<class braces_r, std::vector<ast::Param>> const brace_params = "`{`";
x3::rule<class braces_rest_r, std::vector<ast::Param>> const brace_params_rest =
    "a parameter `name=value` or `}`";
x3::rule<class brace_param_r, ast::Param> const brace_param = "a parameter `name=value`";
x3::rule<class pvalue_r, ast::ParamValue> const param_value = "a parameter value";
x3::rule<class tuple_r, std::vector<ast::TupleItem>> const tuple_items = "a tuple";
x3::rule<class tuple_rest_r, std::vector<ast::TupleItem>> const tuple_rest =
    "an integer, a word such as `x`, or `)`";
x3::rule<class titem_r, ast::TupleItem> const tuple_item = "an integer or a word such as `x`";
x3::rule<class signed_r, SignedNumber> const signed_number = "a number";

x3::rule<class import_r, ast::Import> const import_stmt = "an import";
x3::rule<class ruleset_r, ast::RulesetDecl> const ruleset_stmt = "a ruleset";
x3::rule<class tags_r, std::vector<ast::Name>> const tags_clause = "`tags(…)`";
x3::rule<class tags_rest_r, std::vector<ast::Name>> const tags_rest = "a tag or `)`";
x3::rule<class rule_r, ast::RuleDecl> const rule_stmt = "a rule";
x3::rule<class declare_r, ast::Declare> const declare_stmt = "a declaration";
x3::rule<class props_r, std::vector<ast::Name>> const property_list =
    "a property such as `commutative`";
x3::rule<class input_r, ast::InputDecl> const input_stmt = "an input";
x3::rule<class input_name_r, ast::Name> const input_name = "a name";
x3::rule<class type_r, ast::TypeSpec> const type_spec = "a type such as `f64[?,3]`";
x3::rule<class dim_r, ast::Dim> const dim = "an extent or `?`";
x3::rule<class dims_r, std::vector<ast::Dim>> const dims_rest = "an extent, `?` or `]`";
x3::rule<class binding_r, ast::Binding> const binding_stmt = "a binding";
x3::rule<class output_r, ast::OutputDecl> const output_stmt = "an output";
x3::rule<class outputs_r, std::vector<ast::ExprId>> const output_list = "an expression";
x3::rule<class tuple_binding_r, ast::TupleBinding> const tuple_binding_stmt = "a binding";
x3::rule<class def_r, ast::DefDecl> const def_stmt = "a def";
x3::rule<class def_params_r, std::vector<ast::DefParam>> const def_params_rest =
    "a parameter `NAME TYPE` or `)`";
x3::rule<class def_param_r, ast::DefParam> const def_param = "a parameter `NAME TYPE`";
x3::rule<class block_end_r, ast::BlockEnd> const block_end_stmt = "`}`";
/// The values of a `const`: one, or a bracketed list.
struct ConstValues {
  std::vector<ast::ConstValue> items;
  Span span;
};
x3::rule<class const_r, ast::ConstDecl> const const_stmt = "a constant";
x3::rule<class const_values_r, ConstValues> const const_values =
    "a value, or `[` and values";
x3::rule<class const_list_r, std::vector<ast::ConstValue>> const const_list_rest =
    "a value or `]`";
x3::rule<class const_value_r, ast::ConstValue> const const_value =
    "a number, `true` or `false`";
statement_type const statement_rule = "a statement";

// ---------------------------------------------------------------------------
// Actions

auto const copy = [](auto& ctx) { _val(ctx) = _attr(ctx); };

auto const push_number = [](auto& ctx) {
  const NumberToken& t = _attr(ctx);
  _val(ctx) = state(ctx).push({ast::Number{t.value, t.needs_minus}, t.span});
};

auto const push_identifier = [](ast::Sigil sigil) {
  return [sigil](auto& ctx) {
    ast::Name& n = _attr(ctx);
    _val(ctx) = state(ctx).push({ast::Identifier{std::move(n.text), sigil}, n.span});
  };
};

auto const push_call = [](auto& ctx) {
  CallSyntax& c = _attr(ctx);
  ParseState& st = state(ctx);
  if (!c.has_args) {
    _val(ctx) =
        st.push({ast::Identifier{std::move(c.callee.text), ast::Sigil::None}, c.callee.span});
    return;
  }
  ast::Call call;
  call.callee = std::move(c.callee);
  call.params = std::move(c.params);
  for (CallArg& a : c.args) {
    if (a.param)
      call.params.push_back(std::move(*a.param));
    else
      call.inputs.push_back(a.input);
  }
  _val(ctx) = st.push({std::move(call), c.span});
};

auto const fold_binary = [](auto& ctx) {
  auto& a = _attr(ctx);
  ParseState& st = state(ctx);
  const ast::ExprId lhs = _val(ctx);
  const ast::ExprId rhs = at_c<1>(a);
  _val(ctx) = st.push({ast::Binary{at_c<0>(a), lhs, rhs}, join(st[lhs].span, st[rhs].span)});
};

auto const fold_pow = [](auto& ctx) {
  ParseState& st = state(ctx);
  const ast::ExprId lhs = _val(ctx);
  const ast::ExprId rhs = _attr(ctx);
  _val(ctx) =
      st.push({ast::Binary{ast::BinaryOp::Pow, lhs, rhs}, join(st[lhs].span, st[rhs].span)});
};

auto const set_operand = [](auto& ctx) { _val(ctx).operand = _attr(ctx); };

auto const push_unary = [](ast::UnaryOp op) {
  return [op](auto& ctx) {
    const PrefixSyntax& p = _attr(ctx);
    ParseState& st = state(ctx);
    if (op == ast::UnaryOp::Neg) {
      ast::Expr& operand = st.file().exprs[ast::index_of(p.operand)];
      if (auto* n = std::get_if<ast::Number>(&operand.node)) {
        const auto* i = std::get_if<std::int64_t>(&n->value);
        if (n->needs_minus) {  // -9223372036854775808: the literal is INT64_MIN
          n->needs_minus = false;
          operand.span = p.span;
          _val(ctx) = p.operand;
          return;
        }
        if (i && *i == std::numeric_limits<std::int64_t>::min())  // --9223372036854775808
          throw SyntaxError{st.begin() + p.span.begin,
                            "integer literal `9223372036854775808` is too large",
                            p.span.end - p.span.begin};
      }
    }
    _val(ctx) = st.push({ast::Unary{op, p.operand}, p.span});
  };
};

auto const chain_first = [](auto& ctx) { _val(ctx).first = _attr(ctx); };
auto const chain_more = [](auto& ctx) { _val(ctx).rest.push_back(_attr(ctx)); };
auto const push_logical = [](ast::LogicalOp op) {
  return [op](auto& ctx) {
    ChainSyntax& c = _attr(ctx);
    if (c.rest.empty()) {
      _val(ctx) = c.first;
      return;
    }
    ParseState& st = state(ctx);
    const Span span = join(st[c.first].span, st[c.rest.back()].span);
    std::vector<ast::ExprId> operands;
    operands.reserve(c.rest.size() + 1);
    operands.push_back(c.first);
    operands.insert(operands.end(), c.rest.begin(), c.rest.end());
    _val(ctx) = st.push({ast::Logical{op, std::move(operands)}, span});
  };
};

auto const set_callee = [](auto& ctx) { _val(ctx).callee = std::move(_attr(ctx)); };
auto const set_braces = [](auto& ctx) { _val(ctx).params = std::move(_attr(ctx)); };
auto const set_args = [](auto& ctx) {
  _val(ctx).args = std::move(_attr(ctx));
  _val(ctx).has_args = true;
};
auto const arg_param = [](auto& ctx) { _val(ctx).param = std::move(_attr(ctx)); };
auto const arg_input = [](auto& ctx) { _val(ctx).input = _attr(ctx); };

auto const param_name = [](bool in_braces) {
  return [in_braces](auto& ctx) {
    _val(ctx).name = std::move(_attr(ctx));
    _val(ctx).in_braces = in_braces;
  };
};
auto const param_val = [](auto& ctx) { _val(ctx).value = std::move(_attr(ctx)); };

auto const pv_variable = [](auto& ctx) {
  _val(ctx).kind = ast::ParamValue::Kind::Variable;
  _val(ctx).text = std::move(_attr(ctx).text);
};
auto const pv_tuple = [](auto& ctx) {
  _val(ctx).kind = ast::ParamValue::Kind::Tuple;
  _val(ctx).items = std::move(_attr(ctx));
};
auto const pv_string = [](auto& ctx) {
  _val(ctx).kind = ast::ParamValue::Kind::String;
  _val(ctx).text = std::move(_attr(ctx).text);
};
auto const pv_number = [](auto& ctx) {
  const SignedNumber& n = _attr(ctx);
  if (const auto* i = std::get_if<std::int64_t>(&n.value)) {
    _val(ctx).kind = ast::ParamValue::Kind::Int;
    _val(ctx).int_value = *i;
  } else {
    _val(ctx).kind = ast::ParamValue::Kind::Float;
    _val(ctx).float_value = std::get<double>(n.value);
  }
};
auto const pv_word = [](auto& ctx) {
  _val(ctx).kind = ast::ParamValue::Kind::Word;
  _val(ctx).text = std::move(_attr(ctx).text);
};

auto const make_signed = [](auto& ctx) {
  auto& a = _attr(ctx);
  const bool negative = at_c<0>(a);
  const NumberToken& t = at_c<1>(a);
  // 9223372036854775808 arrives as INT64_MIN (needs_minus): the value under
  // a minus sign, too large without one (and not to be negated again).
  if (t.needs_minus && !negative)
    throw SyntaxError{state(ctx).begin() + t.span.begin,
                      "integer literal `9223372036854775808` is too large",
                      t.span.end - t.span.begin};
  if (!negative) {
    _val(ctx).value = t.value;
  } else if (const auto* i = std::get_if<std::int64_t>(&t.value)) {
    _val(ctx).value = t.needs_minus ? *i : -*i;
  } else {
    _val(ctx).value = -std::get<double>(t.value);
  }
};

auto const ti_number = [](auto& ctx) {
  const SignedNumber& n = _attr(ctx);
  const auto* i = std::get_if<std::int64_t>(&n.value);
  if (!i)
    throw SyntaxError{state(ctx).begin() + n.span.begin,
                      "tuple elements are integers or words such as `x`"};
  _val(ctx) = ast::TupleItem{*i, n.span};
};
auto const ti_word = [](auto& ctx) {
  ast::Name& n = _attr(ctx);
  _val(ctx) = ast::TupleItem{std::move(n.text), n.span};
};

auto const imp_path = [](auto& ctx) {
  _val(ctx).path = std::move(_attr(ctx).text);
  _val(ctx).path_span = _attr(ctx).span;
};
auto const set_name = [](auto& ctx) { _val(ctx).name = std::move(_attr(ctx)); };
auto const set_tags = [](auto& ctx) {
  if (_val(ctx).tags) {
    const Span at = _attr(ctx).empty() ? Span{} : _attr(ctx).front().span;
    throw SyntaxError{state(ctx).begin() + at.begin, "a rule takes one `tags(…)` list"};
  }
  _val(ctx).tags = std::move(_attr(ctx));
};
auto const set_priority = [](auto& ctx) {
  const SignedNumber& n = _attr(ctx);
  const char* at = state(ctx).begin() + n.span.begin;
  if (_val(ctx).priority) throw SyntaxError{at, "a rule takes one `priority`"};
  const auto* i = std::get_if<std::int64_t>(&n.value);
  if (!i) throw SyntaxError{at, "a priority is an integer"};
  _val(ctx).priority = *i;
  _val(ctx).priority_span = n.span;
};
// `multiple_clients` is not a keyword (it may name a rule or a variable), so
// it is read as a name and any other name is left for what follows.
auto const set_multiple_clients = [](auto& ctx) {
  const ast::Name& n = _attr(ctx);
  if (n.text != "multiple_clients") {
    _pass(ctx) = false;
    return;
  }
  if (_val(ctx).multiple_clients)
    throw SyntaxError{state(ctx).begin() + n.span.begin, "a rule takes one `multiple_clients`"};
  _val(ctx).multiple_clients = true;
};
auto const set_lhs = [](auto& ctx) { _val(ctx).lhs = _attr(ctx); };
auto const set_rhs = [](auto& ctx) { _val(ctx).rhs = _attr(ctx); };
auto const set_guard = [](auto& ctx) { _val(ctx).guard = _attr(ctx); };
auto const set_op = [](auto& ctx) { _val(ctx).op = std::move(_attr(ctx)); };
auto const set_properties = [](auto& ctx) { _val(ctx).properties = std::move(_attr(ctx)); };
auto const set_type = [](auto& ctx) { _val(ctx).type = std::move(_attr(ctx)); };
auto const set_dtype = [](auto& ctx) { _val(ctx).dtype = std::move(_attr(ctx)); };
auto const set_dims = [](auto& ctx) { _val(ctx).dims = std::move(_attr(ctx)); };
auto const dim_unknown = [](auto& ctx) { _val(ctx).extent = -1; };
auto const dim_extent = [](auto& ctx) {
  const NumberToken& t = _attr(ctx);
  const auto* i = std::get_if<std::int64_t>(&t.value);
  if (!i) throw SyntaxError{state(ctx).begin() + t.span.begin, "an extent is an integer or `?`"};
  _val(ctx).extent = *i;
};
auto const set_value = [](auto& ctx) { _val(ctx).value = _attr(ctx); };
auto const set_values = [](auto& ctx) { _val(ctx).values = std::move(_attr(ctx)); };
auto const add_name = [](auto& ctx) { _val(ctx).names.push_back(std::move(_attr(ctx))); };
auto const set_params = [](auto& ctx) { _val(ctx).params = std::move(_attr(ctx)); };
auto const add_option = [](auto& ctx) { _val(ctx).options.push_back(std::move(_attr(ctx))); };
auto const end_block = [](auto&) {};
auto const cv_number = [](auto& ctx) {
  const SignedNumber& n = _attr(ctx);
  std::visit([&](auto v) { _val(ctx) = ast::ConstValue{v, n.span}; }, n.value);
};
auto const cv_word = [](auto& ctx) {
  const ast::Name& n = _attr(ctx);
  if (n.text != "true" && n.text != "false")
    throw SyntaxError{state(ctx).begin() + n.span.begin,
                      fmt::format("a constant's values are numbers, `true` or `false`, not `{}`",
                                  n.text)};
  _val(ctx) = ast::ConstValue{n.text == "true", n.span};
};
auto const cv_one = [](auto& ctx) { _val(ctx).items.push_back(std::move(_attr(ctx))); };
auto const cv_list = [](auto& ctx) { _val(ctx).items = std::move(_attr(ctx)); };
auto const set_const_values = [](auto& ctx) {
  _val(ctx).values = std::move(_attr(ctx).items);
  _val(ctx).values_span = _attr(ctx).span;
};
auto const emit = [](auto& ctx) {
  state(ctx).file().statements.emplace_back(std::move(_attr(ctx)));
};

// ---------------------------------------------------------------------------
// Expressions, loosest first:
//   or < and < not < comparisons (non-associative) < + - < * / < unary - < ** (right)

auto const expr_def = nest[or_expr];
auto const or_chain_def = and_expr[chain_first] >> *(tok("or") > and_expr[chain_more]);
auto const or_expr_def = or_chain[push_logical(ast::LogicalOp::Or)];
auto const and_chain_def = not_expr[chain_first] >> *(tok("and") > not_expr[chain_more]);
auto const and_expr_def = and_chain[push_logical(ast::LogicalOp::And)];
auto const not_prefix_def = spanned[tok("not") > nest[not_expr][set_operand]];
auto const not_expr_def = not_prefix[push_unary(ast::UnaryOp::Not)] | cmp_expr[copy];

auto const cmp_op_def =
    (tok("==") >> x3::attr(ast::BinaryOp::Eq)) | (tok("!=") >> x3::attr(ast::BinaryOp::Ne)) |
    (tok("<=") >> x3::attr(ast::BinaryOp::Le)) | (tok(">=") >> x3::attr(ast::BinaryOp::Ge)) |
    (tok("<") >> x3::attr(ast::BinaryOp::Lt)) | (tok(">") >> x3::attr(ast::BinaryOp::Gt));
auto const cmp_expr_def = add_expr[copy] >> -(cmp_op > add_expr)[fold_binary];

auto const add_op_def =
    (tok("+") >> x3::attr(ast::BinaryOp::Add)) | (tok("-") >> x3::attr(ast::BinaryOp::Sub));
auto const add_expr_def = mul_expr[copy] >> *(add_op > mul_expr)[fold_binary];

auto const mul_op_def =
    (tok("*", "*") >> x3::attr(ast::BinaryOp::Mul)) | (tok("/") >> x3::attr(ast::BinaryOp::Div));
auto const mul_expr_def = unary_expr[copy] >> *(mul_op > unary_expr)[fold_binary];

auto const neg_prefix_def = spanned[tok("-") > nest[unary_expr][set_operand]];
auto const unary_expr_def = neg_prefix[push_unary(ast::UnaryOp::Neg)] | power_expr[copy];
auto const power_expr_def = primary[copy] >> -(tok("**") > nest[unary_expr])[fold_pow];

auto const primary_def = number[push_number] | qvar[push_identifier(ast::Sigil::Question)] |
                         ref[push_identifier(ast::Sigil::Percent)] | call_syntax[push_call] |
                         (tok("(") > expr > tok(")"))[copy];

// Calls: positional arguments are inputs; `name=value` ones (and all braced
// ones) are parameters.
auto const call_syntax_def =
    spanned[name[set_callee] >>
            -((brace_params[set_braces] > call_args[set_args]) | call_args[set_args])];
auto const call_args_def = tok("(") > call_args_rest;
auto const call_args_rest_def =
    tok(")") | ((call_arg >> *(tok(",") > call_arg)) > tok(")", {}, "`,` or `)`"));
auto const call_arg_def = named_arg[arg_param] | expr[arg_input];
auto const named_arg_def =
    spanned[(name >> tok("=", "=>"))[param_name(false)] > param_value[param_val]];
auto const brace_params_def = tok("{") > brace_params_rest;
auto const brace_params_rest_def =
    tok("}") | ((brace_param >> *(tok(",") > brace_param)) > tok("}", {}, "`,` or `}`"));
auto const brace_param_def =
    spanned[name[param_name(true)] > tok("=", "=>", "`=`") > param_value[param_val]];

auto const param_value_def =
    spanned[qvar[pv_variable] | tuple_items[pv_tuple] | string_lit[pv_string] |
            signed_number[pv_number] | name[pv_word]];
auto const tuple_items_def = tok("(") > tuple_rest;
auto const tuple_rest_def = tok(")") | ((tuple_item >> *((tok(",") >> !tok(")")) > tuple_item)) >
                                        -tok(",") > tok(")", {}, "`,` or `)`"));
auto const tuple_item_def = signed_number[ti_number] | name[ti_word];
auto const signed_number_def = spanned[(x3::matches[tok("-")] >> number)[make_signed]];

// Statements.
auto const import_stmt_def = spanned[tok("import") > string_lit[imp_path]];
auto const tags_clause_def = tok("tags") > tok("(") > tags_rest;
auto const tags_rest_def = tok(")") | ((name >> *(tok(",") > name)) > tok(")", {}, "`,` or `)`"));
auto const ruleset_stmt_def = spanned[tok("ruleset") > name[set_name] > -tags_clause[set_tags]];
auto const rule_stmt_def =
    spanned[tok("rule") > name[set_name] >
            *(tags_clause[set_tags] | (tok("priority") > signed_number)[set_priority] |
              name[set_multiple_clients]) >
            tok(":", {}, "`:`") > expr[set_lhs] > tok("=>") > expr[set_rhs] >
            -(tok("where") > expr[set_guard])];
auto const declare_stmt_def =
    spanned[tok("declare") > name[set_op] > tok(":") > property_list[set_properties]];
auto const property_list_def = name >> *(tok(",") > name);
auto const input_stmt_def = spanned[tok("input") > input_name[set_name] > type_spec[set_type]];
auto const input_name_def = name | ref;
auto const type_spec_def = spanned[name[set_dtype] > -(tok("[") > dims_rest[set_dims])];
auto const dims_rest_def = tok("]") | ((dim >> *(tok(",") > dim)) > tok("]", {}, "`,` or `]`"));
auto const dim_def = spanned[tok("?")[dim_unknown] | number[dim_extent]];
auto const binding_stmt_def = spanned[(input_name >> tok("=", "=>"))[set_name] > expr[set_value]];
auto const output_stmt_def = spanned[tok("output") > output_list[set_values]];
auto const output_list_def = expr >> *(tok(",") > expr);

// `(p, q) = f(x)`: a line that starts with `(` can only be this statement.
auto const tuple_binding_stmt_def =
    spanned[tok("(") > input_name[add_name] > *(tok(",") > input_name[add_name]) >
            tok(")", {}, "`,` or `)`") > tok("=", "=>", "`=`") > expr[set_value]];
// `def NAME(PARAM, …) [option=value …] {`: the body follows as statements, up to `}`.
auto const def_stmt_def =
    spanned[tok("def") > name[set_name] > tok("(") > def_params_rest[set_params] >
            *named_arg[add_option] > tok("{", {}, "an option such as `inline=true`, or `{`")];
auto const def_params_rest_def =
    tok(")") | ((def_param >> *(tok(",") > def_param)) > tok(")", {}, "`,` or `)`"));
auto const def_param_def = name[set_name] > type_spec[set_type];
auto const block_end_stmt_def = spanned[tok("}")[end_block]];
// `const NAME TYPE = VALUE` or `= [VALUE, …]`: values in row-major order.
auto const const_stmt_def =
    spanned[tok("const") > input_name[set_name] > type_spec[set_type] >
            tok("=", "=>", "`=`") > const_values[set_const_values]];
auto const const_values_def =
    spanned[(tok("[") > const_list_rest[cv_list]) | const_value[cv_one]];
auto const const_list_rest_def =
    tok("]") | ((const_value >> *(tok(",") > const_value)) > tok("]", {}, "`,` or `]`"));
auto const const_value_def = signed_number[cv_number] | name[cv_word];

auto const statement_rule_def = import_stmt[emit] | ruleset_stmt[emit] | rule_stmt[emit] |
                                declare_stmt[emit] | input_stmt[emit] | output_stmt[emit] |
                                def_stmt[emit] | block_end_stmt[emit] | const_stmt[emit] |
                                tuple_binding_stmt[emit] | binding_stmt[emit];

BOOST_SPIRIT_DEFINE(call_args_rest, brace_params_rest, tuple_rest, tags_rest, dims_rest,
                    const_list_rest)
BOOST_SPIRIT_DEFINE(expr, or_expr, or_chain, and_expr, and_chain, not_expr, not_prefix, cmp_expr,
                    cmp_op, add_expr, add_op, mul_expr, mul_op, unary_expr, neg_prefix, power_expr,
                    primary, call_syntax, call_args, call_arg, named_arg, brace_params, brace_param,
                    param_value, tuple_items, tuple_item, signed_number, import_stmt, ruleset_stmt,
                    tags_clause, rule_stmt, declare_stmt, property_list, input_stmt, input_name,
                    type_spec, dim, binding_stmt, output_stmt, output_list, tuple_binding_stmt,
                    def_stmt, def_params_rest, def_param, block_end_stmt, const_stmt,
                    const_values, const_value, statement_rule)

statement_type const& statement() {
  return statement_rule;
}

}  // namespace rw::dsl::grammar

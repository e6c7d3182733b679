// The grammar: precedence and associativity, literals, comments, calls and
// parameters, statements, spans, error recovery and the nesting limits.
#include <cmath>

#include <catch2/catch.hpp>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/parse.hpp"

using namespace rw::dsl;

namespace {

ParsedFile parse_text(std::string text, std::string name = "t.rules") {
  return parse(SourceFile::make(std::move(name), std::move(text)));
}

// Parses `y = <text>` and returns the expression with every operator
// application parenthesised.
std::string shape_of(const std::string& text) {
  const ParsedFile p = parse_text("y = " + text);
  INFO(render(p.diagnostics));
  REQUIRE(p.ok());
  REQUIRE(p.ast.statements.size() == 1);
  return ast::format_expr(p.ast, std::get<ast::Binding>(p.ast.statements[0]).value, true);
}

const ast::Expr& value_expr(const ParsedFile& p, std::size_t statement = 0) {
  return p.ast[std::get<ast::Binding>(p.ast.statements.at(statement)).value];
}

std::variant<std::int64_t, double> number_of(const std::string& text) {
  const ParsedFile p = parse_text("y = " + text);
  INFO(text << "\n" << render(p.diagnostics));
  REQUIRE(p.ok());
  return std::get<ast::Number>(value_expr(p).node).value;
}

std::string first_error(const std::string& text) {
  const ParsedFile p = parse_text(text);
  REQUIRE_FALSE(p.diagnostics.empty());
  return p.diagnostics.front().message;
}

}  // namespace

TEST_CASE("operators bind with the usual precedence", "[dsl]") {
  CHECK(shape_of("a + b * c") == "(a + (b * c))");
  CHECK(shape_of("a * b + c") == "((a * b) + c)");
  CHECK(shape_of("a + b / c - d") == "((a + (b / c)) - d)");
  CHECK(shape_of("(a + b) * c") == "((a + b) * c)");
  CHECK(shape_of("a < b + c") == "(a < (b + c))");
  CHECK(shape_of("a + b == c * d") == "((a + b) == (c * d))");
  CHECK(shape_of("a <= b") == "(a <= b)");
  CHECK(shape_of("a >= b") == "(a >= b)");
  CHECK(shape_of("a != b") == "(a != b)");
  CHECK(shape_of("a > -b") == "(a > (-b))");
  CHECK(shape_of("not a and b or c") == "(((not a) and b) or c)");
  CHECK(shape_of("a or b and c") == "(a or (b and c))");
  CHECK(shape_of("not x < 1") == "(not (x < 1))");
}

TEST_CASE("minus and division associate left, power right", "[dsl]") {
  CHECK(shape_of("a - b - c") == "((a - b) - c)");
  CHECK(shape_of("a / b / c") == "((a / b) / c)");
  CHECK(shape_of("a - b + c") == "((a - b) + c)");
  CHECK(shape_of("a ** b ** c") == "(a ** (b ** c))");
  CHECK(shape_of("(a ** b) ** c") == "((a ** b) ** c)");
}

TEST_CASE("unary minus binds tighter than * and looser than **", "[dsl]") {
  CHECK(shape_of("-a ** 2") == "(-(a ** 2))");
  CHECK(shape_of("2 ** -1") == "(2 ** (-1))");
  CHECK(shape_of("a ** -b ** c") == "(a ** (-(b ** c)))");
  CHECK(shape_of("-a * b") == "((-a) * b)");
  CHECK(shape_of("a * -b") == "(a * (-b))");
  CHECK(shape_of("--a") == "(-(-a))");
  CHECK(shape_of("a--b") == "(a - (-b))");
  CHECK(shape_of("(-a) ** 2") == "((-a) ** 2)");
}

TEST_CASE("and and or chains are one node each", "[dsl]") {
  const ParsedFile p = parse_text("y = a and b and c or d");
  REQUIRE(p.ok());
  const auto& top = std::get<ast::Logical>(value_expr(p).node);
  REQUIRE(top.op == ast::LogicalOp::Or);
  REQUIRE(top.operands.size() == 2);
  const auto& left = std::get<ast::Logical>(p.ast[top.operands[0]].node);
  REQUIRE(left.op == ast::LogicalOp::And);
  REQUIRE(left.operands.size() == 3);
}

TEST_CASE("printing with fewest parentheses parses back to the same tree", "[dsl]") {
  for (const char* text : {"a - (b - c)", "(a - b) - c", "-(a + b) * c ** -d", "(a ** b) ** c",
                           "a / (b * c)", "not (a and b) or c", "-(-a)", "f(x, axis=(x, 0)) + 1",
                           "(a < b) == c", "sum{axis=?a}(x ** 2.5)"}) {
    const ParsedFile p = parse_text(std::string("y = ") + text);
    REQUIRE(p.ok());
    const auto id = std::get<ast::Binding>(p.ast.statements[0]).value;
    const std::string minimal = ast::format_expr(p.ast, id);
    INFO(text << " printed as " << minimal);
    CHECK(shape_of(minimal) == ast::format_expr(p.ast, id, true));
  }
  CHECK(ast::format_expr(parse_text("y = (a - b) - c").ast, ast::ExprId{4}) == "a - b - c");
}

TEST_CASE("numeric literals: integers, floats, exponents, inf and nan", "[dsl]") {
  using V = std::variant<std::int64_t, double>;
  CHECK(number_of("0") == V{std::int64_t{0}});
  CHECK(number_of("42") == V{std::int64_t{42}});
  CHECK(number_of("9223372036854775807") == V{std::int64_t{9223372036854775807}});
  CHECK(number_of("1.0") == V{1.0});
  CHECK(number_of("1.") == V{1.0});
  CHECK(number_of(".5") == V{0.5});
  CHECK(number_of("1e3") == V{1000.0});
  CHECK(number_of("1e-3") == V{0.001});
  CHECK(number_of("2.5E+2") == V{250.0});
  CHECK(number_of("6.02e23") == V{6.02e23});
  CHECK(number_of("inf") == V{std::numeric_limits<double>::infinity()});
  CHECK(std::isnan(std::get<double>(number_of("nan"))));
  // A minus sign is an operator applied to the literal.
  const ParsedFile p = parse_text("y = -1e-3");
  const auto& neg = std::get<ast::Unary>(value_expr(p).node);
  REQUIRE(neg.op == ast::UnaryOp::Neg);
  CHECK(std::get<ast::Number>(p.ast[neg.operand].node).value == V{0.001});
}

TEST_CASE("malformed literals are refused", "[dsl]") {
  CHECK(first_error("y = 99999999999999999999") ==
        "integer literal `99999999999999999999` is too large");
  CHECK(first_error("y = 1e999") == "float literal `1e999` is out of range");
  CHECK(first_error("y = 1x") == "expected an expression, found `1x`");
  CHECK(first_error("y = 1e") == "expected an expression, found `1e`");
  CHECK(shape_of("infinity") == "infinity");  // a name, not `inf` followed by a name
}

TEST_CASE("lexical corners: underflow, the caret of a bad literal, a byte-order mark", "[dsl]") {
  using V = std::variant<std::int64_t, double>;
  // The smallest int64 can be written: the minus sign is folded into 2^63.
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  CHECK(number_of("-9223372036854775808") == V{min});
  CHECK(number_of("-09223372036854775808") == V{min});
  CHECK(first_error("y = 9223372036854775808") ==
        "integer literal `9223372036854775808` is too large");
  CHECK(first_error("y = --9223372036854775808") ==
        "integer literal `9223372036854775808` is too large");
  CHECK(first_error("y = 1 - 9223372036854775808") ==
        "integer literal `9223372036854775808` is too large");
  // A float too small to represent reads as zero (or a subnormal), as in C.
  CHECK(number_of("1e-400") == V{0.0});
  CHECK(number_of("4e-320") == V{4e-320});
  // The caret of a literal out of range covers the whole literal.
  const ParsedFile big = parse_text("y = 1e+999");
  REQUIRE(big.diagnostics.size() == 1);
  CHECK(big.diagnostics[0].message == "float literal `1e+999` is out of range");
  CHECK(big.diagnostics[0].span.end - big.diagnostics[0].span.begin == 6);
  // A UTF-8 byte-order mark at the start of a file is not text.
  const ParsedFile bom = parse_text("\xEF\xBB\xBFy = 1\n");
  INFO(render(bom.diagnostics));
  CHECK(bom.diagnostics.empty());
  CHECK(bom.ast.statements.size() == 1);
  // A lone CR ends a line, as LF and CRLF do: comments stop there, and
  // locations count it.
  const ParsedFile cr = parse_text("y = 1\r# a comment\rz = 2\rw = (\r");
  REQUIRE(cr.ast.statements.size() == 2);
  REQUIRE(cr.diagnostics.size() == 1);
  CHECK(cr.diagnostics[0].location().line == 4);
}

TEST_CASE("comments run to the end of the line, anywhere", "[dsl]") {
  const ParsedFile p = parse_text(
      "# a file comment\n"
      "rule r:   # after the colon\n"
      "  log(1 + # inside a call\n"
      "      x)  # before the arrow\n"
      "  => log1p(x)  # after\n"
      "import \"a#b.rules\"  # the # in a string is kept\n");
  INFO(render(p.diagnostics));
  REQUIRE(p.ok());
  REQUIRE(p.ast.statements.size() == 2);
  const auto& r = std::get<ast::RuleDecl>(p.ast.statements[0]);
  CHECK(ast::format_expr(p.ast, r.lhs) == "log(1 + x)");
  CHECK(std::get<ast::Import>(p.ast.statements[1]).path == "a#b.rules");
}

TEST_CASE("calls: positional arguments are inputs, name=value ones are parameters", "[dsl]") {
  const ParsedFile p = parse_text(
      "y = f(x, axis=a, v=?b, keep=true, dtype=float32, s=\"hi\\n\", t=(1, -2, x, i), e=(), "
      "one=(0,), n=-1.5, k=-3, g(z) == 2)");
  INFO(render(p.diagnostics));
  REQUIRE(p.ok());
  const auto& c = std::get<ast::Call>(value_expr(p).node);
  CHECK(c.callee.text == "f");
  REQUIRE(c.inputs.size() == 2);
  CHECK(ast::format_expr(p.ast, c.inputs[1]) == "g(z) == 2");
  REQUIRE(c.params.size() == 10);
  using K = ast::ParamValue::Kind;
  CHECK((c.params[0].name.text == "axis" && c.params[0].value.kind == K::Word &&
         c.params[0].value.text == "a"));
  CHECK((c.params[1].value.kind == K::Variable && c.params[1].value.text == "b"));
  CHECK((c.params[2].value.kind == K::Word && c.params[2].value.text == "true"));
  CHECK((c.params[4].value.kind == K::String && c.params[4].value.text == "hi\n"));
  const auto& t = c.params[5].value;
  REQUIRE(t.kind == K::Tuple);
  REQUIRE(t.items.size() == 4);
  CHECK(std::get<std::int64_t>(t.items[1].value) == -2);
  CHECK(std::get<std::string>(t.items[2].value) == "x");
  CHECK((c.params[6].value.kind == K::Tuple && c.params[6].value.items.empty()));
  CHECK(c.params[7].value.items.size() == 1);
  CHECK((c.params[8].value.kind == K::Float && c.params[8].value.float_value == -1.5));
  CHECK((c.params[9].value.kind == K::Int && c.params[9].value.int_value == -3));
  for (const ast::Param& q : c.params) CHECK_FALSE(q.in_braces);
}

TEST_CASE("Aesara-style braces hold parameters", "[dsl]") {
  const ParsedFile p = parse_text("%3 = dimshuffle{order=(x,0)}(b1)\n%5 = sum{axis=all}(%4)\n");
  REQUIRE(p.ok());
  const auto& c = std::get<ast::Call>(value_expr(p, 0).node);
  REQUIRE(c.params.size() == 1);
  CHECK(c.params[0].in_braces);
  CHECK(ast::format_param_value(c.params[0].value) == "(x, 0)");
  CHECK(std::get<ast::Binding>(p.ast.statements[0]).name.text == "%3");
  const auto& s = std::get<ast::Call>(value_expr(p, 1).node);
  const auto& in = std::get<ast::Identifier>(p.ast[s.inputs[0]].node);
  CHECK((in.name == "%4" && in.sigil == ast::Sigil::Percent));
  CHECK(first_error("y = f{a=1}") == "expected `(`, found end of file");
  CHECK(first_error("y = f{a}(x)") == "expected `=`, found `}`");
}

TEST_CASE("pattern variables may be written ?x", "[dsl]") {
  const ParsedFile p = parse_text("rule r: ?x * 1 => x");
  REQUIRE(p.ok());
  const auto& r = std::get<ast::RuleDecl>(p.ast.statements[0]);
  const auto& mul = std::get<ast::Binary>(p.ast[r.lhs].node);
  const auto& x = std::get<ast::Identifier>(p.ast[mul.lhs].node);
  CHECK((x.name == "x" && x.sigil == ast::Sigil::Question));
  CHECK(first_error("rule r: ? x => x") == "expected a variable name after `?`");
}

TEST_CASE("every statement form parses", "[dsl]") {
  const ParsedFile p = parse_text(
      "import \"std/base.rules\"\n"
      "ruleset stabilize tags(stabilize, fast_run)\n"
      "ruleset plain\n"
      "declare add: commutative, associative\n"
      "rule r tags(extra) priority -3: x * 1 => x where float(x) and rank(x) == 2\n"
      "rule q priority 7 tags(a, b):\n  exp(log(x))\n  => x\n"
      "input w f32[3, ?]\n"
      "input s f64\n"
      "input e bool[]\n"
      "out = w * 2.0\n"
      "output out, exp(w)\n");
  INFO(render(p.diagnostics));
  REQUIRE(p.ok());
  REQUIRE(p.ast.statements.size() == 11);
  CHECK(std::get<ast::Import>(p.ast.statements[0]).path == "std/base.rules");
  const auto& rs = std::get<ast::RulesetDecl>(p.ast.statements[1]);
  REQUIRE(rs.tags);
  CHECK(rs.tags->size() == 2);
  CHECK_FALSE(std::get<ast::RulesetDecl>(p.ast.statements[2]).tags);
  const auto& d = std::get<ast::Declare>(p.ast.statements[3]);
  CHECK((d.op.text == "add" && d.properties.size() == 2));
  const auto& r = std::get<ast::RuleDecl>(p.ast.statements[4]);
  CHECK(r.priority == -3);
  REQUIRE(r.guard);
  CHECK(ast::format_expr(p.ast, *r.guard) == "float(x) and rank(x) == 2");
  const auto& q = std::get<ast::RuleDecl>(p.ast.statements[5]);
  CHECK((q.priority == 7 && q.tags->size() == 2 && !q.guard));
  const auto& w = std::get<ast::InputDecl>(p.ast.statements[6]);
  REQUIRE(w.type.dims.size() == 2);
  CHECK((w.type.dims[0].extent == 3 && w.type.dims[1].extent == -1));
  CHECK(std::get<ast::InputDecl>(p.ast.statements[7]).type.dims.empty());
  CHECK(std::get<ast::InputDecl>(p.ast.statements[8]).type.dims.empty());
  CHECK(std::get<ast::OutputDecl>(p.ast.statements[10]).values.size() == 2);
}

TEST_CASE("spans cover what was written", "[dsl]") {
  const auto src =
      SourceFile::make("s.rules", "rule r:  log( 1 + x )  =>  log1p(x)   # c\nrule q: a => b\n");
  const ParsedFile p = parse(src);
  REQUIRE(p.ok());
  const auto& r = std::get<ast::RuleDecl>(p.ast.statements[0]);
  CHECK(src->slice(r.span) == "rule r:  log( 1 + x )  =>  log1p(x)");
  CHECK(src->slice(r.name.span) == "r");
  CHECK(src->slice(p.ast[r.lhs].span) == "log( 1 + x )");
  const auto& log = std::get<ast::Call>(p.ast[r.lhs].node);
  CHECK(src->slice(p.ast[log.inputs[0]].span) == "1 + x");
  CHECK(src->slice(p.ast[r.rhs].span) == "log1p(x)");
  CHECK(src->slice(ast::span_of(p.ast.statements[1])) == "rule q: a => b");
  const auto g = parse(SourceFile::make("g.graph", "y = f(x, axis = (0, 1))\n"));
  const auto& c = std::get<ast::Call>(value_expr(g).node);
  CHECK(g.source->slice(c.params[0].span) == "axis = (0, 1)");
  CHECK(g.source->slice(c.params[0].value.span) == "(0, 1)");
  CHECK(g.source->slice(c.params[0].value.items[1].span) == "1");
}

TEST_CASE("expression nodes come after their children", "[dsl]") {
  const ParsedFile p = parse_text("rule r: f(a + b * c, -d) => g(x) where u(a) or not v(b)");
  REQUIRE(p.ok());
  for (std::size_t i = 0; i < p.ast.exprs.size(); ++i) {
    const auto& e = p.ast.exprs[i];
    std::visit(
        [&](const auto& n) {
          using T = std::decay_t<decltype(n)>;
          auto before = [&](ast::ExprId c) { CHECK(ast::index_of(c) < i); };
          if constexpr (std::is_same_v<T, ast::Binary>) {
            before(n.lhs);
            before(n.rhs);
          } else if constexpr (std::is_same_v<T, ast::Unary>) {
            before(n.operand);
          } else if constexpr (std::is_same_v<T, ast::Logical>) {
            for (auto c : n.operands) before(c);
          } else if constexpr (std::is_same_v<T, ast::Call>) {
            for (auto c : n.inputs) before(c);
          }
        },
        e.node);
  }
}

TEST_CASE("syntax errors say what was expected and what was found", "[dsl]") {
  CHECK(first_error("rule r log(x) => x") == "expected `:`, found `log`");
  CHECK(first_error("rule r: log(x) -> x") == "expected an expression, found `>`");
  CHECK(first_error("rule r: log(x) x") == "expected `=>`, found `x`");
  CHECK(first_error("rule r: log(x, => x") == "expected an argument, found `=>`");
  CHECK(first_error("rule r: log(x => y") == "expected `,` or `)`, found `=>`");
  CHECK(first_error("rule r: (a + b => c") == "expected `)`, found `=>`");
  CHECK(first_error("rule : x => y") == "expected a name, found `:`");
  CHECK(first_error("rule r: a + => y") == "expected an expression, found `=>`");
  CHECK(first_error("rule r: x => y where") == "expected an expression, found end of file");
  CHECK(first_error("ruleset s tags(a b)") == "expected `,` or `)`, found `b`");
  CHECK(first_error("import rules") == "expected a quoted string, found `rules`");
  CHECK(first_error("import \"a.rules") == "unterminated string");
  CHECK(first_error("import \"a\\q\"") ==
        "unknown escape in string; use `\\\"`, `\\\\`, `\\n` or `\\t`");
  CHECK(first_error("declare add commutative") == "expected `:`, found `commutative`");
  CHECK(first_error("input x f64[3,") == "expected an extent or `?`, found end of file");
  CHECK(first_error("y = f(t=(1, =))") == "expected an integer or a word such as `x`, found `=`");
  CHECK(first_error("ruleset s tags(a,)") == "expected a name, found `)`");
  CHECK(first_error("input x f64[1.5]") == "an extent is an integer or `?`");
  CHECK(first_error("y = f(t=(1.5))") == "tuple elements are integers or words such as `x`");
  CHECK(first_error("rule r priority 1.5: a => b") == "a priority is an integer");
  CHECK(first_error("rule r priority 1 priority 2: a => b") == "a rule takes one `priority`");
  CHECK(first_error("y = %") == "expected a name or number after `%`");
  CHECK(first_error("where x") ==
        "expected a statement (`rule`, `ruleset`, `import`, `declare`, `input`, `output`, `const` or "
        "`NAME = …`), found `where`");
  CHECK(first_error("y == 2") ==
        "expected a statement (`rule`, `ruleset`, `import`, `declare`, `input`, `output`, `const` or "
        "`NAME = …`), found `y`");
  CHECK(first_error("y = a < b < c\n") ==
        "expected a statement (`rule`, `ruleset`, `import`, `declare`, `input`, `output`, `const` or "
        "`NAME = …`), found `<`");
  CHECK(first_error("y = \x01") == "expected an expression, found character U+0001");
  CHECK(first_error("y = \xc3\xa9") == "expected an expression, found a non-ASCII character");
}

TEST_CASE("a missing token at the end of a line is blamed on that line", "[dsl]") {
  const ParsedFile p = parse_text("rule r: log(x =>\nrule q: a => b\n");
  REQUIRE(p.diagnostics.size() == 1);
  CHECK(p.diagnostics[0].render() ==
        "t.rules:1:15: error: expected `,` or `)`, found `=>`\n"
        "rule r: log(x =>\n"
        "              ^~\n");
  const ParsedFile e = parse_text("rule r: log(x\n\nrule q: a => b\n");
  CHECK(e.diagnostics[0].render() ==
        "t.rules:1:14: error: expected `,` or `)`, found end of line\n"
        "rule r: log(x\n"
        "             ^\n");
  REQUIRE(e.ast.statements.size() == 1);
}

TEST_CASE("errors are collected statement by statement; good statements stay", "[dsl]") {
  const ParsedFile p = parse_text(
      "rule a: x => y\n"
      "rule b: log(x => y\n"
      "   where float(x)\n"
      "rule c: x * 1 => x\n"
      "rule d x => x\n"
      "  junk junk\n"
      "ruleset s\n"
      "rule e: 99999999999999999999 => x\n"
      "rule f: a => b\n");
  REQUIRE(p.diagnostics.size() == 3);
  CHECK(p.diagnostics[0].location() == LineCol{2, 15});
  CHECK(p.diagnostics[1].location() == LineCol{5, 8});
  CHECK(p.diagnostics[2].location() == LineCol{8, 9});
  std::vector<std::string> kept;
  for (const auto& s : p.ast.statements)
    if (const auto* r = std::get_if<ast::RuleDecl>(&s)) kept.push_back(r->name.text);
  CHECK(kept == std::vector<std::string>{"a", "c", "f"});
  CHECK(p.ast.statements.size() == 4);
}

TEST_CASE("a file with very many errors stops after the limit", "[dsl]") {
  std::string text;
  for (int i = 0; i < 200; ++i) text += "rule : x\n";
  const ParsedFile p = parse_text(text);
  CHECK(p.diagnostics.size() == kMaxErrorsPerFile);
  REQUIRE(p.diagnostics.back().notes.size() == 1);
  CHECK(p.diagnostics.back().notes[0].message == "too many errors (50); stopping here");
}

TEST_CASE("deep nesting is refused at the limit instead of overflowing the stack", "[dsl]") {
  const std::string deep = std::string(100000, '(') + "x" + std::string(100000, ')');
  const ParsedFile p = parse_text("y = " + deep + "\ny = 1\n", "deep.graph");
  REQUIRE(p.diagnostics.size() == 1);
  CHECK(p.diagnostics[0].message == "expression nests too deeply (the limit is 100 levels)");
  CHECK(p.diagnostics[0].location() == LineCol{1, 105});  // where level 101 starts
  REQUIRE(p.ast.statements.size() == 1);                  // parsing went on after the error

  const std::string ok =
      std::string(kMaxNesting - 1, '(') + "x" + std::string(kMaxNesting - 1, ')');
  CHECK(shape_of(ok) == "x");
  const std::string over = std::string(kMaxNesting, '(') + "x" + std::string(kMaxNesting, ')');
  CHECK(first_error("y = " + over) == "expression nests too deeply (the limit is 100 levels)");

  for (const std::string& text : {"y = " + std::string(100000, '-') + "x",
                                  "y = " + std::string(100000, '?'), "rule r: x => y where " + [] {
                                    std::string s;
                                    for (int i = 0; i < 100000; ++i) s += "not ";
                                    return s + "f(x)";
                                  }()}) {
    const ParsedFile q = parse_text(text);
    REQUIRE_FALSE(q.diagnostics.empty());
  }
  std::string calls, pows;
  for (int i = 0; i < 100000; ++i) calls += "f(";
  for (int i = 0; i < 100000; ++i) pows += "x ** ";
  CHECK(first_error("y = " + calls + "x") ==
        "expression nests too deeply (the limit is 100 levels)");
  CHECK(first_error("y = " + pows + "x") ==
        "expression nests too deeply (the limit is 100 levels)");
}

TEST_CASE("long chains are refused beyond the tree depth limit", "[dsl]") {
  auto chain = [](int n) {
    std::string s = "y = x0";
    for (int i = 1; i < n; ++i) s += " + x" + std::to_string(i);
    return s;
  };
  REQUIRE(parse_text(chain(kMaxTreeDepth)).ok());
  CHECK(first_error(chain(kMaxTreeDepth + 1)) ==
        "expression is too deep (the limit is a tree 500 levels tall)");
  CHECK(first_error(chain(100000)) ==
        "expression is too deep (the limit is a tree 500 levels tall)");
}

TEST_CASE("names of statements that failed to parse are remembered", "[dsl]") {
  const ParsedFile p = parse_text("input x f64[?\n%2 = exp(x\ny = (\nrule r: x =>\nz = 1\n");
  CHECK(p.failed_names == std::vector<std::string>{"x", "%2", "y"});
  REQUIRE(p.ast.statements.size() == 1);
}

TEST_CASE("an empty list says what could start it", "[dsl]") {
  CHECK(first_error("y = f(=)") == "expected an argument or `)`, found `=`");
  CHECK(first_error("y = f{)(x)") == "expected a parameter `name=value` or `}`, found `)`");
  CHECK(first_error("y = f(t=(=))") ==
        "expected an integer, a word such as `x`, or `)`, found `=`");
  CHECK(first_error("input x f64[=]") == "expected an extent, `?` or `]`, found `=`");
  CHECK(first_error("ruleset s tags(=)") == "expected a tag or `)`, found `=`");
  REQUIRE(parse_text("y = f()\ny = g{}()\nruleset s tags()\ninput z f64[]\ny = f(t=())").ok());
}

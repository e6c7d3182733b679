// The examples of docs/rewrite.md: each block between `// [doc:name]` and
// `// [/doc]` is compiled and run here, and must appear verbatim (dedented) in
// the page, so the page cannot drift from code that works.
#include <fstream>
#include <regex>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/pattern_rewriter.hpp"
#include "engine/rewrite/relation_rewriter.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/substitution.hpp"
#include "engine/rewrite/walking.hpp"
#include "support/toy_ops.hpp"

using namespace rw::test;  // the toy ops: mul, div, exp, fvec, fconst, …

namespace {

// [doc:node-rewriter]
/// (x * y) / y -> x and (x * y) / x -> y.
class DivCancel final : public rw::NodeRewriter {
 public:
  DivCancel() : NodeRewriter("div_cancel", {"div"}, /*depth=*/1) {}

  rw::RewriteResult transform(rw::FunctionGraph&, rw::Apply& node,
                              const rw::RewriteContext&) const override {
    const rw::Apply* num = node.input(0)->owner();
    if (!num || num->op().name() != "mul")
      return rw::RewriteResult::fail("the numerator is not a product");
    if (num->input(1) == node.input(1)) return rw::RewriteResult::replace_output(num->input(0));
    if (num->input(0) == node.input(1)) return rw::RewriteResult::replace_output(num->input(1));
    return rw::RewriteResult::fail("the denominator is not a factor of the numerator");
  }
};
// [/doc]

std::string read(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in.good());
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// The snippets of this file, dedented, by name.
std::map<std::string, std::string> snippets() {
  const std::string src = read(std::string(RW_SOURCE_DIR) + "/tests/engine/rewrite/test_docs.cpp");
  std::map<std::string, std::string> out;
  const std::regex open(R"(^( *)// \[doc:([a-z-]+)\]$)");
  std::istringstream lines(src);
  std::string line, name, body;
  std::size_t indent = 0;
  bool in = false;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (!in && std::regex_match(line, m, open)) {
      in = true;
      name = m[2];
      indent = m[1].length();
      body.clear();
    } else if (in && line.find("// [/doc]") != std::string::npos) {
      in = false;
      out[name] = body;
    } else if (in) {
      body += (line.size() >= indent ? line.substr(indent) : std::string()) + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("docs: the Simplify rewriter in an equilibrium", "[rewrite]") {
  rw::Var x = fvec("x"), y = fvec("y");
  // [doc:equilibrium]
  rw::FunctionGraph fg({x, y}, {div(mul(x, y), y)});
  rw::EquilibriumRewriter simplify("simplify", {std::make_shared<DivCancel>()});
  simplify.with_max_use_ratio(4).with_node_limit(100'000);
  const rw::PassReport report = simplify.rewrite(fg);
  // report.stop == rw::StopReason::Saturated, report.applications == 1
  // rw::to_infix(fg.outputs()[0]) == "x"
  // [/doc]
  REQUIRE(report.stop == rw::StopReason::Saturated);
  REQUIRE(report.applications == 1);
  REQUIRE(rw::to_infix(fg.outputs()[0]) == "x");
}

TEST_CASE("docs: a rewriter from a function, generic rewriters, a walk", "[rewrite]") {
  rw::Var x = fvec("x");
  rw::FunctionGraph fg({x}, {exp(mul(x, fconst(1)))});
  // [doc:function-rewriter]
  auto mul_one = rw::make_node_rewriter(
      "mul_one", {"mul"},
      [](rw::FunctionGraph&, rw::Apply& node, const rw::RewriteContext& ctx) {
        const rw::Constant* c = node.input(1)->as_constant();
        if (c && c->scalar_value() == 1.0) return rw::RewriteResult::replace_output(node.input(0));
        return ctx.fail([&] { return "`" + rw::brief(*node.input(1)) + "` is not the constant 1"; });
      },
      /*depth=*/0);
  auto exp_to_log = std::make_shared<rw::SubstitutionNodeRewriter>(toy("exp", 1), toy("log", 1));
  auto walk = rw::in2out("walk", {mul_one, exp_to_log});
  walk->rewrite(fg);
  // rw::to_infix(fg.outputs()[0]) == "log(x)"
  // [/doc]
  REQUIRE(rw::to_infix(fg.outputs()[0]) == "log(x)");
}

TEST_CASE("docs: the database, queries and modes", "[rewrite]") {
  rw::Var x = fvec("x"), y = fvec("y");
  // [doc:modes]
  auto db = rw::make_standard_db();
  db->sub<rw::EquilibriumDB>("canonicalize")
      .add(std::make_shared<DivCancel>(), {"fast_run", "fast_compile"});

  rw::FunctionGraph fg({x, y}, {mul(div(mul(x, y), y), sub(fconst(3), fconst(2)))});
  const rw::PassReport report = rw::Mode::fast_run(db).rewrite(fg);
  // rw::to_infix(fg.outputs()[0]) == "x * 1.0": div_cancel, then constant folding

  const rw::Mode no_folding = rw::Mode::named("fast_compile", db).excluding({"constant_folding"});
  const std::vector<std::string> passes = db->selected_names(no_folding.query());
  // {"merge1", "useless", "merge1.1", "canonicalize", "canonicalize/merge",
  //  "canonicalize/div_cancel", "merge1.2", "specialize"}
  // [/doc]
  REQUIRE(report.ok());
  REQUIRE(rw::to_infix(fg.outputs()[0]) == "x * 1.0");
  REQUIRE(passes == std::vector<std::string>{"merge1", "useless", "merge1.1", "canonicalize",
                                             "canonicalize/merge", "canonicalize/div_cancel",
                                             "merge1.2", "specialize"});
}

TEST_CASE("docs: trace and profile", "[rewrite]") {
  rw::Var x = fvec("x"), y = fvec("y");
  rw::FunctionGraph fg({x, y}, {exp(div(mul(x, y), y))});
  rw::EquilibriumRewriter simplify("simplify", {std::make_shared<DivCancel>()});
  // [doc:trace]
  rw::Trace trace;
  auto lines = std::make_shared<rw::TraceRecorder>(/*attempts=*/false);
  trace.subscribe(lines);
  rw::RewriteProfile profile;
  rw::RewriteContext ctx{.trace = &trace, .profile = &profile};
  simplify.rewrite(fg, ctx);
  // lines->text() ==
  //   "pass simplify started with 3 nodes\n"
  //   "div_cancel matched x * y / y\n"
  //   "replaced x * y / y by x  [div_cancel]\n"
  //   "pass simplify ended (saturated) with 1 nodes after 1 replacements\n"
  const std::string table = profile.table();  // a row per pass, a row per rewriter
  // [/doc]
  REQUIRE(lines->text() ==
          "pass simplify started with 3 nodes\n"
          "div_cancel matched x * y / y\n"
          "replaced x * y / y by x  [div_cancel]\n"
          "pass simplify ended (saturated) with 1 nodes after 1 replacements\n");
  REQUIRE(profile.find("simplify")->find_rewriter("div_cancel")->applied == 1);
  REQUIRE(table.find("div_cancel") != std::string::npos);
}

TEST_CASE("docs: pattern rewriters", "[rewrite]") {
  rw::Var a = fvec("a"), b = fvec("b");
  rw::Var p = mul(a, b);
  // [doc:pattern-rewriter]
  const rw::Term x = rw::lvar("x"), y = rw::lvar("y");
  const rw::Term times = toy("mul", 2), over = toy("div", 2);
  // (x * y) / y -> x: tracks `div`, depth 1, reads the uses of x * y.
  auto cancel = std::make_shared<rw::PatternNodeRewriter>(
      "div_cancel", rw::Pattern(rw::compound(over, rw::compound(times, x, y), y)), x);

  rw::FunctionGraph fg({a, b}, {div(p, b), exp(p)});
  const std::optional<std::string> why = cancel->why_not(fg, *fg.outputs()[0]->owner());
  // *why == "`a * b`, matched below the root, has 2 uses: rewriting would
  //          compute it twice (multiple clients are not allowed)"

  // The same rewrite, allowed to leave a * b to its other user; and one that
  // only divides by a constant: a constraint on the subpattern at input 1.
  auto shared = std::make_shared<rw::PatternNodeRewriter>(
      "div_cancel_shared", rw::Pattern(rw::compound(over, rw::compound(times, x, y), y)), x,
      rw::PatternRewriteOptions{.allow_multiple_clients = true});
  rw::Pattern by_constant(rw::compound(over, x, y));
  by_constant.constrain({1}, "constant",
                        [](const rw::Variable& v, const rw::FunctionGraph*) { return v.is_constant(); });

  rw::EquilibriumRewriter("simplify", {shared}).rewrite(fg);
  // rw::to_infix(fg.outputs()[0]) == "a", rw::to_infix(fg.outputs()[1]) == "exp(a * b)"
  // [/doc]
  REQUIRE(why);
  REQUIRE(*why == "`a * b`, matched below the root, has 2 uses: rewriting would compute it twice "
                  "(multiple clients are not allowed)");
  REQUIRE(cancel->depth() == 1);
  REQUIRE(cancel->reads_uses());
  REQUIRE(rw::to_infix(fg.outputs()[0]) == "a");
  REQUIRE(rw::to_infix(fg.outputs()[1]) == "exp(a * b)");
  rw::FunctionGraph fg2({a, b}, {div(a, b), div(a, fconst(2))});
  const rw::PatternNodeRewriter constant_only("c", by_constant, x);
  REQUIRE(*constant_only.why_not(fg2, *fg2.outputs()[0]->owner()) ==
          "input 1 of `div`: `b` does not satisfy `constant`");
  REQUIRE_FALSE(constant_only.why_not(fg2, *fg2.outputs()[1]->owner()));
}

TEST_CASE("docs: relation rewriters", "[rewrite]") {
  rw::Var a = fvec("a");
  rw::FunctionGraph fg({a}, {mul(exp(a), fconst(1))});
  // [doc:relation-rewriter]
  // x * 1 -> x, as a relation between a node's output and its replacement.
  auto times_one = std::make_shared<rw::RelationNodeRewriter>(
      "times_one",
      [](const rw::Term& in, const rw::Term& out) {
        return rw::kanren::eq(in, rw::compound(toy("mul", 2), out, 1));
      },
      rw::Tracks{"mul"});
  rw::EquilibriumRewriter("simplify", {times_one}).rewrite(fg);
  // rw::to_infix(fg.outputs()[0]) == "exp(a)"
  // [/doc]
  REQUIRE(rw::to_infix(fg.outputs()[0]) == "exp(a)");
}

TEST_CASE("docs: a node filter", "[rewrite]") {
  rw::Var x = fvec("x"), y = fvec("y");
  // [doc:node-filter]
  // What DivCancel needs before it looks closer: a `div` of two inputs whose
  // input 0 is computed by a `mul` of two inputs.
  const std::uint32_t numerator[] = {0};
  rw::NodeFilter filter;
  filter.op(rw::OpKind::of("div")).arity(2).computed(numerator, rw::OpKind::of("mul"), 2);
  // filter.to_string() == "div/2, [0]:mul/2"
  // filter.accepts(*div(mul(x, y), y)->owner()) == true
  // filter.accepts(*div(exp(x), y)->owner()) == false: exp is no mul
  // [/doc]
  REQUIRE(filter.to_string() == "div/2, [0]:mul/2");
  REQUIRE(filter.accepts(*div(mul(x, y), y)->owner()));
  REQUIRE_FALSE(filter.accepts(*div(exp(x), y)->owner()));
}

TEST_CASE("docs: every example in the page is one of these, verbatim", "[rewrite]") {
  const std::string page = read(std::string(RW_SOURCE_DIR) + "/docs/rewrite.md");
  const auto all = snippets();
  REQUIRE(all.size() == 8);
  for (const auto& [name, body] : all) {
    INFO("snippet `" << name << "` is not in docs/rewrite.md verbatim:\n" << body);
    CHECK(page.find("```cpp\n" + body + "```") != std::string::npos);
  }
}

// Graph files: the benchmark graphs load as they are; richer files with
// expressions, shapes and several outputs; literal types; build errors.
#include <filesystem>

#include <catch2/catch.hpp>

#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"
#include "support/pt_ops.hpp"

using namespace rw;
using namespace rw::dsl;
using rw::test::pt_registry;

namespace {

GraphFile load(const std::string& text) {
  auto r = check_graph_text("t.graph", text, pt_registry());
  INFO(render(r.diagnostics));
  REQUIRE(r.ok());
  return std::move(*r.value);
}

std::string errors_of(const std::string& text) {
  auto r = check_graph_text("t.graph", text, pt_registry());
  REQUIRE_FALSE(r.ok());
  std::string out;
  for (const Diagnostic& d : r.diagnostics) out += d.message + "\n";
  return out;
}

std::string type_of(const Var& v) {
  return v->type()->to_string();
}

}  // namespace

TEST_CASE("tuple words are encoded as the test ops expect", "[dsl]") {
  CHECK(kTupleNewAxis == rw::test::kPtNewAxis);
  CHECK(kTupleIndexInput == rw::test::kPtIndexInput);
}

TEST_CASE("every benchmark graph loads, with the node count PyTensor reports", "[dsl]") {
  // "nodes before" from /work/shared/bench/graphs/README.md.
  const std::pair<const char*, std::size_t> graphs[] = {
      {"chain-100", 101}, {"chain-1000", 1002}, {"chain-5000", 5000},
      {"dag-100", 107},   {"dag-1000", 1038},   {"dag-5000", 5178},
      {"mlp-2", 46},      {"mlp-8", 142},       {"mlp-32", 526}};
  const std::filesystem::path dir = "/work/shared/bench/graphs";
  for (const auto& [name, nodes] : graphs) {
    INFO(name);
    auto r = check_graph(dir / (std::string(name) + ".graph"), pt_registry());
    INFO(render(r.diagnostics));
    REQUIRE(r.ok());
    const GraphFile& g = *r.value;
    CHECK(g.function_graph(false).num_nodes() == nodes);
    for (const Var& in : g.inputs) CHECK(in->tensor_type()->dtype() == DType::Float64);
  }
}

TEST_CASE("the mlp graph types through dimshuffle, dot, sum, shape, cast and subtensor", "[dsl]") {
  auto r = check_graph("/work/shared/bench/graphs/mlp-2.graph", pt_registry());
  REQUIRE(r.ok());
  const GraphFile& g = *r.value;
  REQUIRE(g.inputs.size() == 6);
  CHECK(g.inputs[0]->name() == "X");
  CHECK(type_of(g.find("X")) == "f64[?,?]");
  CHECK(type_of(g.find("%0")) == "f64[1,?]");  // dimshuffle{order=(x,0)}(b1)
  CHECK(type_of(g.find("%9")) == "i8[1,1]");   // dimshuffle{order=(x,x)}(1)
  CHECK(type_of(g.find("%15")) == "i64[2]");   // shape(%14)
  CHECK(type_of(g.find("%16")) == "f64[2]");   // cast{dtype=float64}
  CHECK(type_of(g.find("%17")) == "f64[]");    // subtensor{index=(i)}(%16, 1)
  CHECK(type_of(g.find("%20")) == "f64[]");    // sum{axis=all}
  CHECK(type_of(g.find("%29")) == "f64[?]");   // sum{axis=(0)}
  CHECK(type_of(g.find("%31")) == "f64[?]");   // dimshuffle{order=(1)} drops a broadcastable axis
  REQUIRE(g.outputs.size() == 5);
  CHECK(g.outputs[0] == g.find("%21"));
  CHECK(g.find("%1000") == nullptr);
}

TEST_CASE("richer graph files: expressions, shapes, names, several outputs", "[dsl]") {
  const GraphFile g = load(
      "# a comment\n"
      "input x f64[?]\n"
      "input w f32[3, ?]\n"
      "input s i32\n"
      "y = exp(x) * 2.0\n"
      "z = sum(w, axis=1) + s    # f32 + i32 promotes\n"
      "alias = y\n"
      "%k = -x ** 2\n"
      "output y, z\n"
      "output log1p(alias), %k\n");
  REQUIRE(g.inputs.size() == 3);
  CHECK(type_of(g.inputs[1]) == "f32[3,?]");
  CHECK(type_of(g.inputs[2]) == "i32[]");
  REQUIRE(g.outputs.size() == 4);
  CHECK(g.outputs[0] == g.find("y"));
  CHECK(g.find("alias") == g.find("y"));
  CHECK(type_of(g.find("z")) == "f64[3]");
  CHECK(g.find("y")->name() == "y");    // a binding names what it computes
  CHECK(g.find("%k")->name().empty());  // `%` names stay anonymous
  CHECK(g.find("x")->name() == "x");    // `alias = y` does not rename y
  CHECK(to_infix(g.find("y")) == "exp(x) * 2.0");
  CHECK(to_infix(g.find("%k")) == "-x ** 2");
  std::vector<std::string> names;
  for (const auto& [n, v] : g.names) names.push_back(n);
  CHECK(names == std::vector<std::string>{"x", "w", "s", "y", "z", "alias", "%k"});
  FunctionGraph fg = g.function_graph();
  CHECK(fg.outputs().size() == 4);
  CHECK(fg.num_nodes() == 7);  // exp, mul, sum, add, pow, neg, log1p
}

TEST_CASE("numeric literals are 0-d constants of PyTensor's dtypes", "[dsl]") {
  const GraphFile g = load(
      "a = fill(1, 1)\nb = fill(1, 300)\nc = fill(1, 70000)\n"
      "d = fill(1, 5000000000)\ne = fill(1, 1.5)\nf = fill(1, -1)\n"
      "n = fill(1, -inf)\noutput a, b, c, d, e, f, n\n");
  auto lit = [&](const char* name) { return g.find(name)->owner()->input(1); };
  CHECK(type_of(lit("a")) == "i8[]");
  CHECK(type_of(lit("b")) == "i16[]");
  CHECK(type_of(lit("c")) == "i32[]");
  CHECK(type_of(lit("d")) == "i64[]");
  CHECK(type_of(lit("e")) == "f64[]");
  REQUIRE(lit("f")->as_constant());
  CHECK(lit("f")->as_constant()->scalar_value() == -1.0);  // folded, not neg(1)
  CHECK(type_of(lit("f")) == "i8[]");
  CHECK(lit("n")->as_constant()->scalar_value() == -std::numeric_limits<double>::infinity());
  CHECK(lit("d")->as_constant()->value().item<std::int64_t>() == 5000000000);
}

TEST_CASE("equal ops are built once per file", "[dsl]") {
  const GraphFile g = load(
      "input x f64[?]\na = sum{axis=(0)}(x)\nb = sum(x, axis=0)\n"
      "c = exp(x)\nd = exp(a)\noutput a, b, c, d\n");
  CHECK(&g.find("a")->owner()->op() == &g.find("b")->owner()->op());
  CHECK(&g.find("c")->owner()->op() == &g.find("d")->owner()->op());
}

TEST_CASE("graph file faults", "[dsl]") {
  CHECK(errors_of("input x f64[?]\ny = lgo(x)\noutput y") ==
        "unknown op `lgo`; did you mean `log`?\n");
  CHECK(errors_of("input x f64[?]\noutput z") == "undefined name `z`\n");
  CHECK(errors_of("input xs f64[?]\noutput x") == "undefined name `x`; did you mean `xs`?\n");
  CHECK(errors_of("input x f64[?]\ny = exp\noutput y") ==
        "undefined name `exp` (`exp` is an op: call it, `exp(…)`)\n");
  CHECK(errors_of("input x f64[?]\ninput x f32\noutput x") == "`x` is defined twice\n");
  CHECK(errors_of("input x f64[?]\nx = exp(x)\noutput x") == "`x` is defined twice\n");
  CHECK(errors_of("input x f65[?]\noutput x") == "unknown dtype `f65`; did you mean `f64`?\n");
  CHECK(errors_of("input x f64[3]\ninput y f64[4]\noutput x + y") ==
        "cannot apply `add`: input 1 has extent 4 on axis 0, others 3\n");
  CHECK(errors_of("input x f64[?]\noutput dot(x, x, x)") ==
        "op `dot` takes 2 inputs, but 3 are given\n");
  CHECK(errors_of("input x f64[?]\noutput sum(x, axis=a)") ==
        "unknown value `a` for parameter `axis`; a value is a number, a tuple, a quoted string, "
        "`true`, `false`, `none`, `all` or a dtype name\n");
  CHECK(errors_of("input x f64[?]\noutput sum(x, axis=?a)") ==
        "`?a` is a pattern variable; graph files give parameter values\n");
  CHECK(errors_of("input x f64[?]\noutput ?x") ==
        "`?x` is a pattern variable; they belong in rule files\n");
  CHECK(errors_of("input x f64[?]\noutput x and x") ==
        "`and` belongs in the `where` guard of a rule\n");
  CHECK(errors_of("input x f64[?]\noutput split2(x)") ==
        "op `split2` has 2 outputs and no default one; a graph file uses the value of each call\n");
  CHECK(errors_of("input x f64[?]\n") == "a graph file needs at least one `output`\n");
  CHECK(errors_of("rule r: x => x\ninput x f64\noutput x") ==
        "`rule` belongs in a rule file, not a graph file\n");
  CHECK(errors_of("import \"a.rules\"\ninput x f64\noutput x") ==
        "`import` belongs in a rule file, not a graph file\n");
}

TEST_CASE("a failed statement does not cascade into errors for its name", "[dsl]") {
  CHECK(errors_of("input x f64[?]\ny = lgo(x)\nz = exp(y) + y\noutput z, y\n") ==
        "unknown op `lgo`; did you mean `log`?\n");
}

TEST_CASE("loading a file that does not exist", "[dsl]") {
  auto r = check_graph("/nonexistent/dir/g.graph", pt_registry());
  REQUIRE(r.diagnostics.size() == 1);
  CHECK(
      r.diagnostics[0].message ==
      "cannot load graph file `/nonexistent/dir/g.graph`: cannot open `/nonexistent/dir/g.graph`: "
      "No such file or directory");
  CHECK_THROWS_AS(load_graph("/nonexistent/dir/g.graph", pt_registry()), LoadError);
}

TEST_CASE("a graph file with very many errors stops after the limit", "[dsl]") {
  std::string text = "input x f64[?]\n";
  for (int i = 0; i < 300; ++i) text += "y" + std::to_string(i) + " = lgo(x)\n";
  auto r = check_graph_text("many.graph", text + "output x\n", pt_registry());
  REQUIRE(r.diagnostics.size() == kMaxErrorsPerFile);
  REQUIRE(r.diagnostics.back().notes.size() == 1);
  CHECK(r.diagnostics.back().notes[0].message == "too many errors (50); stopping here");
}

// Graph files: the benchmark graphs load as they are; richer files with
// expressions, shapes and several outputs; literal types; build errors;
// `def` blocks (OpFromGraph) and tuple bindings.
#include <filesystem>
#include <limits>

#include <catch2/catch.hpp>

#include "engine/compile/op_from_graph.hpp"
#include "engine/compile/scan.hpp"
#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/literals.hpp"
#include "engine/dsl/parse.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/type.hpp"
#include "rw/function.hpp"
#include "rw/graph_files.hpp"
#include "rw/registry.hpp"
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
  CHECK(errors_of("input x f64[4, 4611686018427387905]\noutput x") ==
        "the type `f64[4,4611686018427387905]` has too many elements: its extents multiply "
        "beyond 2^63 - 1\n");
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

TEST_CASE("the smallest int64 can be written as a literal", "[dsl]") {
  const GraphFile g = load("input x i64\noutput x + -9223372036854775808\n");
  const Var c = g.outputs[0]->owner()->input(1);
  REQUIRE(c->is_constant());
  CHECK(c->as_constant()->value().item<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
}

TEST_CASE("an error message windows what it quotes", "[dsl]") {
  // A 1 MB name made a 1 MB message (and its copies in every note).
  const std::string name(1 << 20, 'a');
  const std::string message = errors_of("input x f64[?]\noutput " + name + "\n");
  CHECK(message == "undefined name `" + std::string(60, 'a') + "\u2026`\n");
  // An unquoted run (a long operator chain's text, say) is cut as a whole.
  CHECK(errors_of("input x f64[?]\noutput " + name + "(x)\n").size() < 200);
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

// ----- def blocks

namespace {

GraphFile load_defs(const std::string& text, const OpRegistry& ops = pt_registry()) {
  auto r = check_graph_text("t.graph", text, ops, graph_file_options());
  INFO(render(r.diagnostics));
  REQUIRE(r.ok());
  return std::move(*r.value);
}

std::string def_errors(const std::string& text) {
  auto r = check_graph_text("t.graph", text, pt_registry(), graph_file_options());
  REQUIRE_FALSE(r.ok());
  return render(r.diagnostics);
}

const OpFromGraph& ofg_of(const Var& v) {
  REQUIRE(v->owner());
  const auto* op = dynamic_cast<const OpFromGraph*>(&v->owner()->op());
  REQUIRE(op);
  return *op;
}

const char* const kAxpy = R"(
def axpy(a f64, x f64[?], y f64[?]) {
  t = a * x
  output t + y
}
input x f64[?]
input y f64[?]
u = axpy(2.0, x, y)
v = axpy(-1.0, y, x)
output u, v
)";

}  // namespace

TEST_CASE("a def is one OpFromGraph, shared by all its calls", "[dsl]") {
  const GraphFile g = load_defs(kAxpy);
  REQUIRE(g.defs.size() == 1);
  CHECK(g.defs[0].name == "axpy");
  CHECK(g.find_def("axpy") == &g.defs[0]);
  CHECK(g.find_def("u") == nullptr);
  const OpFromGraph& op = ofg_of(g.outputs[0]);
  CHECK(&op == g.defs[0].op.get());
  CHECK(&ofg_of(g.outputs[1]) == &op);
  CHECK_FALSE(op.is_inline());
  CHECK(op.name() == "axpy");
  // Parameters are the inner inputs, named and typed as written.
  REQUIRE(op.inner_inputs().size() == 3);
  CHECK(op.inner_inputs()[0]->name() == "a");
  CHECK(type_of(op.inner_inputs()[0]) == "f64[]");
  CHECK(type_of(op.inner_inputs()[2]) == "f64[?]");
  CHECK(to_infix(op.inner_outputs()[0]) == "a * x + y");
  CHECK(op.inner_outputs()[0]->owner()->input(0)->name() == "t");
  // The call's inputs, in order; the block's names do not leak out.
  CHECK(to_infix(g.outputs[1]) == "axpy(-1.0, y, x)");
  CHECK(g.find("t") == nullptr);
  CHECK(g.names.size() == 4);  // x, y, u, v
  CHECK(g.outputs[0]->name() == "u");
}

TEST_CASE("a def computes what its block says", "[dsl][grad]") {
  const GraphFile g = load_defs(kAxpy, standard_registry());
  auto fn = function({g.inputs[0], g.inputs[1]}, {g.outputs[0], g.outputs[1]});
  const auto out = fn(Tensor::from({1.0, 2.0, 3.0}), Tensor::from({10.0, 20.0, 30.0}));
  // u = 2x + y, v = -y + x
  const double x[] = {1, 2, 3}, y[] = {10, 20, 30};
  for (std::int64_t k = 0; k < 3; ++k) {
    CHECK(out[0].at({k}) == 2 * x[k] + y[k]);
    CHECK(out[1].at({k}) == -y[k] + x[k]);
  }
}

TEST_CASE("inline=true, several outputs, tuple bindings and nested defs", "[dsl]") {
  const GraphFile g = load_defs(R"(
def sq(x f64[?]) inline=true {
  output x * x
}
def stats(x f64[?]) inline=false {
  s = sum(x)
  output s, sq(x) / s
}
input x f64[?]
(total, share) = stats(x)
output share, total + 1.0
)");
  REQUIRE(g.defs.size() == 2);
  const auto& sq = dynamic_cast<const OpFromGraph&>(*g.defs[0].op);
  const auto& stats = dynamic_cast<const OpFromGraph&>(*g.defs[1].op);
  CHECK(sq.is_inline());
  CHECK_FALSE(stats.is_inline());
  CHECK(stats.inner_outputs().size() == 2);
  // The tuple names the node's outputs, in order.
  const Var total = g.find("total"), share = g.find("share");
  REQUIRE(total);
  REQUIRE(share);
  CHECK(total->owner() == share->owner());
  CHECK(total->index() == 0);
  CHECK(share->index() == 1);
  CHECK(type_of(total) == "f64[]");
  CHECK(total->name() == "total");
  CHECK(g.outputs[0] == share);
  // The nested def is a node of the inner graph of `stats`.
  CHECK(to_infix(stats.inner_outputs()[1]) == "sq(x) / sum{axis=none}(x)");
  CHECK(&ofg_of(stats.inner_outputs()[1]->owner()->input(0)) == &sq);
}

TEST_CASE("tuple bindings of a multi-output op", "[dsl]") {
  const GraphFile g = load_defs(R"(
def two(x f64[?]) {
  output x, -x
}
input x f64[?]
(a) = exp(x)
(b, c) = two(a)
output b, c
)");
  CHECK(to_infix(g.outputs[0]) == "two(exp(x))[0]");
  CHECK(to_infix(g.outputs[1]) == "two(exp(x))[1]");
  CHECK(g.find("a")->name() == "a");
}

TEST_CASE("def errors name the def, the argument and the place", "[dsl]") {
  // Wrong arity, argument types, unknown def, names escaping the block or
  // reaching into it, a def used as a value.
  CHECK(def_errors(R"(def f(a f64, x f64[?]) {
  output a * x
}
input x f64[?]
input m f64[?, ?]
p = f(x)
q = f(1, x)
r = f(2.0, m)
s = g(x)
output p, q, r, s, f
)") == R"(t.graph:6:5: error: `def f` takes 2 inputs (a, x), but 1 is given
p = f(x)
    ^
t.graph:7:7: error: argument `a` of `f` must be `f64[]`, not `i8[]`
q = f(1, x)
      ^
t.graph:8:12: error: argument `x` of `f` must be `f64[?]`, not `f64[?,?]`
r = f(2.0, m)
           ^
t.graph:9:5: error: unknown op `g`; did you mean `ge`?
s = g(x)
    ^
t.graph:10:20: error: undefined name `f` (`f` is a def: call it, `f(…)`)
output p, q, r, s, f
                   ^
)");
  CHECK(def_errors(R"(input x f64[?]
def f(a f64[?]) {
  t = exp(a)
  output t * x
}
y = t + 1.0
output f(y), y
)") == R"(t.graph:4:14: error: undefined name `x` in `def f`: a def sees only its parameters and its own names; pass `x` as a parameter
  output t * x
             ^
t.graph:6:5: error: undefined name `t` (`t` is local to `def f`)
y = t + 1.0
    ^
)");
}

TEST_CASE("a misspelt def is suggested", "[dsl]") {
  CHECK(def_errors("def axpy(x f64) {\n  output x\n}\ninput x f64\noutput axpz(x)\n") ==
        R"(t.graph:5:8: error: unknown op or def `axpz`; did you mean `axpy`?
output axpz(x)
       ^~~~
)");
}

TEST_CASE("def blocks that are malformed", "[dsl]") {
  CHECK(def_errors(R"(def f(x f64) {
  y = exp(x)
}
def f(x f64) {
  output x
}
def exp(x f64) {
  output x
}
input x f64
output f(x)
)") == R"(t.graph:1:5: error: `def f` has no `output`; its block must end with one
def f(x f64) {
    ^
t.graph:4:5: error: `def f` is defined twice
def f(x f64) {
    ^
t.graph:1:5: note: first defined here
def f(x f64) {
    ^
t.graph:7:5: error: `exp` is an op; a def needs a name of its own
def exp(x f64) {
    ^~~
)");
  CHECK(def_errors("def f(x f64) {\n  input y f64\n  def g(z f64) {\n  output x\n}\n}\n"
                   "input x f64\noutput x\n") ==
        R"(t.graph:2:3: error: `input` cannot appear inside `def f`; a def's inputs are its parameters
  input y f64
  ^~~~~
t.graph:3:3: error: `def g` cannot be nested in `def f`; define it before, and call it
  def g(z f64) {
  ^~~
t.graph:1:5: note: `def f` opens here
def f(x f64) {
    ^
t.graph:6:1: error: `}` without an open `def` block
}
^
)");
  CHECK(def_errors("def f(x f64) inlin=true {\n  output x\n}\ndef g(x f64) inline=1 {\n"
                   "  output g(x)\n}\ninput x f64\noutput x\n") ==
        R"(t.graph:1:14: error: `def` has no option `inlin`; did you mean `inline`?
def f(x f64) inlin=true {
             ^~~~~
t.graph:4:21: error: `inline` takes `true` or `false`
def g(x f64) inline=1 {
                    ^
t.graph:5:10: error: `def g` cannot call itself
  output g(x)
         ^
)");
  CHECK(def_errors("input x f64\ndef f(x f64) {\n  output x\noutput x\n") ==
        R"(t.graph:2:5: error: `def f` is not closed; expected `}`
def f(x f64) {
    ^
)");
}

TEST_CASE("a def header with a syntax error takes its block with it", "[dsl]") {
  // The block's statements are not reported as misplaced, and calls of the
  // def are not reported as unknown.
  CHECK(def_errors("def f(x f64[?] {\n  y = exp(x)\n  output y\n}\ninput x f64[?]\n"
                   "output f(x)\n") ==
        R"(t.graph:1:16: error: expected `,` or `)`, found `{`
def f(x f64[?] {
               ^
)");
  // Names of a tuple binding that failed are not reported again.
  CHECK(def_errors("input x f64[?]\n(a, b = exp(x)\noutput a, b\n") ==
        R"(t.graph:2:7: error: expected `,` or `)`, found `=`
(a, b = exp(x)
      ^
)");
  CHECK(def_errors("input x f64[?]\n(a, b) = exp(x)\noutput a\n") ==
        R"(t.graph:2:10: error: this has 1 output, but 2 names are bound
(a, b) = exp(x)
         ^~~~~~
)");
}

TEST_CASE("a loader without a def builder refuses defs", "[dsl]") {
  auto r = check_graph_text("t.graph", "def f(x f64) {\n  output x\n}\ninput x f64\noutput f(x)\n",
                            pt_registry());
  REQUIRE_FALSE(r.ok());
  CHECK(r.diagnostics.size() == 1);
  CHECK(r.diagnostics[0].message ==
        "this loader cannot build `def` blocks (no `GraphFileOptions::define`; "
        "`rw::graph_file_options()` builds them as OpFromGraph)");
}

TEST_CASE("a def's builder may refuse it", "[dsl]") {
  GraphFileOptions options;
  options.define = [](const DefSpec& spec) -> OpPtr {
    throw Error("no " + spec.name + " today");
  };
  auto r = check_graph_text("t.graph", "def f(x f64) {\n  output x\n}\ninput x f64\noutput f(x)\n",
                            pt_registry(), options);
  REQUIRE_FALSE(r.ok());
  CHECK(render(r.diagnostics) == R"(t.graph:1:5: error: cannot define `f`: no f today
def f(x f64) {
    ^
)");
}

TEST_CASE("the def builder is given the block", "[dsl]") {
  std::vector<DefSpec> seen;
  GraphFileOptions options;
  options.define = [&](const DefSpec& spec) -> OpPtr {
    seen.push_back(spec);
    return rw::op_from_graph(spec.inputs, spec.outputs, {.name = spec.name});
  };
  auto r = check_graph_text(
      "t.graph", "def f(x f64, y f64) inline=true {\n  output x + y, x\n}\ninput x f64\n"
                 "(a, b) = f(x, x)\noutput a\n", pt_registry(), options);
  REQUIRE(r.ok());
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].name == "f");
  CHECK(seen[0].inline_graph);
  REQUIRE(seen[0].inputs.size() == 2);
  CHECK(seen[0].inputs[1]->name() == "y");
  REQUIRE(seen[0].outputs.size() == 2);
  CHECK(to_infix(seen[0].outputs[0]) == "x + y");
}

TEST_CASE("a loop def builds a scan per call, which runs as written", "[dsl][scan]") {
  const GraphFile g = load_defs(R"(
def running_sum(x_t f64, s f64) sequences=1 states=1 {
  output s + x_t
}
def halve(v f64) states=1 steps=50 until=true {
  next = v / 2.0
  output next, next < 0.001
}
def back(x_t f64, s f64, w f64) sequences=1 states=1 backwards=true {
  output s * w + x_t, x_t * 2.0
}
input x f64[?]
input v0 f64
input w f64
(r, d) = back(x, 0.0, w)
output running_sum(x, 1.0), halve(v0), r, d
)", rw::standard_registry());
  REQUIRE(g.outputs.size() == 4);
  const auto* loop = dynamic_cast<const rw::ScanOp*>(&g.outputs[0]->owner()->op());
  REQUIRE(loop);
  CHECK(loop->name() == "running_sum");
  CHECK(dynamic_cast<const rw::ScanOp&>(g.outputs[1]->owner()->op()).info().as_while);
  auto f = rw::function(std::vector<rw::In>(g.inputs.begin(), g.inputs.end()), g.outputs);
  const auto out = f(Tensor::from({1.0, 2.0, 3.0}), Tensor::scalar(1.0), Tensor::scalar(10.0));
  auto v = [](const Tensor& t) {
    std::vector<double> r;
    for (std::int64_t i = 0; i < t.size(); ++i) r.push_back(t.at({i}));
    return r;
  };
  CHECK(v(out[0]) == std::vector<double>{2, 4, 7});
  CHECK(out[1].dim(0) == 10);  // 1/1024 < 0.001 after 10 halvings
  CHECK(v(out[2]) == std::vector<double>{3, 32, 321});
  CHECK(v(out[3]) == std::vector<double>{6, 4, 2});
  // Errors name the loop and the place.
  const std::string e = def_errors(R"(
def grow(x_t f64, s f64) sequences=1 states=1 {
  output x_t > s
}
input x f64[?]
output grow(x, 0.0)
)");
  CHECK_THAT(e, Catch::Contains("t.graph:6:8: error: cannot call `grow`") &&
                    Catch::Contains("a recurrent state keeps its type"));
}

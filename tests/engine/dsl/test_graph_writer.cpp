// Writing graphs as graph files (rw::graph_file_text, rw::write_graph_file):
// the reference graphs and graphs built in C++ read back as themselves;
// constants, names, defs; what cannot be written is refused by name. And the
// `const` statement the writer uses, with its errors.
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include <catch2/catch.hpp>

#include "engine/dsl/rule_registration.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"
#include "support/doc_snippets.hpp"
#include "support/graph_compare.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using rw::test::graph_difference;

namespace {

/// Reads graph-file text with the standard registry and library defaults.
dsl::GraphFile read_back(const std::string& text) {
  auto r = dsl::check_graph_text("written.graph", text, standard_registry(), graph_file_options());
  INFO(text);
  INFO(dsl::render(r.diagnostics));
  REQUIRE(r.ok());
  return std::move(*r.value);
}

/// Writes the graph, reads it back, and checks it is the same graph and that
/// writing the copy gives the same text. Returns the text.
std::string round_trip(std::span<const Var> inputs, std::span<const Var> outputs) {
  const std::string text = graph_file_text(inputs, outputs, standard_registry());
  const dsl::GraphFile back = read_back(text);
  INFO(text);
  CHECK(graph_difference(inputs, outputs, back.inputs, back.outputs) == "");
  CHECK(graph_file_text(back.inputs, back.outputs, standard_registry()) == text);
  return text;
}

std::string round_trip(const FunctionGraph& fg) { return round_trip(fg.inputs(), fg.outputs()); }

std::string load_error(const std::string& text) {
  auto r = dsl::check_graph_text("t.graph", text, standard_registry());
  REQUIRE_FALSE(r.ok());
  std::string out;
  for (const dsl::Diagnostic& d : r.diagnostics) out += d.message + "\n";
  return out;
}

}  // namespace

TEST_CASE("the nine reference graphs are written and read back as themselves", "[graph_file]") {
  const std::filesystem::path dir = "/work/shared/bench/graphs";
  int n = 0;
  for (const char* family : {"chain", "dag", "mlp"})
    for (const char* size : {"100", "1000", "5000", "2", "8", "32"}) {
      const auto path = dir / fmt::format("{}-{}.graph", family, size);
      if (!std::filesystem::exists(path)) continue;
      INFO(path.string());
      const FunctionGraph fg = load_graph_file(path).function_graph();
      round_trip(fg);
      ++n;
    }
  CHECK(n == 9);
}

TEST_CASE("a graph built in C++ is written with its names and read back", "[graph_file]") {
  const Var x = rw::vector("x", f64);
  const Var w = rw::matrix("w", f64);
  const Var h = rw::tanh(rw::dot(w, x) + 1.5);
  h->set_name("hidden");
  const Var s = rw::sum(h * h);
  const FunctionGraph fg({x, w}, {s, h});
  const std::string text = round_trip(fg);
  CHECK(text.find("input x f64[?]\n") != std::string::npos);
  CHECK(text.find("input w f64[?,?]\n") != std::string::npos);
  CHECK(text.find("hidden = tanh(") != std::string::npos);
  // A 0-d float64 constant used once is a literal.
  CHECK(text.find("1.5") != std::string::npos);
  CHECK(text.find("const") == std::string::npos);
  CHECK(text.find("output %") != std::string::npos);
}

TEST_CASE("integer tuples are written with the words the file would use: x and i", "[graph_file]") {
  const Var v = rw::vector("v", f64);
  const Var k = rw::scalar("k", DType::Int64);
  const Var row = rw::dimshuffle(v, {kNewAxis, 0});
  const Var picked = rw::subtensor(v, {k});
  const FunctionGraph fg({v, k}, {row, picked});
  const std::string text = round_trip(fg);
  CHECK(text.find("dimshuffle{order=(x,0)}(v)") != std::string::npos);
  CHECK(text.find("subtensor{index=(i)}(v, k)") != std::string::npos);
  // Op::to_string prints them the same way, as rwcheck's reports show them.
  CHECK(row->owner()->op().to_string() == "dimshuffle{order=(x,0)}");
  CHECK(picked->owner()->op().to_string() == "subtensor{index=(i)}");
}

TEST_CASE("names the language cannot read back become % names", "[graph_file]") {
  const Var a = rw::vector("x.y", f64);      // not an identifier
  const Var b = rw::vector("input", f64);    // a keyword
  const Var c = rw::vector("exp", f64);      // an op
  const Var d = rw::vector("dup", f64);
  const Var e = rw::vector("dup", f64);      // used before
  const Var out = a + b + c + d + e;
  const std::vector<Var> ins{a, b, c, d, e};
  const std::string text = round_trip(ins, std::vector<Var>{out});
  CHECK(text.find("input %0 f64[?]\ninput %1 f64[?]\ninput %2 f64[?]\ninput dup f64[?]\n"
                  "input %3 f64[?]\n") == 0);
  const dsl::GraphFile back = read_back(text);
  CHECK(back.inputs[3]->name() == "dup");
  CHECK(back.inputs[4]->name() == "%3");
}

TEST_CASE("constants are written exactly, as literals or const statements", "[graph_file]") {
  const Var x = rw::vector("x", f32);
  // Values whose shortest text is the float32's, not the double's.
  const Var c32 = Constant::make(Tensor::from<float>({0.1f, 1e-7f, 3.4028235e38f, -0.0f}));
  const Var big = Constant::make(Tensor::scalar<std::int64_t>(std::numeric_limits<std::int64_t>::min()));
  const Var small = Constant::make(Tensor::scalar<std::int64_t>(3));  // i64, not the literal's i8
  const Var u8 = Constant::make(Tensor::from<std::uint8_t>({0, 255}));
  const Var flags = Constant::make(Tensor::from<bool>({true, false}));
  const Var special = Constant::make(Tensor::from<double>({std::nan(""), INFINITY, -INFINITY}));
  const Var empty = Constant::make(Tensor::zeros({0, 3}));
  const Var shared = Constant::make(Tensor::scalar(2.0));
  const Var m = Constant::make(Tensor::from<double>({{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}}));
  const std::vector<Var> outs{x * c32,   big + small, u8, flags, special, empty,
                              x * shared, shared * 3.0, m};
  const std::string text = round_trip(std::vector<Var>{x}, outs);
  CHECK(text.find("const %") != std::string::npos);
  CHECK(text.find("f32[4] = [0.1, 1e-07, 3.4028235e+38, -0.0]") != std::string::npos);
  // An int64 literal is the literal's own type: written inline.
  CHECK(text.find("add(-9223372036854775808, %") != std::string::npos);
  CHECK(text.find("i64[] = 3\n") != std::string::npos);
  CHECK(text.find("u8[2] = [0, 255]") != std::string::npos);
  CHECK(text.find("bool[2] = [true, false]") != std::string::npos);
  CHECK(text.find("[nan, inf, -inf]") != std::string::npos);
  CHECK(text.find("f64[0,3] = []") != std::string::npos);
  // Used twice: one const statement, not two literals.
  CHECK(text.find("f64[] = 2.0\n") != std::string::npos);
  // Ten values to a line.
  CHECK(text.find("10.0,\n  11.0, 12.0]") != std::string::npos);
}

TEST_CASE("OpFromGraph nodes are written as def blocks", "[graph_file]") {
  const Var a = rw::scalar("a", f64);
  const Var x = rw::vector("x", f64);
  const OpPtr axpy = op_from_graph({a, x}, {a * x + x}, {.name = "axpy"});
  const Var p = rw::vector("p", f64);
  const Var q = rw::vector("q", f64);
  const OpPtr twice = op_from_graph({p}, {(*axpy)({rw::constant(2.0), p}) + p},
                                    {.name = "twice", .inline_graph = true});
  // Another Op of the same name, and one named like a registered op.
  const OpPtr other = op_from_graph({p}, {rw::exp(p)}, {.name = "axpy"});
  const OpPtr clash = op_from_graph({p}, {rw::log(p)}, {.name = "exp"});
  const Var y = rw::vector("y", f64);
  // An input named like a def: the def is renamed, not the input.
  const Var named = rw::vector("twice", f64);
  const Var out = (*twice)({y}) + (*other)({y}) + (*clash)({y}) +
                  (*axpy)({rw::constant(1.0), y}) + named;
  const std::string text = round_trip(std::vector<Var>{y, named}, std::vector<Var>{out});
  // The def a def calls comes first.
  const auto at = [&](const char* s) { return text.find(s); };
  REQUIRE(at("def axpy(") != std::string::npos);
  CHECK(at("def axpy(") < at("def twice_2("));
  CHECK(at("def twice_2(p f64[?]) inline=true {") != std::string::npos);
  CHECK(at("input twice f64[?]") != std::string::npos);
  CHECK(at("def axpy_2(") != std::string::npos);
  CHECK(at("def op_from_graph(") != std::string::npos);
  const dsl::GraphFile back = read_back(text);
  REQUIRE(back.defs.size() == 4);
  CHECK(back.defs[0].name == "axpy");
  CHECK(back.defs[1].name == "twice_2");
  CHECK(back.defs[2].name == "axpy_2");
  CHECK(back.defs[3].name == "op_from_graph");
}

TEST_CASE("a node with several outputs is a tuple binding", "[graph_file]") {
  const Var v = rw::vector("v", f64);
  const ApplyRef node =
      standard_registry().make("unique", {{"return_counts", true}})->make_node(std::vector<Var>{v});
  const std::string text = round_trip(std::vector<Var>{v}, node->outputs());
  CHECK(text.find("(%0, %1) = unique{return_counts=true}(v)") != std::string::npos);
}

TEST_CASE("what cannot be written back is refused by name, and nothing is written",
          "[graph_file]") {
  const Var x = rw::vector("x", f64);
  SECTION("an op the registry does not know") {
    const Var t = rw::test::toy("mystery", 1)->make_node(std::vector<Var>{x})->output(0);
    CHECK_THROWS_WITH(graph_file_text(std::vector<Var>{x}, std::vector<Var>{t},
                                      standard_registry()),
                      Catch::Contains("op `mystery") && Catch::Contains("not in the registry"));
  }
  SECTION("a root that is neither an input nor a constant") {
    const Var y = rw::vector("y", f64);
    CHECK_THROWS_WITH(graph_file_text(std::vector<Var>{x}, std::vector<Var>{x + y},
                                      standard_registry()),
                      Catch::Contains("needs `y`, which is neither an input nor a constant"));
  }
  SECTION("a constant typed less specifically than its value") {
    const Var c = Constant::make(Tensor::from<double>({1, 2}), TensorType::make(f64, {kUnknownDim}));
    CHECK_THROWS_WITH(graph_file_text(std::vector<Var>{x}, std::vector<Var>{x + c},
                                      standard_registry()),
                      Catch::Contains("has type f64[?], but its value is f64[2]"));
  }
  SECTION("a path that cannot be written leaves the file there as it was") {
    const auto dir = std::filesystem::temp_directory_path() / "rw_graph_writer_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "kept.graph";
    { std::ofstream(file) << "input x f64\noutput x\n"; }
    const FunctionGraph bad({x}, {x + rw::test::toy("mystery", 1)->make_node(
                                          std::vector<Var>{x})->output(0)});
    CHECK_THROWS_AS(write_graph_file(bad, file), Error);
    std::stringstream kept;
    kept << std::ifstream(file).rdbuf();
    CHECK(kept.str() == "input x f64\noutput x\n");
    CHECK_THROWS_WITH(write_graph_file(FunctionGraph({x}, {rw::exp(x)}), dir / "no" / "such.graph"),
                      Catch::Contains("cannot write the graph file") && Catch::Contains("such.graph"));
    write_graph_file(FunctionGraph({x}, {rw::exp(x)}), file);
    CHECK(load_graph_file(file).outputs.size() == 1);
    CHECK_FALSE(std::filesystem::exists(dir / "kept.graph.partial"));
    std::filesystem::remove_all(dir);
  }
}

TEST_CASE("const statements load a tensor of every dtype, and refuse bad values",
          "[graph_file]") {
  const dsl::GraphFile g = read_back(R"(
const m f32[2, 2] = [1, 2.5, -3, inf]
const k i64 = -7
const b b8[3] = [true, false, true]
const e f64[0] = []
output m, k, b, e
)");
  const Tensor& m = g.outputs[0]->as_constant()->value();
  CHECK(m.dtype() == f32);
  CHECK(m.shape() == Shape{2, 2});
  CHECK(m.at({1, 0}) == -3);
  CHECK(std::isinf(m.at({1, 1})));
  CHECK(g.outputs[1]->as_constant()->value().item<std::int64_t>() == -7);
  CHECK(g.outputs[1]->name() == "k");
  CHECK(g.outputs[2]->as_constant()->value().at({1}) == 0);
  CHECK(g.outputs[3]->as_constant()->value().size() == 0);

  // The most negative int64, and the literal that is too large without its minus
  // (found by fuzz_graph: the minus was applied twice, an overflow).
  const dsl::GraphFile lows = read_back("const lo i64[2] = [-9223372036854775808, 9223372036854775807]\n"
                                        "output lo\n");
  CHECK(lows.outputs[0]->as_constant()->value().data<std::int64_t>()[0] ==
        std::numeric_limits<std::int64_t>::min());
  CHECK(load_error("const c i64 = 9223372036854775808\noutput c\n") ==
        "integer literal `9223372036854775808` is too large\n");
  CHECK(load_error("x = sum{axis=9223372036854775808}(1.0)\noutput x\n") ==
        "integer literal `9223372036854775808` is too large\n");
  CHECK(load_error("const c f64[?] = [1]\noutput c\n") ==
        "a constant's extents must all be known; `f64[?]` has `?`\n");
  CHECK(load_error("const c f64[2, 3] = [1, 2]\noutput c\n") ==
        "`c` is `f64[2, 3]`: it needs 6 values, but 2 are given\n");
  CHECK(load_error("const c i8[2] = [1, 300]\noutput c\n") == "`300` does not fit in `i8`\n");
  CHECK(load_error("const c i32 = 1.5\noutput c\n") ==
        "`1.5` is not an integer, but the constant is `i32`\n");
  CHECK(load_error("const c f64 = true\noutput c\n") ==
        "`true` is a bool, but the constant is `f64`\n");
  CHECK(load_error("const c b8 = 1\noutput c\n") ==
        "`1` is not a bool value: write `true` or `false`\n");
  CHECK(load_error("const c u8 = -1\noutput c\n") == "`-1` does not fit in `u8`\n");
  CHECK(load_error("const c f64 = pi\noutput c\n") ==
        "a constant's values are numbers, `true` or `false`, not `pi`\n");
  // In a rule file, a graph file's statement.
  auto r = dsl::check_rules_text("r.rules", "const c f64 = 1\n", standard_registry(),
                                 dsl::PredicateRegistry(), {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.diagnostics[0].message == "`const` belongs in a graph file, not a rule file");
}

TEST_CASE("docs/debugging.md: a graph built in C++, written for rwcheck", "[graph_file]") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "rw_model.graph";
  // [doc:write_graph]
  rw::Var x = rw::vector("x");
  rw::Var w = rw::matrix("w");
  rw::Var y = rw::sum(rw::exp(rw::dot(w, x)) * 2.0);
  y->set_name("loss");
  // The graph as the program built it, before any rewriting:
  rw::write_graph_file(rw::FunctionGraph({x, w}, {y}), path);
  // input x f64[?]
  // input w f64[?,?]
  // %0 = dot(w, x)
  // %1 = exp(%0)
  // %2 = mul(%1, 2.0)
  // loss = sum{axis=none}(%2)
  // output loss
  // [/doc:write_graph]
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  std::filesystem::remove(path);
  const std::string code =
      rw::test::source_snippet(RW_SOURCE_DIR "/tests/engine/dsl/test_graph_writer.cpp", "write_graph");
  // The comments after the call are the file, line for line.
  std::string expected;
  std::istringstream lines(code.substr(code.find("write_graph_file")));
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("// ")) expected += line.substr(3) + "\n";
  CHECK(text.str() == expected);
  const std::vector<std::string> blocks =
      rw::test::markdown_cpp_blocks(RW_SOURCE_DIR "/docs/debugging.md");
  INFO("docs/debugging.md must contain this ```cpp block:\n" << code);
  CHECK(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

TEST_CASE("a compiled function's rewritten graph: in-place Ops are written, Composites refused",
          "[graph_file]") {
  const Var x = rw::vector("x");
  const Var y = rw::vector("y");
  const std::vector<Var> outs{rw::exp(x) * 2.0 + y, rw::tanh(x)};
  auto unfused = rw::function({x, y}, outs, {}, rw::default_mode().excluding({"fusion"}));
  const std::string text = round_trip(unfused.fgraph());
  CHECK(text.find("inplace=") != std::string::npos);
  auto fused = rw::function({x, y}, outs);
  CHECK_THROWS_WITH(graph_file_text(fused.fgraph()),
                    Catch::StartsWith("cannot write the graph: op `Composite{") &&
                        Catch::Contains("is not in the registry"));
}

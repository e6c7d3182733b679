// as_op: a C++ callable as an Op — typed inputs, its perform, optional
// infer_shape and gradient — registered by name for rules and graph files.
#include <algorithm>
#include <cmath>
#include <string>

#include <catch2/catch.hpp>

#include "engine/compile/errors.hpp"
#include "engine/dsl/rule_registration.hpp"
#include "rw/rewrite.hpp"
#include "rw/rules.hpp"
#include "support/doc_snippets.hpp"

namespace {

using rw::Tensor;
using Catch::Matchers::Contains;

/// `clip01(x)`: x clamped to [0, 1], with its shape and gradient declared.
rw::OpPtr make_clip01() {
  // [doc:as_op]
  const rw::TypePtr vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  rw::OpPtr clip01 = rw::as_op({
      .name = "clip01",
      .input_types = {vec},
      .output_types = {vec},
      .perform = [](std::span<const rw::Tensor> in) {
        rw::Tensor out = in[0].copy();
        double* p = out.data<double>();
        for (std::int64_t i = 0; i < out.size(); ++i) p[i] = std::clamp(p[i], 0.0, 1.0);
        return std::vector<rw::Tensor>{out};
      },
      .infer_shape = [](std::span<const rw::Var>, std::span<const rw::ShapeVars> shapes) {
        return std::vector<rw::ShapeVars>{shapes[0]};
      },
      .grad = [](std::span<const rw::Var> in, std::span<const rw::Var>,
                 std::span<const rw::Var> g) {
        // 1 inside the interval, 0 outside.
        return std::vector<rw::Var>{g[0] * rw::cast(rw::gt(in[0], 0.0) * rw::lt(in[0], 1.0),
                                                    rw::f64)};
      },
      .doc = "x clamped to [0, 1]",
  });
  rw::OpRegistry ops = rw::standard_registry();  // a copy, with clip01 added
  rw::register_as_op(ops, clip01);
  // [/doc:as_op]
  return clip01;
}

}  // namespace

TEST_CASE("an as_op computes, checks its input types and is equal only to itself", "[as_op]") {
  const rw::OpPtr clip01 = make_clip01();
  const rw::Var x = rw::vector("x");
  const rw::Var y = (*clip01)({x * 2.0});
  CHECK(rw::describe(*y) == "`clip01(x * 2.0)`");
  auto f = rw::function({x}, y);
  CHECK(rw::allclose(f(Tensor::from({-1.0, 0.25, 3.0})), Tensor::from({0.0, 0.5, 1.0})));

  CHECK_THROWS_WITH((*clip01)({rw::matrix("m")}),
                    "`clip01`: input 0 (`m`) has type f64[?,?], but the Op takes f64[?]");
  CHECK_THROWS_WITH((*clip01)({x, x}), "`clip01` takes 1 input, not 2");
  // Another as_op of the same name and types is another Op: never merged with this one.
  CHECK_FALSE(*make_clip01() == *clip01);
  CHECK(*clip01 == *clip01);
}

TEST_CASE("an as_op's gradient and shape are used where given", "[as_op]") {
  const rw::OpPtr clip01 = make_clip01();
  rw::verify_grad([&](std::span<const rw::Var> in) { return (*clip01)({in[0]}) * in[0]; },
                  std::vector<Tensor>{Tensor::from({-0.5, 0.25, 0.75, 2.0})});
  const rw::Var x = rw::vector("x");
  auto debugged = rw::compile_function({x}, (*clip01)({x}), {.debug_mode = rw::DebugMode{}});
  CHECK(rw::allclose(debugged(Tensor::from({0.5, 7.0})), Tensor::from({0.5, 1.0})));

  // Without them: the gradient is refused with the Op's name, the shape not checked.
  const rw::TypePtr vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  const rw::OpPtr bare = rw::as_op({.name = "bare",
                                    .input_types = {vec},
                                    .output_types = {vec},
                                    .perform = [](std::span<const Tensor> in) {
                                      return std::vector<Tensor>{in[0].copy()};
                                    }});
  CHECK_THROWS_WITH(rw::grad(rw::sum((*bare)({x})), {x}),
                    Contains("`bare` (an as_op) was given no gradient (AsOpSpec::grad)"));
  auto g = rw::compile_function({x}, (*bare)({x}), {.debug_mode = rw::DebugMode{}});
  CHECK(rw::allclose(g(Tensor::from({1.0, 2.0})), Tensor::from({1.0, 2.0})));
}

TEST_CASE("a registered as_op is read by graph files and matched by rules", "[as_op]") {
  const rw::OpPtr clip01 = make_clip01();
  rw::OpRegistry ops = rw::standard_registry();
  rw::register_as_op(ops, clip01);
  CHECK(ops.find("clip01")->doc == "x clamped to [0, 1]");
  CHECK_THROWS_AS(rw::register_as_op(ops, clip01), rw::ValueError);  // the name is taken

  const rw::dsl::GraphFile g = rw::dsl::load_graph_text(
      "clip.graph", "input x f64[?]\ny = clip01(clip01(x))\noutput y\n", ops,
      rw::graph_file_options());
  REQUIRE(g.outputs.size() == 1);
  CHECK(&g.outputs[0]->owner()->op() == clip01.get());
  // Written back with the same registry, the text reads as the same graph.
  CHECK(rw::graph_file_text(g.inputs, g.outputs, ops).find("clip01(") != std::string::npos);

  auto db = rw::make_default_db();
  rw::dsl::load_rules_text_into(*db, "clip.rules",
                                "ruleset clip tags(canonicalize, fast_run)\n"
                                "rule clip01_twice: clip01(clip01(x)) => clip01(x)\n",
                                ops, rw::dsl::PredicateRegistry{});
  auto f = rw::function(std::vector<rw::In>(g.inputs.begin(), g.inputs.end()), g.outputs, {},
                        rw::Mode::fast_run(db));
  CHECK(f.fgraph().num_nodes() == 1);
  CHECK(rw::allclose(f(Tensor::from({-2.0, 0.5}))[0], Tensor::from({0.0, 0.5})));

  // A graph file naming it without the registry that has it is an error.
  CHECK_THROWS_WITH(rw::dsl::load_graph_text("clip.graph", "input x f64[?]\noutput clip01(x)\n",
                                             rw::standard_registry(), rw::graph_file_options()),
                    Contains("clip01"));
}

TEST_CASE("as_op refuses an incomplete spec, and a perform that returns too little",
          "[as_op]") {
  const rw::TypePtr vec = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
  auto id = [](std::span<const Tensor> in) { return std::vector<Tensor>{in[0]}; };
  CHECK_THROWS_WITH(rw::as_op({.input_types = {vec}, .output_types = {vec}, .perform = id}),
                    "as_op: the spec has no name");
  CHECK_THROWS_WITH(rw::as_op({.name = "my op", .input_types = {vec}, .output_types = {vec},
                               .perform = id}),
                    Contains("the name `my op` is not an identifier"));
  CHECK_THROWS_WITH(rw::as_op({.name = "f", .input_types = {vec}, .output_types = {vec}}),
                    "as_op `f`: the spec has no perform");
  CHECK_THROWS_WITH(rw::as_op({.name = "f", .input_types = {nullptr}, .output_types = {vec},
                               .perform = id}),
                    "as_op `f`: input type 0 is null");
  CHECK_THROWS_WITH(rw::as_op({.name = "f", .input_types = {vec}, .perform = id}),
                    "as_op `f`: the spec declares no output");
  rw::OpRegistry scratch;
  CHECK_THROWS_WITH(rw::register_as_op(scratch, rw::standard_registry().make("exp")),
                    "register_as_op: `exp` was not made by as_op");
  CHECK(scratch.all().empty());

  const rw::OpPtr none = rw::as_op({.name = "none",
                                    .input_types = {vec},
                                    .output_types = {vec},
                                    .perform = [](std::span<const Tensor>) {
                                      return std::vector<Tensor>{};
                                    }});
  const rw::Var x = rw::vector("x");
  auto f = rw::compile_function({x}, (*none)({x}));
  CHECK_THROWS_WITH(f(Tensor::from({1.0})), Contains("`none`: its function returned 0 tensors, "
                                                     "not 1"));
}

TEST_CASE("docs/debugging.md shows the as_op example", "[as_op][docs]") {
  CHECK(rw::test::missing_doc_block(RW_SOURCE_DIR "/tests/rw/test_as_op.cpp", "as_op",
                                    RW_SOURCE_DIR "/docs/debugging.md") == "");
}

// SumOfScaledProduct (sum_of_scaled_product): 0-d factors out of the sum or
// mean of a product of three or more operands, and what it leaves.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "ops/reduce/sum_of_product.hpp"
#include "rw/rewrite.hpp"
#include "support/fired_rewriters.hpp"
#include "support/graph_eval.hpp"

namespace {

/// `text`'s only output after the default mode without fusion, whether
/// `sum_of_scaled_product` fired, and whether the values stayed.
struct Result {
  std::string infix;
  bool fired = false;
  bool same_values = true;
};

Result run(std::string_view text) {
  const rw::dsl::GraphFile g =
      rw::dsl::load_graph_text("case.graph", std::string(text), rw::standard_registry());
  const rw::Mode mode = rw::default_mode().excluding({"fusion", "inplace"});
  rw::FunctionGraph fg = g.function_graph();
  rw::Trace trace;
  auto fired = std::make_shared<rw::testing::FiredRewriters>();
  trace.subscribe(fired);
  rw::RewriteContext ctx{.trace = &trace};
  mode.rewrite(fg, ctx);
  Result r{rw::to_infix(fg.outputs()[0]), fired->fired("sum_of_scaled_product")};

  std::vector<rw::In> inputs(g.inputs.begin(), g.inputs.end());
  const rw::FunctionOptions options{.on_unused_input = rw::UnusedInput::Ignore};
  auto plain = rw::function(inputs, g.outputs, options, rw::Mode::none(rw::standard_db()));
  auto full = rw::function(inputs, g.outputs, options);
  rw::Rng rng(11);
  for (int draw = 0; draw < 3; ++draw) {
    const std::vector<rw::Tensor> args = rw::testing::random_args(g.inputs, rng, -2, 2);
    r.same_values = r.same_values &&
                    rw::testing::close_for_dtype(full.call(args)[0], plain.call(args)[0]);
  }
  return r;
}

#define V "input x f64[?]\ninput y f64[?]\ninput s f64[]\ninput t f64[]\n"

}  // namespace

TEST_CASE("sum_of_scaled_product takes 0-d factors out of a longer product", "[ops][reduce]") {
  struct Case {
    std::string_view graph, expected;
  };
  for (const Case& c :
       {Case{V "output sum{axis=all}(x * s * y)", "s * sum{axis=none}(x * y)"},
        Case{V "output sum{axis=all}(s * x * t)", "mul(s, t, sum{axis=none}(x))"},
        Case{V "output mean{axis=all}((x * s) * y)", "s * mean{axis=none}(x * y)"},
        Case{"input m f64[?,?]\ninput s f64[]\ninput y f64[?]\n"
             "output sum{axis=(0)}(m * s * y)",
             "s * sum{axis=(0)}(y * m)"}}) {
    const Result r = run(c.graph);
    INFO("Input:    " << c.graph << "\nOutput:   " << r.infix << "\nExpected: " << c.expected);
    CHECK(r.fired);
    CHECK(r.infix == c.expected);
    CHECK(r.same_values);
  }
}

TEST_CASE("sum_of_scaled_product leaves what it cannot improve", "[ops][reduce]") {
  // No 0-d factor; a product used elsewhere; a float32 product whose 0-d
  // factor is float64 (the sum would lose precision).
  for (std::string_view text :
       {V "output sum{axis=all}(x * y * x)",
        V "p = x * s * y\noutput sum{axis=all}(p) + sum{axis=all}(p * p)",
        "input x f32[?]\ninput y f32[?]\ninput s f64[]\noutput sum{axis=all}(x * s * y)"}) {
    const Result r = run(text);
    INFO(text << "\n-> " << r.infix);
    CHECK_FALSE(r.fired);
    CHECK(r.same_values);
  }
}

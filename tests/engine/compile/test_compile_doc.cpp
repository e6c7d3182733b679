// The examples of docs/compile.md: each is run here, and the page must show
// exactly the code between the markers.
#include <catch2/catch.hpp>
#include <rw/rw.hpp>

#include <cmath>

#include "support/doc_snippets.hpp"

using rw::test::markdown_cpp_blocks;
using rw::test::source_snippet;

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/engine/compile/test_compile_doc.cpp";
const std::string kPage = RW_SOURCE_DIR "/docs/compile.md";

void require_on_page(const std::string& name) {
  const std::string code = source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = markdown_cpp_blocks(kPage);
  INFO("docs/compile.md must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

std::vector<double> values(const rw::Tensor& t) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.size(); ++i) out.push_back(t.at({i}));
  return out;
}

}  // namespace

TEST_CASE("docs/compile.md: compiling and calling", "[compile]") {
  // [doc:basic]
  rw::Var x = rw::vector("x"), y = rw::vector("y");
  rw::Function f = rw::function({x, y}, {x + y, rw::exp(x)});
  auto [sum, e] = f(rw::Tensor::from({1.0, 2.0}), rw::Tensor::from({10.0, 20.0}));
  // sum: [11. 22.]   e: [2.71828 7.38906]
  // [/doc:basic]
  REQUIRE(values(sum) == std::vector<double>{11.0, 22.0});
  REQUIRE(values(e) == std::vector<double>{std::exp(1.0), std::exp(2.0)});
  require_on_page("basic");

  // [doc:call_types]
  rw::Function one = rw::function({x}, rw::exp(x));        // one(a) is a Tensor
  rw::Function two = rw::function({x}, {rw::exp(x), -x});  // two(a) is a std::array<Tensor, 2>
  std::vector<rw::Var> outputs = {rw::exp(x), -x, x};
  rw::Function many = rw::function({x}, outputs);          // many(a) is a std::vector<Tensor>
  rw::Function<> any = two;                                // any function converts to this form
  // [/doc:call_types]
  const rw::Tensor a = rw::Tensor::from({0.0});
  static_assert(std::is_same_v<decltype(one(a)), rw::Tensor>);
  static_assert(std::is_same_v<decltype(two(a)), std::array<rw::Tensor, 2>>);
  static_assert(std::is_same_v<decltype(many(a)), std::vector<rw::Tensor>>);
  REQUIRE(many(a).size() == 3);
  REQUIRE(any(a).size() == 2);
  require_on_page("call_types");
}

TEST_CASE("docs/compile.md: inputs", "[compile]") {
  // [doc:inputs]
  rw::Var x = rw::vector("x"), scale = rw::scalar("scale");
  rw::Function f = rw::function({x, rw::In(scale).with_default(rw::Tensor::scalar(2.0))},
                                x * scale, {.name = "scaled"});
  rw::Tensor doubled = f(rw::Tensor::from({1.0, 2.0}));                          // [2. 4.]
  rw::Tensor tripled = f(rw::Tensor::from({1.0, 2.0}), rw::Tensor::scalar(3.0));  // [3. 6.]
  rw::Tensor from_ints = f(rw::Tensor::from({1, 2}));  // int32 converts to float64 losslessly
  // f(rw::Tensor::zeros({2, 2})) throws rw::TypeError:
  //   argument 0 (`x`) of function `scaled`: expected a tensor of type f64[?], got one of
  //   dtype float64 and shape (2, 2) (2 dimensions instead of 1)
  // [/doc:inputs]
  REQUIRE(values(doubled) == std::vector<double>{2.0, 4.0});
  REQUIRE(values(tripled) == std::vector<double>{3.0, 6.0});
  REQUIRE(values(from_ints) == std::vector<double>{2.0, 4.0});
  REQUIRE_THROWS_WITH(f(rw::Tensor::zeros({2, 2})),
                      "argument 0 (`x`) of function `scaled`: expected a tensor of type f64[?], "
                      "got one of dtype float64 and shape (2, 2) (2 dimensions instead of 1)");
  require_on_page("inputs");
}

TEST_CASE("docs/compile.md: shared variables and updates", "[compile]") {
  // [doc:shared]
  rw::Shared w = rw::shared("w", rw::Tensor::from({1.0, 1.0}));
  rw::Var g = rw::vector("g");
  rw::Var lr = rw::constant(0.5);
  rw::Function step = rw::function({g}, w * w, {.updates = {{w, w - lr * g}}});
  rw::Tensor before = step(rw::Tensor::from({0.2, 0.4}));  // w * w with w = [1. 1.]: [1. 1.]
  rw::Tensor now = w.get_value();                          // [0.9 0.8]
  w.set_value(rw::Tensor::from({3.0}));                    // another length: fine, f64[?]
  // [/doc:shared]
  REQUIRE(values(before) == std::vector<double>{1.0, 1.0});
  REQUIRE(values(now) == std::vector<double>{0.9, 0.8});
  REQUIRE(values(step(rw::Tensor::from({2.0}))) == std::vector<double>{9.0});
  REQUIRE(values(w.get_value()) == std::vector<double>{2.0});
  require_on_page("shared");

  // [doc:swap]
  rw::Shared a = rw::shared("a", rw::Tensor::from({1.0})), b = rw::shared("b", rw::Tensor::from({2.0}));
  rw::Function swap = rw::function({}, {}, {.updates = {{a, b}, {b, a}}});
  swap();  // a is [2.], b is [1.]: both updates read the values from before the call
  // [/doc:swap]
  REQUIRE(values(a.get_value()) == std::vector<double>{2.0});
  REQUIRE(values(b.get_value()) == std::vector<double>{1.0});
  require_on_page("swap");
}

TEST_CASE("docs/compile.md: the rewrite hook", "[compile]") {
  // [doc:rewrite]
  rw::GraphRewrite cancel_double_neg = [](rw::FunctionGraph& fg) {
    for (rw::Apply* node : fg.toposort()) {
      const rw::Apply* inner = node->input(0)->owner();
      if (node->op().name() == "neg" && inner && inner->op().name() == "neg")
        fg.replace(node->output(0), inner->input(0), "cancel_double_neg");
    }
  };
  rw::Var x = rw::vector("x");
  rw::Function f = rw::compile_function({x}, rw::exp(-(-x)), {.rewrite = cancel_double_neg});
  // f.schedule() is one node: exp
  // [/doc:rewrite]
  REQUIRE(f.schedule().size() == 1);
  REQUIRE(f.schedule()[0]->op().name() == "exp");
  REQUIRE(values(f(rw::Tensor::from({0.0}))) == std::vector<double>{1.0});
  require_on_page("rewrite");
}

TEST_CASE("docs/compile.md: profiling", "[compile]") {
  // [doc:profile]
  rw::Var x = rw::vector("x");
  rw::Function f = rw::compile_function({x}, rw::exp(rw::exp(rw::exp(x))), {.profile = true});
  f(rw::Tensor::zeros({1000}));
  const rw::FunctionProfile& p = *f.profile();
  // p.last_peak_buffers == 2: exp(x) is released once exp(exp(x)) is computed,
  // and its buffer is handed on to the output.
  std::string table = p.summary();
  // [/doc:profile]
  REQUIRE(p.last_peak_buffers == 2);
  REQUIRE(p.last_peak_bytes == 2 * 1000 * sizeof(double));
  REQUIRE(p.reused_buffers == 1);
  REQUIRE_THAT(table, Catch::Contains("peak intermediate memory: 16000 bytes in 2 buffers"));
  require_on_page("profile");
}

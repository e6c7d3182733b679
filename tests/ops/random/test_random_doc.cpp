// The examples of docs/random.md: each is run here, and the page must show
// exactly the code between the markers (and the graph file verbatim).
#include <algorithm>
#include <fstream>
#include <rw/rw.hpp>
#include <sstream>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "support/doc_snippets.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/ops/random/test_random_doc.cpp";
const std::string kPage = RW_SOURCE_DIR "/docs/random.md";

void require_on_page(const std::string& name) {
  const std::string code = rw::test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks = rw::test::markdown_cpp_blocks(kPage);
  INFO("docs/random.md must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

std::vector<double> values(const rw::Tensor& t) {
  const rw::Tensor c = rw::cast(t, rw::f64).contiguous();
  return {c.data<double>(), c.data<double>() + c.size()};
}

}  // namespace

TEST_CASE("docs/random.md: a stream, and a function that draws anew at each call",
          "[random][docs]") {
  // [doc:stream]
  rw::RandomStream rs(42);
  rw::Var x = rs.normal(0.0, 1.0, {3});            // f64[3]
  rw::Var k = rs.integers(0, 10, {2, 2});          // i64[2,2]
  auto f = rw::function({}, {x, k});
  auto [x1, k1] = f();
  auto [x2, k2] = f();                              // new draws: f advanced both generators
  rw::RandomStream again(42);                       // the same seed: the same draws
  auto g = rw::function({}, {again.normal(0.0, 1.0, {3}), again.integers(0, 10, {2, 2})});
  auto [y1, j1] = g();                              // y1 == x1, j1 == k1
  // [/doc:stream]
  CHECK(x->type()->to_string() == "f64[3]");
  CHECK(k->type()->to_string() == "i64[2,2]");
  CHECK(values(x1) != values(x2));
  CHECK(values(y1) == values(x1));
  CHECK(values(j1) == values(k1));
  (void)k2;
  require_on_page("stream");
}

TEST_CASE("docs/random.md: parameters broadcast, size gives the batch shape", "[random][docs]") {
  // [doc:shapes]
  rw::RandomStream rs(1);
  rw::Var mu = rw::matrix("mu", rw::f64, rw::kUnknownDim, 1);    // f64[?,1]
  rw::Var sigma = rw::vector("sigma");                           // f64[?]
  rw::Var a = rs.normal(mu, sigma);                  // f64[?,?]: broadcast (3, 1) with (4,)
  rw::Var b = rs.normal(mu, sigma, {2, 3, 4});       // f64[2,3,4]: parameters broadcast to size
  rw::Var c = rs.multivariate_normal(rw::vector("m"), rw::matrix("cov"), {5});   // f64[5,?]
  rw::Var d = rs.choice(10, {3}, /*replace=*/false); // three distinct integers of [0, 10)
  // [/doc:shapes]
  CHECK(a->type()->to_string() == "f64[?,?]");
  CHECK(b->type()->to_string() == "f64[2,3,4]");
  CHECK(c->type()->to_string() == "f64[5,?]");
  CHECK(d->type()->to_string() == "i64[3]");
  require_on_page("shapes");
}

TEST_CASE("docs/random.md: updates, explicit and default", "[random][docs]") {
  // [doc:updates]
  rw::RandomStream rs(7);
  rw::Var u = rs.uniform(0.0, 1.0, {2});
  rw::Shared gen = rs.generators()[0];              // type `rng`: the state of u's generator
  auto same = rw::function({}, u, {.no_default_updates = true});   // draws the same each call
  rw::Tensor saved = gen.get_value();
  auto f = rw::function({}, u);
  rw::Tensor first = f();
  gen.set_value(saved);                             // rewind: f draws `first` again
  // [/doc:updates]
  CHECK(values(same()) == values(same()));
  CHECK(values(f()) == values(first));
  require_on_page("updates");
}

TEST_CASE("docs/random.md: a bad parameter names the argument and changes nothing",
          "[random][docs]") {
  // [doc:errors]
  rw::RandomStream rs(3);
  rw::Var scale = rw::scalar("scale");
  auto f = rw::function({scale}, rs.normal(0.0, scale, {4}));
  rw::Tensor before = rs.generators()[0].get_value();
  // f(rw::Tensor::scalar(-1.0)) throws: "… `normal`: `scale` must be non-negative
  // and finite, got -1"; the generator keeps `before`.
  // [/doc:errors]
  CHECK_THROWS_WITH(f(rw::Tensor::scalar(-1.0)),
                    Catch::Contains("`normal`: `scale` must be non-negative and finite, got -1"));
  CHECK(values(rs.generators()[0].get_value()) == values(before));
  require_on_page("errors");
}

TEST_CASE("docs/random.md: the graph file is loaded as written", "[random][docs]") {
  const std::string text = R"(input r rng
const size i64[1] = [1000]
(r1, x) = normal(r, size, 0.0, 1.0)
(r2, k) = poisson(r1, size, 4.0)
output r2, x, k
)";
  std::ifstream in(kPage);
  std::stringstream page;
  page << in.rdbuf();
  INFO("docs/random.md must show this graph file:\n" << text);
  REQUIRE(page.str().find("```graph-random\n" + text + "```") != std::string::npos);
  auto g = rw::dsl::load_graph_text("draws.graph", text, rw::standard_registry());
  auto f = rw::function(std::vector<rw::In>(g.inputs.begin(), g.inputs.end()), g.outputs);
  auto out = f(rw::RandomGeneratorType::seed_value(5));
  CHECK(out[1].shape() == rw::Shape{1000});
  CHECK(out[2].dtype() == rw::i64);
  CHECK(rw::RandomGeneratorType::make()->is_valid_value(out[0]));
}

// The examples of docs/ops.md and README.md: each is run here, and the page
// must show exactly the code between the markers.
#include <algorithm>
#include <cmath>
#include <iostream>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/doc_snippets.hpp"

namespace {

const std::string kThisFile = RW_SOURCE_DIR "/tests/ops/test_ops_doc.cpp";

void require_on_page(const std::string& page, const std::string& name) {
  const std::string code = rw::test::source_snippet(kThisFile, name);
  const std::vector<std::string> blocks =
      rw::test::markdown_cpp_blocks(std::string(RW_SOURCE_DIR "/") + page);
  INFO(page << " must contain this ```cpp block (snippet `" << name << "`):\n" << code);
  REQUIRE(std::find(blocks.begin(), blocks.end(), code) != blocks.end());
}

}  // namespace

TEST_CASE("README.md: the C++ example", "[ops]") {
  // [doc:readme]
  auto x = rw::vector("x", rw::f64);
  auto w = rw::shared("w", rw::Tensor::from({0.5, -1.0, 2.0}));
  auto loss = rw::sum(rw::log(1 + rw::exp(x * w)));       // 1 is a float64 constant
  rw::Function f = rw::function({x}, {loss, rw::softmax(x * w)});
  auto [l, p] = f(rw::Tensor::from({1.0, 2.0, 3.0}));
  std::cout << l.to_string() << " " << p.to_string() << "\n";  // 7.10348 [0.00406… 0.00033… 0.99559…]
  // [/doc:readme]
  const double want =
      std::log1p(std::exp(0.5)) + std::log1p(std::exp(-2.0)) + std::log1p(std::exp(6.0));
  CHECK(l.item<double>() == Approx(want).epsilon(1e-14));
  CHECK(p.at({2}) == Approx(std::exp(6.0) / (std::exp(0.5) + std::exp(-2.0) + std::exp(6.0))));
  require_on_page("README.md", "readme");
}

TEST_CASE("docs/ops.md: building graphs", "[ops]") {
  // [doc:build]
  auto x = rw::matrix("x", rw::f32);                   // f32[?,?]
  auto b = rw::vector("b", rw::f32, 3);                // f32[3]
  auto y = rw::tanh(rw::dot(x, rw::transpose(x)) * 2);  // 2 becomes a float32 constant
  auto z = rw::sum(y, {1}, /*keepdims=*/true) + 0.5;   // f32[?,1]
  auto row = rw::subtensor(x, {0, rw::slice(1, std::nullopt)});   // x[0, 1:]
  auto s = rw::where(x > 0, x, 0) + rw::dimshuffle(b, {rw::kNewAxis, 0});
  // [/doc:build]
  CHECK(y->type()->to_string() == "f32[?,?]");
  CHECK(z->type()->to_string() == "f32[?,1]");
  CHECK(row->type()->to_string() == "f32[?]");
  CHECK(s->type()->to_string() == "f32[?,3]");
  require_on_page("docs/ops.md", "build");
}

TEST_CASE("docs/ops.md: the registry", "[ops]") {
  // [doc:registry]
  const rw::OpRegistry& ops = rw::standard_registry();
  rw::OpPtr sum0 = ops.make("sum", {{"axis", std::vector<std::int64_t>{0}}});
  rw::Var m = rw::matrix("m");
  rw::Var total = (*sum0)({m});                  // the same node rw::sum(m, {0}) builds
  for (const rw::OpInfo* info : ops.all())
    if (info->name == "gemm") std::cout << info->name << ": " << info->doc << "\n";
  // [/doc:registry]
  CHECK(sum0->to_string() == "sum{axis=(0)}");
  CHECK(*total->owner()->op_ptr() == *rw::sum(m, {0})->owner()->op_ptr());
  require_on_page("docs/ops.md", "registry");
}

// The examples of docs/runtime.md, compiled and run; and a check that every
// C++ block of that page appears here verbatim (up to whitespace), so the
// page cannot drift from the code.
#include <cctype>
#include <cmath>
#include <fstream>
#include <rw/rw.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/indexing.hpp"
#include "runtime/kernels/linalg.hpp"
#include "runtime/kernels/softmax.hpp"

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The text without whitespace: layout may differ, tokens may not.
std::string squeeze(const std::string& text) {
  std::string out;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) out += c;
  return out;
}

}  // namespace

TEST_CASE("every example of docs/runtime.md is compiled by this file", "[runtime]") {
  const std::string doc = read_file(std::string(RW_SOURCE_DIR) + "/docs/runtime.md");
  const std::string self =
      squeeze(read_file(std::string(RW_SOURCE_DIR) + "/tests/runtime/test_docs.cpp"));
  REQUIRE_FALSE(doc.empty());
  const std::string open = "```cpp\n", close = "```";
  int count = 0;
  for (std::size_t at = doc.find(open); at != std::string::npos; at = doc.find(open, at)) {
    const std::size_t begin = at + open.size(), end = doc.find(close, begin);
    REQUIRE(end != std::string::npos);
    const std::string code = doc.substr(begin, end - begin);
    INFO("docs/runtime.md block " << count << ":\n" << code);
    CHECK(self.find(squeeze(code)) != std::string::npos);
    ++count;
    at = end + close.size();
  }
  REQUIRE(count == 8);
}

// The blocks below are copied from the page as they are written there.
// clang-format off

TEST_CASE("docs: tensors are created, viewed and drawn at random", "[runtime]") {
  rw::Tensor m = rw::Tensor::from({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  rw::Tensor t = m.transpose();              // a view: shape (3, 2), strides (1, 3)
  rw::Tensor r = m.slice(1, -1, -4, -1);     // columns reversed, stride -1
  rw::Tensor c = rw::Tensor::from({{{1, 2}}, {{3, 4}}});   // 3-d, int32
  rw::Tensor a = rw::Tensor::arange(0.0, 1.0, 0.25);       // [0.   0.25 0.5  0.75]
  rw::Tensor i = rw::Tensor::arange(5);                    // int64 0..4
  rw::Rng rng(42);
  rw::Tensor u = rng.uniform({2, 3}, -1.0, 1.0);           // the same values on every run
  rw::Tensor n = rng.normal({1000}, 0.0, 1.0, rw::f32);
  CHECK(t.shape() == rw::Shape{3, 2});
  CHECK(t.strides() == rw::Strides{1, 3});
  CHECK(r.at({0, 0}) == 3.0);
  CHECK(c.shape() == rw::Shape{2, 1, 2});
  CHECK(a.to_string() == "[0.   0.25 0.5  0.75]");
  CHECK(i.dtype() == rw::i64);
  CHECK(u.equal(rw::Rng(42).uniform({2, 3}, -1.0, 1.0)));
  CHECK(n.dtype() == rw::f32);
}

TEST_CASE("docs: tensors print like NumPy", "[runtime]") {
  CHECK(rw::Tensor::from({{1.0, 2.5}, {3.0, 4.0}}).to_string() == "[[1.  2.5]\n [3.  4. ]]");
  CHECK(rw::Tensor::from({1.5e-5, 1.0}).to_string() == "[1.5e-05 1.0e+00]");
  CHECK(rw::Tensor::arange(2000).to_string() == "[   0    1    2 ... 1997 1998 1999]");
}

TEST_CASE("docs: a program, then the elementwise kernels", "[runtime]") {
  rw::ScalarProgram p;
  rw::Reg x = p.input(rw::f64), y = p.input(rw::i32);
  rw::Reg e = p.apply(rw::ScalarOp::Exp, {x});
  rw::Reg s = p.apply(rw::ScalarOp::Add, {e, y});        // y is cast to float64 first
  p.output(p.apply(rw::ScalarOp::Mul, {s, p.constant(0.5, rw::f64)}));
  CHECK(p.to_string() ==
        "%0 = input 0 f64\n"
        "%1 = input 1 i32\n"
        "%2 = exp(%0) f64\n"
        "%3 = cast(%1) f64\n"
        "%4 = add(%2, %3) f64\n"
        "%5 = 0.5 f64\n"
        "%6 = mul(%4, %5) f64\n"
        "outputs %6\n");
  rw::Tensor a = rw::Tensor::from({{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}});
  rw::Tensor b = rw::Tensor::from({10, 20, 30});                  // int32, broadcast
  rw::Tensor sum = rw::elemwise(rw::ScalarOp::Add, a, b);          // float64 (2, 3)
  std::vector<rw::Tensor> out = rw::run_elemwise(p, std::vector<rw::Tensor>{a, b});
  rw::elemwise_into(rw::ScalarOp::Mul, std::vector<rw::Tensor>{a, a}, a);   // in place
  rw::Tensor q = rw::cast(sum, rw::i16);
  CHECK(sum.equal(rw::Tensor::from({{11.0, 22.0, 33.0}, {14.0, 25.0, 36.0}})));
  CHECK(out[0].at({1, 2}) == Approx((std::exp(6.0) + 30.0) * 0.5));
  CHECK(a.equal(rw::Tensor::from({{1.0, 4.0, 9.0}, {16.0, 25.0, 36.0}})));
  CHECK(q.dtype() == rw::i16);
  CHECK(q.at({1, 2}) == 36);
}

TEST_CASE("docs: reductions", "[runtime]") {
  rw::Tensor x = rw::Tensor::from({{1.0, 5.0, 3.0}, {4.0, 2.0, 6.0}});
  CHECK(rw::sum(x).item<double>() == 21.0);
  CHECK(rw::max(x, rw::Axes{1}).equal(rw::Tensor::from({5.0, 6.0})));
  CHECK(rw::mean(x, rw::Axes{0}, /*keepdims=*/true).shape() == rw::Shape{1, 3});
  CHECK(rw::argmax(x, 1).equal(rw::Tensor::from({std::int64_t{1}, std::int64_t{2}})));
  CHECK(rw::sum(rw::Tensor::from({1, 2, 3})).dtype() == rw::i64);
}

TEST_CASE("docs: a reduction of a program", "[runtime]") {
  rw::ScalarProgram f;
  f.output(f.apply(rw::ScalarOp::Mul, {f.apply(rw::ScalarOp::Exp, {f.input(rw::f64)}),
                                       f.input(rw::f64)}));
  rw::Tensor xs = rw::Tensor::from({0.0, 1.0}), ys = rw::Tensor::from({2.0, 3.0});
  rw::Tensor r = rw::reduce_program(rw::ReduceOp::Sum, f, std::vector<rw::Tensor>{xs, ys});
  CHECK(r.item<double>() == Approx(2.0 + 3.0 * std::exp(1.0)));   // sum(exp(x) * y)
}

TEST_CASE("docs: linear algebra", "[runtime]") {
  rw::Tensor w = rw::Tensor::from({{1.0, 2.0}, {3.0, 4.0}});
  rw::Tensor v = rw::Tensor::from({1.0, 1.0});
  CHECK(rw::matmul(w, v).equal(rw::Tensor::from({3.0, 7.0})));
  rw::Tensor acc = rw::Tensor::ones({2, 2});
  rw::gemm(acc, 2.0, w, w.transpose(), 1.0);          // acc = 2 w wᵀ + acc
  CHECK(acc.equal(rw::Tensor::from({{11.0, 23.0}, {23.0, 51.0}})));
}

TEST_CASE("docs: indexing, joining, softmax", "[runtime]") {
  rw::Tensor rows = rw::take(rw::Tensor::from({{1, 2}, {3, 4}, {5, 6}}),
                             rw::Tensor::from({2, 0, -1}));          // [[5 6] [1 2] [5 6]]
  rw::Tensor acc2 = rw::Tensor::zeros({3});
  rw::scatter_add(acc2, rw::Tensor::from({0, 2, 0}), rw::Tensor::from({1.0, 2.0, 3.0}));
  CHECK(acc2.equal(rw::Tensor::from({4.0, 0.0, 2.0})));            // repeated indices add
  rw::Tensor grid = rw::Tensor::zeros({2, 3});
  rw::Tensor col = grid.select(1, 1);
  rw::add_into(col, rw::Tensor::scalar(5.0));                       // inc_subtensor on a view
  rw::Tensor joined = rw::concatenate(std::vector<rw::Tensor>{grid, grid}, 1);   // (2, 6)
  rw::Tensor probs = rw::softmax(rw::Tensor::from({1000.0, 1000.0}));            // [0.5 0.5]
  CHECK(rows.equal(rw::Tensor::from({{5, 6}, {1, 2}, {5, 6}})));
  CHECK(grid.equal(rw::Tensor::from({{0.0, 5.0, 0.0}, {0.0, 5.0, 0.0}})));
  CHECK(joined.shape() == rw::Shape{2, 6});
  CHECK(probs.equal(rw::Tensor::from({0.5, 0.5})));
}
// clang-format on

// Linear algebra and nnet Ops through rw::function against loops: dot of
// every rank pair, batched matmul, outer, gemm (and its in-place form), gemv, ger,
// dot22scalar,
// softmax and log_softmax.
#include <cmath>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

namespace {

double dot_ref(const Tensor& a, const Tensor& b, std::int64_t i, std::int64_t j) {
  double s = 0;
  for (std::int64_t k = 0; k < a.shape()[1]; ++k) s += a.at({i, k}) * b.at({k, j});
  return s;
}

}  // namespace

TEST_CASE("dot of matrices and vectors; matmul with batches; outer", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  auto v = rw::vector("v");
  auto t = rw::tensor("t", f64, {kUnknownDim, kUnknownDim, kUnknownDim});
  rw::Function f = rw::function({a, b, v, t}, {rw::dot(a, b), rw::dot(a, v), rw::dot(v, v),
                                               rw::matmul(t, b), rw::outer(v, v)});
  const Tensor va = lcg_tensor({2, 3}, 1), vb = lcg_tensor({3, 4}, 2), vv = lcg_tensor({3}, 3);
  const Tensor vt = lcg_tensor({2, 5, 3}, 4);
  const auto out = f(va, vb, vv, vt);
  CHECK(allclose(out[0], make_tensor({2, 4}, [&](const Idx& i) { return dot_ref(va, vb, i[0], i[1]); }),
                 1e-14, 1e-15));
  CHECK(allclose(out[1], make_tensor({2}, [&](const Idx& i) {
                   double s = 0;
                   for (std::int64_t k = 0; k < 3; ++k) s += va.at({i[0], k}) * vv.at({k});
                   return s;
                 }), 1e-14, 1e-15));
  double vv_dot = 0;
  for (std::int64_t k = 0; k < 3; ++k) vv_dot += vv.at({k}) * vv.at({k});
  CHECK(out[2].item<double>() == Approx(vv_dot).epsilon(1e-14));
  CHECK(allclose(out[3], make_tensor({2, 5, 4}, [&](const Idx& i) {
                   double s = 0;
                   for (std::int64_t k = 0; k < 3; ++k) s += vt.at({i[0], i[1], k}) * vb.at({k, i[2]});
                   return s;
                 }), 1e-14, 1e-15));
  require_same(out[4], make_tensor({3, 3}, [&](const Idx& i) { return vv.at({i[0]}) * vv.at({i[1]}); }));
}

TEST_CASE("gemm computes alpha x @ y + beta z, in place when asked", "[ops]") {
  auto z = rw::matrix("z"), x = rw::matrix("x"), y = rw::matrix("y");
  rw::Function f = rw::function({z, x, y}, rw::gemm(z, 2.0, x, y, 0.5));
  const Tensor vz = lcg_tensor({2, 3}, 1), vx = lcg_tensor({2, 4}, 2), vy = lcg_tensor({4, 3}, 3);
  const Tensor before = vz.copy();
  const Tensor got = f(vz, vx, vy);
  require_same(vz, before);  // z is not written: the Op is not in place
  CHECK(allclose(got, make_tensor({2, 3}, [&](const Idx& i) {
                   return 2.0 * dot_ref(vx, vy, i[0], i[1]) + 0.5 * vz.at(i);
                 }), 1e-14, 1e-15));
  const OpPtr inplace = standard_registry().make("gemm", {{"inplace", true}});
  CHECK(inplace->destroy_map() == IoMap{{0, 0}});
  const Var alpha = rw::constant(2.0), beta = rw::constant(0.5);
  const ApplyRef node = inplace->make_node(std::vector<Var>{z, alpha, x, y, beta});
  Tensor target = vz.copy();
  std::vector<Tensor> in{target, Tensor::scalar(2.0), vx, vy, Tensor::scalar(0.5)}, out(1);
  inplace->perform(*node, in, out);
  CHECK(out[0].raw_data() == target.raw_data());
  require_same(target, got);
}

TEST_CASE("gemv computes alpha a @ x + beta y; beta 0 never reads y", "[ops]") {
  auto y = rw::vector("y"), a = rw::matrix("a"), x = rw::vector("x");
  rw::Function f = rw::function({y, a, x}, rw::gemv(y, 2.0, a, x, 0.5));
  const Tensor vy = lcg_tensor({3}, 1), va = lcg_tensor({3, 4}, 2), vx = lcg_tensor({4}, 3);
  const Tensor before = vy.copy();
  const Tensor got = f(vy, va, vx);
  require_same(vy, before);  // y is copied, not written
  CHECK(allclose(got, make_tensor({3}, [&](const Idx& i) {
                   double s = 0;
                   for (std::int64_t k = 0; k < 4; ++k) s += va.at({i[0], k}) * vx.at({k});
                   return 2.0 * s + 0.5 * vy.at(i);
                 }), 1e-14, 1e-15));
  rw::Function g = rw::function({y, a, x}, rw::gemv(y, 1.0, a, x, 0.0));
  Tensor nan_y = vy.copy();
  nan_y.data<double>()[1] = std::nan("");
  CHECK_FALSE(std::isnan(g(nan_y, va, vx).at({1})));
  CHECK_THROWS_WITH(rw::gemv(rw::vector("v", i32), 1, rw::matrix("p", i32), rw::vector("q", i32), 0),
                    "`gemv`: input 0 (`v`) is i32[?], expected float32 or float64");
  CHECK_THROWS_AS(rw::gemv(rw::vector("v", f64, 2), 1, rw::matrix("p", f64, 3, 4), x, 0), TypeError);
}

TEST_CASE("dot22scalar computes alpha x @ y, and refuses what is not two matrices and a scalar",
          "[ops]") {
  auto x = rw::matrix("x"), y = rw::matrix("y");
  auto alpha = rw::scalar("alpha");
  rw::Function f = rw::function({x, y, alpha}, rw::dot22scalar(x, y, alpha));
  const Tensor vx = lcg_tensor({3, 4}, 7), vy = lcg_tensor({4, 2}, 8);
  const Tensor got = f(vx, vy, Tensor::scalar(-2.5));
  CHECK(got.shape() == Shape{3, 2});
  CHECK(allclose(got, make_tensor({3, 2}, [&](const Idx& i) { return -2.5 * dot_ref(vx, vy, i[0], i[1]); }),
                 1e-14, 1e-15));
  // Empty inner extent: a zero product, scaled.
  const Tensor zero = f(Tensor::empty(DType::Float64, {2, 0}), Tensor::empty(DType::Float64, {0, 3}),
                        Tensor::scalar(4.0));
  CHECK(zero.shape() == Shape{2, 3});
  for (std::int64_t k = 0; k < zero.size(); ++k) CHECK(zero.data<double>()[k] == 0.0);
  // float32 throughout.
  auto xf = rw::matrix("xf", f32), yf = rw::matrix("yf", f32);
  CHECK(rw::dot22scalar(xf, yf, 0.5)->tensor_type()->dtype() == f32);

  CHECK_THROWS_WITH(rw::dot22scalar(rw::matrix("p", i32), rw::matrix("q", i32), 1),
                    "`dot22scalar`: input 0 (`p`) is i32[?,?], expected float32 or float64");
  CHECK_THROWS_WITH(rw::dot22scalar(x, rw::vector("v"), 1.0),
                    "`dot22scalar`: input 1 (`v`) is f64[?], expected a matrix of float64");
  CHECK_THROWS_WITH(rw::dot22scalar(x, y, rw::vector("s")),
                    "`dot22scalar`: input 2 (`s`) (alpha) is f64[?], expected a 0-d number");
  CHECK_THROWS_AS(rw::dot22scalar(rw::matrix("p", f64, 3, 4), rw::matrix("q", f64, 5, 2), 1.0),
                  TypeError);
}

TEST_CASE("ger computes a + alpha outer(x, y)", "[ops]") {
  auto a = rw::matrix("a"), x = rw::vector("x"), y = rw::vector("y");
  rw::Function f = rw::function({a, x, y}, rw::ger(a, -1.5, x, y));
  const Tensor va = lcg_tensor({3, 2}, 4), vx = lcg_tensor({3}, 5), vy = lcg_tensor({2}, 6);
  const Tensor before = va.copy();
  const Tensor got = f(va, vx, vy);
  require_same(va, before);
  CHECK(allclose(got, make_tensor({3, 2}, [&](const Idx& i) {
                   return va.at(i) - 1.5 * vx.at({i[0]}) * vy.at({i[1]});
                 }), 1e-14, 1e-15));
  CHECK_THROWS_AS(rw::ger(a, 1.0, rw::vector("m", f32), y), TypeError);
}

TEST_CASE("dot writes a matrix product into the tensor left in its output slot", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  const OpPtr dot = standard_registry().make("dot", {});
  const ApplyRef node = dot->make_node(std::vector<Var>{a, b});
  const Tensor va = lcg_tensor({3, 5}, 4), vb = lcg_tensor({5, 2}, 5);
  const Tensor want =
      make_tensor({3, 2}, [&](const Idx& i) { return dot_ref(va, vb, i[0], i[1]); });
  // A slot that fits (NaN inside: beta 0 never reads it) is written in place.
  const std::vector<std::int64_t> shape = {3, 2};
  Tensor slot = Tensor::full(shape, std::nan(""));
  std::vector<Tensor> in{va, vb}, out{slot};
  dot->perform(*node, in, out);
  CHECK(out[0].raw_data() == slot.raw_data());
  CHECK(allclose(out[0], want, 1e-14, 1e-15));
  // One of another shape, or a strided view, is replaced by a new tensor.
  for (Tensor other : {Tensor::zeros({2, 3}), Tensor::zeros({3, 4}).slice(1, 0, 4, 2)}) {
    std::vector<Tensor> out2{other};
    dot->perform(*node, in, out2);
    CHECK(out2[0].raw_data() != other.raw_data());
    CHECK(allclose(out2[0], want, 1e-14, 1e-15));
  }
}

TEST_CASE("softmax and log_softmax along an axis", "[ops]") {
  auto x = rw::matrix("x");
  rw::Function f = rw::function({x}, {rw::softmax(x), rw::log_softmax(x, 0)});
  const Tensor v = Tensor::from({{1.0, 2.0, 3.0}, {1000.0, 0.0, -1000.0}});
  auto [sm, lsm] = f(v);
  const Tensor want = make_tensor({2, 3}, [&](const Idx& i) {
    double m = -INFINITY, s = 0;
    for (std::int64_t k = 0; k < 3; ++k) m = std::max(m, v.at({i[0], k}));
    for (std::int64_t k = 0; k < 3; ++k) s += std::exp(v.at({i[0], k}) - m);
    return std::exp(v.at(i) - m) / s;
  });
  CHECK(allclose(sm, want, 1e-14, 1e-300));
  const Tensor want_log = make_tensor({2, 3}, [&](const Idx& i) {
    const double a = v.at({0, i[1]}), b = v.at({1, i[1]});
    const double m = std::max(a, b);
    return v.at(i) - m - std::log(std::exp(a - m) + std::exp(b - m));
  });
  CHECK(allclose(lsm, want_log, 1e-14, 1e-14));
}

TEST_CASE("matrix_inverse, det and solve agree with hand-computed values", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  auto v = rw::vector("v");
  rw::Function f = rw::function({a, b, v}, {rw::inv(a), rw::det(a), rw::solve(a, b), rw::solve(a, v),
                                            rw::trace(a), rw::trace(a, 1)});
  // A 3 x 3 matrix with determinant 6 and inverse adj(a) / 6.
  const Tensor va = Tensor::from({{2.0, 0.0, 1.0}, {1.0, 3.0, 2.0}, {1.0, 1.0, 2.0}});
  const Tensor vb = Tensor::from({{1.0, 0.0}, {0.0, 1.0}, {2.0, -1.0}});
  const Tensor vv = Tensor::from({3.0, 6.0, 4.0});
  const auto out = f(va, vb, vv);
  const Tensor inv_ref = Tensor::from({{4.0, 1.0, -3.0}, {0.0, 3.0, -3.0}, {-2.0, -2.0, 6.0}});
  CHECK(allclose(out[0], make_tensor({3, 3}, [&](const Idx& i) { return inv_ref.at(i) / 6; }), 1e-14, 1e-15));
  CHECK(out[1].item<double>() == Approx(6.0).epsilon(1e-14));
  CHECK(allclose(out[2], make_tensor({3, 2}, [&](const Idx& i) { return dot_ref(out[0], vb, i[0], i[1]); }),
                 1e-13, 1e-14));
  CHECK(allclose(out[3], Tensor::from({1.0, 1.0, 1.0}), 1e-14, 1e-15));
  CHECK(out[4].item<double>() == 7.0);
  CHECK(out[5].item<double>() == 2.0);
  // Singular: a ValueError through the function; its determinant is 0.
  const Tensor sing = Tensor::from({{1.0, 2.0, 3.0}, {2.0, 4.0, 6.0}, {0.0, 1.0, 1.0}});
  CHECK_THROWS_AS(f(sing, vb, vv), ExecutionError);
  rw::Function d = rw::function({a}, rw::det(a));
  CHECK(d(sing).item<double>() == Approx(0.0).margin(1e-14));
  CHECK(d(Tensor::empty(f64, {0, 0})).item<double>() == 1.0);
  CHECK_THROWS_WITH(rw::det(rw::matrix("p", f64, 2, 3)),
                    "`det`: input 0 (`p`) is f64[2,3], expected a square matrix of float32 or float64");
  CHECK_THROWS_WITH(rw::inv(rw::matrix("q", i32)),
                    "`matrix_inverse`: input 0 (`q`) is i32[?,?], expected a square matrix of float32 or float64");
  CHECK_THROWS_WITH(rw::solve(a, rw::vector("w", f32)),
                    "`solve`: input 1 (`w`) is f32[?], expected a vector or matrix of float64");
  CHECK_THROWS_AS(rw::solve(rw::matrix("s", f64, 3, 3), rw::vector("u", f64, 2)), TypeError);
  CHECK(rw::solve(rw::matrix("s", f32, 3, kUnknownDim), rw::matrix("c", f32, kUnknownDim, 4))
            ->tensor_type()->to_string() == "f32[3,4]");
}

TEST_CASE("kron builds the block matrix of products", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  rw::Function f = rw::function({a, b}, rw::kron(a, b));
  const Tensor va = lcg_tensor({2, 3}, 5), vb = lcg_tensor({4, 2}, 6);
  require_same(f(va, vb), make_tensor({8, 6}, [&](const Idx& i) {
                 return va.at({i[0] / 4, i[1] / 2}) * vb.at({i[0] % 4, i[1] % 2});
               }));
  CHECK_THROWS_AS(rw::kron(rw::vector("v"), b), TypeError);
}

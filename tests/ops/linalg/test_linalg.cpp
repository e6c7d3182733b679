// Linear algebra and nnet Ops through rw::function against loops: dot of
// every rank pair, batched matmul, outer, gemm (and its in-place form), gemv, ger,
// dot22scalar, matrix_inverse, det, solve, trace, kron; the factorisations
// (cholesky, lu, solve_triangular, slogdet, eigh, eigvalsh, svd, qr, pinv) and expm against
// hand-computed values and reconstructions; lstsq, matrix_power and norm;
// block_diag;
// softmax and log_softmax.
#include <algorithm>
#include <cmath>
#include <limits>

#include <catch2/catch.hpp>

#include "runtime/kernels/linalg.hpp"
#include "rw/rewrite.hpp"
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

TEST_CASE("block_diag puts matrices on the diagonal, zeros elsewhere", "[ops][linalg]") {
  auto a = rw::matrix("a"), b = rw::matrix("b", i32);
  rw::Function f = rw::function({a, b}, rw::block_diag({a, b, a}));
  const Tensor va = Tensor::from({{1.0, 2.0}});
  const Tensor vb = Tensor::from({{3, 4}, {5, 6}}).astype(i32);
  require_same(f(va, vb), Tensor::from({{1.0, 2.0, 0.0, 0.0, 0.0, 0.0},
                                        {0.0, 0.0, 3.0, 4.0, 0.0, 0.0},
                                        {0.0, 0.0, 5.0, 6.0, 0.0, 0.0},
                                        {0.0, 0.0, 0.0, 0.0, 1.0, 2.0}}));
  CHECK(rw::block_diag({rw::matrix("p", f32, 2, 3), rw::matrix("q", f32, 1, 1)})
            ->tensor_type()->to_string() == "f32[3,4]");
  CHECK(rw::block_diag({a, b})->tensor_type()->to_string() == "f64[?,?]");
  CHECK_THROWS_WITH(rw::block_diag({a, rw::vector("v")}),
                    "`block_diag`: input 1 (`v`) has rank 1, expected a matrix");
  CHECK_THROWS_AS(rw::block_diag({rw::matrix("t", DType::Bool)}), TypeError);
}

TEST_CASE("kron builds the block matrix of products", "[ops]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  rw::Function f = rw::function({a, b}, rw::kron(a, b));
  const Tensor va = lcg_tensor({2, 3}, 5), vb = lcg_tensor({4, 2}, 6);
  require_same(f(va, vb), make_tensor({8, 6}, [&](const Idx& i) {
                 return va.at({i[0] / 4, i[1] / 2}) * vb.at({i[0] % 4, i[1] % 2});
               }));
  CHECK_THROWS_WITH(rw::kron(rw::vector("v"), b), "`kron`: input 0 (`v`) has rank 1, expected a matrix");
  CHECK_THROWS_AS(rw::kron(a, rw::matrix("c", rw::DType::Bool)), TypeError);
  // Static extents multiply; a zero extent makes the product's zero.
  CHECK(rw::kron(rw::matrix("s", f32, 2, 3), rw::matrix("t", f64, 4, kUnknownDim))
            ->tensor_type()->to_string() == "f64[8,?]");
  CHECK(rw::kron(rw::matrix("z", f64, 0, 3), b)->tensor_type()->to_string() == "f64[0,?]");
  // Integers stay integers.
  auto i = rw::matrix("i", i64), j = rw::matrix("j", i64);
  rw::Function fi = rw::function({i, j}, rw::kron(i, j));
  require_same(fi(Tensor::from<std::int64_t>({{1, 2}}), Tensor::from<std::int64_t>({{3}, {-1}})),
               Tensor::from<std::int64_t>({{3, 6}, {-1, -2}}));
}

namespace {

/// The tensor's elements on and below (`lower`) or above the main diagonal
/// are all that is nonzero.
bool is_triangular(const Tensor& t, bool lower) {
  for (std::int64_t i = 0; i < t.shape()[0]; ++i)
    for (std::int64_t j = 0; j < t.shape()[1]; ++j)
      if ((lower ? j > i : j < i) && t.at({i, j}) != 0.0) return false;
  return true;
}

Tensor identity(std::int64_t n) {
  return make_tensor({n, n}, [](const Idx& i) { return i[0] == i[1] ? 1.0 : 0.0; });
}

}  // namespace

TEST_CASE("cholesky gives the lower factor and reads only the lower triangle", "[ops][linalg]") {
  auto a = rw::matrix("a");
  rw::Function f = rw::function({a}, rw::cholesky(a));
  // [[4, 2], [2, 3]] = L Lᵀ with L = [[2, 0], [1, √2]].
  const Tensor l = f(Tensor::from({{4.0, 2.0}, {2.0, 3.0}}));
  CHECK(allclose(l, Tensor::from({{2.0, 0.0}, {1.0, std::sqrt(2.0)}}), 1e-15, 1e-15));
  // What the upper triangle holds does not matter.
  CHECK(allclose(f(Tensor::from({{4.0, -70.0}, {2.0, 3.0}})), l, 0, 0));
  const Tensor spd = Tensor::from({{6.0, 1.0, -2.0}, {1.0, 5.0, 0.5}, {-2.0, 0.5, 4.0}});
  const Tensor l3 = f(spd);
  CHECK(is_triangular(l3, true));
  CHECK(allclose(rw::dot(l3, l3.transpose()), spd, 1e-14, 1e-14));
  CHECK_THROWS_AS(f(Tensor::from({{1.0, 2.0}, {2.0, 1.0}})), ExecutionError);  // not positive definite
  CHECK_THROWS_WITH(rw::cholesky(rw::matrix("p", f64, 2, 3)),
                    "`cholesky`: input 0 (`p`) is f64[2,3], expected a square matrix of float32 or float64");
  CHECK_THROWS_AS(rw::cholesky(rw::matrix("q", i64)), TypeError);
  CHECK_THROWS_AS(rw::cholesky(rw::vector("v")), TypeError);
  CHECK(rw::cholesky(rw::matrix("r", f32, kUnknownDim, 4))->tensor_type()->to_string() == "f32[4,4]");
}

TEST_CASE("lu gives p, l, u with p l u = a, l unit lower and u upper", "[ops][linalg]") {
  auto a = rw::matrix("a");
  auto [p, l, u] = rw::lu(a);
  rw::Function f = rw::function({a}, {p, l, u, rw::dot(p, rw::dot(l, u))});
  // The pivot of column 0 is row 1's 3: p swaps the rows, l = [[1, 0], [1/3, 1]],
  // u = [[3, 4], [0, 2 - 4/3]].
  auto out = f(Tensor::from({{1.0, 2.0}, {3.0, 4.0}}));
  CHECK(allclose(out[0], Tensor::from({{0.0, 1.0}, {1.0, 0.0}}), 0, 0));
  CHECK(allclose(out[1], Tensor::from({{1.0, 0.0}, {1.0 / 3, 1.0}}), 1e-15, 1e-15));
  CHECK(allclose(out[2], Tensor::from({{3.0, 4.0}, {0.0, 2.0 / 3}}), 1e-15, 1e-15));
  const Tensor va = lcg_tensor({4, 4}, 17);
  out = f(va);
  CHECK(allclose(out[3], va, 1e-14, 1e-14));
  CHECK(is_triangular(out[1], true));
  CHECK(is_triangular(out[2], false));
  for (std::int64_t i = 0; i < 4; ++i) {
    CHECK(out[1].at({i, i}) == 1.0);
    double row = 0, col = 0;
    for (std::int64_t j = 0; j < 4; ++j) {
      row += out[0].at({i, j});
      col += out[0].at({j, i});
      // Partial pivoting keeps every multiplier within [-1, 1].
      CHECK(std::abs(out[1].at({i, j})) <= 1.0);
    }
    CHECK(row == 1.0);
    CHECK(col == 1.0);
  }
  // A singular matrix factors too: u has a zero on its diagonal.
  out = f(Tensor::from({{1.0, 2.0}, {2.0, 4.0}}));
  CHECK(out[2].at({1, 1}) == 0.0);
  CHECK(allclose(out[3], Tensor::from({{1.0, 2.0}, {2.0, 4.0}}), 0, 0));
  CHECK(std::get<1>(rw::lu(rw::matrix("s", f32, kUnknownDim, 4)))->tensor_type()->to_string() ==
        "f32[4,4]");
  CHECK_THROWS_WITH(rw::lu(rw::matrix("w", f64, 2, 3)),
                    "`lu`: input 0 (`w`) is f64[2,3], expected a square matrix of float32 or float64");
  CHECK_THROWS_AS(rw::lu(rw::matrix("i", i64)), TypeError);
}

TEST_CASE("expm of diagonal, nilpotent and rotation generators; its gradient", "[ops][linalg]") {
  auto a = rw::matrix("a");
  rw::Function f = rw::function({a}, rw::expm(a));
  CHECK(allclose(f(Tensor::from({{1.0, 0.0}, {0.0, -2.0}})),
                 Tensor::from({{std::exp(1.0), 0.0}, {0.0, std::exp(-2.0)}}), 1e-14, 1e-15));
  // N nilpotent (N³ = 0): e^N = I + N + N² / 2.
  CHECK(allclose(f(Tensor::from({{0.0, 1.0, 2.0}, {0.0, 0.0, 3.0}, {0.0, 0.0, 0.0}})),
                 Tensor::from({{1.0, 1.0, 3.5}, {0.0, 1.0, 3.0}, {0.0, 0.0, 1.0}}), 1e-14, 1e-15));
  // The generator of rotations by t.
  const double t = 0.7;
  CHECK(allclose(f(Tensor::from({{0.0, -t}, {t, 0.0}})),
                 Tensor::from({{std::cos(t), -std::sin(t)}, {std::sin(t), std::cos(t)}}), 1e-14, 1e-15));
  CHECK(f(Tensor::empty(f64, {0, 0})).shape() == Shape{0, 0});
  CHECK(rw::expm(rw::matrix("h", f32, 3, kUnknownDim))->tensor_type()->to_string() == "f32[3,3]");
  CHECK_THROWS_WITH(rw::expm(rw::vector("v")),
                    "`expm`: input 0 (`v`) is f64[?], expected a square matrix of float32 or float64");
  // For diagonal a = diag(1, 2), d sum(e^a) / da[i][j] is the divided
  // difference (e^{a_i} - e^{a_j}) / (a_i - a_j), e^{a_i} on the diagonal.
  rw::Function g = rw::function({a}, rw::grad(rw::sum(rw::expm(a)), a));
  const double e = std::exp(1.0), e2 = std::exp(2.0);
  CHECK(allclose(g(Tensor::from({{1.0, 0.0}, {0.0, 2.0}})), Tensor::from({{e, e2 - e}, {e2 - e, e2}}),
                 1e-13, 1e-14));
}

TEST_CASE("solve_triangular solves with one triangle of a", "[ops][linalg]") {
  auto a = rw::matrix("a"), b = rw::matrix("b");
  auto v = rw::vector("v");
  rw::Function f = rw::function({a, b, v}, {rw::solve_triangular(a, b, true),
                                            rw::solve_triangular(a, v, false)});
  // Lower [[2, 0], [1, 4]] (the 9 above is ignored); upper [[2, 9], [0, 4]].
  const Tensor va = Tensor::from({{2.0, 9.0}, {1.0, 4.0}});
  const auto out = f(va, Tensor::from({{2.0, 4.0}, {9.0, 2.0}}), Tensor::from({20.0, 8.0}));
  CHECK(allclose(out[0], Tensor::from({{1.0, 2.0}, {2.0, 0.0}}), 1e-15, 1e-15));
  CHECK(allclose(out[1], Tensor::from({1.0, 2.0}), 1e-15, 1e-15));
  CHECK_THROWS_AS(f(Tensor::from({{0.0, 1.0}, {1.0, 4.0}}), Tensor::from({{1.0, 0.0}, {0.0, 1.0}}),
                    Tensor::from({1.0, 1.0})),
                  ExecutionError);  // a zero on the diagonal
  CHECK_THROWS_WITH(rw::solve_triangular(a, rw::vector("w", f32)),
                    "`solve_triangular{lower=false}`: input 1 (`w`) is f32[?], expected a vector or matrix of float64");
  CHECK_THROWS_AS(rw::solve_triangular(rw::matrix("s", f64, 3, 3), rw::vector("u", f64, 2)), TypeError);
  CHECK_THROWS_AS(rw::solve_triangular(rw::matrix("n", f64, 2, 3), v), TypeError);
}

TEST_CASE("slogdet gives the sign and log |det|", "[ops][linalg]") {
  auto a = rw::matrix("a");
  auto [sign, logabs] = rw::slogdet(a);
  rw::Function f = rw::function({a}, {sign, logabs});
  // det = -6.
  auto out = f(Tensor::from({{0.0, 2.0}, {3.0, 0.0}}));
  CHECK(out[0].item<double>() == -1.0);
  CHECK(out[1].item<double>() == Approx(std::log(6.0)).epsilon(1e-15));
  out = f(Tensor::from({{2.0, 0.0, 1.0}, {1.0, 3.0, 2.0}, {1.0, 1.0, 2.0}}));
  CHECK(out[0].item<double>() == 1.0);
  CHECK(out[1].item<double>() == Approx(std::log(6.0)).epsilon(1e-14));
  out = f(Tensor::from({{1.0, 2.0}, {2.0, 4.0}}));
  CHECK(out[0].item<double>() == 0.0);
  CHECK(out[1].item<double>() == -std::numeric_limits<double>::infinity());
  out = f(Tensor::empty(f64, {0, 0}));
  CHECK(out[0].item<double>() == 1.0);
  CHECK(out[1].item<double>() == 0.0);
  CHECK(sign->tensor_type()->to_string() == "f64[]");
  CHECK_THROWS_AS(rw::slogdet(rw::matrix("p", f64, 2, 3)), TypeError);
  CHECK_THROWS_AS(rw::slogdet(rw::matrix("q", i32)), TypeError);
}

TEST_CASE("eigh gives ascending eigenvalues and orthonormal eigenvectors", "[ops][linalg]") {
  auto a = rw::matrix("a");
  auto [w, v] = rw::eigh(a);
  rw::Function f = rw::function({a}, {w, v});
  // [[2, 1], [1, 2]]: 1 with (1, -1)/√2, 3 with (1, 1)/√2; the -5 above is ignored.
  auto out = f(Tensor::from({{2.0, -5.0}, {1.0, 2.0}}));
  CHECK(allclose(out[0], Tensor::from({1.0, 3.0}), 1e-14, 1e-14));
  const double r = 1 / std::sqrt(2.0);
  CHECK(std::abs(out[1].at({0, 0})) == Approx(r).epsilon(1e-14));
  CHECK(out[1].at({0, 0}) * out[1].at({1, 0}) == Approx(-0.5).epsilon(1e-14));
  CHECK(out[1].at({0, 1}) * out[1].at({1, 1}) == Approx(0.5).epsilon(1e-14));
  const Tensor sym = Tensor::from({{4.0, 1.0, -2.0}, {1.0, 0.5, 0.3}, {-2.0, 0.3, -1.0}});
  out = f(sym);
  CHECK(out[0].at({0}) < out[0].at({1}));
  CHECK(out[0].at({1}) < out[0].at({2}));
  // A V = V diag(w), Vᵀ V = I.
  const Tensor vw = make_tensor({3, 3}, [&](const Idx& i) { return out[1].at(i) * out[0].at({i[1]}); });
  CHECK(allclose(rw::dot(sym, out[1]), vw, 1e-13, 1e-13));
  CHECK(allclose(rw::dot(out[1].transpose(), out[1]), identity(3), 1e-14, 1e-14));
  CHECK(w->tensor_type()->to_string() == "f64[?]");
  // eigvalsh: the same eigenvalues, without the vectors.
  rw::Function values = rw::function({a}, rw::eigvalsh(a));
  CHECK(allclose(values(sym), out[0], 1e-15, 1e-15));
  CHECK_THROWS_AS(rw::eigvalsh(rw::matrix("n", f64, 2, 3)), TypeError);
  CHECK_THROWS_AS(rw::eigh(rw::matrix("p", f64, 3, 2)), TypeError);
  CHECK_THROWS_AS(rw::eigh(rw::tensor("t", f64, {2, 2, 2})), TypeError);
}

TEST_CASE("svd reconstructs a from u diag(s) vt, with s descending", "[ops][linalg]") {
  auto a = rw::matrix("a");
  const auto usv = rw::svd(a);
  REQUIRE(usv.size() == 3);
  rw::Function f = rw::function({a}, {usv[0], usv[1], usv[2], rw::svd(a, false)[0]});
  for (const Tensor& va : {lcg_tensor({4, 2}, 11), lcg_tensor({2, 3}, 12)}) {
    const auto out = f(va);
    const std::int64_t m = va.shape()[0], n = va.shape()[1], k = std::min(m, n);
    CHECK(out[0].shape() == Shape{m, k});
    CHECK(out[2].shape() == Shape{k, n});
    CHECK(out[1].at({0}) >= out[1].at({1}));
    CHECK(out[1].at({1}) >= 0.0);
    const Tensor us = make_tensor({m, k}, [&](const Idx& i) { return out[0].at(i) * out[1].at({i[1]}); });
    CHECK(allclose(rw::dot(us, out[2]), va, 1e-13, 1e-14));
    CHECK(allclose(rw::dot(out[0].transpose(), out[0]), identity(k), 1e-14, 1e-14));
    CHECK(allclose(out[3], out[1], 1e-14, 1e-15));
  }
  // diag(3, -4): singular values 4 and 3.
  CHECK(allclose(f(Tensor::from({{3.0, 0.0}, {0.0, -4.0}}))[1], Tensor::from({4.0, 3.0}), 1e-15, 1e-15));
  CHECK(rw::svd(rw::matrix("p", f32, 5, 2))[0]->tensor_type()->to_string() == "f32[5,2]");
  CHECK_THROWS_WITH(rw::svd(rw::vector("v")),
                    "`svd{compute_uv=true}`: input 0 (`v`) is f64[?], expected a matrix of float32 or float64");
  CHECK_THROWS_AS(rw::svd(rw::matrix("q", i32)), TypeError);
}

TEST_CASE("svd's singular values have the same gradient with and without u and vt", "[ops][linalg][grad]") {
  auto a = rw::matrix("a");
  const Var g_uv = rw::grad(rw::sum(rw::svd(a)[1]), a);
  const Var g_s = rw::grad(rw::sum(rw::svd(a, false)[0]), a);
  rw::Function f = rw::function({a}, {g_uv, g_s});
  const auto out = f(lcg_tensor({3, 2}, 13));
  CHECK(allclose(out[0], out[1], 1e-13, 1e-14));
  // Through u, the gradient is undefined: grad says so instead of returning zeros.
  CHECK_THROWS(rw::grad(rw::sum(rw::svd(a)[0]), a));
}

TEST_CASE("qr gives orthonormal q and upper-triangular r with q r = a", "[ops][linalg]") {
  auto a = rw::matrix("a");
  auto [q, r] = rw::qr(a);
  rw::Function f = rw::function({a}, {q, r});
  for (const Tensor& va : {lcg_tensor({4, 3}, 21), lcg_tensor({2, 3}, 22), lcg_tensor({3, 3}, 23)}) {
    const auto out = f(va);
    const std::int64_t m = va.shape()[0], n = va.shape()[1], k = std::min(m, n);
    CHECK(out[0].shape() == Shape{m, k});
    CHECK(out[1].shape() == Shape{k, n});
    CHECK(is_triangular(out[1], false));
    CHECK(allclose(rw::dot(out[0], out[1]), va, 1e-14, 1e-14));
    CHECK(allclose(rw::dot(out[0].transpose(), out[0]), identity(k), 1e-14, 1e-14));
  }
  CHECK(rw::qr(rw::matrix("w", f64, 2, 5)).second->tensor_type()->to_string() == "f64[2,5]");
  CHECK_THROWS_AS(rw::qr(rw::vector("v")), TypeError);
  // Without a static m >= n, the gradient is undefined rather than wrong.
  CHECK_THROWS(rw::grad(rw::sum(q), a));
}

TEST_CASE("pinv, lstsq and matrix_power", "[ops][linalg]") {
  auto a = rw::matrix("a"), b = rw::vector("b");
  rw::Function p = rw::function({a}, rw::pinv(a));
  // Invertible: the inverse.
  const Tensor va = Tensor::from({{2.0, 0.0, 1.0}, {1.0, 3.0, 2.0}, {1.0, 1.0, 2.0}});
  const Tensor inv_ref = Tensor::from({{4.0, 1.0, -3.0}, {0.0, 3.0, -3.0}, {-2.0, -2.0, 6.0}});
  CHECK(allclose(p(va), make_tensor({3, 3}, [&](const Idx& i) { return inv_ref.at(i) / 6; }), 1e-14, 1e-14));
  // Rank one, a = σ² u uᵀ-like: pinv(a) = aᵀ / |a|_F² = a / 25.
  const Tensor rank1 = Tensor::from({{1.0, 2.0}, {2.0, 4.0}});
  CHECK(allclose(p(rank1), make_tensor({2, 2}, [&](const Idx& i) { return rank1.at(i) / 25; }), 1e-14, 1e-15));
  const Tensor wide = lcg_tensor({2, 4}, 31);
  const Tensor pw = p(wide);
  CHECK(pw.shape() == Shape{4, 2});
  CHECK(allclose(rw::dot(rw::dot(wide, pw), wide), wide, 1e-13, 1e-14));

  // The least-squares fit of x0 e1 + x1 e2 + (x0 + x1) e3 to (1, 1, 0): (1/3, 1/3).
  rw::Function l = rw::function({a, b}, rw::lstsq(a, b));
  CHECK(allclose(l(Tensor::from({{1.0, 0.0}, {0.0, 1.0}, {1.0, 1.0}}), Tensor::from({1.0, 1.0, 0.0})),
                 Tensor::from({1.0 / 3, 1.0 / 3}), 1e-14, 1e-15));

  rw::Function mp = rw::function({a}, {rw::matrix_power(a, 5), rw::matrix_power(a, 0), rw::matrix_power(a, -2)});
  const auto out = mp(Tensor::from({{1.0, 1.0}, {0.0, 1.0}}));
  CHECK(allclose(out[0], Tensor::from({{1.0, 5.0}, {0.0, 1.0}}), 0, 0));
  CHECK(allclose(out[1], identity(2), 0, 0));
  CHECK(allclose(out[2], Tensor::from({{1.0, -2.0}, {0.0, 1.0}}), 1e-15, 1e-15));
  CHECK_THROWS_AS(rw::matrix_power(b, 2), TypeError);
  CHECK_THROWS_AS(rw::pinv(rw::matrix("i", i32)), TypeError);
}

TEST_CASE("norm of vectors and matrices", "[ops][linalg]") {
  auto v = rw::vector("v"), m = rw::matrix("m");
  using rw::NormOrd;
  rw::Function f = rw::function(
      {v, m}, {rw::norm(v), rw::norm(v, NormOrd::L1), rw::norm(v, NormOrd::Inf), rw::norm(m),
               rw::norm(m, NormOrd::L1), rw::norm(m, NormOrd::Inf), rw::norm(m, NormOrd::L2)});
  const auto out = f(Tensor::from({3.0, -4.0}), Tensor::from({{1.0, -2.0}, {3.0, 4.0}}));
  CHECK(out[0].item<double>() == 5.0);
  CHECK(out[1].item<double>() == 7.0);
  CHECK(out[2].item<double>() == 4.0);
  CHECK(out[3].item<double>() == Approx(std::sqrt(30.0)).epsilon(1e-15));
  CHECK(out[4].item<double>() == 6.0);
  CHECK(out[5].item<double>() == 7.0);
  // mᵀ m = [[10, 10], [10, 20]]: the largest eigenvalue is 15 + √125.
  CHECK(out[6].item<double>() == Approx(std::sqrt(15 + std::sqrt(125.0))).epsilon(1e-14));
  CHECK_THROWS_AS(rw::norm(v, NormOrd::Frobenius), TypeError);
  CHECK_THROWS_AS(rw::norm(rw::tensor("t", f64, {2, 2, 2})), TypeError);
}

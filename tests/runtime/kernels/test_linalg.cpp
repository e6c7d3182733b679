// Linear algebra against triple loops: matmul shapes and layouts, batches,
// dtypes, in-place gemm/gemv with every kind of output, errors.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/linalg.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::for_each_index;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;
using V = std::vector<std::int64_t>;

namespace {

// (m, k) @ (k, n) by the triple loop, in double.
Tensor ref_mm(const Tensor& a, const Tensor& b) {
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  return make_tensor({m, n}, [&](const Index& i) {
    double s = 0;
    for (std::int64_t p = 0; p < k; ++p) s += a.at({i[0], p}) * b.at({p, i[1]});
    return s;
  });
}

void check_close(const Tensor& got, const Tensor& want, double rtol = 1e-12) {
  INFO("got " << got.to_string() << "\nwant " << want.to_string());
  REQUIRE(got.shape() == want.shape());
  REQUIRE(allclose(got, want, rtol, 1e-12));
}

}  // namespace

TEST_CASE("matmul of matrices in every layout matches the loop", "[runtime]") {
  const Tensor a = lcg_tensor({5, 7}, 21), b = lcg_tensor({7, 6}, 22);
  const Tensor want = ref_mm(a, b);
  check_close(matmul(a, b), want);
  // The same operands reached through views of other layouts.
  const Tensor a_cm = a.transpose().copy().transpose();  // column-major
  const Tensor b_cm = b.transpose().copy().transpose();
  const Tensor a_rev = a.slice(0, 4, -6, -1).copy().slice(0, 4, -6, -1);  // negative stride
  Tensor wide = Tensor::zeros({5, 14});
  Tensor a_strided = wide.slice(1, 0, 14, 2);  // column stride 2
  a_strided.assign(a);
  for (const Tensor& av : {a, a_cm, a_rev, a_strided})
    for (const Tensor& bv : {b, b_cm}) {
      INFO("a strides " << shape_to_string(av.strides()) << " b strides "
                        << shape_to_string(bv.strides()));
      check_close(matmul(av, bv), want);
    }
  // A broadcast operand (stride 0) is copied.
  const Tensor row = lcg_tensor({6}, 23);
  const Tensor bb = row.broadcast_to(V{7, 6});
  check_close(matmul(a, bb), ref_mm(a, bb.copy()));
  // float32 and mixed dtypes.
  const Tensor af = a.astype(f32), bf = b.astype(f32);
  const Tensor mf = matmul(af, bf);
  REQUIRE(mf.dtype() == f32);
  check_close(mf, ref_mm(af, bf), 1e-5);
  REQUIRE(matmul(af, b).dtype() == f64);
  check_close(matmul(af, b), ref_mm(af, b));
}

TEST_CASE("matmul handles vectors, batches and empty dims like NumPy", "[runtime]") {
  const Tensor v = lcg_tensor({4}, 24), m = lcg_tensor({4, 5}, 25), w = lcg_tensor({3, 4}, 26);
  const Tensor vm = matmul(v, m);
  REQUIRE(vm.shape() == Shape{5});
  check_close(vm, ref_mm(v.expand_dims(0), m).reshape(V{5}));
  const Tensor wv = matmul(w, v);
  REQUIRE(wv.shape() == Shape{3});
  check_close(wv, ref_mm(w, v.expand_dims(1)).reshape(V{3}));
  const Tensor vv = matmul(v, v);
  REQUIRE(vv.shape() == Shape{});
  double d = 0;
  for (std::int64_t i = 0; i < 4; ++i) d += v.at({i}) * v.at({i});
  REQUIRE(vv.item<double>() == Approx(d).epsilon(1e-14));

  struct Case {
    V a, b, out;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 4}, {4, 5}, {2, 3, 5}},
                                         {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}},
                                         {{2, 1, 3, 4}, {5, 4, 2}, {2, 5, 3, 2}},
                                         {{3, 4}, {2, 4, 5}, {2, 3, 5}},
                                         {{4}, {2, 4, 5}, {2, 5}},
                                         {{2, 3, 4}, {4}, {2, 3}},
                                         {{1, 3, 4}, {4, 2}, {1, 3, 2}}}) {
    const Tensor x = lcg_tensor(c.a, 27), y = lcg_tensor(c.b, 28);
    INFO(shape_to_string(c.a) << " @ " << shape_to_string(c.b));
    const Tensor got = matmul(x, y);
    REQUIRE(got.shape() == Shape(c.out.begin(), c.out.end()));
    // Each output element: the dot product of the broadcast row and column.
    const bool xv = c.a.size() == 1, yv = c.b.size() == 1;
    const std::int64_t k = c.a.back();
    for_each_index(c.out, [&](const Index& i) {
      Index xi, yi;
      const std::size_t nb = c.out.size() - (xv ? 0 : 1) - (yv ? 0 : 1);
      const Index batch(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(nb));
      const std::int64_t row = xv ? 0 : i[nb], col = yv ? 0 : i[nb + (xv ? 0 : 1)];
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p) {
        auto pick = [&](const Tensor& t, std::int64_t r, std::int64_t cc, bool vec, bool left) {
          if (vec) return t.at({left ? cc : r});
          Index idx;
          const std::size_t tb = static_cast<std::size_t>(t.ndim()) - 2;
          for (std::size_t q = 0; q < tb; ++q)
            idx.push_back(t.shape()[q] == 1 ? 0 : batch[nb - tb + q]);
          idx.push_back(r);
          idx.push_back(cc);
          return t.at(idx);
        };
        s += pick(x, row, p, xv, true) * pick(y, p, col, yv, false);
      }
      REQUIRE(got.at(i) == Approx(s).epsilon(1e-12));
    });
  }
  REQUIRE(matmul(Tensor::zeros({0, 4}), m).shape() == Shape{0, 5});
  require_same(matmul(Tensor::ones({3, 0}), Tensor::ones({0, 5})), Tensor::zeros({3, 5}));
}

TEST_CASE("large products run in parallel and integer products are exact", "[runtime]") {
  const Tensor a = lcg_tensor({300, 200}, 29), b = lcg_tensor({200, 250}, 30);
  check_close(matmul(a, b), ref_mm(a, b), 1e-11);
  check_close(matmul(b.transpose(), a.transpose()), ref_mm(a, b).transpose().copy(), 1e-11);
  const Tensor ia = make_tensor(
      {40, 30}, [](const Index& i) { return (i[0] * 7 + i[1] * 3) % 11 - 5; }, i32);
  const Tensor ib = make_tensor(
      {30, 20}, [](const Index& i) { return (i[0] * 5 + i[1]) % 7 - 3; }, i32);
  const Tensor ic = matmul(ia, ib);
  REQUIRE(ic.dtype() == i32);
  require_same(ic, ref_mm(ia, ib).astype(i32));
  const Tensor p = Tensor::from({{true, false}, {false, false}});
  const Tensor q = Tensor::from({{false, true}, {true, true}});
  require_same(matmul(p, q), Tensor::from({{false, true}, {false, false}}));
}

TEST_CASE("gemm and gemv accumulate in place into any output", "[runtime]") {
  const Tensor a = lcg_tensor({6, 4}, 31), b = lcg_tensor({4, 5}, 32);
  const Tensor c0 = lcg_tensor({6, 5}, 33);
  const Tensor ab = ref_mm(a, b);
  const Tensor want =
      make_tensor({6, 5}, [&](const Index& i) { return 2.0 * ab.at(i) + 0.5 * c0.at(i); });
  Tensor c = c0.copy();
  gemm(c, 2.0, a, b, 0.5);
  check_close(c, want);
  // beta = 0 ignores the old contents, NaN included.
  Tensor nan_c = Tensor::full(V{6, 5}, std::numeric_limits<double>::quiet_NaN());
  gemm(nan_c, 1.0, a, b, 0.0);
  check_close(nan_c, ab);
  // A column-major output (a transposed view).
  Tensor ct = c0.transpose().copy().transpose();
  gemm(ct, 2.0, a, b, 0.5);
  check_close(ct, want);
  // An output Eigen cannot map: every other column of a wider buffer.
  Tensor buf = Tensor::zeros({6, 10});
  Tensor cols = buf.slice(1, 0, 10, 2);
  cols.assign(c0);
  gemm(cols, 2.0, a, b, 0.5);
  check_close(cols, want);
  check_close(buf.slice(1, 1, 10, 2), Tensor::zeros({6, 5}));
  // An output that is also an operand: c ← c @ I + c.
  Tensor sq = lcg_tensor({5, 5}, 34);
  const Tensor sq0 = sq.copy();
  Tensor eye = Tensor::zeros({5, 5});
  for (std::int64_t i = 0; i < 5; ++i)
    eye.slice(0, i, i + 1).slice(1, i, i + 1).assign(Tensor::ones({1, 1}));
  gemm(sq, 1.0, sq, eye, 1.0);
  check_close(sq, make_tensor({5, 5}, [&](const Index& i) { return 2.0 * sq0.at(i); }));
  // Integers wrap like elementwise arithmetic.
  Tensor ci = Tensor::full(V{2, 2}, 1, i64);
  gemm(ci, 3.0, Tensor::from({{1L, 2L}, {3L, 4L}}), Tensor::from({{1L, 0L}, {0L, 1L}}), 2.0);
  require_same(ci, Tensor::from({{5L, 8L}, {11L, 14L}}));

  const Tensor x = lcg_tensor({4}, 35);
  Tensor y = lcg_tensor({6}, 36);
  const Tensor y0 = y.copy();
  gemv(y, -1.0, a, x, 2.0);
  const Tensor ax = ref_mm(a, x.expand_dims(1));
  check_close(y, make_tensor({6}, [&](const Index& i) {
                return -ax.at({i[0], 0}) + 2.0 * y0.at(i);
              }));
  Tensor yt = Tensor::zeros({4});
  gemv(yt, 1.0, a.transpose(), lcg_tensor({6}, 37), 0.0);
  check_close(yt, ref_mm(a.transpose(), lcg_tensor({6}, 37).expand_dims(1)).reshape(V{4}));
}

TEST_CASE("ger adds a scaled outer product in place", "[runtime]") {
  Tensor a = lcg_tensor({4, 3}, 38);
  const Tensor a0 = a.copy(), x = lcg_tensor({4}, 39), y = lcg_tensor({3}, 40);
  ger(a, -2.0, x, y);
  require_same(a, make_tensor({4, 3}, [&](const Index& i) {
                 return a0.at(i) + (-2.0 * x.at({i[0]})) * y.at({i[1]});
               }));
  Tensor sq = Tensor::ones({2, 2});
  ger(sq, 1.0, sq.select(1, 0), sq.select(0, 1));  // operands that are views of a
  require_same(sq, Tensor::full(V{2, 2}, 2.0));
  REQUIRE_THROWS_WITH(ger(a, 1.0, y, x), "`ger` shapes do not fit: x (3,) yᵀ (4,) into a (4, 3)");
}

TEST_CASE("outer and dot", "[runtime]") {
  const Tensor x = Tensor::from({1.0, 2.0, 3.0}), y = Tensor::from({10, 20});
  require_same(outer(x, y), Tensor::from({{10.0, 20.0}, {20.0, 40.0}, {30.0, 60.0}}));
  require_same(dot(Tensor::scalar(2.0), x), Tensor::from({2.0, 4.0, 6.0}));
  REQUIRE(dot(x, x).item<double>() == 14.0);
  REQUIRE_THROWS_WITH(
      dot(Tensor::zeros({2, 2, 2}), x),
      "`dot` takes operands of at most 2 dimensions, got shapes (2, 2, 2) and (3,); use `matmul`");
  REQUIRE_THROWS_WITH(outer(Tensor::zeros({2, 2}), x),
                      "`outer` takes 1-d operands, got shapes (2, 2) and (3,)");
}

TEST_CASE("bad products are refused with both shapes named and nothing written", "[runtime]") {
  const Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({4, 5});
  REQUIRE_THROWS_WITH(matmul(a, b),
                      "`matmul` of shapes (2, 3) and (4, 5): the inner dimensions 3 and 4 differ");
  REQUIRE_THROWS_WITH(matmul(Tensor::scalar(1.0), a),
                      "`matmul` does not take 0-d operands (shapes () and (2, 3)); use `mul`");
  REQUIRE_THROWS_WITH(
      matmul(Tensor::zeros({2, 2, 3}), Tensor::zeros({5, 3, 4})),
      "`matmul` of shapes (2, 2, 3) and (5, 3, 4): batch shapes (2,) and (5,) cannot "
      "be broadcast");
  Tensor c = Tensor::full(V{2, 5}, 3.0);
  const Tensor before = c.copy();
  REQUIRE_THROWS_WITH(gemm(c, 1.0, a, b, 1.0),
                      "`gemm` shapes do not fit: a (2, 3) @ b (4, 5) into c (2, 5)");
  REQUIRE_THROWS_WITH(
      gemm(c, 1.0, Tensor::zeros({2, 4}, f32), b, 1.0),
      "`gemm` needs a, b and c of one numeric dtype, got float32, float64 and float64");
  Tensor c3 = Tensor::zeros({2, 5, 1});
  REQUIRE_THROWS_WITH(gemm(c3, 1.0, a, b, 1.0),
                      "`gemm` needs 2-d a, b and c, got shapes (2, 3), (4, 5) and (2, 5, 1)");
  REQUIRE(c.equal(before));
  Tensor y = Tensor::zeros({3});
  REQUIRE_THROWS_WITH(gemv(y, 1.0, a, Tensor::zeros({3}), 0.0),
                      "`gemv` shapes do not fit: a (2, 3) @ x (3,) into y (3,)");
}

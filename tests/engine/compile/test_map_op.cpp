// MapOp: rows computed by an inner graph per step, shapes inferred from the
// inputs without running it, its gradient, and its errors.
#include <array>
#include <cmath>
#include <rw/rw.hpp>

#include <catch2/catch.hpp>

#include "engine/compile/map_op.hpp"
#include "support/map_op_fixtures.hpp"

using rw::DType;
using rw::Tensor;
using rw::Var;
using rw::test::map_of;
using rw::test::run;
using rw::test::values;

TEST_CASE("a map's shape comes from its inputs, without running it", "[grad]") {
  Var x = rw::vector("x"), w = rw::matrix("w");
  Var j = rw::jacobian(rw::dot(w, x), w);  // (rows of w) x (shape of w)
  REQUIRE(map_of(j));
  CHECK(j->type()->to_string() == "f64[?,?,?]");
  const rw::Apply& node = *j->owner();
  std::vector<rw::ShapeVars> in_shapes;
  for (const Var& in : node.inputs()) {
    rw::ShapeVars s;
    for (std::size_t d = 0; d < in->tensor_type()->ndim(); ++d)
      s.push_back(rw::shape_i(in, static_cast<std::int64_t>(d)));
    in_shapes.push_back(std::move(s));
  }
  const std::vector<rw::ShapeVars> shapes = node.op().infer_shape(node, in_shapes);
  REQUIRE(shapes.size() == 1);
  REQUIRE(shapes[0].size() == 3);
  for (const Var& v : rw::ancestors(shapes[0])) CHECK_FALSE(map_of(v));
  const auto out = run({x, w}, shapes[0], {Tensor::zeros({5}), Tensor::zeros({3, 5})});
  CHECK(out[0].item<std::int64_t>() == 3);
  CHECK(out[1].item<std::int64_t>() == 3);
  CHECK(out[2].item<std::int64_t>() == 5);
  // And the compiled shape of the Jacobian agrees with what it computes.
  const auto both = run({x, w}, {rw::shape(j), j}, {Tensor::ones({5}), Tensor::ones({3, 5})});
  CHECK(values(both[0]) == std::vector<double>{3, 3, 5});
  CHECK(both[1].shape() == rw::Shape{3, 3, 5});
  // Row k of d(Wx)/dW is x in row k of a zero matrix.
  const auto jv = values(both[1]);
  for (std::int64_t k = 0; k < 3; ++k)
    for (std::int64_t r = 0; r < 3; ++r)
      for (std::int64_t c = 0; c < 5; ++c)
        CHECK(jv[static_cast<std::size_t>(k * 15 + r * 5 + c)] == (r == k ? 1.0 : 0.0));
}

TEST_CASE("map_steps runs an inner graph once per step", "[grad]") {
  Var x = rw::vector("x"), n = rw::scalar("n", DType::Int64);
  Var k = rw::scalar("k", DType::Int64);
  const Var rows[] = {rw::cast(k, DType::Float64) * x + 1.0};
  const Var shapes[] = {rw::shape(x)};
  const std::vector<Var> m = rw::map_steps(n, k, rows, shapes, "scaled");
  REQUIRE(m.size() == 1);
  CHECK(map_of(m[0])->name() == "scaled");
  CHECK(map_of(m[0])->body().name() == "scaled_step");
  auto fn = rw::function({n, x}, {m[0]});
  const auto out = fn.call(std::vector<Tensor>{Tensor::scalar(std::int64_t{3}), Tensor::from({1.0, -2.0})});
  CHECK(out[0].shape() == rw::Shape{3, 2});
  CHECK(values(out[0]) == std::vector<double>{1, 1, 2, -1, 3, -3});
  CHECK_THROWS_WITH(fn.call(std::vector<Tensor>{Tensor::scalar(std::int64_t{-1}), Tensor::from({1.0})}),
                    Catch::Contains("`scaled`: the number of steps is -1; it must be at least 0"));

  // A row shape that is not what the body computes.
  const Var wrong[] = {rw::shape(x) + 1};
  const std::vector<Var> bad = rw::map_steps(n, k, rows, wrong, "scaled");
  auto fb = rw::function({n, x}, {bad[0]});
  CHECK_THROWS_WITH(
      fb.call(std::vector<Tensor>{Tensor::scalar(std::int64_t{2}), Tensor::from({1.0, 2.0})}),
      Catch::Contains("`scaled`: step 0 computed row 0 of shape (2,), not the (3,) given"));
}

TEST_CASE("map errors: building and differentiating", "[grad]") {
  Var x = rw::vector("x"), n = rw::scalar("n", DType::Int64), k = rw::scalar("k", DType::Int64);
  const Var rows[] = {x * 2.0};
  const Var shapes[] = {rw::shape(x)};
  CHECK_THROWS_WITH(rw::map_steps(n, rw::scalar("kf"), rows, shapes),
                    "`map`: the step index must be an i64[] input variable");
  CHECK_THROWS_WITH(rw::map_steps(n, k, rows, {}), "`map`: 1 rows but 0 row shapes");
  CHECK_THROWS_WITH(rw::map_steps(rw::scalar("nf"), k, rows, shapes),
                    "`map`: the number of steps `nf` has type `f64[]`; it must be i64[]");
  const Var matrix_shape[] = {rw::shape(rw::matrix("m"))};
  CHECK_THROWS_WITH(rw::map_steps(n, k, rows, matrix_shape),
                    "`map`: the shape of row 0 must be an i64 vector of 1 entry, not "
                    "`shape(m)` of type `i64[2]`");
}

TEST_CASE("forward mode through a map runs the body's R_op per step", "[grad]") {
  // J = jacobian(exp(x) * sum(x), x): J[k][i] = exp(x_k) (d_ki S + 1) with
  // S = sum(x). Its directional derivative along v, computed by hand:
  // dJ[k][i] = exp(x_k) v_k (d_ki S + 1) + exp(x_k) d_ki V, V = sum(v).
  Var x = rw::vector("x"), v = rw::vector("v");
  Var j = rw::jacobian(rw::exp(x) * rw::sum(x), x);
  REQUIRE(map_of(j));
  Var dj = rw::Rop(j, x, v);
  const std::vector<double> xs = {0.3, -1.2, 0.7}, vs = {1.5, -0.5, 2.0};
  const std::array<std::int64_t, 1> n3{3};
  const auto got = values(run({x, v}, {dj}, {Tensor::from_vector(xs, n3),
                                            Tensor::from_vector(vs, n3)})[0]);
  REQUIRE(got.size() == 9);
  const double S = xs[0] + xs[1] + xs[2], V = vs[0] + vs[1] + vs[2];
  for (std::size_t k = 0; k < 3; ++k)
    for (std::size_t i = 0; i < 3; ++i) {
      const double d = k == i ? 1 : 0;
      const double want = std::exp(xs[k]) * vs[k] * (d * S + 1) + std::exp(xs[k]) * d * V;
      CHECK(got[k * 3 + i] == Approx(want).epsilon(1e-12));
    }
}

TEST_CASE("the gradient of a map sums the body's gradient over the steps", "[grad]") {
  // sum(J) for J = jacobian(exp(x) * sum(x), x) is S E + n E (S = sum(x),
  // E = sum(exp(x))), so d/dx_k = exp(x_k) (S + n) + E: a third-order
  // derivative of the cost, through a map's L_op.
  Var x = rw::vector("x");
  Var j = rw::jacobian(rw::exp(x) * rw::sum(x), x);
  REQUIRE(map_of(j));
  Var g = rw::grad(rw::sum(j), x);
  const std::vector<double> xs = {0.3, -1.2, 0.7};
  const auto out = values(run({x}, {g}, {Tensor::from({0.3, -1.2, 0.7})})[0]);
  double s = 0, e = 0;
  for (double v : xs) {
    s += v;
    e += std::exp(v);
  }
  REQUIRE(out.size() == 3);
  for (std::size_t k = 0; k < 3; ++k)
    CHECK(out[k] == Approx(std::exp(xs[k]) * (s + 3) + e).epsilon(1e-12));

  // The same through the static-length construction.
  Var x3 = rw::vector("x3", DType::Float64, 3);
  Var g3 = rw::grad(rw::sum(rw::jacobian(rw::exp(x3) * rw::sum(x3), x3)), x3);
  const auto fixed = values(run({x3}, {g3}, {Tensor::from({0.3, -1.2, 0.7})})[0]);
  for (std::size_t k = 0; k < 3; ++k) CHECK(fixed[k] == Approx(out[k]).epsilon(1e-12));

  // A weighted cost reaches every row: d/da sum(w * map(k -> a * x * k)).
  Var a = rw::scalar("a"), n = rw::scalar("n", DType::Int64), k = rw::scalar("k", DType::Int64);
  const Var rows[] = {a * x * rw::cast(k, DType::Float64)};
  const Var shapes[] = {rw::shape(x)};
  Var m = rw::map_steps(n, k, rows, shapes, "scaled")[0];
  Var w = rw::matrix("w");
  const std::vector<Var> wrt = {a, x};
  const std::vector<Var> d = rw::grad(rw::sum(w * m), wrt);
  auto fn = rw::function({n, a, x, w}, {d[0], d[1]});
  const auto r = fn.call(std::vector<Tensor>{Tensor::scalar(std::int64_t{2}), Tensor::scalar(3.0),
                                             Tensor::from({1.0, 2.0}),
                                             Tensor::from({{1.0, 10.0}, {100.0, 1000.0}})});
  // m[k][i] = a x_i k: d/da = sum_k,i w[k][i] x_i k = 100*1 + 1000*2; d/dx_i = sum_k w[k][i] a k.
  CHECK(r[0].item<double>() == Approx(2100.0));
  CHECK(values(r[1]) == std::vector<double>{300.0, 3000.0});
  // n and the row shapes are not connected.
  const rw::Apply& node = *m->owner();
  const auto pattern = node.op().connection_pattern(node);
  CHECK_FALSE(pattern[0][0]);
  CHECK_FALSE(pattern[1][0]);
  CHECK(pattern[2][0]);
}

// jacobian and hessian of vectors of unknown length (through MapOp), against
// analytic values, finite differences and the static-length construction.
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

namespace {

const std::vector<double> kX = {0.3, -1.2, 0.7, 2.0};

// f(x) = exp(x) * sum(x), in plain C++.
std::vector<double> f_ref(const std::vector<double>& x) {
  double s = 0;
  for (double v : x) s += v;
  std::vector<double> out;
  for (double v : x) out.push_back(std::exp(v) * s);
  return out;
}

}  // namespace

TEST_CASE("jacobian of a vector of unknown length", "[grad]") {
  Var x = rw::vector("x");
  Var j = rw::jacobian(rw::exp(x) * rw::sum(x), x);
  // One loop Op, not one gradient per element.
  const rw::MapOp* map = map_of(j);
  REQUIRE(map);
  CHECK(map->name() == "jacobian");
  CHECK(j->type()->to_string() == "f64[?,?]");

  const auto out = values(run({x}, {j}, {Tensor::from_vector(kX, std::array<std::int64_t, 1>{4})})[0]);
  const std::size_t n = kX.size();
  REQUIRE(out.size() == n * n);
  double s = 0;
  for (double v : kX) s += v;
  // Analytic: d(exp(x_i) S)/dx_j = [i == j] exp(x_i) S + exp(x_i).
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double want = (i == k ? std::exp(kX[i]) * s : 0.0) + std::exp(kX[i]);
      CHECK(out[i * n + k] == Approx(want).epsilon(1e-12));
    }
  // Finite differences of the plain C++ function.
  const double h = 1e-6;
  for (std::size_t k = 0; k < n; ++k) {
    auto up = kX, down = kX;
    up[k] += h;
    down[k] -= h;
    const auto fu = f_ref(up), fd = f_ref(down);
    for (std::size_t i = 0; i < n; ++i)
      CHECK(out[i * n + k] == Approx((fu[i] - fd[i]) / (2 * h)).epsilon(1e-6));
  }
  // The static-length construction gives the same matrix.
  Var x4 = rw::vector("x4", DType::Float64, 4);
  Var j4 = rw::jacobian(rw::exp(x4) * rw::sum(x4), x4);
  CHECK_FALSE(map_of(j4));
  const auto fixed = values(run({x4}, {j4}, {Tensor::from_vector(kX, std::array<std::int64_t, 1>{4})})[0]);
  REQUIRE(fixed.size() == out.size());
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(fixed[i] == Approx(out[i]).epsilon(1e-12));
}

TEST_CASE("jacobian with respect to several variables, and of an empty vector", "[grad]") {
  Var x = rw::vector("x"), a = rw::scalar("a");
  const std::vector<Var> wrt = {x, a};
  const std::vector<Var> js = rw::jacobian(rw::exp(x) * a, wrt);
  REQUIRE(js.size() == 2);
  CHECK(js[1]->type()->to_string() == "f64[?]");
  const auto out = run({x, a}, js, {Tensor::from({0.5, 1.5}), Tensor::scalar(3.0)});
  // d(exp(x_i) a)/dx_j = [i == j] exp(x_i) a; d/da = exp(x_i).
  CHECK(out[0].shape() == rw::Shape{2, 2});
  const auto j0 = values(out[0]);
  CHECK(j0[0] == Approx(std::exp(0.5) * 3));
  CHECK(j0[1] == 0.0);
  CHECK(j0[2] == 0.0);
  CHECK(j0[3] == Approx(std::exp(1.5) * 3));
  CHECK(out[1].shape() == rw::Shape{2});
  CHECK(values(out[1]) == std::vector<double>{std::exp(0.5), std::exp(1.5)});

  const auto empty = run({x, a}, js, {Tensor::zeros({0}), Tensor::scalar(3.0)});
  CHECK(empty[0].shape() == rw::Shape{0, 0});
  CHECK(empty[1].shape() == rw::Shape{0});
}

TEST_CASE("hessian of a cost of a vector of unknown length", "[grad]") {
  Var x = rw::vector("x");
  // c = sum(exp(x)) * sum(x)
  Var h = rw::hessian(rw::sum(rw::exp(x)) * rw::sum(x), x);
  REQUIRE(map_of(h));
  const auto out = values(run({x}, {h}, {Tensor::from_vector(kX, std::array<std::int64_t, 1>{4})})[0]);
  const std::size_t n = kX.size();
  double s = 0;
  for (double v : kX) s += v;
  // d2c/dx_i dx_j = [i == j] exp(x_i) S + exp(x_i) + exp(x_j).
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < n; ++k) {
      const double want = (i == k ? std::exp(kX[i]) * s : 0.0) + std::exp(kX[i]) + std::exp(kX[k]);
      CHECK(out[i * n + k] == Approx(want).epsilon(1e-12));
    }
  Var x4 = rw::vector("x4", DType::Float64, 4);
  const auto fixed = values(run({x4}, {rw::hessian(rw::sum(rw::exp(x4)) * rw::sum(x4), x4)},
                                {Tensor::from_vector(kX, std::array<std::int64_t, 1>{4})})[0]);
  for (std::size_t i = 0; i < out.size(); ++i) CHECK(fixed[i] == Approx(out[i]).epsilon(1e-12));
}

// The special-function scalar ops against values computed with mpmath at 30
// digits: gammaln, digamma, trigamma, betaln, erfinv, erfcinv, erfcx, log1mexp, logit,
// xlogy, xlog1py, softsign, gelu, relu; poles, domain edges, float32. (gelu(-10)
// from erfc, since 1 + erf cancels even at 30 digits.) i0 and i1 against
// SciPy's values (17 digits).
#include <cmath>
#include <limits>
#include <numbers>

#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"

using namespace rw;

namespace {

/// op(x) for each x, through a compiled function on float64.
std::vector<double> run(Var (*op)(const Var&), const std::vector<double>& xs) {
  auto x = rw::vector("x");
  rw::Function f = rw::function({x}, op(x));
  const auto n = static_cast<std::int64_t>(xs.size());
  const Tensor out = f(Tensor::from_vector(xs, std::span(&n, 1)));
  return {out.data<double>(), out.data<double>() + out.size()};
}

void check_close(const std::vector<double>& got, const std::vector<double>& want, double rel) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    if (std::isnan(want[i])) CHECK(std::isnan(got[i]));
    else if (std::isinf(want[i])) CHECK(got[i] == want[i]);
    else CHECK(std::abs(got[i] - want[i]) <= rel * std::abs(want[i]) + 1e-300);
  }
}

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

}  // namespace

TEST_CASE("gammaln, digamma and trigamma match reference values", "[ops]") {
  check_close(run(rw::gammaln, {0.5, 10, -0.5, 100, 1, 0}),
              {0.57236494292470009, 12.80182748008147, 1.2655121234846454, 359.1342053695754, 0, kInf},
              1e-14);
  check_close(run(rw::digamma, {1, 0.5, 10, -0.5, 100, 1e-3, 6.5, 0, -2}),
              {-0.57721566490153286, -1.9635100260214235, 2.2517525890667211, 0.036489973978576521,
               4.6001618527380874, -1000.5755719318103, 1.7929113303999329, -kInf, kNaN},
              1e-13);
  check_close(run(rw::psi, {1}), {-0.57721566490153286}, 1e-14);
  check_close(run(rw::trigamma, {1, 0.5, -0.5, 10, -2.3}),
              {1.6449340668482264, 4.9348022005446793, 8.9348022005446793, 0.10516633568168575,
               14.725912160961291},
              1e-13);
  auto a = rw::scalar("a"), b = rw::scalar("b");
  rw::Function beta = rw::function({a, b}, rw::betaln(a, b));
  CHECK(beta(Tensor::scalar(2.5), Tensor::scalar(4.0)).item<double>() ==
        Approx(-3.5861197201561674).epsilon(1e-14));
}

TEST_CASE("erfinv inverts erf to the last digits; erfcx does not overflow", "[ops]") {
  check_close(run(rw::erfinv, {0.5, -0.9, 0.999, 0.999999999999, 0, 1, -1, 1.5}),
              {0.47693627620446987, -1.1630871536766742, 2.3267537655135245, 5.0420318985726961, 0,
               kInf, -kInf, kNaN},
              1e-13);
  check_close(run(rw::erfcx, {0, 1, -1, 10, 30, 100}),
              {1.0, 0.427583576155807, 5.0089800807622835, 0.056140992743822586,
               0.018795888861416751, 0.0056416137829894329},
              1e-13);
  // Round trip in float32 too.
  auto y = rw::vector("y", f32);
  rw::Function f = rw::function({y}, rw::erf(rw::erfinv(y)));
  const Tensor vy = Tensor::from({-0.75f, 0.1f, 0.9f});
  CHECK(allclose(f(vy), vy, 1e-6, 1e-7));
  CHECK(rw::erfinv(y)->tensor_type()->dtype() == f32);
  CHECK(rw::gammaln(rw::vector("i", i64))->tensor_type()->dtype() == f64);
}

TEST_CASE("erfcinv keeps the digits of small arguments that erfinv(1 - y) loses", "[ops]") {
  // mpmath: erfinv(1 - y) at 400 digits.
  check_close(run(rw::erfcinv, {1e-300, 1e-100, 1e-20, 1e-12, 0.001, 0.3, 1, 1.7, 1.999}),
              {26.209469960516124, 15.065574702592646, 6.6015806223551426, 5.0420297456390594,
               2.3267537655135247, 0.73286907795921685, 0, -0.73286907795921685,
               -2.3267537655135247},
              1e-14);
  check_close(run(rw::erfcinv, {0, 2, -0.5, 2.5}), {kInf, -kInf, kNaN, kNaN}, 0);
  // erfinv(1 - y) rounds 1 - 1e-12 first: its answer is off in the fifth digit.
  check_close(run(rw::erfinv, {1 - 1e-12}), {5.0420318985726961}, 1e-13);
  auto y = rw::vector("y", f32);
  rw::Function f = rw::function({y}, rw::erfc(rw::erfcinv(y)));
  const Tensor vy = Tensor::from({1e-20f, 0.25f, 1.5f});
  CHECK(allclose(f(vy), vy, 2e-5, 0));
  CHECK(rw::erfcinv(y)->tensor_type()->dtype() == f32);
}

TEST_CASE("log1mexp, logit, xlogy, xlog1py, softsign, gelu and relu", "[ops]") {
  check_close(run(rw::log1mexp, {-1e-10, -0.5, -1, -40, 0, 0.5}),
              {-23.025850929990457, -0.93275212956718857, -0.45867514538708189,
               -4.2483542552915611e-18, -kInf, kNaN},
              1e-14);
  check_close(run(rw::logit, {0.5, 0.25, 1e-20, 1 - 1e-10, 0, 1}),
              {0, std::log(1.0 / 3), std::log(1e-20), 23.025850929990457, -kInf, kInf}, 1e-6);
  check_close(run(rw::softsign, {-3, 0, 1}), {-0.75, 0, 0.5}, 1e-16);
  check_close(run(rw::gelu, {-10, -1, 0.5, 3}),
              {-7.619853024160526e-23, -0.15865525393145705, 0.34573123063700655, 2.9959503059051097},
              1e-13);
  check_close(run(rw::relu, {-2, 0, 3.5, kNaN}), {0, 0, 3.5, kNaN}, 0);
  auto x = rw::vector("x"), y = rw::vector("y");
  rw::Function f = rw::function({x, y}, {rw::xlogy(x, y), rw::xlog1py(x, y)});
  const auto out = f(Tensor::from({0.0, 2.0, 0.0, 0.0}), Tensor::from({0.0, 3.0, kNaN, -1.0}));
  CHECK(out[0].at({0}) == 0.0);
  CHECK(out[0].at({1}) == Approx(2 * std::log(3.0)).epsilon(1e-15));
  CHECK(std::isnan(out[0].at({2})));
  CHECK(out[1].at({3}) == 0.0);
  CHECK(out[1].at({1}) == Approx(2 * std::log(4.0)).epsilon(1e-15));
  // relu keeps integers; the others are float ops.
  auto i = rw::vector("i", i32);
  CHECK(rw::relu(i)->tensor_type()->dtype() == i32);
  rw::Function g = rw::function({i}, rw::relu(i));
  CHECK(g(Tensor::from<std::int32_t>({-3, 4})).equal(Tensor::from<std::int32_t>({0, 4})));
  auto bv = rw::vector("b", DType::Bool);
  rw::Function h = rw::function({bv}, rw::relu(bv));
  CHECK(h(Tensor::from({true, false})).equal(Tensor::from({true, false})));
  CHECK(standard_registry().find("psi") != nullptr);
}

TEST_CASE("trigamma's gradient is undefined, with the reason", "[ops]") {
  auto x = rw::scalar("x");
  CHECK_THROWS_WITH(rw::grad(rw::trigamma(x), x), Catch::Contains("polygamma(2, x)"));
}

TEST_CASE("special functions fuse with their neighbours into one Composite", "[ops]") {
  auto x = rw::vector("x");
  const Var y = rw::gelu(x) * 2 + rw::digamma(x) - rw::xlogy(x, x + 1);
  rw::Function f = rw::function({x}, y);
  const Tensor vx = Tensor::from({0.5, 1.5, 4.0});
  const Tensor got = f(vx);
  for (std::int64_t i = 0; i < 3; ++i) {
    const double v = vx.at({i});
    const double want = v * std::erfc(-v / std::numbers::sqrt2) + run(rw::digamma, {v})[0] -
                        v * std::log(v + 1);
    CHECK(got.at({i}) == Approx(want).epsilon(1e-14));
  }
  std::size_t composites = 0;
  for (const Apply* node : f.schedule()) {
    INFO(node->op().to_string());
    composites += node->op().name() == "composite";
  }
  CHECK(composites == 1);
}

TEST_CASE("i0 and i1, the modified Bessel functions: even and odd", "[ops]") {
  check_close(run(rw::i0, {0, 0.5, 1, -2, 10, kNaN}),
              {1.0, 1.0634833707413236, 1.2660658777520082, 2.2795853023360673, 2815.716628466254,
               kNaN},
              1e-13);
  check_close(run(rw::i1, {0, 0.5, 1, -2, 10, kNaN}),
              {0.0, 0.25789430539089636, 0.5651591039924851, -1.5906368546373291,
               2670.9883037012546, kNaN},
              1e-13);
  CHECK(rw::i0(rw::vector("i", i32))->tensor_type()->dtype() == f64);
  CHECK(rw::i1(rw::vector("h", f32))->tensor_type()->dtype() == f32);
}

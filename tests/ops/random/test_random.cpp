// RandomVariable: each distribution against its law (Kolmogorov–Smirnov or
// chi-square at a fixed seed), shapes and broadcasting with and without
// `size`, errors naming the argument, portability, and graph files.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include <boost/math/special_functions/beta.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "rw/rewrite.hpp"
#include "support/statistics.hpp"

using namespace rw;
using namespace rw::testing;

namespace {

constexpr std::int64_t kDraws = 20000;

std::vector<double> values(const Tensor& t) {
  const Tensor c = cast(t, f64).contiguous();
  return {c.data<double>(), c.data<double>() + c.size()};
}

/// The draws of `x`, computed by a function.
std::vector<double> draw(const Var& x) {
  return values(rw::function({}, x)());
}

double binomial_pmf(std::int64_t k, std::int64_t n, double p) {
  return std::exp(std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) +
                  k * std::log(p) + (n - k) * std::log1p(-p));
}

double poisson_pmf(std::int64_t k, double lam) {
  return std::exp(k * std::log(lam) - lam - std::lgamma(k + 1.0));
}

const std::vector<Operand> kSize{kDraws};

}  // namespace

TEST_CASE("normal, uniform and exponential draws follow their laws (KS)", "[random]") {
  RandomStream rs(2024);
  check_ks(draw(rs.normal(1.5, 2.0, kSize)), [](double x) { return normal_cdf(x, 1.5, 2.0); });
  check_ks(draw(rs.uniform(-1.0, 3.0, kSize)),
           [](double x) { return std::clamp((x + 1) / 4, 0.0, 1.0); });
  check_ks(draw(rs.exponential(0.5, kSize)),
           [](double x) { return x <= 0 ? 0.0 : 1 - std::exp(-x / 0.5); });
  // A test that can fail: the normal sample is not a law of another scale.
  CHECK(ks_statistic(draw(rs.normal(1.5, 2.0, kSize)),
                     [](double x) { return normal_cdf(x, 1.5, 2.2); }) > ks_critical(kDraws));
}

TEST_CASE("gamma and beta draws follow their laws (KS), both sides of shape 1", "[random]") {
  RandomStream rs(99);
  for (double shape : {0.4, 1.0, 3.5}) {
    INFO("gamma shape " << shape);
    check_ks(draw(rs.gamma(shape, 2.0, kSize)),
             [&](double x) { return x <= 0 ? 0.0 : boost::math::gamma_p(shape, x / 2.0); });
  }
  for (auto [a, b] : {std::pair{0.5, 0.5}, std::pair{2.0, 5.0}}) {
    INFO("beta " << a << ", " << b);
    check_ks(draw(rs.beta(a, b, kSize)), [a = a, b = b](double x) {
      return std::clamp(boost::math::ibeta(a, b, std::clamp(x, 0.0, 1.0)), 0.0, 1.0);
    });
  }
}

TEST_CASE("bernoulli, binomial and poisson draws follow their laws (chi-square)", "[random]") {
  RandomStream rs(7);
  check_chi_square(draw(rs.bernoulli(0.3, kSize)), 0, 1,
                   [](std::int64_t k) { return k ? 0.3 : 0.7; });
  // Small n·p (inversion), large n·p (the beta reduction), and p > 1/2.
  for (auto [n, p] : {std::pair<std::int64_t, double>{10, 0.3}, {1000, 0.4}, {60, 0.9}}) {
    INFO("binomial " << n << ", " << p);
    check_chi_square(draw(rs.binomial(n, p, kSize)), 0, n,
                     [n = n, p = p](std::int64_t k) { return binomial_pmf(k, n, p); });
  }
  // Small lam (inversion) and large (the gamma reduction).
  for (double lam : {3.0, 75.0}) {
    INFO("poisson " << lam);
    check_chi_square(draw(rs.poisson(lam, kSize)), 0, static_cast<std::int64_t>(lam * 3),
                     [lam](std::int64_t k) { return poisson_pmf(k, lam); });
  }
  // And the test can fail: a Poisson(3) sample is not Poisson(3.2).
  const auto [stat, df] = chi_square(draw(rs.poisson(3.0, kSize)), 0, 9,
                                     [](std::int64_t k) { return poisson_pmf(k, 3.2); });
  CHECK(stat > chi_critical(df));
}

TEST_CASE("categorical, integers, choice and permutation draw each outcome as often as they should",
          "[random]") {
  RandomStream rs(31);
  const Var p = constant(Tensor::from({0.2, 0.5, 0.3}));
  check_chi_square(draw(rs.categorical(p, kSize)), 0, 2, [](std::int64_t k) {
    return std::array{0.2, 0.5, 0.3}[static_cast<std::size_t>(k)];
  });
  check_chi_square(draw(rs.integers(-3, 5, kSize)), -3, 4, [](std::int64_t) { return 1.0 / 8; });
  check_chi_square(draw(rs.choice(6, kSize)), 0, 5, [](std::int64_t) { return 1.0 / 6; });
  check_chi_square(draw(rs.choice(3, kSize, true, p)), 0, 2, [](std::int64_t k) {
    return std::array{0.2, 0.5, 0.3}[static_cast<std::size_t>(k)];
  });

  // Without replacement: distinct elements, the first uniform over a's.
  auto f = rw::function({}, rs.choice(5, {3}, false));
  auto g = rw::function({}, rs.permutation(5));
  std::vector<double> first_choice, first_perm;
  for (int k = 0; k < 2000; ++k) {
    std::vector<double> c = values(f()), q = values(g());
    first_choice.push_back(c[0]);
    first_perm.push_back(q[0]);
    std::sort(c.begin(), c.end());
    CHECK(std::adjacent_find(c.begin(), c.end()) == c.end());
    std::sort(q.begin(), q.end());
    CHECK(q == std::vector<double>{0, 1, 2, 3, 4});
  }
  check_chi_square(first_choice, 0, 4, [](std::int64_t) { return 0.2; });
  check_chi_square(first_perm, 0, 4, [](std::int64_t) { return 0.2; });
}

TEST_CASE("multivariate_normal draws have the mean and covariance asked for", "[random]") {
  RandomStream rs(5);
  const Var mean = constant(Tensor::from({1.0, -2.0}));
  // Semi-definite in a third direction would be allowed; here [[4, 1.2], [1.2, 1]].
  const Var cov = constant(Tensor::from({{4.0, 1.2}, {1.2, 1.0}}));
  const Tensor x = rw::function({}, rs.multivariate_normal(mean, cov, kSize))();
  REQUIRE(x.shape() == Shape{kDraws, 2});
  const std::vector<double> v = values(x);
  double m[2] = {0, 0}, c[2][2] = {{0, 0}, {0, 0}};
  for (std::int64_t i = 0; i < kDraws; ++i)
    for (int a = 0; a < 2; ++a) m[a] += v[static_cast<std::size_t>(i * 2 + a)] / kDraws;
  for (std::int64_t i = 0; i < kDraws; ++i)
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b)
        c[a][b] += (v[static_cast<std::size_t>(i * 2 + a)] - m[a]) *
                   (v[static_cast<std::size_t>(i * 2 + b)] - m[b]) / (kDraws - 1);
  // Standard errors: sqrt(var / n) for a mean, about sqrt(2 var² / n) for a variance.
  const double n = kDraws;
  CHECK(std::abs(m[0] - 1.0) < kZ * std::sqrt(4.0 / n));
  CHECK(std::abs(m[1] + 2.0) < kZ * std::sqrt(1.0 / n));
  CHECK(std::abs(c[0][0] - 4.0) < kZ * std::sqrt(2 * 16.0 / n));
  CHECK(std::abs(c[1][1] - 1.0) < kZ * std::sqrt(2 * 1.0 / n));
  CHECK(std::abs(c[0][1] - 1.2) < kZ * std::sqrt((4.0 + 1.44) / n));
  // Each marginal is normal.
  std::vector<double> x0;
  for (std::int64_t i = 0; i < kDraws; ++i) x0.push_back(v[static_cast<std::size_t>(i * 2)]);
  check_ks(x0, [](double t) { return normal_cdf(t, 1.0, 2.0); });
}

TEST_CASE("multivariate_normal with a singular covariance draws on its support", "[random]") {
  RandomStream rs(6);
  // Rank 1: x0 - 1 = 2 (x1 + 1) for every draw.
  const Var x = rs.multivariate_normal(constant(Tensor::from({1.0, -1.0})),
                                       constant(Tensor::from({{4.0, 2.0}, {2.0, 1.0}})), {100});
  const auto v = values(rw::function({}, x)());
  for (std::size_t i = 0; i < 100; ++i) CHECK(v[2 * i] - 1 == Approx(2 * (v[2 * i + 1] + 1)));
}

TEST_CASE("the draw's shape: size, or the broadcast of the parameters, then the core", "[random]") {
  RandomStream rs(1);
  const Var loc = matrix("loc", f64, kUnknownDim, 1), scale = vector("scale");
  const Var x = rs.normal(loc, scale);
  CHECK(x->type()->to_string() == "f64[?,?]");
  auto f = rw::function({loc, scale}, x);
  CHECK(f(Tensor::zeros({3, 1}), Tensor::ones({4})).shape() == Shape{3, 4});
  // With size: the parameters broadcast to it.
  const Var y = rs.normal(loc, scale, {2, 3, 4});
  CHECK(y->type()->to_string() == "f64[2,3,4]");
  CHECK(rw::function({loc, scale}, y)(Tensor::zeros({3, 1}), Tensor::ones({4})).shape() ==
        Shape{2, 3, 4});
  // A symbolic size.
  const Var n = scalar("n", i64);
  const Var z = rs.uniform(0, 1, {n, 2});
  CHECK(z->type()->to_string() == "f64[?,?]");
  CHECK(rw::function({n}, z)(Tensor::scalar<std::int64_t>(5)).shape() == Shape{5, 2});
  // Core axes: multivariate_normal's vector, categorical's p, choice's rows.
  const Var mean = matrix("mean"), cov = matrix("cov");
  const Var mv = rs.multivariate_normal(mean, cov);
  const Tensor eye2 = Tensor::eye(2, 2);
  CHECK(rw::function({mean, cov}, mv)(Tensor::zeros({3, 2}), eye2).shape() == Shape{3, 2});
  CHECK(rw::function({mean, cov}, rs.multivariate_normal(mean, cov, {4, 3}))(Tensor::zeros({3, 2}),
                                                                             eye2)
            .shape() == Shape{4, 3, 2});
  const Var p = matrix("p");
  CHECK(rw::function({p}, rs.categorical(p))(Tensor::from({{0.5, 0.5}, {1.0, 0.0}, {0.0, 1.0}}))
            .shape() == Shape{3});
  const Tensor rows =
      rw::function({}, rs.choice(constant(Tensor::from({{1.0, 2.0}, {3.0, 4.0}})), {5}))();
  CHECK(rows.shape() == Shape{5, 2});
  for (std::int64_t i = 0; i < 5; ++i) CHECK(rows.at({i, 1}) == rows.at({i, 0}) + 1);
  CHECK(rw::function({}, rs.permutation(constant(Tensor::from({{1.0}, {2.0}, {3.0}}))))().shape() ==
        Shape{3, 1});
  // dtype: float32 draws, int8 integers.
  CHECK(rs.normal(0, 1, {2}, f32)->type()->to_string() == "f32[2]");
  CHECK(rw::function({}, rs.integers(0, 100, {3}, i8))().dtype() == i8);
  CHECK(rw::function({}, rs.beta(0.5, 0.5, {2}, f32))().dtype() == f32);
}

TEST_CASE("bad parameters are refused, naming the argument", "[random]") {
  RandomStream rs(3);
  const auto fails = [](const Var& x, const std::string& what) {
    INFO(what);
    CHECK_THROWS_AS(rw::function({}, x)(), ExecutionError);
    CHECK_THROWS_WITH(rw::function({}, x)(), Catch::Contains(what));
  };
  fails(rs.normal(0, -1.0), "`normal`: `scale` must be non-negative");
  fails(rs.uniform(2.0, 1.0), "`high` must be at least `low`");
  fails(rs.bernoulli(1.5), "`bernoulli`: `p` must be in [0, 1]");
  fails(rs.binomial(-1, 0.5), "`binomial`: `n` must be non-negative");
  fails(rs.binomial(3, -0.1), "`binomial`: `p` must be in [0, 1]");
  fails(rs.poisson(-2.0), "`poisson`: `lam` must be non-negative");
  fails(rs.gamma(-1.0), "`gamma`: `shape` must be non-negative");
  fails(rs.gamma(1.0, -2.0), "`gamma`: `scale` must be non-negative");
  fails(rs.beta(0.0, 1.0), "`beta`: `a` must be positive");
  fails(rs.exponential(-1.0), "`exponential`: `scale` must be non-negative");
  fails(rs.categorical(constant(Tensor::from({0.5, 0.6}))), "`p` must sum to 1");
  fails(rs.categorical(constant(Tensor::from({1.5, -0.5}))), "`p` must hold probabilities");
  fails(rs.multivariate_normal(constant(Tensor::from({0.0, 0.0})),
                               constant(Tensor::from({{1.0, 2.0}, {2.0, 1.0}}))),
        "`cov` must be symmetric positive semi-definite");
  fails(rs.integers(5, 5), "`integers`: `high` must be greater than `low`");
  fails(rs.choice(3, {4}, false), "`size` asks for 4 draws without replacement from 3");
  fails(rs.choice(3, {2}, true, constant(Tensor::from({0.5, 0.5}))),
        "`p` has 2 probabilities for 3");
  fails(rs.permutation(-1), "`permutation`: `x` must be non-negative");
  // Parameters whose batch shape does not broadcast to size, or together.
  const Var loc3 = vector("loc3");
  CHECK_THROWS_WITH(rw::function({loc3}, rs.normal(loc3, 1.0, {2}))(Tensor::zeros({3})),
                    Catch::Contains("`size` (2,) is incompatible with the shape (3,) of `loc`"));
  // Known when the node is built, when the extents are.
  CHECK_THROWS_WITH(rs.normal(constant(Tensor::zeros({3})), 1.0, {2}),
                    Catch::Contains("`normal`: `size` (2,) is incompatible with input 2"));
  CHECK_THROWS_WITH(rs.normal(0.0, 1.0, {-1}),
                    Catch::Contains("`size` (-1) has a negative extent"));
  CHECK(rs.generators().size() == 18);  // the refused draws made no generator
  const Var a = vector("a"), b = vector("b");
  CHECK_THROWS_WITH(rw::function({a, b}, rs.normal(a, b))(Tensor::zeros({2}), Tensor::ones({3})),
                    Catch::Contains("`scale` has shape (3,), which does not broadcast"));
  const Var n = scalar("n", i64);
  CHECK_THROWS_WITH(rw::function({n}, rs.normal(0, 1, {n}))(Tensor::scalar<std::int64_t>(-2)),
                    Catch::Contains("`size` has a negative extent -2"));
  CHECK_THROWS_WITH(rw::function({n}, rs.normal(0, 1, {n, n}))(
                        Tensor::scalar<std::int64_t>(std::int64_t{1} << 40)),
                    Catch::Contains("has too many elements"));
  // Misused at build time: types, not values.
  CHECK_THROWS_WITH(random_draw(Distribution::Normal, vector("r"), {0.0, 1.0}),
                    Catch::Contains("expected a generator state `rng`"));
  const Var gen = Variable::make(RandomGeneratorType::make(), "g");
  CHECK_THROWS_WITH(random_draw(Distribution::Normal, gen, {0.0, 1.0}, vector("s", i64)),
                    Catch::Contains("`size`"));
  CHECK_THROWS_WITH(random_draw(Distribution::Binomial, gen, {2.5, 0.5}),
                    Catch::Contains("(`n`) is f64[], expected integers"));
  CHECK_THROWS_WITH(random_draw(Distribution::Normal, gen, {0.0, 1.0}, {}, {.dtype = i64}),
                    Catch::Contains("not a float dtype"));
  CHECK_THROWS_WITH(random_draw(Distribution::Normal, gen, {0.0}), Catch::Contains("takes"));
  CHECK_THROWS_WITH(random_draw(Distribution::Permutation, gen, {4}, size_vector({2})),
                    Catch::Contains("`size` must be empty"));
  CHECK_THROWS_WITH(rw::function({}, rs.integers(0, 300, {2}, i8))(),
                    Catch::Contains("`integers`: `high` does not fit dtype int8"));
  CHECK_THROWS_WITH(rw::function({}, rs.binomial(1000, 1.0, {2}, i8))(),
                    Catch::Contains("`binomial`: a draw (1000) does not fit dtype int8"));
}

TEST_CASE("a generator state gives the same draws everywhere: known values at a fixed seed",
          "[random]") {
  // Exact on every platform: these use integer arithmetic and the 53-bit
  // uniforms only (no libm), so they are bit-for-bit the same.
  const Var g = Constant::make(RandomGeneratorType::seed_value(12345), RandomGeneratorType::make());
  const auto ints = values(rw::function(
      {}, random_draw(Distribution::Integers, g, {0, 1000}, size_vector({6})).value)());
  const auto perm =
      values(rw::function({}, random_draw(Distribution::Permutation, g, {8}).value)());
  const auto unif = values(rw::function(
      {}, random_draw(Distribution::Uniform, g, {0.0, 1.0}, size_vector({2})).value)());
  CHECK(fmt::format("{}", fmt::join(ints, " ")) == "483 998 256 395 344 396");
  CHECK(fmt::format("{}", fmt::join(perm, " ")) == "7 2 1 6 0 4 5 3");
  CHECK(fmt::format("{:.17g}", fmt::join(unif, " ")) == "0.74380816315658937 0.13004553462783452");
  // And the next state: the state after six integers is a known one.
  const RandomDraw d = random_draw(Distribution::Integers, g, {0, 1000}, size_vector({6}));
  const Tensor next = rw::function({}, d.next_rng)();
  const std::vector<std::int64_t> words(next.data<std::int64_t>(), next.data<std::int64_t>() + 4);
  CHECK(fmt::format("{}", fmt::join(words, " ")) ==
        "5847521029904837856 7875606084766611740 -3425189383641608092 4690521485281088834");
}

TEST_CASE("graph files: an `rng` input, random Ops called by name, written and read back",
          "[random][graph_file]") {
  const std::string text = R"(input r rng
input n i64
const size i64[2] = [2, 3]
(r1, x) = normal(r, size, 0.0, 2.0)
(r2, k) = integers{dtype=int32}(r1, make_vector(n), 0, 10)
output r2, x, k
)";
  auto back = dsl::check_graph_text("rv.graph", text, standard_registry(), graph_file_options());
  INFO(dsl::render(back.diagnostics));
  REQUIRE(back.ok());
  const auto& gf = *back.value;
  REQUIRE(gf.inputs.size() == 2);
  CHECK(gf.inputs[0]->type()->to_string() == "rng");
  CHECK(gf.outputs[0]->type()->to_string() == "rng");
  CHECK(gf.outputs[1]->type()->to_string() == "f64[2,3]");
  CHECK(gf.outputs[2]->type()->to_string() == "i32[?]");
  // A generator as an explicit argument: the function is pure in it.
  auto f = rw::function({gf.inputs[0], gf.inputs[1]}, gf.outputs);
  const Tensor s = RandomGeneratorType::seed_value(8);
  const auto o1 = f(s, Tensor::scalar<std::int64_t>(4)), o2 = f(s, Tensor::scalar<std::int64_t>(4));
  CHECK(values(o1[1]) == values(o2[1]));
  CHECK(o1[2].shape() == Shape{4});
  CHECK(values(f(o1[0], Tensor::scalar<std::int64_t>(4))[1]) != values(o1[1]));
  // Written out and read back as the same graph.
  const std::string written = graph_file_text(gf.inputs, gf.outputs, standard_registry());
  INFO(written);
  CHECK(written.find("input r rng") != std::string::npos);
  auto again =
      dsl::check_graph_text("again.graph", written, standard_registry(), graph_file_options());
  INFO(dsl::render(again.diagnostics));
  CHECK(again.ok());

  // Errors: extents on `rng`, a tensor where the generator goes.
  auto bad = dsl::check_graph_text("bad.graph", "input r rng[4]\noutput r\n", standard_registry(),
                                   graph_file_options());
  CHECK_FALSE(bad.ok());
  CHECK_THAT(dsl::render(bad.diagnostics),
             Catch::Contains("`rng` (a generator state) takes no extents"));
  auto wrong = dsl::check_graph_text(
      "wrong.graph", "input r f64[4]\nconst s i64[0] = []\noutput normal(r, s, 0.0, 1.0)\n",
      standard_registry(), graph_file_options());
  CHECK_FALSE(wrong.ok());
  CHECK_THAT(dsl::render(wrong.diagnostics), Catch::Contains("expected a generator state `rng`"));
}

TEST_CASE("the thirteen random variables are in the standard registry", "[random]") {
  const OpRegistry& ops = standard_registry();
  for (const char* name :
       {"normal", "uniform", "bernoulli", "binomial", "poisson", "gamma", "beta", "exponential",
        "categorical", "multivariate_normal", "integers", "choice", "permutation"}) {
    INFO(name);
    const OpInfo* info = ops.find(name);
    REQUIRE(info != nullptr);
    CHECK(info->min_inputs >= 3);
    const OpPtr op = ops.make(name);
    CHECK_FALSE(op->mergeable());
    CHECK(op->default_updates() == IoMap{{0, 0}});
  }
  CHECK(ops.all().size() == 183);  // docs/ops.md says how many Ops there are
}

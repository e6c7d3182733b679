// The samplers of runtime/kernels/random.hpp at their edges: degenerate
// parameters give their one value, and the semi-definite Cholesky factor.
#include <catch2/catch.hpp>

#include "runtime/kernels/random.hpp"

using namespace rw;

TEST_CASE("samplers give the one value of a degenerate law", "[runtime][random]") {
  Rng g(1);
  for (int k = 0; k < 100; ++k) {
    CHECK(sample::binomial(g, 0, 0.5) == 0);
    CHECK(sample::binomial(g, 7, 0.0) == 0);
    CHECK(sample::binomial(g, 7, 1.0) == 7);
    CHECK(sample::poisson(g, 0.0) == 0);
    CHECK(sample::standard_gamma(g, 0.0) == 0.0);
    const std::int64_t b = sample::binomial(g, 5000, 0.7);
    CHECK((b >= 0 && b <= 5000));
    CHECK(sample::poisson(g, 1e6) > 0);
    const double u = sample::open_unit(g);
    CHECK((u > 0.0 && u <= 1.0));
    const double x = sample::beta(g, 1e-3, 1e-3);
    CHECK((x >= 0.0 && x <= 1.0));
  }
  const double p[] = {0.0, 0.0, 1.0, 0.0};
  for (int k = 0; k < 20; ++k) CHECK(sample::categorical(g, p) == 2);
}

TEST_CASE("psd_cholesky factors semi-definite matrices and refuses others", "[runtime][random]") {
  // [[4, 2], [2, 1]] has rank 1: L = [[2, 0], [1, 0]].
  const double a[] = {4, 2, 2, 1};
  double l[4];
  REQUIRE(sample::psd_cholesky(a, 2, l));
  CHECK(l[0] == 2.0);
  CHECK(l[1] == 0.0);
  CHECK(l[2] == 1.0);
  CHECK(l[3] == Approx(0.0).margin(1e-7));
  const double indefinite[] = {1, 2, 2, 1};
  CHECK_FALSE(sample::psd_cholesky(indefinite, 2, l));
  const double asymmetric[] = {1, 0.5, 0, 1};
  CHECK_FALSE(sample::psd_cholesky(asymmetric, 2, l));
  CHECK(sample::psd_cholesky(std::span<const double>(), 0, std::span<double>()));
}

TEST_CASE("a generator continues from a state it gave", "[runtime][random]") {
  Rng a(9);
  a.next_u64();
  Rng b = Rng::from_state(a.state());
  for (int k = 0; k < 10; ++k) CHECK(a.next_u64() == b.next_u64());
  CHECK_THROWS_AS(Rng::from_state({0, 0, 0, 0}), rw::ValueError);
}

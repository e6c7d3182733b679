// Rng: fixed streams, value ranges, moments, errors.
#include <cmath>
#include <set>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/reduce.hpp"
#include "runtime/rng.hpp"

using namespace rw;

TEST_CASE("a seed gives the same stream on every run", "[runtime]") {
  // xoshiro256** seeded with splitmix64(0): the published first outputs of
  // splitmix64 are the state, so these values are fixed for every platform.
  Rng a(42), b(42), c(43);
  std::vector<std::uint64_t> sa, sb, sc;
  for (int i = 0; i < 5; ++i) {
    sa.push_back(a.next_u64());
    sb.push_back(b.next_u64());
    sc.push_back(c.next_u64());
  }
  REQUIRE(sa == sb);
  REQUIRE(sa != sc);
  Rng z(0);
  // splitmix64 from state 0 yields 0xe220a8397b1dcdaf first; the first
  // xoshiro256** output is rotl(s1 * 5, 7) * 9 of that state.
  const std::uint64_t s1 = 0x6e789e6aa1b965f4ULL;
  const std::uint64_t expect = ((s1 * 5) << 7 | (s1 * 5) >> 57) * 9;
  REQUIRE(z.next_u64() == expect);
  REQUIRE(Rng(7).uniform({4, 5}).equal(Rng(7).uniform({4, 5})));
  REQUIRE(Rng(7).normal({100}).equal(Rng(7).normal({100})));
  Rng parent(9);
  Rng child = parent.split();
  REQUIRE(child.next_u64() != parent.next_u64());
}

TEST_CASE("uniform, normal and integer tensors have the right range and moments", "[runtime]") {
  Rng rng(1);
  const Tensor u = rng.uniform({100000}, -2.0, 3.0);
  REQUIRE(u.dtype() == f64);
  REQUIRE(min(u).item<double>() >= -2.0);
  REQUIRE(max(u).item<double>() < 3.0);
  REQUIRE(mean(u).item<double>() == Approx(0.5).margin(0.02));
  const Tensor uf = rng.uniform({1000}, 0.0, 1.0, f32);
  REQUIRE(uf.dtype() == f32);
  REQUIRE(max(uf).item<float>() < 1.0f);
  const Tensor n = rng.normal({200000}, 1.0, 2.0);
  const double m = mean(n).item<double>();
  REQUIRE(m == Approx(1.0).margin(0.02));
  double var = 0;
  const double* p = n.data<double>();
  for (std::int64_t i = 0; i < n.size(); ++i) var += (p[i] - m) * (p[i] - m);
  REQUIRE(std::sqrt(var / static_cast<double>(n.size())) == Approx(2.0).margin(0.02));
  const Tensor k = rng.integers({10000}, -3, 4, i8);
  REQUIRE(k.dtype() == i8);
  std::set<double> seen;
  for (std::int64_t i = 0; i < k.size(); ++i) seen.insert(k.at({i}));
  REQUIRE(seen == std::set<double>{-3, -2, -1, 0, 1, 2, 3});
  REQUIRE(rng.next_integer(5, 6) == 5);
}

TEST_CASE("bad requests are explained", "[runtime]") {
  Rng rng(2);
  REQUIRE_THROWS_WITH(rng.uniform({2}, 0.0, 1.0, i32),
                      "Rng::uniform needs a float dtype, got int32; use `integers`");
  REQUIRE_THROWS_WITH(rng.uniform({2}, 1.0, 1.0),
                      "Rng::uniform: need finite low < high, got [1, 1)");
  REQUIRE_THROWS_WITH(rng.normal({2}, 0.0, -1.0),
                      "Rng::normal: need a finite mean and stddev >= 0, got mean 0 stddev -1");
  REQUIRE_THROWS_WITH(rng.integers({2}, 0, 300, u8),
                      "Rng::integers: [0, 300) does not fit in uint8");
  REQUIRE_THROWS_WITH(rng.integers({2}, 0, 3, f64),
                      "Rng::integers needs an integer dtype, got float64");
  REQUIRE_THROWS_WITH(rng.next_integer(3, 3), "Rng::next_integer: empty range [3, 3)");
}

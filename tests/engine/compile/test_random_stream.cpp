// RandomStream and default updates: a function advances the generators of
// its draws, the same seed gives the same draws, streams are independent,
// explicit updates and opting out win, and a refused call changes nothing.
#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "rw/rewrite.hpp"

using namespace rw;

namespace {

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const Tensor c = cast(t, f64).contiguous();
  for (std::int64_t i = 0; i < c.size(); ++i) out.push_back(c.data<double>()[i]);
  return out;
}

std::size_t count_ops(const FunctionBase& f, std::string_view name) {
  std::size_t n = 0;
  for (const Apply* node : f.schedule()) n += node->op().name() == name;
  return n;
}

}  // namespace

TEST_CASE("a function that draws advances its generator: each call gives new draws",
          "[random][compile]") {
  RandomStream rs(42);
  const Var x = rs.normal(0, 1, {3});
  REQUIRE(rs.generators().size() == 1);
  const Shared g = rs.generators()[0];
  CHECK(g->type()->to_string() == "rng");
  const Tensor before = g.get_value();
  auto f = rw::function({}, x);
  CHECK(f.shared_variables().size() == 1);
  const Tensor a = f(), b = f();
  CHECK(a.shape() == Shape{3});
  CHECK(values(a) != values(b));
  // The generator moved on: its state is not the one it was seeded with.
  CHECK(values(g.get_value()) != values(before));
  // Resetting the state repeats the draws.
  g.set_value(before);
  CHECK(values(f()) == values(a));
  CHECK(values(f()) == values(b));
}

TEST_CASE("two streams of one seed give the same draws; other seeds other draws",
          "[random][compile]") {
  RandomStream r1(7), r2(7), r3(8);
  auto f1 = rw::function({}, r1.uniform(0, 1, {5}));
  auto f2 = rw::function({}, r2.uniform(0, 1, {5}));
  auto f3 = rw::function({}, r3.uniform(0, 1, {5}));
  for (int k = 0; k < 3; ++k) {
    const auto a = values(f1()), b = values(f2()), c = values(f3());
    CHECK(a == b);
    CHECK(a != c);
  }
}

TEST_CASE("two draws of one stream have generators of their own and differ", "[random][compile]") {
  RandomStream rs(1);
  const Var x = rs.normal(0, 1, {4});
  const Var y = rs.normal(0, 1, {4});
  CHECK(rs.generators().size() == 2);
  // The default rewrites (merge included) keep them two nodes.
  auto f = rw::function({}, {x, y});
  CHECK(count_ops(f, "normal") == 2);
  auto [a, b] = f();
  CHECK(values(a) != values(b));
  CHECK(f.shared_variables().size() == 2);
}

TEST_CASE("two equal-looking draws from one state stay two nodes through the default rewrites",
          "[random][compile]") {
  // Merging, CSE or constant folding would make them one node: a random
  // variable is not mergeable and not constant-folded.
  const Var state_c =
      Constant::make(RandomGeneratorType::seed_value(3), RandomGeneratorType::make());
  const RandomDraw d1 = random_draw(Distribution::Normal, state_c, {0.0, 1.0}, size_vector({2}));
  const RandomDraw d2 = random_draw(Distribution::Normal, state_c, {0.0, 1.0}, size_vector({2}));
  auto f = rw::function({}, {d1.value, d2.value});
  CHECK(count_ops(f, "normal") == 2);
  // From one state, both give the same numbers: distinct nodes, equal values.
  auto [a, b] = f();
  CHECK(values(a) == values(b));
}

TEST_CASE("reseeding a stream repeats what a new stream of that seed draws", "[random][compile]") {
  RandomStream rs(5);
  auto f = rw::function({}, {rs.integers(0, 100, {6}), rs.poisson(3.0, {4})});
  auto [a0, b0] = f();
  f();
  rs.seed(5);
  auto [a1, b1] = f();
  CHECK(values(a0) == values(a1));
  CHECK(values(b0) == values(b1));
  RandomStream fresh(5);
  auto g = rw::function({}, {fresh.integers(0, 100, {6}), fresh.poisson(3.0, {4})});
  auto [a2, b2] = g();
  CHECK(values(a0) == values(a2));
  CHECK(values(b0) == values(b2));
}

TEST_CASE("an explicit update or opting out replaces the default update", "[random][compile]") {
  RandomStream rs(11);
  const Var x = rs.normal(0, 1, {2});
  const Shared g = rs.generators()[0];
  SECTION("no_default_updates: every call draws the same") {
    auto f = rw::function({}, x, {.no_default_updates = true});
    CHECK(values(f()) == values(f()));
    CHECK(f.shared_variables().size() == 1);
  }
  SECTION("no_default_updates_for the generator") {
    auto f = rw::function({}, x, {.no_default_updates_for = {g}});
    CHECK(values(f()) == values(f()));
  }
  SECTION("an explicit update of the generator wins") {
    const Tensor seeded = RandomGeneratorType::seed_value(99);
    auto f = rw::function({}, x,
                          {.updates = {{g, Constant::make(seeded, RandomGeneratorType::make())}}});
    const auto a = values(f());
    CHECK(values(g.get_value()) == values(seeded));
    CHECK(values(f()) != a);  // drawn from state 99 now
    CHECK(values(g.get_value()) == values(seeded));
  }
  SECTION("a non-shared variable in no_default_updates_for is refused") {
    CHECK_THROWS_WITH(rw::function({}, x, {.no_default_updates_for = {x}}),
                      Catch::Contains("not a shared variable"));
  }
}

TEST_CASE("a chain of draws from one shared generator updates it to the last state",
          "[random][compile]") {
  Shared g = shared("g", RandomGeneratorType::seed_value(4), RandomGeneratorType::make());
  const RandomDraw d1 = random_draw(Distribution::Uniform, g, {0.0, 1.0}, size_vector({3}));
  const RandomDraw d2 =
      random_draw(Distribution::Uniform, d1.next_rng, {0.0, 1.0}, size_vector({3}));
  auto f = rw::function({}, {d1.value, d2.value});
  auto [a, b] = f();
  auto [c, d] = f();
  // Had the update been d1's state, the second call's first draw would repeat b.
  CHECK(values(c) != values(b));
  CHECK(values(a) != values(c));
  // Two draws from the same shared state: which one advances it is ambiguous.
  const RandomDraw e = random_draw(Distribution::Uniform, g, {0.0, 1.0}, size_vector({3}));
  CHECK_THROWS_WITH(rw::function({}, {d1.value, e.value}), Catch::Contains("ambiguous"));
  CHECK_NOTHROW(rw::function({}, {d1.value, e.value}, {.updates = {{g, e.next_rng}}}));
}

TEST_CASE("a call refused for a bad parameter changes no generator", "[random][compile]") {
  RandomStream rs(3);
  const Var scale = scalar("scale");
  const Var x = rs.normal(0.0, scale, {3});
  const Var y = rs.uniform(0.0, 1.0, {2});
  auto f = rw::function({scale}, {x, y});
  const Tensor g0 = rs.generators()[0].get_value(), g1 = rs.generators()[1].get_value();
  CHECK_THROWS_WITH(f(Tensor::scalar(-1.0)), Catch::Contains("`scale` must be non-negative"));
  CHECK(values(rs.generators()[0].get_value()) == values(g0));
  CHECK(values(rs.generators()[1].get_value()) == values(g1));
  CHECK_NOTHROW(f(Tensor::scalar(2.0)));
  CHECK(values(rs.generators()[0].get_value()) != values(g0));
}

TEST_CASE("a generator's value is checked: a state is four int64 words, not all zero",
          "[random][compile]") {
  const TypePtr t = RandomGeneratorType::make();
  CHECK(t->is_valid_value(RandomGeneratorType::seed_value(0)));
  CHECK_FALSE(t->is_valid_value(Tensor::zeros({4}, i64)));
  CHECK_FALSE(t->is_valid_value(Tensor::zeros({4}, f64)));
  CHECK_FALSE(t->is_valid_value(Tensor::zeros({3}, i64)));
  Shared g = shared("g", RandomGeneratorType::seed_value(1), t);
  CHECK_THROWS_WITH(g.set_value(Tensor::zeros({4}, i64)), Catch::Contains("of zeros"));
  CHECK_THROWS_WITH(g.set_value(Tensor::from({1.0, 2.0})), Catch::Contains("generator state"));
  CHECK(values(g.get_value()) == values(RandomGeneratorType::seed_value(1)));
  CHECK_THROWS_WITH(shared("h", Tensor::from({1.0}), t), Catch::Contains("`h`"));
}

TEST_CASE("a function may return the next state its default update assigns", "[random][compile]") {
  RandomStream rs(13);
  const RandomDraw d = rs.draw(Distribution::Exponential, {1.0}, {3});
  const Shared g = rs.generators()[0];
  auto f = rw::function({}, {d.next_rng, d.value});
  auto [next, x] = f();
  CHECK(RandomGeneratorType::make()->is_valid_value(next));
  CHECK(values(next) == values(g.get_value()));
  // The returned state is the caller's: the next call does not change it.
  const auto kept = values(next);
  f();
  CHECK(values(next) == kept);
  CHECK(values(g.get_value()) != kept);
}

TEST_CASE("a draw has no gradient in its parameters, and does not block others",
          "[random][compile]") {
  RandomStream rs(2);
  const Var loc = scalar("loc"), w = scalar("w");
  const Var x = rs.normal(loc, 1.0, {4});
  CHECK_THROWS_WITH(grad(sum(x), {loc}), Catch::Contains("no gradient in their parameters"));
  // Through a product with w, the gradient in w is the draw itself.
  const std::vector<Var> g = grad(sum(x * w), {w});
  auto f = rw::function({loc, w}, {sum(x), g[0]}, {.on_unused_input = UnusedInput::Ignore});
  auto out = f(Tensor::scalar(0.5), Tensor::scalar(3.0));
  CHECK(out[0].item<double>() == Approx(out[1].item<double>()));
}

TEST_CASE("draws of two generators are uncorrelated: two draws of a stream, two streams",
          "[random][compile]") {
  // Pearson correlation of n pairs of independent uniforms is about normal
  // with standard deviation 1 / sqrt(n): within 3.09 / sqrt(n) at
  // significance 0.001, at these fixed seeds.
  constexpr std::int64_t n = 20000;
  const auto correlation = [](const std::vector<double>& a, const std::vector<double>& b) {
    double ma = 0, mb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) ma += a[i] / a.size(), mb += b[i] / b.size();
    double sab = 0, saa = 0, sbb = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      sab += (a[i] - ma) * (b[i] - mb);
      saa += (a[i] - ma) * (a[i] - ma);
      sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / std::sqrt(saa * sbb);
  };
  const double bound = 3.09 / std::sqrt(static_cast<double>(n));
  RandomStream rs(100), other(101);
  auto f =
      rw::function({}, {rs.uniform(0, 1, {n}), rs.uniform(0, 1, {n}), other.uniform(0, 1, {n})});
  std::vector<double> previous;
  for (int call = 0; call < 2; ++call) {
    auto out = f();
    const auto a = values(out[0]), b = values(out[1]), c = values(out[2]);
    CHECK(std::abs(correlation(a, b)) < bound);
    CHECK(std::abs(correlation(a, c)) < bound);
    // Nor is a draw correlated with the next call's (its generator moved on).
    if (call == 1) CHECK(std::abs(correlation(a, previous)) < bound);
    previous = a;
  }
  // The check can fail: a draw against itself, shifted.
  auto x = values(f()[0]);
  std::vector<double> y = x;
  for (double& v : y) v += 0.01;
  CHECK(correlation(x, y) > 0.99);
}

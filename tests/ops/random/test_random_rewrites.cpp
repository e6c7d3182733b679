// The random-variable lifts: each fires where it should and not elsewhere,
// and the lifted graph draws from the same law (exactly the same numbers for
// the size lift).
#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "rw/rw.hpp"
#include "support/fired_rewriters.hpp"
#include "support/statistics.hpp"

using namespace rw;
using namespace rw::testing;

namespace {

std::vector<double> values(const Tensor& t) {
  const Tensor c = cast(t, f64).contiguous();
  return {c.data<double>(), c.data<double>() + c.size()};
}

Mode lifting() {
  return default_mode().including({"random_lift"});
}

/// A function of `outputs` under the lifts, and which rewriters fired.
struct Lifted {
  Function<std::vector<Tensor>> f;
  std::shared_ptr<FiredRewriters> fired;
};
Lifted lifted(std::vector<In> inputs, std::vector<Var> outputs) {
  auto fired = std::make_shared<FiredRewriters>();
  auto f = rw::function(std::move(inputs), std::move(outputs), {.rewrite_trace = fired}, lifting());
  return {std::move(f), fired};
}

/// The names of the Ops of the compiled graph's nodes, in run order.
std::string ops_of(const FunctionBase& f) {
  std::string out;
  for (const Apply* node : f.schedule()) out += std::string(node->op().name()) + " ";
  return out;
}

/// Column j of a row-major (n, m) matrix.
std::vector<double> column(const std::vector<double>& v, std::size_t m, std::size_t j) {
  std::vector<double> out;
  for (std::size_t i = j; i < v.size(); i += m) out.push_back(v[i]);
  return out;
}

}  // namespace

TEST_CASE("local_rv_size_lift moves the size into the parameters and draws the same numbers",
          "[random][rewrite]") {
  RandomStream rs(17);
  const Var loc = vector("loc", f64, 3);
  const Var x = rs.normal(loc, 2.0, {2, 3});
  const Shared g = rs.generators()[0];
  const Tensor start = g.get_value();
  auto plain = rw::function({loc}, {x});
  auto [f, fired] = lifted({loc}, {x});
  INFO(fired->list());
  CHECK(fired->fired("local_rv_size_lift"));
  // The lifted node has no size: its parameters are broadcast.
  for (const Apply* node : f.schedule())
    if (node->op().name() == "normal") CHECK(node->input(1)->tensor_type()->shape()[0] == 0);
  const Tensor l = Tensor::from({1.0, 2.0, 3.0});
  const auto a = values(plain(l)[0]);
  const Tensor after_plain = g.get_value();
  g.set_value(start);
  const auto b = values(f(l)[0]);
  CHECK(a == b);
  // And the same next state: the default update followed the lifted node.
  CHECK(values(g.get_value()) == values(after_plain));
  CHECK(values(f(l)[0]) != b);
}

TEST_CASE("local_dimshuffle_rv_lift shuffles the parameters instead of the draw",
          "[random][rewrite]") {
  RandomStream rs(23);
  // Rows of means 0, 10, 20, many columns; transposed, column j has mean 10 j.
  const Var loc = constant(Tensor::from({{0.0}, {10.0}, {20.0}}));
  const Var scale = constant(Tensor::ones({1, 4000}));
  const Var y = transpose(rs.normal(loc, scale));
  auto [f, fired] = lifted({}, {y});
  INFO(fired->list() << "\n" << ops_of(f));
  CHECK(fired->fired("local_dimshuffle_rv_lift"));
  // The draw is the graph's output: nothing shuffles it.
  CHECK(f.fgraph().outputs()[0]->owner()->op().name() == "normal");
  const Tensor t = f()[0];
  REQUIRE(t.shape() == Shape{4000, 3});
  const auto v = values(t);
  for (std::size_t j = 0; j < 3; ++j) {
    std::vector<double> c = column(v, 3, j);
    check_ks(c, [j](double x) { return normal_cdf(x, 10.0 * static_cast<double>(j), 1.0); });
  }
  // Calling again draws again.
  CHECK(values(f()[0]) != v);
}

TEST_CASE("local_subtensor_rv_lift draws only the part indexed", "[random][rewrite]") {
  RandomStream rs(29);
  const Var loc = constant(Tensor::from({{0.0}, {10.0}, {20.0}}));
  const Var scale = constant(Tensor::ones({1, 4000}));
  SECTION("an integer index on a broadcast and a sliced parameter") {
    const Var y = subtensor(rs.normal(loc, scale), {1});
    auto [f, fired] = lifted({}, {y});
    INFO(fired->list() << "\n" << ops_of(f));
    CHECK(fired->fired("local_subtensor_rv_lift"));
    const Apply* rv = f.fgraph().outputs()[0]->owner();
    REQUIRE(rv->op().name() == "normal");
    const Tensor t = f()[0];
    REQUIRE(t.shape() == Shape{4000});
    check_ks(values(t), [](double x) { return normal_cdf(x, 10.0, 1.0); });
  }
  SECTION("slices") {
    const Var y = subtensor(rs.normal(loc, scale), {slice(1, std::nullopt), slice(0, 2000)});
    auto [f, fired] = lifted({}, {y});
    INFO(fired->list() << "\n" << ops_of(f));
    CHECK(fired->fired("local_subtensor_rv_lift"));
    const Tensor t = f()[0];
    REQUIRE(t.shape() == Shape{2, 2000});
    const auto v = values(t);
    check_ks(std::vector<double>(v.begin(), v.begin() + 2000),
             [](double x) { return normal_cdf(x, 10.0, 1.0); });
    check_ks(std::vector<double>(v.begin() + 2000, v.end()),
             [](double x) { return normal_cdf(x, 20.0, 1.0); });
  }
  SECTION("not when the draw has other uses: the part is then the draw's part") {
    const Var x = rs.normal(loc, scale);
    auto [f, fired] = lifted({}, {x, subtensor(x, {2})});
    CHECK_FALSE(fired->fired("local_subtensor_rv_lift"));
    const auto out = f();
    const auto all = values(out[0]), part = values(out[1]);
    CHECK(std::vector<double>(all.begin() + 8000, all.end()) == part);
  }
}

TEST_CASE("the random lifts are registered outside fast_run", "[random][rewrite]") {
  RandomStream rs(31);
  const Var y = transpose(rs.normal(0, 1, {2, 3}));
  auto f = rw::function({}, y);
  CHECK(f.fgraph().outputs()[0]->owner()->op().name() == "dimshuffle");
}

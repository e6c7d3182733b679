// ops/simplify: shape_within, UselessFill, FillSink and CancellingDistributor
// on their own, and in the default mode on the graphs they exist for (the
// gradients of sum(x ** 2), sum(sigmoid(x)) and the logistic loss).
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ops/simplify.hpp"
#include "rw/rewrite.hpp"

namespace {

using rw::Tensor;
using rw::Var;

/// Applies `rewriter` to the node computing the graph's first output.
rw::RewriteResult apply_root(const rw::NodeRewriter& rewriter, rw::FunctionGraph& fg) {
  const rw::RewriteContext ctx;
  return rewriter.transform(fg, *fg.outputs()[0]->owner(), ctx);
}

rw::FunctionGraph graph_of(std::vector<Var> inputs, std::vector<Var> outputs) {
  return rw::FunctionGraph(std::move(inputs), std::move(outputs));
}

}  // namespace

TEST_CASE("shape_within: what reads a value elementwise holds its shape", "[ops][simplify]") {
  auto x = rw::vector("x");
  auto y = rw::vector("y");
  auto s = rw::scalar("s");
  CHECK(rw::shape_within(*x, *x));
  CHECK(rw::shape_within(*x, *rw::exp(x)));               // exp(x) reads x
  CHECK(rw::shape_within(*rw::sqr(x), *(2.0 * x)));       // both from x alone
  CHECK(rw::shape_within(*s, *x));                         // a scalar broadcasts
  CHECK(rw::shape_within(*x, *(x + y)));
  CHECK_FALSE(rw::shape_within(*(x + y), *x));             // y may widen x (extent 1)
  CHECK_FALSE(rw::shape_within(*y, *x));
  CHECK_FALSE(rw::shape_within(*x, *s));                   // rank
  auto a = rw::tensor("a", rw::DType::Float64, {3, 1});
  auto b = rw::tensor("b", rw::DType::Float64, {3, 4});
  CHECK(rw::shape_within(*a, *b));                         // static shapes
  CHECK_FALSE(rw::shape_within(*b, *a));
  // The depth bounds the walk.
  Var deep = x;
  for (int k = 0; k < 6; ++k) deep = rw::exp(deep);
  CHECK_FALSE(rw::shape_within(*x, *deep, 3));
  CHECK(rw::shape_within(*x, *deep, 6));
}

TEST_CASE("useless_fill removes a fill whose model lies within the value", "[ops][simplify]") {
  auto x = rw::vector("x");
  auto y = rw::vector("y");
  const rw::UselessFill rewriter;
  {
    auto fg = graph_of({x}, {rw::fill(rw::sqr(x), 2.0 * x)});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    CHECK(rw::to_infix(r.outputs().at(0)) == "2.0 * x");
  }
  {
    // y could widen the result (its extent may be 1 where x's is not, or the
    // other way round): kept.
    auto fg = graph_of({x, y}, {rw::fill(y, 2.0 * x)});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    CHECK_FALSE(r.applied());
  }
  {
    // The value has a less specific type than the fill: kept.
    auto m = rw::tensor("m", rw::DType::Float64, {3});
    auto fg = graph_of({m, x}, {rw::fill(m, x)});
    CHECK_FALSE(apply_root(rewriter, fg).applied());
  }
}

TEST_CASE("fill_sink drops a fill whose broadcast the op adds anyway", "[ops][simplify]") {
  auto x = rw::vector("x");
  auto y = rw::vector("y");
  const rw::FillSink rewriter;
  {
    auto fg = graph_of({x}, {rw::fill(rw::sqr(x), 1.0) * (2.0 * x)});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    CHECK(rw::to_infix(r.outputs().at(0)) == "1.0 * (2.0 * x)");
  }
  {
    // The model y is not within the result: the fill stays.
    auto fg = graph_of({x, y}, {rw::fill(y, 1.0) * x});
    CHECK_FALSE(apply_root(rewriter, fg).applied());
  }
  {
    auto fg = graph_of({x, y}, {x * y});
    CHECK_FALSE(apply_root(rewriter, fg).applied());
  }
}

TEST_CASE("cancelling_distributor distributes when every term cancels", "[ops][simplify]") {
  auto a = rw::vector("a");
  auto b = rw::vector("b");
  auto p = rw::vector("p");
  auto q = rw::vector("q");
  const rw::CancellingDistributor rewriter;
  {
    auto fg = graph_of({a, b, p, q}, {(a / p - b / q) * (p * q)});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    CHECK(rw::to_infix(r.outputs().at(0)) == "a * q - b * p");
  }
  {
    // reciprocal and a negation among the factors, constants folded.
    auto fg = graph_of({a, b, p}, {(a * rw::reciprocal(p) - 2.0 * (b / p)) * -p});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    // p broadcast both terms; nothing left reads it, so it stays as a fill.
    CHECK(rw::to_infix(r.outputs().at(0)) == "fill(p, -a + 2.0 * b)");
  }
  {
    // One term cancels and one does not: distributed, a division for a product.
    auto fg = graph_of({a, b, p}, {(a / p + b) * p});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    CHECK(rw::to_infix(r.outputs().at(0)) == "a + b * p");
  }
  {
    // More terms that cancel nothing than terms that do: left alone.
    auto c = rw::vector("c");
    auto fg = graph_of({a, b, c, p}, {(a / p + b + c) * p});
    CHECK_FALSE(apply_root(rewriter, fg).applied());
  }
  {
    // exp(u) / (1 + exp(u)) read as sigmoid(u), which cancels 1 / sigmoid(u).
    auto u = rw::vector("u");
    auto s = rw::sigmoid(u);
    auto fg = graph_of({a, b, u}, {(a / s + b / s) * (rw::exp(u) / (1.0 + rw::exp(u)))});
    const rw::RewriteResult r = apply_root(rewriter, fg);
    REQUIRE(r.applied());
    CHECK(rw::to_infix(r.outputs().at(0)) == "fill(sigmoid(u), a + b)");
  }
}

TEST_CASE("gradients of sum(x ** 2) and sum(sigmoid(x)) compile to one node", "[ops][simplify]") {
  auto x = rw::vector("x");
  {
    auto f = rw::function({x}, {rw::grad(rw::sum(rw::pow(x, 2.0)), {x})[0]});
    CHECK(f.fgraph().num_nodes() == 1);
    CHECK(rw::to_infix(f.fgraph().outputs()[0]) == "2.0 * x");
    const Tensor g = f.call(std::vector<Tensor>{Tensor::from({1.0, -3.0})})[0];
    CHECK(g.at({0}) == 2.0);
    CHECK(g.at({1}) == -6.0);
  }
  {
    auto f = rw::function({x}, {rw::grad(rw::sum(rw::sigmoid(x)), {x})[0]});
    REQUIRE(f.fgraph().num_nodes() == 1);
    CHECK(f.fgraph().outputs()[0]->owner()->op().name() == "composite");
    const Tensor g = f.call(std::vector<Tensor>{Tensor::from({0.0})})[0];
    CHECK(g.at({0}) == Approx(0.25));
  }
  {
    // sqrt(x ** 2) reaches abs(x): x ** 2 becomes sqr in canonicalize.
    auto f = rw::function({x}, {rw::sqrt(rw::pow(x, 2.0))});
    CHECK(rw::to_infix(f.fgraph().outputs()[0]) == "abs(x)");
  }
}

TEST_CASE("the logistic loss and its gradients stay finite at large logits", "[ops][simplify]") {
  auto X = rw::matrix("X");
  auto y = rw::vector("y");
  auto w = rw::vector("w");
  auto b = rw::scalar("b");
  auto p = rw::sigmoid(rw::dot(X, w) + b);
  auto loss = -rw::mean(y * rw::log(p) + (1.0 - y) * rw::log(1.0 - p));
  auto g = rw::grad(loss, {w, b});
  auto f = rw::function({X, y, w, b}, {loss, g[0], g[1]});
  auto strict = rw::function({X, y, w, b}, {loss, g[0], g[1]}, {}, rw::default_mode().strict());
  // Logits -1000 and 1000, each with the label that makes the loss large.
  const std::vector<Tensor> args{Tensor::from<double>({{1.0}, {-1.0}}), Tensor::from({1.0, 1.0}),
                                 Tensor::from({-1000.0}), Tensor::scalar(0.0)};
  const auto out = f.call(args);
  // loss = mean(softplus(1000), softplus(-1000)) = 500; d/dz = (p - y) / 2.
  CHECK(out[0].item<double>() == Approx(500.0));
  CHECK(out[1].at({0}) == Approx(-0.5));
  CHECK(out[2].item<double>() == Approx(-0.5));
  // The strict mode keeps what the unrewritten gradient computes there.
  const auto s = strict.call(args);
  CHECK(std::isfinite(s[0].item<double>()));
  CHECK(std::isnan(s[1].at({0})));
}

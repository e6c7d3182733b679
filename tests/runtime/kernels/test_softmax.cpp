// Softmax, log-softmax and their gradients against the textbook formulas.
#include <cmath>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/softmax.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using V = std::vector<std::int64_t>;

namespace {
// softmax along `axis` of a 2-d tensor, by the definition, in long double.
Tensor ref_softmax(const Tensor& x, int axis, bool log) {
  return make_tensor({x.shape()[0], x.shape()[1]}, [&](const Index& i) {
    const std::int64_t n = x.shape()[static_cast<std::size_t>(axis)];
    long double s = 0;
    for (std::int64_t k = 0; k < n; ++k)
      s += std::exp(static_cast<long double>(axis == 1 ? x.at({i[0], k}) : x.at({k, i[1]})));
    const long double v = static_cast<long double>(x.at(i));
    return static_cast<double>(log ? v - std::log(s) : std::exp(v) / s);
  });
}
}  // namespace

TEST_CASE("softmax matches its definition along either axis and any layout", "[runtime]") {
  const Tensor x = lcg_tensor({30, 40}, 51, -5, 5);
  for (int axis : {0, 1}) {
    for (const Tensor& v : {x, x.transpose().copy().transpose()}) {
      REQUIRE(allclose(softmax(v, axis), ref_softmax(x, axis, false), 1e-12, 1e-15));
      REQUIRE(allclose(log_softmax(v, axis), ref_softmax(x, axis, true), 1e-12, 1e-12));
    }
  }
  REQUIRE(allclose(softmax(x), softmax(x, 1)));
  const Tensor f = softmax(x.astype(f32));
  REQUIRE(f.dtype() == f32);
  REQUIRE(allclose(f, ref_softmax(x.astype(f32), 1, false), 1e-6, 1e-7));
  REQUIRE(softmax(Tensor::from({1, 2})).dtype() == f64);
}

TEST_CASE("softmax is stable for huge and infinite inputs", "[runtime]") {
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor big = Tensor::from({1000.0, 1000.0, -inf});
  const Tensor s = softmax(big);
  REQUIRE(s.at({0}) == 0.5);
  REQUIRE(s.at({1}) == 0.5);
  REQUIRE(s.at({2}) == 0.0);
  const Tensor ls = log_softmax(Tensor::from({0.0, -1000.0}));
  REQUIRE(ls.at({0}) == 0.0);
  REQUIRE(ls.at({1}) == -1000.0);  // not -inf: no log of an underflowed exp
  REQUIRE(std::isnan(softmax(Tensor::from({1.0, std::nan("")})).at({0})));
  REQUIRE(softmax(Tensor::zeros({3, 0})).shape() == Shape{3, 0});
  REQUIRE_THROWS_WITH(softmax(Tensor::scalar(1.0)), "`softmax` of a 0-d tensor");
  REQUIRE_THROWS_WITH(softmax(Tensor::zeros({2}), 1),
                      "axis 1 is out of range for a tensor of 1 dimensions");
}

TEST_CASE("the gradients agree with finite differences", "[runtime]") {
  const Tensor x = lcg_tensor({3, 5}, 52), dy = lcg_tensor({3, 5}, 53);
  const double h = 1e-6;
  for (bool log : {false, true}) {
    const Tensor y = log ? log_softmax(x) : softmax(x);
    const Tensor g = log ? log_softmax_grad(dy, y) : softmax_grad(dy, y);
    // d/dx[i,j] of sum(dy * f(x)), by central differences.
    const Tensor num = make_tensor({3, 5}, [&](const Index& i) {
      auto loss = [&](double delta) {
        Tensor xp = x.copy();
        xp.data<double>()[i[0] * 5 + i[1]] += delta;
        const Tensor yp = log ? log_softmax(xp) : softmax(xp);
        double s = 0;
        for (std::int64_t r = 0; r < 3; ++r)
          for (std::int64_t c = 0; c < 5; ++c) s += dy.at({r, c}) * yp.at({r, c});
        return s;
      };
      return (loss(h) - loss(-h)) / (2 * h);
    });
    REQUIRE(allclose(g, num, 1e-6, 1e-8));
  }
  REQUIRE_THROWS_WITH(softmax_grad(Tensor::zeros({2}), Tensor::zeros({3})),
                      "`softmax_grad`: dy has shape (2,), the output has (3,)");
}

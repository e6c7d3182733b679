// Reductions against hand-written loops: every axis set, layouts, dtypes,
// accuracy, NaN, empty reductions, argmax/argmin, fused programs, errors.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/thread_pool.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using rw::testing::for_each_index;
using rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;
using V = std::vector<std::int64_t>;

namespace {

// The reduction by the obvious loop: every element of x added into the
// output element it belongs to, in double (or exactly, for the logical ops).
Tensor ref_reduce(ReduceOp op, const Tensor& x, const std::vector<bool>& reduced, bool keepdims) {
  V out_shape, shape(x.shape().begin(), x.shape().end());
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (!reduced[d]) out_shape.push_back(shape[d]);
    else if (keepdims) out_shape.push_back(1);
  }
  std::int64_t n_out = 1, count = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) (reduced[d] ? count : n_out) *= shape[d];
  std::vector<double> acc(static_cast<std::size_t>(n_out),
                          op == ReduceOp::Prod || op == ReduceOp::All ? 1.0 : 0.0);
  std::vector<bool> seen(static_cast<std::size_t>(n_out), false);
  for_each_index(shape, [&](const Index& i) {
    std::int64_t k = 0;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (!reduced[d]) k = k * shape[d] + i[d];
    double& a = acc[static_cast<std::size_t>(k)];
    const double v = x.at(i);
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean: a += v; break;
      case ReduceOp::Prod: a *= v; break;
      case ReduceOp::Max:
      case ReduceOp::Min: {
        const bool better = op == ReduceOp::Max ? v > a : v < a;
        if (!seen[static_cast<std::size_t>(k)] || (!std::isnan(a) && (std::isnan(v) || better)))
          a = v;
        break;
      }
      case ReduceOp::Any: a = (a != 0 || v != 0) ? 1 : 0; break;
      case ReduceOp::All: a = (a != 0 && v != 0) ? 1 : 0; break;
    }
    seen[static_cast<std::size_t>(k)] = true;
  });
  if (op == ReduceOp::Mean)
    for (double& a : acc) a /= static_cast<double>(count);
  std::int64_t k = 0;
  return make_tensor(
      out_shape, [&](const Index&) { return acc[static_cast<std::size_t>(k++)]; },
      reduce_result_dtype(op, x.dtype()));
}

std::vector<bool> mask(std::size_t nd, std::vector<std::int64_t> axes) {
  std::vector<bool> m(nd, false);
  for (auto a : axes)
    m[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(nd) : a)] = true;
  return m;
}

void check_close(const Tensor& got, const Tensor& want, double rel = 1e-12) {
  INFO("got " << got.to_string() << "\nwant " << want.to_string());
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  REQUIRE(allclose(got, want, rel, 1e-12, true));
}

}  // namespace

TEST_CASE("reductions over every axis set match the loop", "[runtime]") {
  const Tensor x = lcg_tensor({3, 4, 5}, 11, -2, 2);
  const std::vector<std::vector<std::int64_t>> sets = {{},     {0},     {1},    {2},
                                                       {0, 2}, {-1, 0}, {1, 2}, {0, 1, 2}};
  for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Mean,
                      ReduceOp::Any, ReduceOp::All}) {
    for (const auto& axes : sets) {
      for (bool keep : {false, true}) {
        INFO(reduce_op_name(op) << " axes " << shape_to_string(axes) << " keepdims " << keep);
        check_close(reduce(op, x, Axes(axes), keep), ref_reduce(op, x, mask(3, axes), keep));
      }
    }
    check_close(reduce(op, x), ref_reduce(op, x, mask(3, {0, 1, 2}), false));
  }
  REQUIRE(sum(x, Axes::all(), true).shape() == Shape{1, 1, 1});
  REQUIRE(sum(x).shape() == Shape{});
  REQUIRE(sum(x, Axes{1}).shape() == Shape{3, 5});
}

TEST_CASE("a reduction over axes of extent 1 gives each value as it is", "[runtime]") {
  // A batch of one: every result reduces one value (the outer mode's rows).
  Tensor x = lcg_tensor({1, 70}, 5, -3, 3);
  x.data<double>()[3] = -0.0;  // contiguous: element (0, i) is data()[i]
  x.data<double>()[9] = std::numeric_limits<double>::infinity();
  for (ReduceOp op :
       {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Mean}) {
    INFO(reduce_op_name(op));
    const Tensor r = reduce(op, x, Axes{0});
    REQUIRE(r.shape() == Shape{70});
    for (std::int64_t i = 0; i < 70; ++i) {
      const double want = x.data<double>()[i], got = r.data<double>()[i];
      REQUIRE(got == want);
      REQUIRE(std::signbit(got) == std::signbit(want));
    }
  }
  // Two unit axes around the kept one, and a strided input.
  const Tensor y = lcg_tensor({1, 40, 1}, 7, -1, 1);
  check_close(sum(y, Axes{0, 2}), ref_reduce(ReduceOp::Sum, y, mask(3, {0, 2}), false));
  const Tensor z = lcg_tensor({1, 80}, 9, -1, 1).slice(1, 0, 80, 2);
  check_close(sum(z, Axes{0}, true), ref_reduce(ReduceOp::Sum, z, mask(2, {0}), true));
}

TEST_CASE("reductions read any layout, large ones in parallel, the same on any thread count",
          "[runtime]") {
  const Tensor base = lcg_tensor({300, 700}, 12);
  const std::vector<Tensor> views = {
      base,                          // contiguous
      base.transpose(),              // (700, 300) columns
      base.slice(0, 299, -301, -2),  // negative step
      lcg_tensor({700}, 13).broadcast_to(V{300, 700}),
      lcg_tensor({100000, 5}, 14),  // long thin
      lcg_tensor({5, 100000}, 15),
  };
  for (const Tensor& x : views) {
    INFO("shape " << shape_to_string(x.shape()) << " strides " << shape_to_string(x.strides()));
    for (const auto& axes : std::vector<std::vector<std::int64_t>>{{0}, {1}, {0, 1}}) {
      for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Max, ReduceOp::Mean}) {
        const Tensor got = reduce(op, x, Axes(axes));
        check_close(got, ref_reduce(op, x, mask(2, axes), false), 1e-11);
        const int threads = num_threads();
        set_num_threads(1);
        const Tensor serial = reduce(op, x, Axes(axes));
        set_num_threads(threads);
        REQUIRE(serial.equal(got));
      }
    }
  }
}

TEST_CASE("float sums are pairwise accurate; integer sums widen to int64", "[runtime]") {
  const std::int64_t n = 10000000;
  const Tensor tenth = Tensor::full(V{n}, 0.1);
  // Kahan-compensated reference.
  double s = 0, c = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double y = 0.1 - c, t = s + y;
    c = (t - s) - y;
    s = t;
  }
  const double got = sum(tenth).item<double>();
  REQUIRE(std::fabs(got - s) < 1e-6);  // a plain running sum is off by 1.6e-4 here
  // float32 accumulates in double: 10^6 * 0.1f rounds once, at the end.
  const Tensor f = Tensor::full(V{1000000}, 0.1, f32);
  REQUIRE(sum(f).dtype() == f32);
  REQUIRE(sum(f).item<float>() == static_cast<float>(1000000 * static_cast<double>(0.1f)));
  REQUIRE(mean(f).item<float>() == Approx(0.1f));

  const Tensor i8s = Tensor::full(V{1000}, 100, i8);
  REQUIRE(sum(i8s).dtype() == i64);
  REQUIRE(sum(i8s).item<std::int64_t>() == 100000);
  REQUIRE(sum(Tensor::full(V{300}, 255, u8)).item<std::int64_t>() == 76500);
  const Tensor flags = Tensor::from({true, false, true, true});
  REQUIRE(sum(flags).item<std::int64_t>() == 3);
  REQUIRE(mean(Tensor::from({1, 2, 4})).dtype() == f64);
  REQUIRE(mean(Tensor::from({1, 2, 4})).item<double>() == Approx(7.0 / 3.0));
  REQUIRE(prod(Tensor::from({3, -4, 5})).item<std::int64_t>() == -60);
  const std::int64_t big = std::int64_t{1} << 62;
  REQUIRE(sum(Tensor::from({big, big, big})).item<std::int64_t>() ==
          static_cast<std::int64_t>(3 * static_cast<std::uint64_t>(big)));  // wraps as NumPy
  REQUIRE(max(Tensor::from({std::int16_t{-5}, std::int16_t{7}})).dtype() == i16);
}

TEST_CASE("NaN propagates through max and min and wins argmax", "[runtime]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const Tensor x = Tensor::from({{1.0, nan, 3.0}, {-inf, 2.0, inf}});
  REQUIRE(std::isnan(max(x).item<double>()));
  REQUIRE(std::isnan(min(x).item<double>()));
  const Tensor m = max(x, Axes{1});
  REQUIRE(std::isnan(m.at({0})));
  REQUIRE(m.at({1}) == inf);
  REQUIRE(min(x, Axes{0}).at({2}) == 3.0);
  REQUIRE(std::isnan(sum(x).item<double>()));
  REQUIRE(sum(Tensor::from({inf, 1.0})).item<double>() == inf);
  require_same(argmax(x, 1), Tensor::from({std::int64_t{1}, std::int64_t{2}}));
  require_same(argmin(x, 1), Tensor::from({std::int64_t{1}, std::int64_t{0}}));
  REQUIRE(argmax(x).item<std::int64_t>() == 1);
}

TEST_CASE("argmax and argmin follow NumPy", "[runtime]") {
  const Tensor x = Tensor::from({{3, 9, 9}, {7, 1, 7}, {0, 0, -5}});
  require_same(argmax(x, 1), Tensor::from({std::int64_t{1}, std::int64_t{0}, std::int64_t{0}}));
  require_same(argmax(x, 0), Tensor::from({std::int64_t{1}, std::int64_t{0}, std::int64_t{0}}));
  require_same(argmin(x, -1), Tensor::from({std::int64_t{0}, std::int64_t{1}, std::int64_t{2}}));
  REQUIRE(argmax(x).item<std::int64_t>() == 1);  // first of the two 9s
  REQUIRE(argmin(x).item<std::int64_t>() == 8);
  // The flat index is that of the view, in row-major order.
  REQUIRE(argmax(x.transpose()).item<std::int64_t>() == 3);  // x.T = [[3,7,0],[9,1,0],[9,7,-5]]
  REQUIRE(argmax(x, 1, true).shape() == Shape{3, 1});
  REQUIRE(argmax(x, std::nullopt, true).shape() == Shape{1, 1});
  REQUIRE(argmax(x).dtype() == i64);
  // Large, strided, in parallel: against the loop.
  const Tensor big = lcg_tensor({400, 500}, 16).transpose();
  const Tensor a0 = argmax(big, 0), a1 = argmin(big, 1);
  for (std::int64_t j = 0; j < 400; ++j) {
    std::int64_t best = 0;
    for (std::int64_t i = 1; i < 500; ++i)
      if (big.at({i, j}) > big.at({best, j})) best = i;
    REQUIRE(a0.at({j}) == best);
  }
  for (std::int64_t i = 0; i < 500; ++i) {
    std::int64_t best = 0;
    for (std::int64_t j = 1; j < 400; ++j)
      if (big.at({i, j}) < big.at({i, best})) best = j;
    REQUIRE(a1.at({i}) == best);
  }
}

TEST_CASE("empty reductions give the identity or say why there is none", "[runtime]") {
  const Tensor e = Tensor::zeros({0, 3});
  REQUIRE(sum(e).item<double>() == 0.0);
  require_same(sum(e, Axes{0}), Tensor::zeros({3}));
  require_same(prod(e, Axes{0}), Tensor::ones({3}));
  REQUIRE(any(e).item<bool>() == false);
  REQUIRE(all(e).item<bool>() == true);
  REQUIRE(std::isnan(mean(e).item<double>()));
  REQUIRE(sum(e, Axes{1}).shape() == Shape{0});
  REQUIRE(max(e, Axes{1}).shape() == Shape{0});  // nothing to reduce, nothing to refuse
  REQUIRE_THROWS_WITH(max(e),
                      "`max` of an empty reduction has no identity: shape (0, 3), all axes");
  REQUIRE_THROWS_WITH(min(e, Axes{0}),
                      "`min` of an empty reduction has no identity: shape (0, 3), axes (0,)");
  REQUIRE_THROWS_WITH(argmax(e, 0), "`argmax` of an empty sequence: shape (0, 3), axes (0,)");
  REQUIRE_THROWS_WITH(argmin(Tensor::zeros({0})),
                      "`argmin` of an empty sequence: shape (0,), all axes");
  REQUIRE(sum(Tensor::scalar(4.5)).item<double>() == 4.5);
  require_same(sum(Tensor::from({1.0, 2.0}), Axes{}), Tensor::from({1.0, 2.0}));
}

TEST_CASE("a program's output is reduced without being stored", "[runtime]") {
  ScalarProgram p;
  const Reg x = p.input(f64), y = p.input(f64);
  p.output(p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Exp, {x}), y}));
  const Tensor xs = lcg_tensor({200, 300}, 17), ys = lcg_tensor({300}, 18);
  const std::vector<Tensor> in = {xs, ys};
  const Tensor full = run_elemwise(p, in)[0];
  check_close(reduce_program(ReduceOp::Sum, p, in), sum(full), 1e-12);
  check_close(reduce_program(ReduceOp::Sum, p, in, Axes{0}), sum(full, Axes{0}), 1e-12);
  check_close(reduce_program(ReduceOp::Mean, p, in, Axes{1}, true), mean(full, Axes{1}, true),
              1e-12);
  require_same(reduce_program(ReduceOp::Max, p, in, Axes{1}), max(full, Axes{1}));
  // The comparison program reduces to bool.
  ScalarProgram q;
  q.output(q.apply(ScalarOp::Gt, {q.input(f64), q.constant(0.999, f64)}));
  const std::vector<Tensor> qin = {xs};
  require_same(reduce_program(ReduceOp::Any, q, qin, Axes{1}),
               any(elemwise(ScalarOp::Gt, xs, Tensor::scalar(0.999)), Axes{1}));
  REQUIRE(reduce_program(ReduceOp::Sum, q, qin).item<std::int64_t>() ==
          sum(cast(elemwise(ScalarOp::Gt, xs, Tensor::scalar(0.999)), i64)).item<std::int64_t>());
}

TEST_CASE("bad reductions are refused with the axis and rank named", "[runtime]") {
  const Tensor x = Tensor::zeros({2, 3});
  REQUIRE_THROWS_WITH(sum(x, Axes{2}), "axis 2 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(sum(x, Axes{-3}), "axis -3 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(sum(x, Axes{0, -2}), "axis 0 appears twice in the axes (0, -2)");
  REQUIRE_THROWS_WITH(argmax(x, 5), "axis 5 is out of range for a tensor of 2 dimensions");
  REQUIRE_THROWS_WITH(sum(Tensor()), "`sum` of a null tensor");
  ScalarProgram two;
  const Reg r = two.input(f64);
  two.output(r);
  two.output(r);
  REQUIRE_THROWS_WITH(reduce_program(ReduceOp::Sum, two, std::vector<Tensor>{x}),
                      "`sum` of a program needs exactly 1 output, it has 2");
  ScalarProgram one;
  one.output(one.apply(ScalarOp::Add, {one.input(f64), one.input(f64)}));
  REQUIRE_THROWS_WITH(
      reduce_program(ReduceOp::Sum, one, std::vector<Tensor>{x, Tensor::zeros({4})}),
      "shapes (2, 3) and (4,) cannot be broadcast");
}

// Creation Ops through rw::function against loops: eye, tri and
// tril_indices/triu_indices of run-time sizes, arange, linspace, tril/triu, diag both ways, identity_like and the
// zeros/ones/full forms; empty extents, offsets past the edges, bad input.
#include <array>
#include <cmath>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"
#include "support/tensor_ref.hpp"

using namespace rw;
using Idx = rw::testing::Index;
using rw::testing::lcg_tensor;
using rw::testing::make_tensor;
using rw::testing::require_same;

namespace {

Tensor i64s(std::int64_t v) { return Tensor::scalar(v); }

}  // namespace

TEST_CASE("eye and tri take run-time sizes and any offset", "[ops]") {
  auto n = rw::scalar("n", i64), m = rw::scalar("m", i64), k = rw::scalar("k", i64);
  rw::Function f = rw::function({n, m, k}, {rw::eye(n, m, k), rw::tri(n, m, k, i32)});
  for (auto [rows, cols, off] : std::vector<std::array<std::int64_t, 3>>{
           {3, 4, 0}, {3, 4, 1}, {4, 3, -2}, {2, 2, 5}, {2, 3, -7}, {0, 3, 0}, {3, 0, 1}}) {
    INFO(rows << " x " << cols << ", k " << off);
    const auto out = f(i64s(rows), i64s(cols), i64s(off));
    require_same(out[0], make_tensor({rows, cols}, [&](const Idx& i) {
                   return i[1] == i[0] + off ? 1.0 : 0.0;
                 }));
    require_same(out[1], make_tensor({rows, cols}, [&](const Idx& i) {
                   return i[1] <= i[0] + off ? 1.0 : 0.0;
                 }).astype(i32));
  }
  CHECK_THROWS_AS(f(i64s(-1), i64s(2), i64s(0)), ExecutionError);
  // Constant sizes give a static shape.
  CHECK(rw::eye(3, 5)->tensor_type()->shape() == StaticShape{3, 5});
  CHECK(rw::eye(4, f32)->tensor_type()->to_string() == "f32[4,4]");
  CHECK(rw::eye(n, 2)->tensor_type()->shape() == StaticShape{kUnknownDim, 2});
  CHECK_THROWS_WITH(rw::eye(rw::scalar("r"), 2),
                    "`eye{dtype=float64}`: input 0 (`r`) (rows) is f64[], expected a 0-d integer");
  CHECK_THROWS_WITH(rw::tri(3, rw::vector("c", i64)),
                    "`tri{dtype=float64}`: input 1 (`c`) (columns) is i64[?], expected a 0-d integer");
  CHECK_THROWS_WITH(rw::eye(-2, 3), "`eye{dtype=float64}`: input 0 is -2, expected a size >= 0");
  CHECK_THROWS_AS(rw::eye(2, 2, 0, DType::Bool), TypeError);
}

TEST_CASE("tril_indices and triu_indices list tri's positions, row-major", "[ops]") {
  // NumPy: tril_indices(3, 0, 4) and triu_indices(3, 1, 4).
  auto [lr, lc] = rw::tril_indices(3, 4);
  auto [ur, uc] = rw::triu_indices(3, 4, 1);
  rw::Function c = rw::function(std::vector<In>{}, {lr, lc, ur, uc});
  const auto fixed = c.call({});
  require_same(fixed[0], Tensor::from<std::int64_t>({0, 1, 1, 2, 2, 2}));
  require_same(fixed[1], Tensor::from<std::int64_t>({0, 0, 1, 0, 1, 2}));
  require_same(fixed[2], Tensor::from<std::int64_t>({0, 0, 0, 1, 1, 2}));
  require_same(fixed[3], Tensor::from<std::int64_t>({1, 2, 3, 2, 3, 3}));
  // Constant sizes give a static length.
  CHECK(lr->tensor_type()->to_string() == "i64[6]");

  // Run-time sizes, against the loop over the n × m positions.
  auto n = rw::scalar("n", i64), m = rw::scalar("m", i64), k = rw::scalar("k", i64);
  auto [r0, c0] = rw::tril_indices(n, m, k);
  auto [r1, c1] = rw::triu_indices(n, m, k);
  CHECK(r0->tensor_type()->to_string() == "i64[?]");
  rw::Function f = rw::function({n, m, k}, {r0, c0, r1, c1});
  for (auto [rows, cols, off] : std::vector<std::array<std::int64_t, 3>>{
           {3, 4, 0}, {4, 3, -2}, {2, 2, 5}, {2, 3, -7}, {0, 3, 0}, {3, 0, 1}, {5, 5, 2}}) {
    INFO(rows << " x " << cols << ", k " << off);
    const auto out = f(i64s(rows), i64s(cols), i64s(off));
    std::vector<std::int64_t> want[4];
    for (std::int64_t i = 0; i < rows; ++i)
      for (std::int64_t j = 0; j < cols; ++j) {
        if (j <= i + off) {
          want[0].push_back(i);
          want[1].push_back(j);
        }
        if (j >= i + off) {
          want[2].push_back(i);
          want[3].push_back(j);
        }
      }
    for (int w = 0; w < 4; ++w) {
      const auto len = static_cast<std::int64_t>(want[w].size());
      require_same(out[static_cast<std::size_t>(w)],
                   Tensor::from_vector(want[w], std::span(&len, 1)));
    }
  }
  CHECK_THROWS_AS(f(i64s(-1), i64s(2), i64s(0)), ExecutionError);
  CHECK_THROWS_WITH(rw::tril_indices(rw::scalar("r"), 2),
                    "`tril_indices`: input 0 (`r`) (rows) is f64[], expected a 0-d integer");
}

TEST_CASE("identity_like, zeros, ones, full and full_like", "[ops]") {
  auto x = rw::matrix("x", f32);
  auto n = rw::scalar("n", i64);
  rw::Function f = rw::function({x, n}, {rw::identity_like(x), rw::zeros({n, 2}, i32),
                                         rw::ones({n}), rw::full({2, n}, 1.5),
                                         rw::full_like(x, 7)});
  const Tensor vx = lcg_tensor({2, 3}, 1).astype(f32);
  const auto out = f(vx, i64s(3));
  require_same(out[0], Tensor::eye(2, 3, 0, f32));
  require_same(out[1], Tensor::zeros({3, 2}, i32));
  require_same(out[2], Tensor::ones({3}));
  require_same(out[3], Tensor::full(std::vector<std::int64_t>{2, 3}, 1.5));
  require_same(out[4], Tensor::full(std::vector<std::int64_t>{2, 3}, 7.0, f32));
  CHECK(rw::full({2}, 3, i16)->tensor_type()->dtype() == i16);
  CHECK_THROWS_WITH(rw::identity_like(rw::vector("v")),
                    "`identity_like`: x is f64[?], expected a matrix");
}

TEST_CASE("arange counts as NumPy does, exactly for integers", "[ops]") {
  auto a = rw::scalar("a", i64), b = rw::scalar("b", i64), s = rw::scalar("s", i64);
  rw::Function fi = rw::function({a, b, s}, rw::arange(a, b, s));
  auto ref = [](std::int64_t start, std::int64_t stop, std::int64_t step) {
    std::vector<std::int64_t> v;
    for (std::int64_t x = start; step > 0 ? x < stop : x > stop; x += step) v.push_back(x);
    const auto len = static_cast<std::int64_t>(v.size());
    return Tensor::from_vector(v, std::span(&len, 1));
  };
  for (auto [start, stop, step] : std::vector<std::array<std::int64_t, 3>>{
           {2, 11, 3}, {2, 12, 3}, {5, 0, -2}, {3, 3, 1}, {4, 1, 1}, {-7, -2, 2}, {0, 5, 10}}) {
    INFO(start << ":" << stop << ":" << step);
    require_same(fi(i64s(start), i64s(stop), i64s(step)), ref(start, stop, step));
  }
  // 2^53 + 1 and its successors stay exact.
  const std::int64_t big = (std::int64_t{1} << 53) + 1;
  require_same(fi(i64s(big), i64s(big + 3), i64s(1)), ref(big, big + 3, 1));
  CHECK_THROWS_AS(fi(i64s(0), i64s(4), i64s(0)), ExecutionError);

  auto x = rw::scalar("x"), y = rw::scalar("y"), z = rw::scalar("z");
  rw::Function ff = rw::function({x, y, z}, {rw::arange(x, y, z), rw::arange(x, y, z, f32)});
  const auto out = ff(Tensor::scalar(0.5), Tensor::scalar(2.0), Tensor::scalar(0.4));
  CHECK(allclose(out[0], Tensor::from({0.5, 0.9, 1.3, 1.7}), 1e-15, 0));
  CHECK(out[1].dtype() == f32);
  CHECK(out[1].shape() == Shape{4});
  CHECK_THROWS_AS(ff(Tensor::scalar(0.0), Tensor::scalar(INFINITY), Tensor::scalar(1.0)),
                  ExecutionError);

  CHECK(rw::arange(10)->tensor_type()->to_string() == "i32[10]");
  CHECK(rw::arange(1.0, 2.0, 0.25)->tensor_type()->to_string() == "f64[4]");
  CHECK(rw::arange(0, 10, 3, f32)->tensor_type()->to_string() == "f32[4]");
  CHECK(rw::arange(x, 3)->tensor_type()->to_string() == "f64[?]");
  CHECK_THROWS_WITH(rw::arange(0, 4, 0), "`arange{dtype=none}`: input 2 (step) is zero");
  CHECK_THROWS_WITH(rw::arange(rw::vector("v"), 3, 1),
                    "`arange{dtype=none}`: input 0 (`v`) (start) is f64[?], expected a 0-d number");
}

TEST_CASE("linspace includes stop exactly, or leaves it out", "[ops]") {
  auto a = rw::scalar("a"), b = rw::scalar("b");
  auto n = rw::scalar("n", i64);
  rw::Function f = rw::function({a, b, n}, {rw::linspace(a, b, n), rw::linspace(a, b, n, false)});
  const auto out = f(Tensor::scalar(1.0), Tensor::scalar(2.0), i64s(5));
  require_same(out[0], Tensor::from({1.0, 1.25, 1.5, 1.75, 2.0}));
  require_same(out[1], Tensor::from({1.0, 1.2, 1.4, 1.6, 1.8}));
  // Step 0.1 rounds; the last value is still exactly stop.
  const auto tenth = f(Tensor::scalar(0.0), Tensor::scalar(0.7), i64s(8));
  CHECK(tenth[0].at({7}) == 0.7);
  const auto one = f(Tensor::scalar(3.0), Tensor::scalar(9.0), i64s(1));
  require_same(one[0], Tensor::from({3.0}));
  require_same(one[1], Tensor::from({3.0}));
  CHECK(f(Tensor::scalar(3.0), Tensor::scalar(9.0), i64s(0))[0].shape() == Shape{0});
  CHECK_THROWS_AS(f(Tensor::scalar(3.0), Tensor::scalar(9.0), i64s(-1)), ExecutionError);

  CHECK(rw::linspace(0, 1, 5)->tensor_type()->to_string() == "f64[5]");
  CHECK(rw::linspace(rw::scalar("c", f32), 1, 3)->tensor_type()->to_string() == "f32[3]");
  CHECK_THROWS_WITH(rw::linspace(0, 1, 4, true, i32),
                    "`linspace{endpoint=true,dtype=int32}`: dtype int32 is not float32 or float64");
  CHECK_THROWS_WITH(rw::linspace(0, 1, rw::scalar("q")),
                    "`linspace{endpoint=true,dtype=none}`: input 2 (`q`) (the number of values) is "
                    "f64[], expected a 0-d integer");
}

TEST_CASE("tril and triu mask the last two axes", "[ops]") {
  auto x = rw::tensor("x", f64, {kUnknownDim, kUnknownDim, kUnknownDim});
  const Tensor vx = lcg_tensor({2, 3, 4}, 5);
  for (std::int64_t k : {-5, -1, 0, 2, 9}) {
    INFO("k " << k);
    rw::Function f = rw::function({x}, {rw::tril(x, k), rw::triu(x, k)});
    const auto out = f(vx);
    require_same(out[0], make_tensor({2, 3, 4}, [&](const Idx& i) {
                   return i[2] <= i[1] + k ? vx.at(i) : 0.0;
                 }));
    require_same(out[1], make_tensor({2, 3, 4}, [&](const Idx& i) {
                   return i[2] >= i[1] + k ? vx.at(i) : 0.0;
                 }));
  }
  // Integers, a transposed (non-contiguous) input, and empty extents.
  auto mi = rw::matrix("mi", i32);
  rw::Function g = rw::function({mi}, {rw::tril(rw::transpose(mi)), rw::triu(mi, 1)});
  const Tensor vi = Tensor::from<std::int32_t>({{1, 2, 3}, {4, 5, 6}});
  const auto gi = g(vi);
  require_same(gi[0], Tensor::from<std::int32_t>({{1, 0}, {2, 5}, {3, 6}}));
  require_same(gi[1], Tensor::from<std::int32_t>({{0, 2, 3}, {0, 0, 6}}));
  CHECK(g(Tensor::empty(i32, {0, 3}))[1].shape() == Shape{0, 3});
  // The input is not modified.
  require_same(vi, Tensor::from<std::int32_t>({{1, 2, 3}, {4, 5, 6}}));
  CHECK_THROWS_WITH(rw::tril(rw::vector("v")), "`tril{k=0}`: input 0 (`v`) is f64[?], expected at least a matrix");
}

TEST_CASE("diag puts a vector on a diagonal and takes one from a matrix", "[ops]") {
  auto v = rw::vector("v");
  auto m = rw::matrix("m");
  const Tensor vv = Tensor::from({1.0, 2.0, 3.0});
  for (std::int64_t k : {0, 2, -1}) {
    INFO("k " << k);
    rw::Function f = rw::function({v}, rw::diag(v, k));
    const std::int64_t s = 3 + std::abs(k);
    require_same(f(vv), make_tensor({s, s}, [&](const Idx& i) {
                   const std::int64_t j = k >= 0 ? i[0] : i[1];
                   return i[1] == i[0] + k ? vv.at({j}) : 0.0;
                 }));
  }
  const Tensor vm = lcg_tensor({3, 5}, 3);
  for (std::int64_t k : {0, 1, 3, 4, 5, 9, -1, -2, -3, -8}) {
    INFO("k " << k);
    rw::Function f = rw::function({m}, rw::diag(m, k));
    std::vector<double> want;
    for (std::int64_t i = 0; i < 3; ++i)
      if (i + k >= 0 && i + k < 5) want.push_back(vm.at({i, i + k}));
    const auto len = static_cast<std::int64_t>(want.size());
    require_same(f(vm), Tensor::from_vector(want, std::span(&len, 1)));
  }
  CHECK(rw::diag(rw::matrix("p", f64, 3, 5), 2)->tensor_type()->shape() == StaticShape{3});
  CHECK(rw::diag(rw::matrix("p", f64, 3, 5), -4)->tensor_type()->shape() == StaticShape{0});
  CHECK(rw::diag(rw::vector("w", i16, 2), -3)->tensor_type()->to_string() == "i16[5,5]");
  CHECK_THROWS_WITH(rw::diag(rw::scalar("s")), "`diag`: x is f64[], expected a vector or a matrix");
  CHECK_THROWS_WITH(rw::alloc_diag(m), "`alloc_diag{offset=0}`: input 0 (`m`) is f64[?,?], expected a vector");
  CHECK_THROWS_WITH(rw::extract_diag(v, 1),
                    "`extract_diag{offset=1}`: input 0 (`v`) is f64[?], expected a matrix");
}

TEST_CASE("creation Ops are in the registry with their parameters", "[ops]") {
  const OpRegistry& r = standard_registry();
  auto n = rw::scalar("n", i64);
  const Var in[] = {n, n, rw::constant(std::int64_t{-1})};
  CHECK((*r.make("tri", {{"dtype", DType::Int8}}))(in)->tensor_type()->dtype() == i8);
  CHECK(r.make("triu", {{"k", std::int64_t{2}}})->to_string() == "triu{k=2}");
  CHECK(r.make("linspace", {})->to_string() == "linspace{endpoint=true,dtype=none}");
}

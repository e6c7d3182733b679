// Bad inputs: the error names the Op and the input, at make_node when the
// types already tell, at run time otherwise; a failed call leaves shared
// variables as they were.
#include <catch2/catch.hpp>

#include "rw/rewrite.hpp"

using namespace rw;

namespace {

// The message of the exception perform threw inside a function call.
std::string nested_message(const std::function<void()>& call) {
  try {
    call();
  } catch (const ExecutionError& e) {
    try {
      std::rethrow_if_nested(e);
    } catch (const std::exception& inner) {
      return inner.what();
    }
    return std::string("no nested exception: ") + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("known extents that do not broadcast are a TypeError naming both inputs", "[ops]") {
  auto a = rw::vector("a", f64, 3), b = rw::matrix("b", f64, 2, 4);
  CHECK_THROWS_AS(a + b, TypeError);
  CHECK_THROWS_WITH(a + b,
                    "`add`: input 0 (`a`) of shape (3,) and input 1 (`b`) of shape (2, 4) do not "
                    "broadcast: axis 1 has extents 3 and 4");
}

TEST_CASE("extents that do not broadcast at run time name the op and the input", "[ops]") {
  auto a = rw::vector("a"), b = rw::vector("b");
  rw::Function f = rw::function({a, b}, a * b);
  CHECK(nested_message([&] { f(Tensor::zeros({3}), Tensor::zeros({4})); }) ==
        "`mul`: input 1 (`b`) has extent 4 on axis 0 where input 0 (`a`) has 3");
  // A run-time extent 1 does not broadcast unless the type says so.
  CHECK_THAT(nested_message([&] { f(Tensor::zeros({3}), Tensor::zeros({1})); }),
             Catch::StartsWith("`mul`: input 1 (`b`) has extent 1 on axis 0 where input 0 "
                               "(`a`) has 3, but its type f64[?] does not say the axis "
                               "broadcasts"));
}

TEST_CASE("a dtype the operation does not define is a TypeError naming the op", "[ops]") {
  auto x = rw::vector("x"), y = rw::vector("y");
  CHECK_THROWS_AS(rw::and_(x, y), TypeError);
  CHECK_THROWS_WITH(rw::and_(x, y), Catch::StartsWith("`and`: "));
  CHECK_THROWS_WITH(rw::gemm(rw::matrix("z", i32), 1, rw::matrix("p", i32), rw::matrix("q", i32), 0),
                    "`gemm{inplace=false}`: input 0 (`z`) is i32[?,?], expected float32 or float64");
  CHECK_THROWS_WITH(rw::inc_subtensor(rw::vector("k", i32), {0}, rw::scalar("s")),
                    "`inc_subtensor{index=(i),inplace=false}`: input 1 (`s`) is float64, which "
                    "does not convert to int32 (input 0 (`k`)) without loss");
}

TEST_CASE("an axis out of range is refused when the node is built", "[ops]") {
  auto m = rw::matrix("m");
  CHECK_THROWS_WITH(rw::sum(m, {2}),
                    "`sum{axis=(2)}`: axis 2 is out of range for input 0 (`m`) of rank 2");
  CHECK_THROWS_WITH(rw::softmax(m, -3),
                    "`softmax{axis=-3}`: axis -3 is out of range for input 0 (`m`) of rank 2");
  CHECK_THROWS_WITH(rw::take(m, rw::vector("i", i64), 5),
                    "`advanced_subtensor{axis=5}`: axis 5 is out of range for input 0 (`m`) of "
                    "rank 2");
  CHECK_THROWS_WITH(rw::dot(rw::matrix("p", f64, 2, 3), rw::matrix("n", f64, 4, 2)),
                    "`dot`: input 0 (`p`) of shape (2, 3) and input 1 (`n`) of shape (4, 2) do not "
                    "multiply: inner extents 3 and 4");
}

TEST_CASE("an index out of bounds names the op, index, axis and extent", "[ops]") {
  CHECK_THROWS_WITH(rw::subtensor(rw::vector("v", f64, 3), {3}),
                    "`subtensor{index=(i)}`: index 3 is out of bounds for axis 0 with size 3");
  auto v = rw::vector("v");
  auto i = rw::scalar("i", i64);
  rw::Function f = rw::function({v, i}, rw::subtensor(v, {i}));
  CHECK(nested_message([&] { f(Tensor::zeros({3}), Tensor::scalar(std::int64_t{-4})); }) ==
        "`subtensor{index=(i)}`: index -4 is out of bounds for axis 0 with size 3");
  auto idx = rw::vector("idx", i64);
  rw::Function g = rw::function({v, idx}, rw::take(v, idx));
  CHECK(nested_message([&] { g(Tensor::zeros({3}), Tensor::from<std::int64_t>({0, 5})); }) ==
        "`advanced_subtensor{axis=0}`: index 5 is out of bounds for axis 0 with size 3");
}

TEST_CASE("a failed call leaves shared variables as they were", "[ops]") {
  auto w = rw::shared("w", Tensor::from({1.0, 2.0, 3.0}));
  auto idx = rw::vector("idx", i64);
  // w[idx] += 1, then an update of w; a bad index fails the call before any update.
  const Var new_w = rw::advanced_inc_subtensor(w, idx, 1.0);
  rw::Function step = rw::function({idx}, rw::sum(new_w), {.updates = {{w, new_w}}});
  step(Tensor::from<std::int64_t>({0, 0}));
  CHECK(w.get_value().at({0}) == 3.0);
  CHECK_THROWS_AS(step(Tensor::from<std::int64_t>({1, 9})), ExecutionError);
  CHECK(w.get_value().at({0}) == 3.0);
  CHECK(w.get_value().at({1}) == 2.0);
  CHECK(w.get_value().at({2}) == 3.0);
}

TEST_CASE(
    "a kernel's error reaches the caller as an rw::Error kind with the Op's name in front, once",
    "[ops]") {
  // The runtime throws ValueError/IndexError; the Op adds "`op`: " in front.
  Var m = rw::matrix("m"), n = rw::matrix("n");
  auto f = rw::function({m, n}, rw::matmul(m, n));
  const std::string matmul_error = nested_message([&] {
    (void)f(Tensor::zeros({2, 3}), Tensor::zeros({4, 5}));
  });
  // The kernel names matmul already: no second "`matmul`: " in front.
  CHECK(matmul_error ==
        "`matmul` of shapes (2, 3) and (4, 5): the inner dimensions 3 and 4 differ");
  Var v = rw::vector("v", DType::Float64), i = rw::scalar("i", DType::Int64);
  auto g = rw::function({v, i}, rw::subtensor(v, {i}));
  try {
    (void)g(Tensor::zeros({3}), Tensor::scalar(std::int64_t{7}));
    FAIL("an index out of bounds was accepted");
  } catch (const ExecutionError& e) {
    try {
      std::rethrow_if_nested(e);
    } catch (const IndexError& inner) {
      CHECK_THAT(inner.what(), Catch::Contains("index 7 is out of bounds for axis 0 with size 3"));
      // An IndexError is an rw::Error, so one catch clause sees every layer's errors.
      CHECK(dynamic_cast<const Error*>(&inner) != nullptr);
    }
  }
}

// The error kinds of the bottom layer (support/error.hpp): what the runtime
// throws, and RW_ASSERT for broken invariants.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/indexing.hpp"
#include "runtime/scalar_op.hpp"
#include "runtime/shape.hpp"
#include "runtime/tensor.hpp"
#include "support/error.hpp"

using namespace rw;

namespace {

// What `f` throws, caught as rw::Error; empty when it throws nothing.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

constexpr int kAssertLine = __LINE__ + 3;  // the line of checked_half's RW_ASSERT

int checked_half(int n) {
  RW_ASSERT(n % 2 == 0, "checked_half takes even numbers");
  return n / 2;
}

}  // namespace

TEST_CASE("the runtime throws the kinds of rw::Error, with the message naming what was wrong",
          "[runtime][errors]") {
  const Tensor a = Tensor::zeros({2, 3}), b = Tensor::zeros({4});
  CHECK_THROWS_AS(elemwise(ScalarOp::Add, a, b), ValueError);
  CHECK(error_of([&] { (void)elemwise(ScalarOp::Add, a, b); }) ==
        "shapes (2, 3) and (4,) cannot be broadcast");
  CHECK_THROWS_AS(normalize_axis(3, 2), IndexError);
  CHECK(error_of([] { (void)normalize_axis(3, 2); }) ==
        "axis 3 is out of range for a tensor of 2 dimensions");
  const std::vector<DType> floats{DType::Float64, DType::Int32};
  CHECK_THROWS_AS(scalar_signature(ScalarOp::And, floats), ValueError);
  CHECK_THROWS_AS(Tensor().data<double>(), ValueError);
  CHECK(error_of([] { (void)Tensor().data<double>(); }) == "access to the data of a null tensor");
  // One catch clause for every layer: the base is rw::Error, not a std kind.
  CHECK_FALSE(error_of([&] { (void)take(a, Tensor::from({std::int64_t{5}}), 0); }).empty());
  CHECK_THROWS_AS(take(a, Tensor::from({std::int64_t{5}}), 0), IndexError);
}

TEST_CASE("RW_ASSERT passes a true condition and reports a false one with its file and line",
          "[runtime][errors]") {
  CHECK(checked_half(8) == 4);
  try {
    (void)checked_half(7);
    FAIL("RW_ASSERT did not throw");
  } catch (const InternalError& e) {
    const std::string what = e.what();
    CHECK_THAT(what, Catch::Contains("test_errors.cpp:" + std::to_string(kAssertLine) +
                                     ": internal error: checked_half takes even numbers "
                                     "(n % 2 == 0)"));
  }
  // An InternalError is an rw::Error, so a caller's one catch sees it too.
  CHECK_THROWS_AS(checked_half(1), Error);
  // RW_UNREACHABLE: the same report, for a point the code never reaches.
  CHECK_THROWS_AS([] { RW_UNREACHABLE("the end of a switch over every case"); }(), InternalError);
  CHECK_THROWS_WITH([] { RW_UNREACHABLE("the end of a switch over every case"); }(),
                    Catch::Contains("test_errors.cpp:") &&
                        Catch::EndsWith(": internal error: the end of a switch over every case "
                                        "(unreachable)"));
}

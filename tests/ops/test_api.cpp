// The C++ API of DESIGN.md: variables, constants, operators, number dtypes,
// and a program written as a user would, run end to end.
#include <cmath>

#include <catch2/catch.hpp>

#include "rw/rw.hpp"

using namespace rw;

namespace {

std::string type_of(const Var& v) { return v->type()->to_string(); }
std::string op_of(const Var& v) { return v->owner() ? v->owner()->op().to_string() : "<root>"; }

}  // namespace

TEST_CASE("DESIGN.md's example, without grad, computes sum(log(1 + exp(x * w)))", "[ops]") {
  auto x = rw::vector("x", rw::f64);
  auto w = rw::shared("w", rw::Tensor::from({0.5, -1.0, 2.0}));
  auto loss = rw::sum(rw::log(1 + rw::exp(x * w)));
  rw::Function f = rw::function({x}, {loss, x * w});
  auto [l, xw] = f(rw::Tensor::from({1.0, 2.0, 3.0}));
  const double expected =
      std::log1p(std::exp(0.5)) + std::log1p(std::exp(-2.0)) + std::log1p(std::exp(6.0));
  CHECK(l.ndim() == 0);
  CHECK(l.item<double>() == Approx(expected).epsilon(1e-14));
  CHECK(xw.at({2}) == 6.0);
  // The shared variable is read, not changed.
  CHECK(w.get_value().at({1}) == -1.0);
  w.set_value(rw::Tensor::from({0.0, 0.0, 0.0}));
  auto [l0, xw0] = f(rw::Tensor::from({1.0, 2.0, 3.0}));
  CHECK(l0.item<double>() == Approx(3 * std::log(2.0)).epsilon(1e-14));
}

TEST_CASE("variables have the dtype and static shape asked for", "[ops]") {
  CHECK(type_of(rw::scalar("s", f32)) == "f32[]");
  CHECK(type_of(rw::vector("v", i64, 3)) == "i64[3]");
  CHECK(type_of(rw::matrix("m")) == "f64[?,?]");
  CHECK(type_of(rw::tensor("t", u8, {2, kUnknownDim, 1})) == "u8[2,?,1]");
  CHECK_THROWS_WITH(rw::tensor("t", f64, {-3}),
                    "`t`: extent -3 is neither known (>= 0) nor unknown (-1)");
}

TEST_CASE("numbers take the dtype of the tensor they meet", "[ops]") {
  auto xf = rw::vector("x", f32);
  auto xi = rw::vector("i", i8);
  auto xb = rw::vector("b", DType::Bool);
  CHECK(type_of(xf * 2) == "f32[?]");
  CHECK(type_of(0.5 * xf) == "f32[?]");
  CHECK(type_of(xi + 1) == "i8[?]");
  CHECK(type_of(xi + 1000) == "i16[?]");  // 1000 does not fit int8: smallest type that holds it
  CHECK(type_of(xi + 0.5) == "f64[?]");   // a float next to integers is float64
  CHECK(type_of(xb + 1) == "i64[?]");
  CHECK(number_dtype(true, 300, u8) == i16);
  CHECK(number_dtype(true, -1, u8) == i16);
  CHECK(number_dtype(false, 1.5, i32) == f64);
  // A number alone has its C++ type's dtype.
  CHECK(type_of(rw::constant(2)) == "i32[]");
  CHECK(type_of(rw::constant(2.0f)) == "f32[]");
}

TEST_CASE("operators build the elementwise Ops; == stays identity", "[ops]") {
  auto a = rw::vector("a"), b = rw::vector("b");
  CHECK(op_of(a + b) == "add");
  CHECK(op_of(a - b) == "sub");
  CHECK(op_of(a * b) == "mul");
  CHECK(op_of(a / b) == "true_div");
  CHECK(op_of(-a) == "neg");
  CHECK(op_of(a < b) == "lt");
  CHECK(op_of(a > 1) == "gt");
  CHECK(op_of(a <= b) == "le");
  CHECK(op_of(2 >= a) == "ge");
  CHECK(type_of(a < b) == "bool[?]");
  CHECK(op_of(rw::eq(a, b)) == "eq");
  CHECK(op_of(rw::neq(a, 0)) == "neq");
  CHECK(a == a);
  CHECK_FALSE(a == b);
  Var c = a;
  c += 1;
  CHECK(op_of(c) == "add");
  CHECK(c->owner()->input(0) == a);
}

TEST_CASE("free functions build the Op they name, with its parameters", "[ops]") {
  auto m = rw::matrix("m", f64, 2, 3);
  CHECK(op_of(rw::sum(m, {0})) == "sum{axis=(0)}");
  CHECK(type_of(rw::sum(m, {0})) == "f64[3]");
  CHECK(type_of(rw::sum(m, {1}, true)) == "f64[2,1]");
  CHECK(type_of(rw::sum(m)) == "f64[]");
  CHECK(type_of(rw::argmax(m, 1)) == "i64[2]");
  CHECK(type_of(rw::transpose(m)) == "f64[3,2]");
  CHECK(op_of(rw::dimshuffle(rw::vector("v"), {kNewAxis, 0})) == "dimshuffle{order=(x,0)}");
  CHECK(type_of(rw::reshape(m, {3, -1})) == "f64[3,2]");
  CHECK(type_of(rw::dot(m, rw::vector("v", f64, 3))) == "f64[2]");
  CHECK(type_of(rw::subtensor(m, {1, rw::slice(0, 2)})) == "f64[2]");
  CHECK(type_of(rw::subtensor(m, {rw::slice(std::nullopt, std::nullopt, -1)})) == "f64[2,3]");
  CHECK(type_of(rw::concatenate({m, m}, 1)) == "f64[2,6]");
  CHECK(type_of(rw::stack({m, m})) == "f64[2,2,3]");
  CHECK(type_of(rw::softmax(rw::matrix("i", i32))) == "f64[?,?]");
}

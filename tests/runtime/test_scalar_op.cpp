// The scalar operation set: names, arities, dtype rules and their errors.
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "runtime/scalar_op.hpp"

using namespace rw;

namespace {
DType result(ScalarOp op, std::vector<DType> in) {
  return scalar_signature(op, in).result;
}
}  // namespace

TEST_CASE("every scalar op has a unique name that parses back", "[runtime]") {
  std::set<std::string_view> names;
  for (ScalarOp op : kAllScalarOps) {
    const ScalarOpInfo& info = scalar_op_info(op);
    REQUIRE(names.insert(info.name).second);
    REQUIRE(parse_scalar_op(info.name) == op);
    REQUIRE(info.arity >= 1);
    REQUIRE(info.arity <= 3);
  }
  REQUIRE(names.size() == 68);
  REQUIRE_FALSE(parse_scalar_op("frobnicate"));
  REQUIRE(scalar_op_name(ScalarOp::TrueDiv) == "true_div");
  REQUIRE(scalar_op_arity(ScalarOp::Switch) == 3);
  REQUIRE(scalar_op_arity(ScalarOp::Clip) == 3);
  REQUIRE(scalar_op_arity(ScalarOp::Not) == 1);
  REQUIRE(scalar_op_info(ScalarOp::Add).commutative);
  REQUIRE_FALSE(scalar_op_info(ScalarOp::Sub).commutative);
}

TEST_CASE("arithmetic promotes like NumPy", "[runtime]") {
  REQUIRE(result(ScalarOp::Add, {i32, f32}) == f64);
  REQUIRE(result(ScalarOp::Add, {i16, f32}) == f32);
  REQUIRE(result(ScalarOp::Mul, {u8, i8}) == i16);
  REQUIRE(result(ScalarOp::Add, {b8, b8}) == b8);
  REQUIRE(result(ScalarOp::Maximum, {i64, f64}) == f64);
  REQUIRE(result(ScalarOp::Clip, {i32, i8, i64}) == i64);
  REQUIRE(result(ScalarOp::Neg, {i8}) == i8);
  REQUIRE(result(ScalarOp::Abs, {b8}) == b8);
  const ScalarSignature s = scalar_signature(ScalarOp::Sub, std::vector<DType>{i32, f32});
  REQUIRE(s.operands.size() == 2);
  REQUIRE(s.operands[0] == f64);
  REQUIRE(s.operands[1] == f64);
}

TEST_CASE("transcendental ops, true_div and rounding give floats", "[runtime]") {
  REQUIRE(result(ScalarOp::Exp, {i64}) == f64);
  REQUIRE(result(ScalarOp::Exp, {i32}) == f64);
  REQUIRE(result(ScalarOp::Exp, {f32}) == f32);
  REQUIRE(result(ScalarOp::Exp, {i8}) == f32);
  REQUIRE(result(ScalarOp::Sqrt, {b8}) == f32);
  REQUIRE(result(ScalarOp::TrueDiv, {i64, i64}) == f64);
  REQUIRE(result(ScalarOp::TrueDiv, {f32, i16}) == f32);
  REQUIRE(result(ScalarOp::Floor, {i32}) == f64);
  REQUIRE(result(ScalarOp::Round, {f32}) == f32);
  REQUIRE(result(ScalarOp::Reciprocal, {i64}) == f64);
  REQUIRE(float_result(u8) == f32);
  REQUIRE(float_result(f64) == f64);
}

TEST_CASE("comparisons and logic give bool, integer division keeps integers", "[runtime]") {
  REQUIRE(result(ScalarOp::Lt, {i32, f64}) == b8);
  REQUIRE(scalar_signature(ScalarOp::Lt, std::vector<DType>{i32, f64}).operands[0] == f64);
  REQUIRE(result(ScalarOp::Eq, {b8, b8}) == b8);
  REQUIRE(result(ScalarOp::And, {b8, b8}) == b8);
  REQUIRE(result(ScalarOp::Xor, {i32, i8}) == i32);
  REQUIRE(result(ScalarOp::Not, {u8}) == u8);
  REQUIRE(result(ScalarOp::IntDiv, {i32, i32}) == i32);
  REQUIRE(result(ScalarOp::IntDiv, {b8, b8}) == i8);
  REQUIRE(result(ScalarOp::Mod, {f32, f32}) == f32);
  REQUIRE(result(ScalarOp::Pow, {i64, i64}) == i64);
  const ScalarSignature sw = scalar_signature(ScalarOp::Switch, std::vector<DType>{i32, f32, i64});
  REQUIRE(sw.result == f64);
  REQUIRE(sw.operands[0] == b8);
  REQUIRE(sw.operands[1] == f64);
  REQUIRE(scalar_signature(ScalarOp::Cast, std::vector<DType>{f64}, i8).result == i8);
}

TEST_CASE("undefined combinations are explained", "[runtime]") {
  REQUIRE_THROWS_WITH(result(ScalarOp::Sub, {b8, b8}),
                      "`sub` is not defined for bool operands; use `xor`");
  REQUIRE_THROWS_WITH(result(ScalarOp::Neg, {b8}),
                      "`neg` is not defined for bool operands; use `not`");
  REQUIRE_THROWS_WITH(result(ScalarOp::Sign, {b8}), "`sign` is not defined for bool operands");
  REQUIRE_THROWS_WITH(result(ScalarOp::And, {f64, i32}),
                      "`and` needs bool or integer operands, got float64 and int32");
  REQUIRE_THROWS_WITH(result(ScalarOp::Clip, {f32, f32}), "`clip` takes 3 operands, got 2");
  REQUIRE_THROWS_WITH(result(ScalarOp::Exp, {f32, f32}), "`exp` takes 1 operand, got 2");
  REQUIRE_THROWS_WITH(result(ScalarOp::Cast, {f32}), "`cast` needs a target dtype");
}

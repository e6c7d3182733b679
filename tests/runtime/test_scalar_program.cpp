// ScalarProgram: registers, inserted casts, folded constants, listing, errors.
#include <cstdint>
#include <cstring>

#include <catch2/catch.hpp>

#include "runtime/scalar_program.hpp"

using namespace rw;

TEST_CASE("a program lists its registers and outputs", "[runtime]") {
  ScalarProgram p;
  const Reg x = p.input(f64), y = p.input(f64);
  const Reg t = p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Exp, {x}), y});
  p.output(t);
  REQUIRE(p.num_inputs() == 2);
  REQUIRE(p.num_outputs() == 1);
  REQUIRE(p.instructions().size() == 2);
  REQUIRE(p.kind(x) == RegKind::Input);
  REQUIRE(p.kind(t) == RegKind::Temp);
  REQUIRE(p.output_dtype(0) == f64);
  REQUIRE(p.to_string() ==
          "%0 = input 0 f64\n"
          "%1 = input 1 f64\n"
          "%2 = exp(%0) f64\n"
          "%3 = mul(%2, %1) f64\n"
          "outputs %3\n");
  REQUIRE(p.cost() == scalar_op_info(ScalarOp::Exp).cost + scalar_op_info(ScalarOp::Mul).cost);
}

TEST_CASE("operands are converted to the dtype the op computes in", "[runtime]") {
  ScalarProgram p;
  const Reg i = p.input(i32), f = p.input(f32);
  const Reg s = p.apply(ScalarOp::Add, {i, f});  // int32 + float32 -> float64
  REQUIRE(p.dtype(s) == f64);
  REQUIRE(p.instructions().size() == 3);
  REQUIRE(p.instructions()[0].op == ScalarOp::Cast);
  REQUIRE(p.instructions()[1].op == ScalarOp::Cast);
  // A second use of the same conversion reuses the first cast.
  const Reg s2 = p.apply(ScalarOp::Mul, {i, f});
  REQUIRE(p.instructions().size() == 4);
  REQUIRE(p.instructions()[3].args[0] == p.instructions()[0].out);
  REQUIRE(p.instructions()[3].args[1] == p.instructions()[1].out);
  (void)s2;
  // Constants are converted when the program is built, not by an instruction.
  const Reg c = p.constant(2.0, i64);
  const Reg m = p.apply(ScalarOp::Mul, {f, c});  // float32 * int64 -> float64
  REQUIRE(p.dtype(m) == f64);
  const ScalarInstr& last = p.instructions().back();
  REQUIRE(p.kind(last.args[1]) == RegKind::Constant);
  REQUIRE(p.dtype(last.args[1]) == f64);
  double v;
  const std::uint64_t bits = p.constant_bits(last.args[1]);
  std::memcpy(&v, &bits, sizeof v);
  REQUIRE(v == 2.0);
  REQUIRE(p.cast(f, f32) == f);
}

TEST_CASE("constants keep exact values and convert with cast semantics", "[runtime]") {
  ScalarProgram p;
  const Reg big = p.constant_of<std::int64_t>((std::int64_t{1} << 60) + 1);
  std::int64_t got;
  const std::uint64_t bits = p.constant_bits(big);
  std::memcpy(&got, &bits, sizeof got);
  REQUIRE(got == (std::int64_t{1} << 60) + 1);
  const Reg sat = p.constant(1e10, i8);
  std::int8_t s;
  const std::uint64_t sbits = p.constant_bits(sat);
  std::memcpy(&s, &sbits, 1);
  REQUIRE(s == 127);
  REQUIRE(p.to_string().find("%1 = 127 i8") != std::string::npos);
}

TEST_CASE("bad programs are refused with the op named", "[runtime]") {
  ScalarProgram p, other;
  const Reg x = p.input(b8);
  const Reg foreign = Reg{7};
  REQUIRE_THROWS_WITH(p.apply(ScalarOp::Neg, {x}),
                      "`neg` is not defined for bool operands; use `not`");
  REQUIRE_THROWS_WITH(p.apply(ScalarOp::Add, {x, foreign}),
                      "`add`: register %7 does not belong to this program (it has 1 registers)");
  REQUIRE_THROWS_WITH(p.apply(ScalarOp::Add, {x}), "`add` takes 2 operands, got 1");
  REQUIRE_THROWS_WITH(p.output(foreign),
                      "output: register %7 does not belong to this program (it has 1 registers)");
  REQUIRE_THROWS_WITH(p.constant_bits(x), "register %0 is not a constant");
  // A refused instruction leaves the program as it was.
  REQUIRE(p.instructions().empty());
  REQUIRE(p.num_registers() == 1);
  (void)other;
}

// Composite and CompositeReduce: printing, typing, equality, running, in place.
#include <cmath>
#include <cstring>

#include <catch2/catch.hpp>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/rng.hpp"

namespace {

using namespace rw;

/// exp(-i0) * i1 + 1.5 over float64 inputs.
ScalarProgram exp_neg_times_plus() {
  ScalarProgram p;
  const Reg x = p.input(f64), y = p.input(f64);
  const Reg e = p.apply(ScalarOp::Exp, {p.apply(ScalarOp::Neg, {x})});
  p.output(p.apply(ScalarOp::Add, {p.apply(ScalarOp::Mul, {e, y}), p.constant(1.5, f64)}));
  return p;
}

}  // namespace

TEST_CASE("program_expression writes the outputs in infix with minimal parentheses",
          "[ops][composite]") {
  CHECK(program_expression(exp_neg_times_plus()) == "exp(-i0) * i1 + 1.5");

  ScalarProgram p;
  const Reg a = p.input(f64), b = p.input(f64), c = p.input(i32);
  p.output(p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Add, {a, b}), c}));       // cast inserted
  p.output(p.apply(ScalarOp::Sub, {a, p.apply(ScalarOp::Sub, {b, a})}));
  p.output(p.apply(ScalarOp::Sub, {p.apply(ScalarOp::Sub, {a, b}), a}));
  p.output(p.apply(ScalarOp::Maximum, {a, p.constant(2.0, f64)}));
  CHECK(program_expression(p) ==
        "(i0 + i1) * float64(i2), i0 - (i1 - i0), i0 - i1 - i0, maximum(i0, 2.0)");
}

TEST_CASE("program_expression stays short when values are used twice down a chain",
          "[ops][composite]") {
  // Written out in full, the text would double at each of the 60 steps.
  ScalarProgram p;
  Reg r = p.input(f64);
  for (int k = 0; k < 60; ++k) r = p.apply(ScalarOp::Mul, {r, r});
  p.output(r);
  const std::string text = program_expression(p);
  CHECK(text.size() <= 400);
  CHECK(text.ends_with("..."));
  CHECK(Composite(p).to_string().size() <= 420);
}

TEST_CASE("inline_program replays a program with exact constants and converted inputs",
          "[ops][composite]") {
  ScalarProgram outer;
  const Reg x = outer.input(f32), y = outer.input(f64);
  const std::vector<Reg> args = {x, y};
  const std::vector<Reg> outs = inline_program(outer, exp_neg_times_plus(), args);
  REQUIRE(outs.size() == 1);
  outer.output(outs[0]);
  CHECK(outer.output_dtype(0) == f64);
  const Tensor xs = Tensor::from({0.5f, -1.0f}), ys = Tensor::from({2.0, 3.0});
  const Tensor got = run_elemwise(outer, std::vector<Tensor>{xs, ys})[0];
  CHECK(got.equal(Tensor::from({std::exp(-0.5) * 2.0 + 1.5, std::exp(1.0) * 3.0 + 1.5})));
  const std::vector<Reg> one = {x};
  CHECK_THROWS_AS(inline_program(outer, exp_neg_times_plus(), one), rw::ValueError);
}

TEST_CASE("ProgramInliner reuses its buffers and gives inline_program's program",
          "[ops][composite]") {
  // Inlining twice into one program, through one inliner and through
  // inline_program, must build the same listing.
  ScalarProgram a, b;
  const Reg xa = a.input(f32), ya = a.input(f64);
  const Reg xb = b.input(f32), yb = b.input(f64);
  ProgramInliner inliner;
  const Reg first = inliner.inline_into(a, exp_neg_times_plus(), std::vector<Reg>{xa, ya})[0];
  const Reg second = inliner.inline_into(a, exp_neg_times_plus(), std::vector<Reg>{ya, first})[0];
  a.output(second);
  const Reg first_b = inline_program(b, exp_neg_times_plus(), std::vector<Reg>{xb, yb})[0];
  b.output(inline_program(b, exp_neg_times_plus(), std::vector<Reg>{yb, first_b})[0]);
  CHECK(a.to_string() == b.to_string());
  CHECK(program_expression(a) == "exp(-i1) * (exp(-float64(i0)) * i1 + 1.5) + 1.5");
  CHECK_THROWS_AS(inliner.inline_into(a, exp_neg_times_plus(), std::vector<Reg>{xa}),
                  rw::ValueError);
}

TEST_CASE("an inlined cast of a constant folds into a constant", "[ops][composite]") {
  // The source casts its input; inlined on a constant, the cast is done at
  // build time (as apply does), not copied as an instruction.
  ScalarProgram source;
  const std::vector<Reg> in = {source.input(DType::Int32)};
  source.output(source.apply(ScalarOp::Cast, in, f64));
  REQUIRE(source.instructions().size() == 1);
  ScalarProgram target;
  target.input(f64);
  const Reg seven = target.constant_of<std::int32_t>(7);
  const Reg out = inline_program(target, source, std::vector<Reg>{seven})[0];
  CHECK(target.kind(out) == RegKind::Constant);
  CHECK(target.dtype(out) == f64);
  CHECK(target.instructions().empty());
  double v = 0;
  const std::uint64_t bits = target.constant_bits(out);
  std::memcpy(&v, &bits, sizeof v);
  CHECK(v == 7.0);
}

TEST_CASE("a Composite's in-place variants share its program", "[ops][composite]") {
  const Composite a(exp_neg_times_plus());
  const auto in_place = a.with_inplace({{0, 0}});
  CHECK(&in_place->scalar_program() == &a.scalar_program());
  CHECK_FALSE(*in_place == a);
  // Back to no in-place pair: equal to the original, listing and all.
  const auto back = in_place->with_inplace({});
  CHECK(*back == a);
  CHECK(back->props() == a.props());
  CHECK(back->to_string() == "Composite{exp(-i0) * i1 + 1.5}");
}

TEST_CASE("Composite types its node by broadcasting and checks its inputs", "[ops][composite]") {
  const auto op = std::make_shared<Composite>(exp_neg_times_plus());
  const Var m = matrix("m", f64, kUnknownDim, 3), v = vector("v", f64, 3);
  const Var out = (*op)({m, v});
  CHECK(out->type()->to_string() == "f64[?,3]");
  CHECK(op->to_string() == "Composite{exp(-i0) * i1 + 1.5}");
  CHECK(op->name() == "composite");

  const Var iv = vector("iv", i32);
  try {
    (*op)({m, iv});
    FAIL("an int32 input was accepted");
  } catch (const TypeError& e) {
    CHECK(std::string(e.what()) == "`composite`: input 1 (`iv`) is i32[?], the program reads float64");
  }
  CHECK_THROWS_AS((*op)({m}), TypeError);
  CHECK_THROWS_AS(Composite(ScalarProgram{}), ValueError);
  CHECK_THROWS_AS(Composite(exp_neg_times_plus(), {{0, 5}}), ValueError);
}

TEST_CASE("Composites over equal programs are equal and hash equal", "[ops][composite]") {
  const Composite a(exp_neg_times_plus()), b(exp_neg_times_plus());
  CHECK(a == b);
  CHECK(a.hash() == b.hash());
  ScalarProgram other;
  other.output(other.apply(ScalarOp::Exp, {other.input(f64)}));
  CHECK_FALSE(a == Composite(std::move(other)));
  const auto in_place = a.with_inplace({{0, 1}});
  CHECK_FALSE(a == *in_place);
  CHECK_FALSE(*in_place == a);
  CHECK(*in_place == *b.with_inplace({{0, 1}}));
  CHECK(in_place->hash() == b.with_inplace({{0, 1}})->hash());
  CHECK(in_place->destroy_map() == IoMap{{0, 1}});
  CHECK(in_place->to_string() == "Composite{exp(-i0) * i1 + 1.5}{inplace=(0, 1)}");
}

TEST_CASE("Composite runs its program over the broadcast inputs, in place when asked",
          "[ops][composite]") {
  Rng rng(3);
  const Tensor xs = rng.uniform({4, 3}, -1.0, 1.0), ys = rng.uniform({3}, -1.0, 1.0);
  const auto op = std::make_shared<Composite>(exp_neg_times_plus());
  const Var m = matrix("m", f64, kUnknownDim, 3), v = vector("v", f64, 3);
  const ApplyRef node = op->make_node(std::vector<Var>{m, v});
  std::vector<Tensor> ins = {xs, ys}, outs(1);
  op->perform(*node, ins, outs);
  const Tensor expect = elemwise(ScalarOp::Add,
                                 elemwise(ScalarOp::Mul, elemwise(ScalarOp::Exp, elemwise(ScalarOp::Neg, xs)), ys),
                                 Tensor::scalar(1.5));
  CHECK(outs[0].equal(expect));

  const auto in_place = op->with_inplace({{0, 0}});
  const ApplyRef ip_node = in_place->make_node(std::vector<Var>{m, v});
  const Tensor buffer = xs.copy();
  std::vector<Tensor> ip_ins = {buffer, ys}, ip_outs(1);
  in_place->perform(*ip_node, ip_ins, ip_outs);
  CHECK(ip_outs[0].data<double>() == buffer.data<double>());
  CHECK(buffer.equal(expect));
}

TEST_CASE("CompositeReduce reduces the program's values without storing them",
          "[ops][composite]") {
  ScalarProgram p;
  p.output(p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Exp, {p.input(f64)}), p.input(f64)}));
  Rng rng(5);
  const Tensor xs = rng.uniform({5, 4}, -1.0, 1.0), ys = rng.uniform({5, 4}, -1.0, 1.0);
  const Tensor prod = elemwise(ScalarOp::Mul, elemwise(ScalarOp::Exp, xs), ys);
  const Var x = matrix("x"), y = matrix("y", f64, kUnknownDim, kUnknownDim);

  const auto all = std::make_shared<CompositeReduce>(ReduceOp::Sum, std::nullopt, p);
  const ApplyRef n_all = all->make_node(std::vector<Var>{x, y});
  CHECK(n_all->output_var(0).type()->to_string() == "f64[]");
  std::vector<Tensor> outs(1);
  all->perform(*n_all, std::vector<Tensor>{xs, ys}, outs);
  CHECK(outs[0].item<double>() == Approx(sum(prod).item<double>()).epsilon(1e-12));

  const auto rows = std::make_shared<CompositeReduce>(ReduceOp::Max, std::vector<std::int64_t>{-1}, p);
  const ApplyRef n_rows = rows->make_node(std::vector<Var>{x, y});
  CHECK(n_rows->output_var(0).type()->to_string() == "f64[?]");
  CHECK(rows->to_string() == "max[Composite{exp(i0) * i1}]{axis=(-1)}");
  rows->perform(*n_rows, std::vector<Tensor>{xs, ys}, outs);
  CHECK(outs[0].equal(max(prod, Axes{1})));

  const auto bad = std::make_shared<CompositeReduce>(ReduceOp::Sum, std::vector<std::int64_t>{2}, p);
  CHECK_THROWS_AS(bad->make_node(std::vector<Var>{x, y}), TypeError);
  ScalarProgram two = p;
  two.output(two.inputs()[0]);
  CHECK_THROWS_AS(CompositeReduce(ReduceOp::Sum, std::nullopt, two), ValueError);
}

TEST_CASE("Composite and CompositeReduce infer shapes from their inputs' shapes",
          "[ops][composite]") {
  const Var m = matrix("m"), v = vector("v");
  const Var rows = scalar("rows", i64), cols = scalar("cols", i64), len = scalar("len", i64);
  const std::vector<ShapeVars> in_shapes = {{rows, cols}, {len}};

  const auto op = std::make_shared<Composite>(exp_neg_times_plus());
  const ApplyRef node = op->make_node(std::vector<Var>{m, v});
  const auto shapes = op->infer_shape(*node, in_shapes);
  REQUIRE(shapes.size() == 1);
  REQUIRE(shapes[0].size() == 2);
  CHECK(shapes[0][0] == rows);
  CHECK((shapes[0][1] == cols || shapes[0][1] == len));

  ScalarProgram p;
  p.output(p.apply(ScalarOp::Mul, {p.input(f64), p.input(f64)}));
  const auto red = std::make_shared<CompositeReduce>(ReduceOp::Sum, std::vector<std::int64_t>{1}, p);
  const ApplyRef rnode = red->make_node(std::vector<Var>{m, v});
  const auto rshapes = red->infer_shape(*rnode, in_shapes);
  REQUIRE(rshapes.size() == 1);
  REQUIRE(rshapes[0].size() == 1);
  CHECK(rshapes[0][0] == rows);
}

TEST_CASE(
    "a Composite with several outputs computes them in one pass, in place into distinct "
    "inputs",
    "[ops][composite]") {
  // tanh(i0) * i1, tanh(i0) and i0 > 0: the second is read by the first, the
  // third has another dtype.
  ScalarProgram p;
  const Reg x = p.input(f64), y = p.input(f64);
  const Reg t = p.apply(ScalarOp::Tanh, {x});
  p.output(p.apply(ScalarOp::Mul, {t, y}));
  p.output(t);
  p.output(p.apply(ScalarOp::Gt, {x, p.constant(0.0, f64)}));
  const auto op = std::make_shared<Composite>(p);
  CHECK(op->to_string() == "Composite{tanh(i0) * i1, tanh(i0), i0 > 0.0}");
  const Var m = matrix("m"), n = matrix("n");
  const ApplyRef node = op->make_node(std::vector<Var>{m, n});
  REQUIRE(node->num_outputs() == 3);
  CHECK(node->output_var(0).type()->to_string() == "f64[?,?]");
  CHECK(node->output_var(1).type()->to_string() == "f64[?,?]");
  CHECK(node->output_var(2).type()->to_string() == "bool[?,?]");
  const Var rows = scalar("rows", i64), cols = scalar("cols", i64);
  const std::vector<ShapeVars> in_shapes = {{rows, cols}, {rows, cols}};
  const auto shapes = op->infer_shape(*node, in_shapes);
  REQUIRE(shapes.size() == 3);
  for (const ShapeVars& s : shapes) CHECK(s == ShapeVars{rows, cols});

  Rng rng(9);
  const Tensor xs = rng.uniform({64, 40}, -2.0, 2.0), ys = rng.uniform({64, 40}, -2.0, 2.0);
  auto check = [&](const std::vector<Tensor>& outs) {
    for (std::int64_t i = 0; i < xs.size(); ++i) {
      const double xv = xs.data<double>()[i], yv = ys.data<double>()[i];
      CHECK(outs[0].data<double>()[i] == Approx(std::tanh(xv) * yv).epsilon(1e-15));
      CHECK(outs[1].data<double>()[i] == Approx(std::tanh(xv)).epsilon(1e-15));
      CHECK(outs[2].data<bool>()[i] == (xv > 0));
    }
  };
  std::vector<Tensor> outs(3);
  op->perform(*node, std::vector<Tensor>{xs, ys}, outs);
  check(outs);

  // Output 0 into input 0, output 1 into input 1, which output 0 still reads.
  const auto in_place = op->with_inplace({{0, 0}, {1, 1}});
  CHECK(in_place->destroy_map() == IoMap{{0, 0}, {1, 1}});
  CHECK(in_place->to_string() ==
        "Composite{tanh(i0) * i1, tanh(i0), i0 > 0.0}{inplace=(0, 0, 1, 1)}");
  const ApplyRef ip_node = in_place->make_node(std::vector<Var>{m, n});
  const Tensor xb = xs.copy(), yb = ys.copy();
  std::vector<Tensor> ip_outs(3);
  in_place->perform(*ip_node, std::vector<Tensor>{xb, yb}, ip_outs);
  CHECK(ip_outs[0].data<double>() == xb.data<double>());
  CHECK(ip_outs[1].data<double>() == yb.data<double>());
  check(ip_outs);
  // A bool output cannot go into a float input; two outputs cannot share one.
  CHECK_THROWS_AS(in_place->with_inplace({{2, 0}})->make_node(std::vector<Var>{m, n}), TypeError);
  CHECK_THROWS_WITH(Composite(p, {{0, 1}, {1, 1}}),
                    "`composite`: outputs 0 and 1 are both written into input 1");
}

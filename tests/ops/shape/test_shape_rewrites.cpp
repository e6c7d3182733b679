// The shape folding rewriters: each on graphs it must and must not rewrite,
// and the folded shapes against the shapes of computed values.
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/compile/function.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/api.hpp"
#include "ops/indexing/subtensor_rewrites.hpp"
#include "ops/shape/shape_rewrites.hpp"
#include "runtime/rng.hpp"
#include "support/graph_eval.hpp"
#include "support/shape_rewrites.hpp"

namespace {

using namespace rw;

std::string rewritten(const Var& out) { return testing::shape_rewritten(out); }

/// `out` compiled with the rewrites and without, equal on random inputs
/// whose unknown extents are `extent`.
void check_values(const std::vector<Var>& inputs, const Var& out, std::int64_t extent = 4) {
  auto plain = testing::compile_shape_rewritten(inputs, out, false);
  auto folded = testing::compile_shape_rewritten(inputs, out, true);
  Rng rng(11);
  const auto args = testing::random_args(inputs, rng, 1, 3, extent);
  INFO("rewritten to " << to_infix(folded.fgraph().outputs()[0]));
  CHECK(testing::close_for_dtype(folded.call(args)[0], plain.call(args)[0]));
}

}  // namespace

TEST_CASE("shape_i_fold reads extents from static types, allocs and elemwise inputs",
          "[ops][shape]") {
  const Var s = scalar("s", f64);
  const Var n = scalar("n", i64);
  const Var x = vector("x", f64);
  const Var y = vector("y", f64);
  const Var m = matrix("m", f64);
  // shape(alloc(s, 7, 3))[0] -> 7
  CHECK(rewritten(subtensor(shape(alloc(s, {7, 3})), {0})) == "7");
  CHECK(rewritten(shape_i(alloc(s, {n, 3}), 0)) == "n");
  // From an elemwise's inputs: the value is no longer computed for its shape.
  CHECK(rewritten(shape_i(exp(x) + y, 0)) == "shape_i{i=0}(y)");
  CHECK(rewritten(shape_i(exp(sin(x)), 0)) == "shape_i{i=0}(x)");
  // A row broadcasts on axis 0: the extent comes from the matrix.
  const Var row = dimshuffle(x, {kNewAxis, 0});
  CHECK(rewritten(shape_i(row * m, 0)) == "shape_i{i=0}(m)");
  CHECK(rewritten(shape_i(row * m, 1)) == "shape_i{i=1}(m)");
  CHECK(rewritten(shape_i(exp(row), 1)) == "shape_i{i=0}(x)");
  // Any other Op by its infer_shape: the extent of a dot is its input's.
  CHECK(rewritten(shape_i(exp(dot(m, x)), 0)) == "shape_i{i=0}(m)");
  check_values({m, x}, shape_i(exp(dot(m, x)), 0));
  // Through a transpose and a specify_shape.
  CHECK(rewritten(shape_i(transpose(exp(m)), 0)) == "shape_i{i=1}(m)");
  CHECK(rewritten(shape_i(specify_shape(exp(x), {-1}), 0)) == "shape_i{i=0}(x)");
  // Along a join's axis the extent is a sum: not folded to a piece's.
  CHECK(rewritten(shape_i(concatenate({x, y}, 0), 0)).find("join") != std::string::npos);
  check_values({x, y}, shape_i(exp(x) + y, 0));
  check_values({x, m}, shape_i(row * m, 1));
  check_values({m}, shape_i(transpose(exp(m)), 0));
}

TEST_CASE("shape_of_elemwise reads a shape from an input that is not broadcast",
          "[ops][shape]") {
  const Var x = vector("x", f64);
  const Var y = vector("y", f64);
  const Var m = matrix("m", f64);
  CHECK(rewritten(shape(exp(x) + y)) == "shape(y)");
  CHECK(rewritten(shape(exp(sin(x)))) == "shape(x)");
  CHECK(rewritten(shape(exp(dot(m, m)))) == "shape(dot(m, m))");
  const Var row = dimshuffle(x, {kNewAxis, 0});
  CHECK(rewritten(shape(row + m)) == "shape(m)");
  // Every input may broadcast: left alone.
  const Var col = dimshuffle(y, {0, kNewAxis});
  INFO(rewritten(shape(row + col)));
  CHECK(rewritten(shape(row + col)).find(" + ") != std::string::npos);
  // A known static shape is a constant.
  const Var k = matrix("k", f64, 2, 5);
  CHECK(rewritten(shape(exp(k))) == "[2 5]");
  check_values({x, m}, shape(row + m));
}

TEST_CASE("vector_entry_fold indexes shapes and make_vectors with constants", "[ops][shape]") {
  const Var m = matrix("m", f64);
  const Var a = scalar("a", i64);
  const Var b = scalar("b", i32);
  CHECK(rewritten(subtensor(shape(m), {1})) == "shape_i{i=1}(m)");
  CHECK(rewritten(subtensor(shape(m), {-2})) == "shape_i{i=0}(m)");
  CHECK(rewritten(subtensor(make_vector({a, b, a}), {0})) == "a");
  CHECK(rewritten(subtensor(make_vector({a, b, a}), {-2})) == "cast{dtype=int64}(b)");
  check_values({a, b}, subtensor(make_vector({a, b, a}), {1}));
}

TEST_CASE("shape_of_elemwise is registered outside fast_run", "[ops][shape]") {
  auto db = make_standard_db();
  register_shape_rewrites(*db);
  const Var x = vector("x", f64);
  const Var y = vector("y", f64);
  const Var out = shape(exp(x) + y);
  FunctionGraph fg({x, y}, {out});
  Mode::fast_run(db).rewrite(fg);
  CHECK(to_infix(fg.outputs()[0]) == "shape(exp(x) + y)");
  // An entry of one element of it is folded in fast_run all the same.
  const Var first = subtensor(shape(exp(x) + y), {0});
  FunctionGraph fg0({x, y}, {first});
  Mode::fast_run(db).rewrite(fg0);
  CHECK(to_infix(fg0.outputs()[0]) == "shape_i{i=0}(y)");
}

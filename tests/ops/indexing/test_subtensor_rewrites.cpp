// The subtensor rewrites: slice arithmetic against Python's semantics over
// every combination of small bounds, steps and lengths; each rewriter on
// graphs it must and must not rewrite, checked against evaluation.
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/compile/function.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
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
using Opt = std::optional<std::int64_t>;

/// The indices `s` takes from an axis of extent n, by Python's rules, walked
/// one by one.
std::vector<std::int64_t> python_indices(const ConstSlice& s, std::int64_t n) {
  const std::int64_t step = s.step.value_or(1);
  std::vector<std::int64_t> out;
  if (step > 0) {
    std::int64_t b = s.start.value_or(0), e = s.stop.value_or(n);
    if (b < 0) b = std::max<std::int64_t>(b + n, 0);
    if (e < 0) e = std::max<std::int64_t>(e + n, 0);
    b = std::min(b, n);
    e = std::min(e, n);
    for (std::int64_t i = b; i < e; i += step) out.push_back(i);
  } else {
    std::int64_t b = s.start.value_or(n - 1), e = s.stop.value_or(-1 - n);
    if (b < 0) b = std::max<std::int64_t>(b + n, -1);
    if (e < 0) e = std::max<std::int64_t>(e + n, -1);
    b = std::min(b, n - 1);
    e = std::min(e, n - 1);
    for (std::int64_t i = b; i > e; i += step) out.push_back(i);
  }
  return out;
}

std::vector<std::int64_t> take(const std::vector<std::int64_t>& from, const ConstSlice& s) {
  std::vector<std::int64_t> out;
  for (std::int64_t k : python_indices(s, static_cast<std::int64_t>(from.size())))
    out.push_back(from[static_cast<std::size_t>(k)]);
  return out;
}

std::string show(const ConstSlice& s) {
  auto b = [](const Opt& v) { return v ? std::to_string(*v) : std::string(); };
  return b(s.start) + ":" + b(s.stop) + ":" + b(s.step);
}

std::vector<ConstSlice> small_slices() {
  const std::vector<Opt> bounds = {std::nullopt, -7, -3, -1, 0, 1, 2, 5, 9};
  const std::vector<Opt> steps = {std::nullopt, 1, 2, 3, -1, -2};
  std::vector<ConstSlice> out;
  for (const Opt& a : bounds)
    for (const Opt& b : bounds)
      for (const Opt& c : steps) out.push_back({a, b, c});
  return out;
}

constexpr std::int64_t kMaxLength = 10;

std::string rewritten(const Var& out) { return testing::shape_rewritten(out); }

Function<std::vector<Tensor>> compile(const std::vector<Var>& inputs, const Var& out,
                                      bool rewrite) {
  return testing::compile_shape_rewritten(inputs, out, rewrite);
}

/// Compiles `out` of `x` with and without the rewrites and compares them on
/// a vector of each length (0 … kMaxLength when x's extent is unknown).
void check_values(const Var& x, const Var& out, std::vector<std::int64_t> lengths) {
  auto plain = compile({x}, out, false);
  auto fast = compile({x}, out, true);
  for (std::int64_t n : lengths) {
    std::vector<double> values;
    for (std::int64_t k = 0; k < n; ++k) values.push_back(10.0 + static_cast<double>(k));
    const Tensor arg = Tensor::from_vector(values, std::span(&n, 1));
    INFO("length " << n << ", rewritten to " << to_infix(fast.fgraph().outputs()[0]));
    std::optional<Tensor> want, got;
    try {
      want = plain.call(std::span(&arg, 1))[0];
    } catch (const std::exception&) {
    }
    try {
      got = fast.call(std::span(&arg, 1))[0];
    } catch (const std::exception&) {
    }
    REQUIRE(want.has_value() == got.has_value());  // both raise, or neither
    if (want) CHECK(testing::close_for_dtype(*got, *want));
  }
}

Var slice_of(const Var& x, const ConstSlice& s) {
  auto bound = [](const Opt& v) { return v ? api::Bound(*v) : api::Bound(); };
  return subtensor(x, {slice(bound(s.start), bound(s.stop), bound(s.step))});
}

}  // namespace

TEST_CASE("merge_slices agrees with Python's slicing, for unknown and known lengths",
          "[ops][indexing]") {
  const std::vector<ConstSlice> slices = small_slices();
  std::size_t unknown_merged = 0;
  for (const ConstSlice& f : slices) {
    for (const ConstSlice& s : slices) {
      if (const auto m = merge_slices(f, s, std::nullopt)) {
        ++unknown_merged;
        for (std::int64_t n = 0; n <= kMaxLength; ++n) {
          INFO(show(f) << " then " << show(s) << " -> " << show(*m) << " at length " << n);
          std::vector<std::int64_t> all(static_cast<std::size_t>(n));
          for (std::int64_t k = 0; k < n; ++k) all[static_cast<std::size_t>(k)] = k;
          REQUIRE(python_indices(*m, n) == take(take(all, f), s));
        }
      }
      for (std::int64_t n = 0; n <= kMaxLength; ++n) {
        const auto m = merge_slices(f, s, n);
        INFO(show(f) << " then " << show(s) << " at known length " << n);
        REQUIRE(m.has_value());  // a known length always merges
        std::vector<std::int64_t> all(static_cast<std::size_t>(n));
        for (std::int64_t k = 0; k < n; ++k) all[static_cast<std::size_t>(k)] = k;
        REQUIRE(python_indices(*m, n) == take(take(all, f), s));
      }
    }
  }
  // The unknown-length rule covers the non-negative, forward cases.
  CHECK(unknown_merged > 1000);
  CHECK(merge_slices({1, {}, {}}, {2, {}, {}}, std::nullopt) == ConstSlice{3, {}, {}});
  CHECK(merge_slices({1, {}, 2}, {{}, 3, {}}, std::nullopt) == ConstSlice{1, 7, 2});
  CHECK_FALSE(merge_slices({-3, {}, {}}, {1, {}, {}}, std::nullopt));  // x[-3:][1:] needs n
  CHECK_FALSE(merge_slices({{}, {}, -1}, {1, {}, {}}, std::nullopt));
  CHECK_FALSE(merge_slices({{}, {}, 0}, {1, {}, {}}, 5));
}

TEST_CASE("merge_slice_index agrees with Python's indexing and raises where it does",
          "[ops][indexing]") {
  for (const ConstSlice& f : small_slices()) {
    for (std::int64_t i = -6; i <= 6; ++i) {
      const auto unknown = merge_slice_index(f, i, std::nullopt);
      for (std::int64_t n = 0; n <= kMaxLength; ++n) {
        INFO(show(f) << "[" << i << "] at length " << n);
        std::vector<std::int64_t> all(static_cast<std::size_t>(n));
        for (std::int64_t k = 0; k < n; ++k) all[static_cast<std::size_t>(k)] = k;
        const std::vector<std::int64_t> part = take(all, f);
        const auto len = static_cast<std::int64_t>(part.size());
        const bool in_range = i >= -len && i < len;
        if (unknown) {
          REQUIRE(*unknown >= 0);
          CHECK((*unknown < n) == in_range);
          if (in_range) CHECK(part[static_cast<std::size_t>(i < 0 ? i + len : i)] == *unknown);
        }
        const auto known = merge_slice_index(f, i, n);
        CHECK(known.has_value() == in_range);
        if (known) CHECK(part[static_cast<std::size_t>(i < 0 ? i + len : i)] == *known);
      }
    }
  }
  CHECK(merge_slice_index({2, {}, 3}, 1, std::nullopt) == 5);
  CHECK_FALSE(merge_slice_index({2, 5, {}}, 1, std::nullopt));  // the stop could make it raise
}

TEST_CASE("subtensor_merge merges two subtensors and computes what they do", "[ops][indexing]") {
  const Var x = vector("x", f64);
  CHECK(rewritten(subtensor(subtensor(x, {slice(1, std::nullopt)}), {slice(2, std::nullopt)})) ==
        rewritten(subtensor(x, {slice(3, std::nullopt)})));
  CHECK(rewritten(subtensor(subtensor(x, {slice(1, std::nullopt, 2)}), {1})) ==
        rewritten(subtensor(x, {3})));
  // A negative start needs the length: left as two subtensors.
  const Var neg = subtensor(subtensor(x, {slice(-3, std::nullopt)}), {slice(1, std::nullopt)});
  CHECK(rewritten(neg).find("subtensor{index=(-4)}(subtensor") != std::string::npos);

  // Evaluation over many pairs, for an unknown extent at every length and for
  // a known one, negative bounds and steps included.
  const std::vector<ConstSlice> slices = small_slices();
  Rng rng(20261202);
  const Var x7 = vector("x7", f64, 7);
  for (int draw = 0; draw < 40; ++draw) {
    const ConstSlice& f = slices[static_cast<std::size_t>(rng.next_integer(0, static_cast<std::int64_t>(slices.size())))];
    const ConstSlice& s = slices[static_cast<std::size_t>(rng.next_integer(0, static_cast<std::int64_t>(slices.size())))];
    INFO(show(f) << " then " << show(s));
    std::vector<std::int64_t> lengths;
    for (std::int64_t n = 0; n <= kMaxLength; ++n) lengths.push_back(n);
    check_values(x, slice_of(slice_of(x, f), s), lengths);
    check_values(x7, slice_of(slice_of(x7, f), s), {7});
    // And an integer index after the slice (in range or not).
    const std::int64_t i = rng.next_integer(-4, 5);
    check_values(x, subtensor(slice_of(x, f), {i}), lengths);
    // A constant index out of a known range is refused when the graph is built.
    Var x7_index;
    try {
      x7_index = subtensor(slice_of(x7, f), {i});
    } catch (const TypeError&) {
      continue;
    }
    check_values(x7, x7_index, {7});
  }
}

TEST_CASE("subtensor_merge merges axis by axis and passes symbolic bounds past a `:`",
          "[ops][indexing]") {
  const Var m = matrix("m", f64);
  const Var k = scalar("k", i64);
  // m[1:][:, k:] -> m[1:, k:]
  const Var two = subtensor(subtensor(m, {slice(1, std::nullopt)}),
                            {slice(), slice(k, std::nullopt)});
  CHECK(rewritten(two) == rewritten(subtensor(m, {slice(1, std::nullopt), slice(k, std::nullopt)})));
  // m[2][1:] -> m[2, 1:]
  const Var row = subtensor(subtensor(m, {2}), {slice(1, std::nullopt)});
  CHECK(rewritten(row) == rewritten(subtensor(m, {2, slice(1, std::nullopt)})));
}

TEST_CASE("subtensor_useless removes slices that keep every element", "[ops][indexing]") {
  const Var x = vector("x", f64);
  const Var x3 = vector("x3", f64, 3);
  CHECK(rewritten(subtensor(x, {slice()})) == "x");
  CHECK(rewritten(subtensor(x, {slice(0, std::nullopt)})) == "x");
  CHECK(rewritten(subtensor(x, {slice(std::nullopt, std::nullopt, 1)})) == "x");
  CHECK(rewritten(subtensor(x, {slice(std::nullopt, shape_i(x, 0))})) == "x");
  CHECK(rewritten(subtensor(x3, {slice(std::nullopt, 3)})) == "x3");
  CHECK(rewritten(subtensor(x3, {slice(std::nullopt, 100)})) == "x3");
  // These drop elements, or may.
  CHECK(rewritten(subtensor(x, {slice(std::nullopt, 3)})) != "x");
  CHECK(rewritten(subtensor(x3, {slice(std::nullopt, 2)})) != "x3");
  CHECK(rewritten(subtensor(x, {slice(std::nullopt, std::nullopt, -1)})) != "x");
  CHECK(rewritten(subtensor(x, {slice(1, std::nullopt)})) != "x");
}

TEST_CASE("subtensor_lift indexes the inputs of an elemwise used only there", "[ops][indexing]") {
  const Var x = vector("x", f64);
  const Var y = vector("y", f64);
  const Var s = scalar("s", f64);
  CHECK(rewritten(subtensor(exp(x), {1})) == "exp(subtensor{index=(i)}(x, 1))");
  CHECK(rewritten(subtensor(x + y * s, {slice(1, std::nullopt)})) ==
        rewritten(subtensor(x, {slice(1, std::nullopt)}) +
                  subtensor(y, {slice(1, std::nullopt)}) * s));
  // A broadcasting input is not indexed like the result: not lifted.
  const Var m = matrix("m", f64);
  const Var row = dimshuffle(x, {kNewAxis, 0});
  const Var b = subtensor(m + row, {1});
  CHECK(rewritten(b).rfind("subtensor", 0) == 0);
  // An elemwise result read elsewhere too stays computed once.
  const Var e = exp(x);
  FunctionGraph fg({x}, {subtensor(e, {0}), e});
  testing::shape_rewrite_mode().rewrite(fg);
  CHECK(to_infix(fg.outputs()[0]).rfind("subtensor", 0) == 0);

  Rng rng(7);
  const Var lifted = subtensor(exp(x) * y + s, {slice(1, std::nullopt, 2)});
  auto plain = compile({x, y, s}, lifted, false);
  auto fast = compile({x, y, s}, lifted, true);
  const auto args = testing::random_args({x, y, s}, rng, -1, 1, 6);
  CHECK(testing::close_for_dtype(fast.call(args)[0], plain.call(args)[0]));
}

TEST_CASE("subtensor_of_pieces reads an alloc's value and a join's piece", "[ops][indexing]") {
  const Var x = vector("x", f64);
  const Var s = scalar("s", f64);
  const Var n = scalar("n", i64);
  // alloc(x, 5, n)[0] -> x; alloc(x1, 5, n)[0] -> alloc(x1, n), which
  // broadcasts x1; alloc(s, 5, 3)[-1, 2] -> s
  CHECK(rewritten(subtensor(alloc(x, {5, n}), {0})) == "x");
  const Var x1 = vector("x1", f64, 1);
  CHECK(rewritten(subtensor(alloc(x1, {5, n}), {0})) == "alloc(x1, n)");
  CHECK(rewritten(subtensor(alloc(s, {5, 3}), {-1, 2})) == "s");
  // Out of range, or an unknown extent: left alone (it raises at run time).
  const Var k = scalar("k", i64);
  CHECK(rewritten(subtensor(alloc(s, {5, 3}), {k})).rfind("subtensor", 0) == 0);
  CHECK(rewritten(subtensor(alloc(s, {n}), {0})).rfind("subtensor", 0) == 0);

  const Var a = vector("a", f64, 2);
  const Var b = vector("b", f64, 3);
  const Var c = vector("c", f64);
  const Var j = concatenate({a, b, c}, 0);
  CHECK(rewritten(subtensor(j, {1})) == "subtensor{index=(i)}(a, 1)");
  CHECK(rewritten(subtensor(j, {4})) == "subtensor{index=(i)}(b, 2)");
  // Past the known pieces, or negative with an unknown total: left alone.
  CHECK(rewritten(subtensor(j, {5})).rfind("subtensor{index=(i)}(join", 0) == 0);
  CHECK(rewritten(subtensor(j, {-1})).rfind("subtensor{index=(i)}(join", 0) == 0);
  const Var j2 = concatenate({a, b}, 0);
  CHECK(rewritten(subtensor(j2, {-1})) == "subtensor{index=(i)}(b, 2)");
}

TEST_CASE("subtensor_lift moves a subtensor below a dimshuffle", "[ops][indexing]") {
  const Var m = matrix("m", f64);
  const Var x = vector("x", f64);
  const Var row = dimshuffle(x, {kNewAxis, 0});
  // transpose(m)[1] is m[:, 1]; row[0] is x; row[0, 1:] is x[1:]; row[-1, 2] is x[2].
  CHECK(rewritten(subtensor(transpose(m), {1})) == "subtensor{index=(-3,i)}(m, 1)");
  CHECK(rewritten(subtensor(row, {0})) == "x");
  CHECK(rewritten(subtensor(row, {0, slice(1, std::nullopt)})) == "subtensor{index=(-4)}(x, 1)");
  // What is not the identity stays a dimshuffle, below the subtensor.
  CHECK(rewritten(subtensor(transpose(m), {slice(1, std::nullopt)})) ==
        "dimshuffle{order=(1,0)}(subtensor{index=(-3,-4)}(m, 1))");
  CHECK(rewritten(subtensor(row, {-1, 2})) == "subtensor{index=(i)}(x, 2)");
  // A slice on the new axis may keep it or empty it: left alone.
  CHECK(rewritten(subtensor(row, {slice(1, std::nullopt)})).rfind("subtensor", 0) == 0);

  Rng rng(3);
  const Var t = tensor("t", f64, {kUnknownDim, 1, kUnknownDim});
  for (const Var& out : {subtensor(transpose(m), {1, slice(std::nullopt, std::nullopt, -1)}),
                         subtensor(dimshuffle(t, {2, kNewAxis, 0}), {slice(1, std::nullopt), 0, -1}),
                         subtensor(row, {0, slice(1, std::nullopt)})}) {
    std::vector<Var> inputs;
    for (const Var& v : graph_inputs(std::span(&out, 1)))
      if (!v->as_constant()) inputs.push_back(v);
    auto plain = compile(inputs, out, false);
    auto fast = compile(inputs, out, true);
    INFO(to_infix(out) << " -> " << to_infix(fast.fgraph().outputs()[0]));
    CHECK(to_infix(fast.fgraph().outputs()[0]).find("subtensor{index=(-3") != 0);
    const auto args = testing::random_args(inputs, rng, -1, 1, 4);
    CHECK(testing::close_for_dtype(fast.call(args)[0], plain.call(args)[0]));
  }
}

// DebugMode: each way an Op can break its contract is caught and named (an
// undeclared write or view, a shape infer_shape did not promise, a result
// that changes when run again or on strided inputs), a rule made wrong on
// purpose is named by the bisection, and correct graphs pass unchanged.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <string>

#include <catch2/catch.hpp>

#include "engine/compile/errors.hpp"
#include "rw/rewrite.hpp"
#include "support/doc_snippets.hpp"
#include "support/mode_fixtures.hpp"

namespace {

using rw::Tensor;
using Catch::Matchers::Contains;

/// What a FaultyOp does wrong.
enum class Fault : std::int64_t {
  None,             // 2 * x, as declared
  WritesInput,      // adds 1 to x[0] in x's own buffer, with no destroy_map
  UndeclaredView,   // returns x itself, with no view_map
  WrongShape,       // drops the last element, where infer_shape keeps it
  NotRepeatable,    // adds the number of earlier runs
  NeedsContiguous,  // reads x's buffer as if it were contiguous
};

/// `faulty(x)` = 2 * x for a float64 vector, but for its fault.
class FaultyOp final : public rw::Op {
 public:
  explicit FaultyOp(Fault fault) : fault_(fault) {}
  std::string_view name() const override { return "faulty"; }
  rw::Props props() const override { return {{"fault", static_cast<std::int64_t>(fault_)}}; }
  rw::ApplyRef make_node(std::span<const rw::Var> inputs) const override {
    const rw::TypePtr type = rw::TensorType::make(rw::f64, {rw::kUnknownDim});
    return rw::Apply::create(ptr(), inputs, std::span(&type, 1));
  }
  void perform(const rw::Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    const Tensor& x = in[0];
    const std::int64_t n = x.size();
    Tensor y = Tensor::empty(rw::f64, {n});
    double* py = y.data<double>();
    const Tensor xc = x.contiguous();
    for (std::int64_t i = 0; i < n; ++i) py[i] = 2 * xc.data<double>()[i];
    switch (fault_) {
      case Fault::None: break;
      case Fault::WritesInput: {
        Tensor same = x;  // a handle on the argument's own buffer
        same.data<double>()[0] += 1;
        break;
      }
      case Fault::UndeclaredView: y = x; break;
      case Fault::WrongShape: y = y.slice(0, 0, n - 1).copy(); break;
      case Fault::NotRepeatable:
        for (std::int64_t i = 0; i < n; ++i) py[i] += runs_.fetch_add(1);
        break;
      case Fault::NeedsContiguous: {
        const auto* raw = static_cast<const double*>(x.raw_data());
        for (std::int64_t i = 0; i < n; ++i) py[i] = 2 * raw[i];
        break;
      }
    }
    out[0] = y;
  }
  std::vector<rw::ShapeVars> infer_shape(const rw::Apply&,
                                         std::span<const rw::ShapeVars> shapes) const override {
    return {shapes[0]};
  }

 private:
  Fault fault_;
  mutable std::atomic<std::int64_t> runs_{0};
};

rw::Var faulty(Fault fault, const rw::Var& x) { return (*std::make_shared<FaultyOp>(fault))({x}); }

/// Compiles `y` of `x` in DebugMode (no rewrites) and calls it on [1, 2, 3].
void run_debug(const rw::Var& x, const rw::Var& y, rw::DebugMode mode = {}) {
  auto f = rw::compile_function({x}, y, {.debug_mode = mode});
  (void)f(Tensor::from({1.0, 2.0, 3.0}));
}

/// The message of the DebugModeError `run` throws, or what it did instead.
template <class F> std::string debug_error(F&& run) {
  try {
    run();
  } catch (const rw::DebugModeError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("not a DebugModeError: ") + e.what();
  }
  return "no error";
}

/// EXPR throws a DebugModeError whose message MATCHER accepts.
#define CHECK_DEBUG_ERROR(EXPR, MATCHER) CHECK_THAT(debug_error([&] { (void)(EXPR); }), MATCHER)

using rw::test::with_rules;

}  // namespace

TEST_CASE("DebugMode passes an Op that keeps its contract, and gives its values", "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::None, rw::exp(x)) + 1.0;
  auto f = rw::compile_function({x}, y, {.debug_mode = rw::DebugMode{}});
  const Tensor got = f(Tensor::from({0.0, 1.0, 2.0}));
  CHECK(rw::allclose(got, Tensor::from({3.0, 2 * std::exp(1.0) + 1, 2 * std::exp(2.0) + 1})));
}

TEST_CASE("DebugMode names an Op that writes an input its destroy_map does not declare",
          "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::WritesInput, rw::exp(x));
  CHECK_DEBUG_ERROR(run_debug(x, y),
                       Contains("DebugMode: node 2 of 2 (`faulty{fault=1}`") &&
                           Contains("input 0 (`exp(x)`) was overwritten, which the Op's "
                                    "destroy_map does not declare: element 0") );
  // Without the check the fault goes unseen.
  rw::DebugMode lenient;
  lenient.check_io_maps = false;
  lenient.check_repeat = false;
  lenient.check_strides = false;
  CHECK_NOTHROW(run_debug(x, y, lenient));
}

TEST_CASE("DebugMode names an output that aliases an input without a view_map", "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::UndeclaredView, rw::exp(x)) * 2.0;
  CHECK_DEBUG_ERROR(run_debug(x, y),
                       Contains("`faulty{fault=2}`") &&
                           Contains("output 0 shares memory with input 0 (`exp(x)`), which "
                                    "neither the Op's view_map nor its destroy_map declares"));
}

TEST_CASE("DebugMode names an output whose shape is not what infer_shape promised",
          "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::WrongShape, x);
  CHECK_DEBUG_ERROR(run_debug(x, y),
                       Contains("`faulty{fault=3}`") &&
                           Contains("output 0 has shape (2,), but the Op's infer_shape gives (3,)"));
  rw::DebugMode no_shapes;
  no_shapes.check_shapes = false;
  no_shapes.compare_unrewritten = false;
  CHECK_NOTHROW(run_debug(x, y, no_shapes));
}

TEST_CASE("DebugMode names an Op that gives another result when run again", "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::NotRepeatable, x);
  CHECK_DEBUG_ERROR(run_debug(x, y),
                       Contains("output 0 is another value when the node runs again on copies "
                                "of its inputs: element 0 (row-major) is"));
}

TEST_CASE("DebugMode names an Op whose result depends on its inputs' strides", "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::NeedsContiguous, x);
  CHECK_DEBUG_ERROR(run_debug(x, y),
                       Contains("output 0 is another value when the node runs on "
                                "non-contiguous copies of its inputs: element 1 (row-major) is 0, "
                                "not 4 (first run)"));
  rw::DebugMode no_strides;
  no_strides.check_strides = false;
  CHECK_NOTHROW(run_debug(x, y, no_strides));
}

TEST_CASE("DebugMode names the rule that made a function compute something else",
          "[debug_mode]") {
  // [doc:debug_mode]
  rw::Var a = rw::vector("a");
  rw::Var y = rw::tanh(a) * 3.0;
  // A rule wrong on purpose: tanh(x) is not x.
  rw::Mode wrong = with_rules("ruleset mine tags(specialize, fast_run)\n"
                              "rule tanh_is_x: tanh(x) => x where float(x)\n");
  rw::Function f = rw::function({a}, y, {.debug_mode = rw::DebugMode{}}, wrong);
  std::string message;
  try {
    f(rw::Tensor::from({0.5, 2.0}));
  } catch (const rw::DebugModeError& e) {
    message = e.what();
    // DebugMode: output 0 of the function is not what the unrewritten graph
    // computes: element 0 (row-major) is 1.5, not 1.3863514717800292
    // (unrewritten); change 1 of 1 changed the outputs: replaced tanh(a) by a
    // [tanh_is_x] (pass specialize, rewriter tanh_is_x); …
  }
  // [/doc:debug_mode]
  CHECK_THAT(message, Contains("DebugMode: output 0 of the function is not what the "
                               "unrewritten graph computes: element 0 (row-major) is 1.5, not "
                               "1.3863514717800292 (unrewritten); change 1 of 1 changed the "
                               "outputs: replaced tanh(a) by a  [tanh_is_x] (pass specialize, "
                               "rewriter tanh_is_x)"));
  CHECK(rw::test::missing_doc_block(RW_SOURCE_DIR "/tests/rw/test_debug_mode.cpp", "debug_mode",
                                    RW_SOURCE_DIR "/docs/debugging.md") == "");
  // The standard pipeline keeps the values.
  auto g = rw::function({a}, rw::log(1.0 + rw::exp(a)) + rw::tanh(a) * 3.0,
                        {.debug_mode = rw::DebugMode{}});
  CHECK_NOTHROW(g(Tensor::from({0.5, -800.0})));
}

TEST_CASE("DebugMode checks the updates against the unrewritten graph, and a refused call "
          "updates nothing",
          "[debug_mode]") {
  rw::Shared w = rw::shared("w", Tensor::from({1.0, 2.0}));
  const rw::Var x = rw::vector("x");
  const rw::Mode wrong = with_rules("ruleset mine tags(specialize, fast_run)\n"
                                    "rule tanh_is_x: tanh(x) => x where float(x)\n");
  auto f = rw::function({x}, {rw::sum(x * w)},
                        {.updates = {{w, rw::tanh(w) + x}}, .debug_mode = rw::DebugMode{}}, wrong);
  CHECK_DEBUG_ERROR(f(Tensor::from({1.0, 1.0})),
                       Contains("the update of shared variable `w`") && Contains("tanh_is_x"));
  CHECK(rw::allclose(w.get_value(), Tensor::from({1.0, 2.0})));
}

TEST_CASE("alloc_empty is filled with NaN in DebugMode, so a read before a write shows",
          "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var n = rw::shape_i(x, 0);
  // Reads the uninitialised buffer: NaN throughout in DebugMode.
  const rw::Var bad = rw::alloc_empty(rw::f64, {n}) + x;
  auto f = rw::compile_function({x}, bad, {.debug_mode = rw::DebugMode{}});
  const Tensor got = f(Tensor::from({1.0, 2.0, 3.0}));
  for (std::int64_t i = 0; i < 3; ++i) CHECK(std::isnan(got.at({i})));
  // Writes every element first: the values are the argument's.
  const rw::Var good = rw::set_subtensor(rw::alloc_empty(rw::f64, {n}), {rw::slice()}, x);
  auto g = rw::compile_function({x}, good, {.debug_mode = rw::DebugMode{}});
  CHECK(rw::allclose(g(Tensor::from({1.0, 2.0, 3.0})), Tensor::from({1.0, 2.0, 3.0})));
  // empty_like: the same over x's shape, of another dtype if asked.
  const rw::Var m = rw::matrix("m");
  const rw::Var e = rw::empty_like(m, rw::f32);
  CHECK(e->tensor_type()->dtype() == rw::f32);
  auto h = rw::compile_function({m}, e, {.debug_mode = rw::DebugMode{}});
  const Tensor got_e = h(Tensor::zeros({2, 5}));
  CHECK(got_e.shape() == rw::Shape{2, 5});
  CHECK(std::isnan(got_e.at({1, 4})));
}

TEST_CASE("RW_FLAGS=debug_mode turns DebugMode on without a rebuild", "[debug_mode]") {
  const rw::Var x = rw::vector("x");
  const rw::Var y = faulty(Fault::WritesInput, rw::exp(x));
  ::setenv("RW_FLAGS", "debug_mode", 1);
  struct Unset {
    ~Unset() { ::unsetenv("RW_FLAGS"); }
  } unset;
  auto f = rw::function({x}, y);
  CHECK_THROWS_AS(f(Tensor::from({1.0, 2.0})), rw::DebugModeError);
  ::unsetenv("RW_FLAGS");
  auto g = rw::function({x}, y);
  CHECK_NOTHROW(g(Tensor::from({1.0, 2.0})));
}

TEST_CASE("DebugMode finds nothing wrong in a rewritten training step", "[debug_mode]") {
  const rw::Var X = rw::matrix("X");
  const rw::Var t = rw::vector("t");
  rw::Shared w = rw::shared("w", Tensor::from({0.5, -0.25, 0.125}));
  const rw::Var p = rw::sigmoid(rw::dot(X, w));
  const rw::Var loss = -rw::mean(t * rw::log(p) + (1.0 - t) * rw::log(1.0 - p));
  const rw::Var gw = rw::grad(loss, {w})[0];
  auto f = rw::function({X, t}, {loss}, {.updates = {{w, w - 0.1 * gw}},
                                         .debug_mode = rw::DebugMode{}});
  auto plain = rw::function({X, t}, {loss});
  const Tensor Xv = Tensor::from({{1.0, 2.0, -1.0}, {0.5, -3.0, 2.0}, {300.0, 1.0, 0.0}});
  const Tensor tv = Tensor::from({1.0, 0.0, 1.0});
  const Tensor want = plain(Xv, tv)[0];
  CHECK(rw::allclose(f(Xv, tv)[0], want));
  CHECK_FALSE(rw::allclose(w.get_value(), Tensor::from({0.5, -0.25, 0.125})));
}

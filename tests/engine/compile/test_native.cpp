// Native functions: Composites compiled from their programs agree with the
// interpreter on every dtype and layout; the background build swaps in; a
// missing or failing compiler leaves the interpreter running with one
// warning; implementations by backend.
#include <cmath>
#include <limits>
#include <random>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include "rw/rewrite.hpp"
#include "support/native_fixtures.hpp"

using namespace rw;
using rw::test::bitwise_difference;
using rw::test::native_in;
using rw::test::TempDir;

namespace {

constexpr std::int64_t kN = 1100;  // two full blocks of 512 and a tail

/// `n` values of `dtype` from `seed`: the awkward ones first (zeros of both
/// signs, infinities, NaN, subnormals, extremes, halves), then random ones.
Tensor values(DType dtype, std::int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  Tensor t = Tensor::empty(dtype, {n});
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    if constexpr (std::is_same_v<T, bool>) {
      for (std::int64_t i = 0; i < n; ++i) p[i] = gen() & 1;
    } else if constexpr (std::is_floating_point_v<T>) {
      using L = std::numeric_limits<T>;
      const T special[] = {T(0),     -T(0),        T(1),          T(-1),        T(0.5),
                           T(-2.5),  T(3.75),      L::infinity(), -L::infinity(), L::quiet_NaN(),
                           L::denorm_min(), L::max(), -L::max(),   T(1e-3),      T(100),
                           T(-100),  T(0.25),      T(0.75),       T(30),        T(-30)};
      std::uniform_real_distribution<double> u(-5, 5);
      for (std::int64_t i = 0; i < n; ++i)
        p[i] = i < 20 ? special[(i + seed) % 20] : static_cast<T>(u(gen));
    } else {
      using L = std::numeric_limits<T>;
      const T special[] = {T(0), T(1), L::min(), L::max(), T(7), T(2), T(3), T(5)};
      std::uniform_int_distribution<int> u(std::is_signed_v<T> ? -20 : 0, 20);
      for (std::int64_t i = 0; i < n; ++i)
        p[i] = i < 8 ? special[(i + seed) % 8] : static_cast<T>(u(gen));
    }
  });
  return t;
}

/// The Composite computing `op` on inputs of `dtype` (cast_to for Cast), or
/// null when `op` is not defined there.
std::shared_ptr<const Composite> single_op(ScalarOp op, DType dtype,
                                           std::optional<DType> cast_to = std::nullopt) {
  try {
    ScalarProgram p;
    std::vector<Reg> in;
    for (int i = 0; i < scalar_op_arity(op); ++i) in.push_back(p.input(dtype));
    p.output(p.apply(op, in, cast_to));
    return std::make_shared<Composite>(p);
  } catch (const rw::ValueError&) {
    return nullptr;
  }
}

struct Compared {
  std::size_t nodes = 0;
  std::size_t native_nodes = 0;
};

/// Compiles `outputs` twice (interpreter; native, into `dir`), calls both on
/// `args` and requires the results to be equal bit for bit.
Compared compare_backends(const std::vector<Var>& inputs, const std::vector<Var>& outputs,
                          const std::vector<Tensor>& args, const TempDir& dir,
                          const std::vector<std::string>& labels = {}) {
  std::vector<In> ins(inputs.begin(), inputs.end());
  auto interp = compile_function(ins, outputs, {.on_unused_input = UnusedInput::Ignore});
  auto native = compile_function(
      ins, outputs, {.on_unused_input = UnusedInput::Ignore, .native = native_in(dir)});
  const NativeStatus st = native.native_status();
  INFO(st.error);
  REQUIRE(st.state == NativeStatus::State::Ready);
  const std::vector<Tensor> want = interp.call(args), got = native.call(args);
  REQUIRE(want.size() == got.size());
  for (std::size_t o = 0; o < want.size(); ++o) {
    INFO("output " << o << (o < labels.size() ? " " + labels[o] : ""));
    CHECK(bitwise_difference(got[o], want[o]) == "");
  }
  return {native.schedule().size(), st.native_nodes};
}

}  // namespace

TEST_CASE("native Composites equal the interpreter for every scalar op and dtype", "[native]") {
  TempDir dir("composite");
  for (DType dtype : kAllDTypes) {
    INFO("dtype " << dtype_name(dtype));
    const Var x = vector("x", dtype), y = vector("y", dtype), z = vector("z", dtype);
    // One element broadcast over the others: the scalar layout.
    const Var s = tensor("s", dtype, {1});
    const Var dense[] = {x, y, z};
    std::vector<Var> outputs;
    std::vector<std::string> labels;
    for (ScalarOp op : kAllScalarOps) {
      // The interpreter's i0 and i1 throw for the extremes among the values
      // (libstdc++'s cyl_bessel_i); the registry walk covers them.
      if (op == ScalarOp::I0 || op == ScalarOp::I1) continue;
      std::vector<std::optional<DType>> targets = {std::nullopt};
      if (op == ScalarOp::Cast) targets.assign(std::begin(kAllDTypes), std::end(kAllDTypes));
      for (const std::optional<DType>& to : targets) {
        const auto c = single_op(op, dtype, to);
        if (!c) continue;
        const int arity = scalar_op_arity(op);
        std::vector<Var> args(dense, dense + arity);
        outputs.push_back((*c)(args));
        labels.push_back(c->to_string());
        args.back() = s;  // the last operand broadcast
        outputs.push_back((*c)(args));
        labels.push_back(c->to_string() + " with a scalar");
      }
    }
    const Tensor sv = values(dtype, 1, 9);
    const Compared r = compare_backends({x, y, z, s}, outputs,
                                        {values(dtype, kN, 1), values(dtype, kN, 2),
                                         values(dtype, kN, 3), sv},
                                        dir, labels);
    // Every node has native code.
    CHECK(r.native_nodes == r.nodes);
  }
}

TEST_CASE("a fused, in-place graph runs natively with the interpreter's values", "[native]") {
  TempDir dir("fused");
  const Var x = vector("x"), y = vector("y");
  const Var e13 = exp(-x) * y + tanh(x) * (y - 1.5) / (1.0 + x * x) - sqrt(abs(y));
  const Var mixed = where(x > y, cast(x * 3.0, i32), mod(cast(y, i32), 3));
  const Var f32 = sigmoid(cast(x, rw::f32)) * 2.0f;
  std::vector<In> ins{x, y};
  auto interp = rw::function(ins, {e13, mixed, f32});
  TempDir d2("fused-native");
  auto native = rw::function(ins, {e13, mixed, f32}, {.native = native_in(d2)});
  const NativeStatus st = native.native_status();
  INFO(st.error);
  REQUIRE(st.state == NativeStatus::State::Ready);
  CHECK(st.native_nodes >= 1);
  const Tensor xs = values(f64, 100000, 4), ys = values(f64, 100000, 5);
  const auto want = interp(xs, ys);
  // Twice: the second call reuses the first one's buffers (and in place).
  for (int call = 0; call < 2; ++call) {
    const auto got = native(xs, ys);
    for (std::size_t o = 0; o < want.size(); ++o) CHECK(bitwise_difference(got[o], want[o]) == "");
  }
}

TEST_CASE("a layout the native code does not handle runs on the interpreter", "[native]") {
  TempDir dir("layout");
  const Var m = matrix("m"), v = vector("v");
  // exp(m) * 2 is dense; m + v broadcasts v along rows, read through strides.
  auto native = compile_function({m, v}, {exp(m) * 2.0, m + v}, {.native = native_in(dir)});
  auto interp = compile_function({m, v}, {exp(m) * 2.0, m + v});
  REQUIRE(native.native_status().state == NativeStatus::State::Ready);
  CHECK(native.native_status().native_nodes == 3);  // exp, mul and the broadcasting add
  Rng rng(3);
  const Tensor a = rng.uniform({40, 30}, -1, 1), b = rng.uniform({30}, -1, 1);
  // A transposed argument is not contiguous: the code declines, perform runs.
  const Tensor at = a.transpose();  // (30, 40), strides (1, 30)
  const Tensor bv = rng.uniform({40}, -1, 1);
  const auto want = interp(at, bv), got = native(at, bv);
  for (std::size_t o = 0; o < want.size(); ++o) CHECK(bitwise_difference(got[o], want[o]) == "");
  const auto want2 = interp(a, b), got2 = native(a, b);
  for (std::size_t o = 0; o < want2.size(); ++o) CHECK(bitwise_difference(got2[o], want2[o]) == "");
}

TEST_CASE("the module compiled in the background is swapped in, with the same values",
          "[native]") {
  TempDir dir("async");
  const Var x = vector("x"), y = vector("y");
  const Var out = exp(-x) * y + tanh(x) * (y - 1.5);
  auto f = rw::function({x, y}, out, {.native = native_in(dir, Native::Async)});
  // Compiling takes far longer than this: the call does not wait for it.
  CHECK(f.native_status().state == NativeStatus::State::Building);
  const Tensor xs = values(f64, 5000, 6), ys = values(f64, 5000, 7);
  const Tensor before = f(xs, ys);
  f.wait_native();
  const NativeStatus st = f.native_status();
  INFO(st.error);
  REQUIRE(st.state == NativeStatus::State::Ready);
  CHECK_FALSE(st.cached);
  const Tensor after = f(xs, ys);
  CHECK(bitwise_difference(after, before) == "");

  // A second function of the same graph finds the module in the directory;
  // a copy shares its function's module.
  auto g = rw::function({x, y}, out, {.native = native_in(dir, Native::Sync)});
  CHECK(g.native_status().state == NativeStatus::State::Ready);
  CHECK(g.native_status().cached);
  auto h = g;
  CHECK(h.native_status().state == NativeStatus::State::Ready);
  CHECK(bitwise_difference(h(xs, ys), before) == "");
}

namespace {
/// Sets an environment variable for its lifetime.
struct EnvSet {
  const char* name;
  EnvSet(const char* n, const std::string& value) : name(n) { setenv(n, value.c_str(), 1); }
  ~EnvSet() { unsetenv(name); }
  EnvSet(const EnvSet&) = delete;
  EnvSet& operator=(const EnvSet&) = delete;
};
}  // namespace

TEST_CASE("RW_FLAGS=native turns the native backend on without a rebuild", "[native]") {
  TempDir dir("flags");
  const EnvSet compile_dir("RW_COMPILEDIR", dir.path().string());
  const Var x = vector("x");
  const Var out = exp(-x) * 2.0 + tanh(x);
  const Tensor xs = values(f64, 700, 3);
  const Tensor want = rw::function({x}, out)(xs);
  {
    const EnvSet flags("RW_FLAGS", "native=sync");
    auto f = rw::function({x}, out);
    const NativeStatus st = f.native_status();
    INFO(st.error);
    REQUIRE(st.state == NativeStatus::State::Ready);
    CHECK(bitwise_difference(f(xs), want) == "");
  }
  {
    // Bare `native` is the background build.
    const EnvSet flags("RW_FLAGS", " native ");
    auto f = rw::function({x}, out);
    f.wait_native();
    CHECK(f.native_status().state == NativeStatus::State::Ready);
    CHECK(f.native_status().cached);  // the module the first block built
  }
  {
    // `native=off` wins over options that ask for native code.
    const EnvSet flags("RW_FLAGS", "native=off");
    auto f = rw::function({x}, out, {.native = native_in(dir, Native::Sync)});
    CHECK(f.native_status().state == NativeStatus::State::Off);
    CHECK(bitwise_difference(f(xs), want) == "");
  }
  {
    const EnvSet flags("RW_FLAGS", "native=fast");
    CHECK_THROWS_WITH(rw::function({x}, out),
                      "RW_FLAGS: `native=fast` names no native mode (the modes are `off`, "
                      "`async` and `sync`)");
  }
  // Unset: the options' default, the interpreter.
  CHECK(rw::function({x}, out).native_status().state == NativeStatus::State::Off);
}

TEST_CASE("without a compiler the interpreter runs, after one warning naming it", "[native]") {
  TempDir dir("no-cxx");
  std::vector<std::string> warnings;
  NativeOptions o = native_in(dir);
  o.compiler = "/nonexistent/rw-function-test-c++";
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  const Var x = vector("x");
  auto f = rw::function({x}, exp(x) * 2.0, {.native = o});
  auto g = rw::function({x}, tanh(x) + 1.0, {.native = o});
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("/nonexistent/rw-function-test-c++"));
  CHECK_THAT(warnings[0], Catch::Contains("the interpreter runs it"));
  CHECK(f.native_status().state == NativeStatus::State::Failed);
  CHECK(g.native_status().state == NativeStatus::State::Failed);
  const Tensor xs = Tensor::from({0.0, 1.0});
  CHECK(allclose(f(xs), Tensor::from({2.0, 2 * std::exp(1.0)})));

  // $CXX names the compiler when the options do not.
  const char* old = std::getenv("CXX");
  const std::string saved = old ? old : "";
  ::setenv("CXX", "/nonexistent/rw-env-c++", 1);
  NativeOptions e = native_in(dir, Native::Async);
  e.on_warning = o.on_warning;
  auto h = rw::function({x}, exp(x) * 3.0, {.native = e});
  h.wait_native();
  if (old) ::setenv("CXX", saved.c_str(), 1);
  else ::unsetenv("CXX");
  REQUIRE(warnings.size() == 2);
  CHECK_THAT(warnings[1], Catch::Contains("/nonexistent/rw-env-c++"));
  CHECK(allclose(h(xs), Tensor::from({3.0, 3 * std::exp(1.0)})));
}

TEST_CASE("a failing compile leaves the interpreter running, after one warning", "[native]") {
  TempDir dir("bad-code");
  std::vector<std::string> warnings;
  NativeOptions o = native_in(dir);
  o.on_warning = [&](const std::string& w) { warnings.push_back(w); };
  auto impls = std::make_shared<ImplRegistry>();
  register_impl(*impls, "exp", "native", [](const Apply&, const NativeNames&) {
    NativeCode c;
    c.c_code = "  this is not C++;";
    return std::optional<NativeCode>(c);
  });
  const Var x = vector("x");
  auto f = compile_function({x}, exp(x), {.native = o, .impls = impls});
  auto g = compile_function({x}, exp(x), {.native = o, .impls = impls});
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Catch::Contains("failed (status"));
  CHECK(f.native_status().state == NativeStatus::State::Failed);
  CHECK(allclose(g(Tensor::from({0.0})), Tensor::from({1.0})));
}

TEST_CASE("an implementation registered for one backend replaces the Op's own there",
          "[native]") {
  auto impls = std::make_shared<ImplRegistry>();
  // By name, for the interpreter: every `exp` node gives 7.
  register_impl(*impls, "exp", "interpreter",
                [](const Apply&, std::span<const Tensor> in, std::span<Tensor> out) {
                  out[0] = Tensor::full(in[0].shape(), 7.0);
                });
  // By class, for native code: every `Elemwise` node's code declines, so
  // its perform (or the interpreter implementation above) runs.
  register_impl<Elemwise>(*impls, "native", [](const Apply&, const NativeNames&) {
    NativeCode c;
    c.c_code = "  return RW_FALLBACK;";
    return std::optional<NativeCode>(c);
  });
  CHECK_THROWS_WITH(register_impl(*impls, "exp", "jax", [](const Apply&, const NativeNames&) {
                      return std::optional<NativeCode>();
                    }),
                    Catch::Contains("unknown backend `jax`"));

  const Var x = vector("x");
  const Tensor xs = Tensor::from({0.0, 1.0});
  auto interp = compile_function({x}, exp(x) + 1.0, {.impls = impls});
  CHECK(allclose(interp(xs), Tensor::from({8.0, 8.0})));
  TempDir dir("impls");
  auto native = compile_function({x}, exp(x) + 1.0, {.native = native_in(dir), .impls = impls});
  REQUIRE(native.native_status().state == NativeStatus::State::Ready);
  CHECK(native.native_status().native_nodes == 2);
  CHECK(allclose(native(xs), Tensor::from({8.0, 8.0})));
  // Without the registry, the Ops' own.
  CHECK(allclose(compile_function({x}, exp(x) + 1.0)(xs), Tensor::from({2.0, 1 + std::exp(1.0)})));
}

TEST_CASE("Ops without native code run their perform inside a native function", "[native]") {
  TempDir dir("mixed");
  const Var m = matrix("m");
  const Var out = sum(exp(m) * 2.0, {1}) + 1.0;
  const Compared r = compare_backends({m}, {out, dot(m, transpose(m))}, {Rng(5).uniform({20, 20}, -1, 1)},
                                      dir);
  CHECK(r.native_nodes > 0);
  CHECK(r.native_nodes < r.nodes);
}

TEST_CASE("a program too long for a thread's stack runs on the interpreter", "[native]") {
  TempDir dir("long");
  const Var x = vector("x");
  Var chain = x;
  for (int i = 0; i < 100; ++i) chain = sin(chain);  // one Composite of 100 kernel calls
  auto native = rw::function({x}, chain, {.native = native_in(dir)});
  auto interp = rw::function({x}, chain);
  REQUIRE(native.schedule().size() == 1);
  CHECK(native.native_status().state == NativeStatus::State::Off);
  const Tensor xs = values(f64, 3000, 8);
  CHECK(bitwise_difference(native(xs), interp(xs)) == "");
}

namespace {

/// Finite values of `dtype` in `shape` (floats in [-5, 5), so that a sum's
/// rounding depends on its order; integers in [-20, 20]).
Tensor finite(DType dtype, std::vector<std::int64_t> shape, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-5, 5);
  Tensor t = Tensor::empty(DType::Float64, shape);
  double* p = t.data<double>();
  for (std::int64_t i = 0; i < t.size(); ++i)
    p[i] = is_float(dtype) ? u(gen) : std::round(4 * u(gen));
  return t.astype(dtype);
}

/// The reductions compared below, on `x`'s values or on a fused program of
/// them, over `axes`.
std::vector<Var> reductions(const Var& x, const Axes& axes) {
  const bool flt = is_float(x->tensor_type()->dtype());
  // A program the fusion turns into one CompositeReduce with each reduction.
  const Var fused = flt ? exp(x * 0.5) - x : x * x + 3;
  return {sum(x, axes), prod(x * 0 + 1, axes), max(x, axes), min(x, axes), mean(x, axes),
          sum(fused, axes), max(fused, axes), prod(flt ? cos(x) + 1.0 : mod(x, 2) + 1, axes),
          mean(fused, axes), any(x > 3, axes), all(x < 4, axes)};
}

}  // namespace

TEST_CASE("native reductions equal the interpreter's bit for bit on every op, dtype and layout",
          "[native][reduce]") {
  TempDir dir("reduce");
  struct Case {
    std::vector<std::int64_t> shape;
    std::vector<std::int64_t> axes;  // empty: all
  };
  // Full reductions and trailing axes (the inner mode, in the flat order of
  // memory), leading axes (the outer mode: Ki >= 16 rows accumulated row by
  // row; with fewer kept columns, the inner mode over (kept, reduced)),
  // sizes that make several chunks of 65536 and straddling results.
  const Case cases[] = {
      {{200003}, {}},          {{3, 70001}, {1}},     {{300, 700}, {1}},
      {{7, 11, 13}, {1, 2}},   {{10000, 20}, {0}},    {{4100, 3, 40}, {0}},
      {{50, 9, 2100}, {0, 1}}, {{300, 700}, {}},      {{1}, {}},
      {{5000, 7}, {0}},        {{70, 50, 3}, {0, 1}}, {{100000, 2}, {0}},
  };
  for (DType dtype : {f64, rw::f32, i32, u8}) {
    for (const Case& c : cases) {
      INFO(dtype_name(dtype) << " shape " << shape_to_string(c.shape) << " axes "
                             << shape_to_string(c.axes));
      const Var x = tensor("x", dtype, StaticShape(c.shape.size(), kUnknownDim));
      const Axes axes = c.axes.empty() ? Axes::all() : Axes(std::span<const std::int64_t>(c.axes));
      const Compared r =
          compare_backends({x}, reductions(x, axes), {finite(dtype, c.shape, 3)}, dir);
      // Every node is a reduction (or a CompositeReduce) with native code.
      CHECK(r.native_nodes == r.nodes);
    }
  }
}

TEST_CASE("native reductions decline the layouts whose interpreter order they do not follow",
          "[native][reduce]") {
  TempDir dir("reduce-decline");
  const Var m = matrix("m"), t = tensor("t", f64, {kUnknownDim, kUnknownDim, kUnknownDim});
  // A transposed (non-contiguous) argument: the code declines.
  const Tensor mt = finite(f64, {900, 300}, 5).transpose();
  Compared r = compare_backends({m}, reductions(m, Axes::all()), {mt}, dir);
  CHECK(r.native_nodes == r.nodes);
  r = compare_backends({m}, reductions(m, {1}), {mt}, dir);
  CHECK(r.native_nodes == r.nodes);
  // A leading reduction of a program with a one-element input.
  const Var one = tensor("s", f64, {1, 1});
  r = compare_backends({one, m}, {sum(one * m, {0}), max(exp(m) - one, {0})},
                       {finite(f64, {1, 1}, 7), finite(f64, {3000, 40}, 8)}, dir);
  CHECK(r.native_nodes == r.nodes);
  // One value per result in a wide row (R == 1): the interpreter's outer
  // mode copies each value, keeping -0.0 where a fold would give +0.0.
  const Tensor zeros = Tensor::full(std::vector<std::int64_t>{40, 1}, -0.0);
  r = compare_backends({m}, {sum(m, {1}), sum(m * 2.0, {1})}, {zeros}, dir);
  CHECK(r.native_nodes == r.nodes);
  CHECK(std::signbit(rw::function({m}, sum(m, {1}), {.native = native_in(dir)})(zeros)
                         .data<double>()[0]));
  // A middle axis neither trails nor leads: no native code for the sums
  // (the exp, which fusion leaves apart here, has its own).
  auto f = compile_function({t}, {sum(t, {1}), sum(exp(t), {1})}, {.native = native_in(dir)});
  for (Apply* a : f.schedule()) UNSCOPED_INFO(a->op().to_string());
  CHECK(f.schedule().size() == 3);
  CHECK(f.native_status().native_nodes == 1);
  const Tensor tv = finite(f64, {30, 40, 50}, 6);
  const auto want = compile_function({t}, {sum(t, {1}), sum(exp(t), {1})})(tv);
  const auto got = f(tv);
  for (std::size_t o = 0; o < want.size(); ++o) CHECK(bitwise_difference(got[o], want[o]) == "");
}

TEST_CASE("native reductions of empty tensors give the identity or the interpreter's error",
          "[native][reduce]") {
  TempDir dir("reduce-empty");
  const Var m = matrix("m");
  for (const std::vector<std::int64_t>& shape : {std::vector<std::int64_t>{0, 5},
                                                 std::vector<std::int64_t>{5, 0},
                                                 std::vector<std::int64_t>{0, 0}}) {
    INFO("shape " << shape_to_string(shape));
    const Tensor e = Tensor::zeros(shape);
    for (std::int64_t axis : {0, 1}) {
      const Compared r = compare_backends(
          {m}, {sum(m, {axis}), prod(exp(m), {axis}), mean(m, {axis}), any(m > 0, {axis})}, {e},
          dir);
      CHECK(r.native_nodes == r.nodes);
    }
    compare_backends({m}, {sum(m), mean(m * 2.0)}, {e}, dir);
    // An empty max has no identity: the code declines, perform says why.
    auto f = rw::function({m}, max(m, {0}), {.native = native_in(dir)});
    REQUIRE(f.native_status().native_nodes == 1);
    if (shape[0] == 0 && shape[1] != 0)
      CHECK_THROWS_WITH(f(e), Catch::Contains("`max` of an empty reduction has no identity"));
    else CHECK(f(e).size() == 0);
  }
}

TEST_CASE("a native fused sum holds the program's kernel calls and NaN rules",
          "[native][reduce]") {
  TempDir dir("reduce-special");
  const Var x = vector("x"), y = vector("y");
  // Specials (NaN, infinities, -0.0) through max/min's NaN rule and exp.
  const Compared r = compare_backends(
      {x, y}, {max(x * y, Axes::all()), min(exp(x) - y, Axes::all()), sum(exp(x) * y)},
      {values(f64, 100000, 11), values(f64, 100000, 12)}, dir);
  CHECK(r.native_nodes == r.nodes);
  auto f = rw::function({x}, sum(exp(x)), {.native = native_in(dir)});
  CHECK_THAT(f.native_source(), Catch::Contains("rw_reduce_job"));
}

TEST_CASE("native Composites broadcast inputs along the axes their types say, by strides",
          "[native][broadcast]") {
  TempDir dir("broadcast");
  for (DType dtype : {f64, rw::f32, i32}) {
    INFO("dtype " << dtype_name(dtype));
    const bool flt = is_float(dtype);
    const Var m = matrix("m", dtype), v = vector("v", dtype);
    const Var col = tensor("c", dtype, {kUnknownDim, 1});
    const Var row = tensor("r", dtype, {1, kUnknownDim});
    const Var t = tensor("t", dtype, {kUnknownDim, kUnknownDim, kUnknownDim});
    const Var mid = tensor("w", dtype, {kUnknownDim, 1, kUnknownDim});
    const Var bias = flt ? exp(m) * v + 1 : m * v + 3;  // a bias vector over the rows
    const std::vector<Var> outs = {bias, m - col, col * row + v, t + v, t * mid - v,
                                   flt ? tanh(t + mid) : mod(t, 7) + mid};
    const std::vector<Var> ins = {m, v, col, row, t, mid};
    for (const auto& [rows, cols, depth] : {std::tuple{40, 30, 5}, std::tuple{700, 1000, 3},
                                            std::tuple{0, 30, 2}, std::tuple{3, 1, 1}}) {
      INFO(rows << " x " << cols << " x " << depth);
      const std::int64_t r = rows, c = cols, d = depth;
      const std::vector<Tensor> args = {finite(dtype, {r, c}, 1), finite(dtype, {c}, 2),
                                        finite(dtype, {r, 1}, 3),  finite(dtype, {1, c}, 4),
                                        finite(dtype, {d, r, c}, 5), finite(dtype, {d, 1, c}, 6)};
      const Compared k = compare_backends(ins, outs, args, dir);
      CHECK(k.native_nodes == k.nodes);
    }
    // Views: a strided vector and a transposed column are read through their
    // strides natively; a transposed dense matrix makes the code decline.
    const Tensor wide = finite(dtype, {40, 80}, 7);
    const std::vector<Tensor> views = {finite(dtype, {40, 30}, 8).transpose(),
                                       wide.slice(1, 0, 80, 2).select(0, 3),
                                       finite(dtype, {1, 30}, 9).transpose(),
                                       finite(dtype, {1, 40}, 10),
                                       finite(dtype, {2, 30, 40}, 11),
                                       finite(dtype, {40, 2}, 12).transpose().reshape(
                                           std::vector<std::int64_t>{2, 1, 40})};
    compare_backends(ins, outs, views, dir);
  }
}

TEST_CASE("a broadcast that does not fit declines and gets the interpreter's error",
          "[native][broadcast]") {
  TempDir dir("broadcast-misfit");
  const Var m = matrix("m"), v = vector("v");
  auto native = rw::function({m, v}, exp(m) * v, {.native = native_in(dir)});
  auto interp = rw::function({m, v}, exp(m) * v);
  REQUIRE(native.native_status().native_nodes == 1);
  const Tensor a = finite(f64, {40, 30}, 1), b = finite(f64, {29}, 2);
  CHECK_THROWS_WITH(interp(a, b), Catch::Contains("has extent 29 on axis 1"));
  CHECK_THROWS_WITH(native(a, b), Catch::Contains("has extent 29 on axis 1"));
  // A vector of one element where the type does not say it broadcasts.
  CHECK_THROWS_WITH(native(a, finite(f64, {1}, 3)),
                    Catch::Contains("does not say the axis broadcasts"));
  CHECK(bitwise_difference(native(a, finite(f64, {30}, 4)), interp(a, finite(f64, {30}, 4))) == "");
}

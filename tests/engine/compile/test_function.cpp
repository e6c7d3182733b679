// Compiled functions: calling conventions, argument checks, output copies,
// compile-time errors, givens, and the rewrite hook.
#include <catch2/catch.hpp>

#include <cmath>
#include <future>
#include <thread>
#include <type_traits>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/errors.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/errors.hpp"
#include "support/toy_inplace_ops.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

Tensor vec(std::initializer_list<double> v) { return Tensor::from(v); }

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.size(); ++i) out.push_back(t.reshape(std::vector<std::int64_t>{-1}).at({i}));
  return out;
}

/// The op names of the nodes computing each output of a compiled graph.
std::vector<std::string> output_ops(const FunctionBase& f) {
  std::vector<std::string> out;
  for (const Var& o : f.fgraph().outputs())
    out.push_back(o->owner() ? std::string(o->owner()->op().name()) : "<root>");
  return out;
}

}  // namespace

TEST_CASE("a compiled function computes its outputs from its arguments", "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  auto f = compile_function({x, y}, {add(mul(x, y), fconst(1.0)), exp(sub(x, y))});
  const Tensor a = vec({1.0, 2.0, 3.0}), b = vec({0.5, -1.0, 4.0});
  auto [s, e] = f(a, b);
  REQUIRE(values(s) == std::vector<double>{1.5, -1.0, 13.0});
  REQUIRE(values(e) == std::vector<double>{std::exp(0.5), std::exp(3.0), std::exp(-1.0)});
  // Calling again with other values gives other results.
  auto [s2, e2] = f(b, a);
  REQUIRE(values(s2) == std::vector<double>{1.5, -1.0, 13.0});
  REQUIRE(values(e2) == std::vector<double>{std::exp(-0.5), std::exp(-3.0), std::exp(1.0)});
}

TEST_CASE("the way outputs are given picks what a call returns", "[compile]") {
  Var x = fvec("x");
  Var a = add(x, fconst(1.0)), b = neg(x);
  const Tensor t = vec({2.0});

  auto braced = compile_function({x}, {a, b});
  static_assert(std::is_same_v<decltype(braced), Function<std::array<Tensor, 2>>>);
  static_assert(std::is_same_v<decltype(braced(t)), std::array<Tensor, 2>>);
  auto [p, q] = braced(t);
  REQUIRE(values(p) == std::vector<double>{3.0});
  REQUIRE(values(q) == std::vector<double>{-2.0});

  auto one_braced = compile_function({x}, {a});
  static_assert(std::is_same_v<decltype(one_braced(t)), std::array<Tensor, 1>>);
  REQUIRE(values(one_braced(t)[0]) == std::vector<double>{3.0});

  auto single = compile_function({x}, a);
  static_assert(std::is_same_v<decltype(single(t)), Tensor>);
  REQUIRE(values(single(t)) == std::vector<double>{3.0});

  const std::vector<Var> outs{a, b, a};
  auto many = compile_function({x}, outs);
  static_assert(std::is_same_v<decltype(many(t)), std::vector<Tensor>>);
  const std::vector<Tensor> r = many(t);
  REQUIRE(r.size() == 3);
  REQUIRE(values(r[2]) == std::vector<double>{3.0});

  // Class template argument deduction keeps the call type, as DESIGN.md writes it.
  Function g = compile_function({x}, {a, b});
  static_assert(std::is_same_v<decltype(g), Function<std::array<Tensor, 2>>>);
  // Any function converts to the vector form.
  Function<> h = std::move(g);
  REQUIRE(values(h(t)[1]) == std::vector<double>{-2.0});
  // call() takes the arguments as a sequence.
  const std::vector<Tensor> args{t};
  REQUIRE(values(single.call(args)) == std::vector<double>{3.0});
  // Re-typing checks the number of outputs.
  REQUIRE_THROWS_WITH(Function<Tensor>(FunctionBase(many)),
                      "a function returning a Tensor needs 1 output, not 3");
}

TEST_CASE("arguments are checked against the input types", "[compile]") {
  Var x = ftensor("x", {kUnknownDim, 3});
  auto f = compile_function({x}, neg(x), {.name = "f"});
  REQUIRE(values(f(Tensor::from({{1.0, 2.0, 3.0}}))) == std::vector<double>{-1.0, -2.0, -3.0});

  SECTION("a known extent that differs") {
    REQUIRE_THROWS_WITH(f(Tensor::zeros({2, 4})),
                        "argument 0 (`x`) of function `f`: expected a tensor of type f64[?,3], "
                        "got one of dtype float64 and shape (2, 4) (axis 1 has length 4, not 3)");
  }
  SECTION("another rank") {
    REQUIRE_THROWS_WITH(f(Tensor::zeros({3})),
                        "argument 0 (`x`) of function `f`: expected a tensor of type f64[?,3], "
                        "got one of dtype float64 and shape (3,) (1 dimensions instead of 2)");
  }
  SECTION("no tensor at all") {
    REQUIRE_THROWS_WITH(f(Tensor()), "argument 0 (`x`) of function `f`: expected a tensor of "
                                     "type f64[?,3], got none");
  }
  SECTION("the error is a TypeError") { REQUIRE_THROWS_AS(f(Tensor::zeros({3})), TypeError); }
}

TEST_CASE("argument dtypes convert only where the input allows it", "[compile]") {
  Var x = fvec("x");
  auto lossless = compile_function({x}, neg(x));
  // int32 → float64 loses nothing: converted.
  REQUIRE(values(lossless(Tensor::from({1, 2}))) == std::vector<double>{-1.0, -2.0});

  auto strict = compile_function({In(x).with_strict()}, neg(x), {.name = "g"});
  REQUIRE_THROWS_WITH(strict(Tensor::from({1, 2})),
                      "argument 0 (`x`) of function `g`: expected a tensor of type f64[?], got one "
                      "of dtype int32 and shape (2,) (dtype must match exactly)");

  Var x32 = Variable::make(TensorType::make(f32, {kUnknownDim}), "h");
  auto narrow = compile_function({x32}, x32);
  REQUIRE_THROWS_WITH(narrow(vec({0.5})),
                      "argument 0 (`h`) of the function: expected a tensor of type f32[?], got one "
                      "of dtype float64 and shape (1,) (float64 to float32 may lose precision; "
                      "allow downcast to accept it)");
  auto downcast = compile_function({In(x32).with_allow_downcast()}, x32);
  const Tensor r = downcast(vec({0.5}));
  REQUIRE(r.dtype() == f32);
  REQUIRE(r.item<double>() == 0.5);
}

TEST_CASE("a call with the wrong number of arguments names the inputs", "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  auto f = compile_function({x, y}, add(x, y), {.name = "f"});
  REQUIRE_THROWS_WITH(f(vec({1.0})), "function `f` takes 2 arguments (`x`, `y`), got 1");
  REQUIRE_THROWS_WITH(f(vec({1.0}), vec({1.0}), vec({1.0})),
                      "function `f` takes 2 arguments (`x`, `y`), got 3");
  auto g = compile_function({x}, neg(x));
  REQUIRE_THROWS_WITH(g(), "the function takes 1 argument (`x`), got 0");
  auto h = compile_function({x, In(y).with_default(vec({10.0}))}, add(x, y));
  REQUIRE_THROWS_WITH(h(), "the function takes 1 to 2 arguments (`x`, `y`), got 0");
}

TEST_CASE("default values fill trailing arguments", "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  // An int default for a float64 input is converted once, at compile time.
  auto f = compile_function({x, In(y).with_default(Tensor::from({10}))}, add(x, y));
  REQUIRE(f.num_inputs() == 2);
  REQUIRE(f.num_required_inputs() == 1);
  REQUIRE(values(f(vec({1.0}))) == std::vector<double>{11.0});
  REQUIRE(values(f(vec({1.0}), vec({2.0}))) == std::vector<double>{3.0});

  REQUIRE_THROWS_WITH(compile_function({In(x).with_default(vec({1.0})), y}, add(x, y)),
                      "input 1 (`y`) of the function has no default value but follows an input "
                      "that has one");
  REQUIRE_THROWS_WITH(compile_function({x, In(y).with_default(Tensor::zeros({2, 2}))}, add(x, y)),
                      "the default value of input 1 (`y`) of the function: expected a tensor of "
                      "type f64[?], got one of dtype float64 and shape (2, 2) (2 dimensions "
                      "instead of 1)");
}

TEST_CASE("outputs that are inputs or constants are independent copies", "[compile]") {
  Var x = fvec("x");
  Var c = Constant::make(vec({5.0, 6.0}));
  auto f = compile_function({x}, {x, c, x, view(x)});
  REQUIRE(output_ops(f) ==
          std::vector<std::string>{"deep_copy", "deep_copy", "deep_copy", "deep_copy"});
  const Tensor a = vec({1.0, 2.0});
  auto [r0, r1, r2, r3] = f(a);
  REQUIRE(values(r0) == std::vector<double>{1.0, 2.0});
  REQUIRE(values(r3) == std::vector<double>{1.0, 2.0});
  REQUIRE_FALSE(r0.shares_storage(a));
  REQUIRE_FALSE(r2.shares_storage(a));
  REQUIRE_FALSE(r0.shares_storage(r2));
  REQUIRE_FALSE(r3.shares_storage(a));
  // Writing into a returned constant changes neither the constant nor the
  // next call's result.
  r1.data<double>()[0] = -1.0;
  REQUIRE(c->as_constant()->value().at({0}) == 5.0);
  auto [s0, s1, s2, s3] = f(a);
  REQUIRE(values(s1) == std::vector<double>{5.0, 6.0});
}

TEST_CASE("outputs computed into their own buffers are not copied", "[compile]") {
  Var x = fvec("x");
  Var y = exp(x);
  // Only the second use of the same buffer needs a copy.
  auto f = compile_function({x}, {y, neg(x), y, view(y)});
  REQUIRE(output_ops(f) == std::vector<std::string>{"exp", "neg", "deep_copy", "deep_copy"});
  auto [a, b, c, d] = f(vec({0.0}));
  REQUIRE(values(c) == std::vector<double>{1.0});
  REQUIRE(values(d) == std::vector<double>{1.0});
  REQUIRE_FALSE(a.shares_storage(c));
  REQUIRE_FALSE(a.shares_storage(d));
  REQUIRE_FALSE(c.shares_storage(d));
}

TEST_CASE("repeated calls reuse storage without touching returned outputs", "[compile]") {
  Var x = fvec("x");
  for (bool gc : {true, false}) {
    CAPTURE(gc);
    auto f = compile_function({x}, add(exp(x), fconst(1.0)), {.allow_gc = gc});
    Tensor r1 = f(vec({0.0, 1.0}));
    Tensor r2 = f(vec({2.0, 3.0}));
    REQUIRE_FALSE(r1.shares_storage(r2));
    REQUIRE(values(r1) == std::vector<double>{2.0, std::exp(1.0) + 1});
    REQUIRE(values(r2) == std::vector<double>{std::exp(2.0) + 1, std::exp(3.0) + 1});
    // Once the caller lets go of a result, a function that keeps its
    // buffers computes the next result into it.
    const void* buffer = r2.storage().get();
    r2 = Tensor();
    Tensor r3 = f(vec({0.0, 0.0}));
    REQUIRE(values(r3) == std::vector<double>{2.0, 2.0});
    if (!gc) REQUIRE(r3.storage().get() == buffer);
    REQUIRE(values(r1) == std::vector<double>{2.0, std::exp(1.0) + 1});
  }
}

TEST_CASE("a function keeps no reference to its arguments after a call", "[compile]") {
  Var x = fvec("x");
  for (bool gc : {true, false}) {
    CAPTURE(gc);
    auto f = compile_function({x}, {exp(view(x)), add(x, x)}, {.allow_gc = gc});
    const Tensor a = vec({1.0, 2.0});
    auto r = f(a);
    REQUIRE(a.storage().use_count() == 1);
  }
}

TEST_CASE("multi-output nodes run and unused outputs are fine", "[compile]") {
  Var x = fvec("x");
  ApplyRef node = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  auto f = compile_function({x}, {node->output(1), add(node->output(0), fconst(1.0))});
  auto [m, p] = f(vec({1.0, -2.0}));
  REQUIRE(values(m) == std::vector<double>{-1.0, 2.0});
  REQUIRE(values(p) == std::vector<double>{2.0, -1.0});
  auto g = compile_function({x}, node->output(1));  // output 0 is computed and dropped
  REQUIRE(values(g(vec({3.0}))) == std::vector<double>{-3.0});
}

TEST_CASE("compiling refuses bad inputs and outputs, naming them", "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  Shared w = shared("w", vec({1.0}));
  REQUIRE_THROWS_WITH(compile_function({x, Var()}, x), "input 1 of the function is null");
  REQUIRE_THROWS_WITH(compile_function({Constant::scalar(1.0)}, x, {.name = "f"}),
                      "input 0 of function `f` is constant `1.0`; a constant cannot be an input");
  REQUIRE_THROWS_WITH(compile_function({w}, add(w, fconst(1.0))),
                      "input 0 of the function is the shared variable `w`; shared variables are "
                      "implicit inputs (substitute it with givens to make it an argument)");
  REQUIRE_THROWS_WITH(compile_function({x, x}, x), "`x` is given twice as an input of the function");
  REQUIRE_THROWS_WITH(compile_function({x}, std::vector<Var>{x, Var()}),
                      "output 1 of the function is null");
  REQUIRE_THROWS_WITH(compile_function({x}, add(x, y)),
                      "the function needs `y`, which is neither one of its inputs, a shared "
                      "variable nor a constant");
  REQUIRE_THROWS_AS(compile_function({x}, add(x, y)), MissingInputError);
  REQUIRE_THROWS_WITH(compile_function({x, y}, neg(x), {.name = "f"}),
                      "input 1 (`y`) of function `f` is not used by any output or update "
                      "(compile with on_unused_input = UnusedInput::Ignore to accept it)");
  auto f = compile_function({x, y}, neg(x), {.on_unused_input = UnusedInput::Ignore});
  REQUIRE(values(f(vec({1.0}), vec({7.0, 8.0}))) == std::vector<double>{-1.0});
  // The unused argument is still checked.
  REQUIRE_THROWS_AS(f(vec({1.0}), Tensor::zeros({1, 1})), TypeError);
}

TEST_CASE("an input computed by a node cuts the graph there", "[compile]") {
  Var x = fvec("x");
  Var e = exp(x);
  e->set_name("e");
  auto f = compile_function({e}, add(e, fconst(1.0)));
  REQUIRE(values(f(vec({1.0}))) == std::vector<double>{2.0});
  REQUIRE(f.schedule().size() == 1);
}

TEST_CASE("givens substitute variables before compiling", "[compile]") {
  Var x = fvec("x"), y = fvec("y");
  auto f = compile_function({y}, exp(x), {.givens = {{x, mul(y, fconst(2.0))}}});
  REQUIRE(values(f(vec({0.5}))) == std::vector<double>{std::exp(1.0)});
  // A shared variable given an explicit replacement is no implicit input.
  Shared w = shared("w", vec({3.0}));
  auto g = compile_function({y}, mul(w, fconst(2.0)), {.givens = {{w, y}}});
  REQUIRE(g.shared_variables().empty());
  REQUIRE(values(g(vec({4.0}))) == std::vector<double>{8.0});

  Var m = ftensor("m", {kUnknownDim, kUnknownDim});
  REQUIRE_THROWS_WITH(compile_function({m}, exp(x), {.givens = {{x, m}}}),
                      "the given for `x` in the function has type f64[?,?], but the variable has "
                      "type f64[?]");
  REQUIRE_THROWS_WITH(compile_function({y}, exp(x), {.givens = {{x, y}, {x, y}}}),
                      "`x` is given twice in the function");
}

TEST_CASE("the rewrite hook runs on the graph before linking", "[compile]") {
  Var x = fvec("x");
  Shared w = shared("w", vec({2.0}));
  std::size_t seen_inputs = 0;
  // Replace every exp by neg: the compiled function computes neg.
  GraphRewrite exp_to_neg = [&](FunctionGraph& fg) {
    seen_inputs = fg.inputs().size();
    for (Apply* node : fg.toposort())
      if (node->op().name() == "exp") fg.replace(node->output(0), neg(node->input(0)), "test");
  };
  auto f = compile_function({x}, mul(exp(x), w), {.rewrite = exp_to_neg});
  REQUIRE(seen_inputs == 2);  // x and the shared w
  REQUIRE(values(f(vec({3.0}))) == std::vector<double>{-6.0});

  // A rewrite may turn an output into an input: the output is then copied.
  GraphRewrite to_input = [](FunctionGraph& fg) {
    fg.replace(fg.outputs()[0], fg.inputs()[0], "identity");
  };
  auto g = compile_function({x}, exp(x), {.rewrite = to_input});
  REQUIRE(output_ops(g) == std::vector<std::string>{"deep_copy"});
  const Tensor a = vec({4.0});
  REQUIRE_FALSE(g(a).shares_storage(a));

  GraphRewrite grow = [](FunctionGraph& fg) { fg.add_output(fg.inputs()[0]); };
  REQUIRE_THROWS_WITH(compile_function({x}, exp(x), {.rewrite = grow}),
                      "the rewrite pipeline of the function changed the graph's inputs or "
                      "outputs (1 inputs and 2 outputs, expected 1 and 1)");
  GraphRewrite fail = [](FunctionGraph&) { throw Error("pipeline broke"); };
  REQUIRE_THROWS_WITH(compile_function({x}, exp(x), {.rewrite = fail}), "pipeline broke");
}

TEST_CASE("in-place rewrites may not overwrite inputs the caller did not give up",
          "[compile]") {
  Var x = fvec("x");
  bool refused = false;
  GraphRewrite make_inplace = [&](FunctionGraph& fg) {
    for (Apply* node : fg.toposort())
      if (node->op().name() == "neg") try {
          fg.replace(node->output(0), neg_inplace(node->input(0)), "inplace");
        } catch (const ReplacementError& e) {
          refused = true;
          REQUIRE(std::string(e.what()) ==
                  "replacement refused (inplace): `neg_inplace` would overwrite `x`, which the "
                  "function must not change");
        }
  };
  auto f = compile_function({x}, neg(x), {.rewrite = make_inplace});
  REQUIRE(refused);
  REQUIRE(output_ops(f) == std::vector<std::string>{"neg"});
  const Tensor a = vec({1.0, 2.0});
  REQUIRE(values(f(a)) == std::vector<double>{-1.0, -2.0});
  REQUIRE(values(a) == std::vector<double>{1.0, 2.0});

  // A mutable input may be overwritten: the rewrite goes through, and the
  // result is computed in the argument's buffer (then copied out, since it
  // aliases an input).
  refused = false;
  auto g = compile_function({In(x).with_mutable()}, neg(x), {.rewrite = make_inplace});
  REQUIRE_FALSE(refused);
  REQUIRE(g.fgraph().outputs()[0]->owner()->input(0)->owner()->op().name() == "neg_inplace");
  const Tensor b = vec({1.0, 2.0});
  REQUIRE(values(g(b)) == std::vector<double>{-1.0, -2.0});
  REQUIRE(values(b) == std::vector<double>{-1.0, -2.0});
}

TEST_CASE("a graph that overwrites its own input compiles only if the input is mutable",
          "[compile]") {
  Var x = fvec("x");
  REQUIRE_THROWS_WITH(compile_function({x}, neg_inplace(x)),
                      "`neg_inplace` would overwrite `x`, which the function must not change");
  REQUIRE_THROWS_AS(compile_function({x}, neg_inplace(x)), InconsistencyError);
  Var c = Constant::make(vec({1.0}));
  REQUIRE_THROWS_WITH(compile_function({}, neg_inplace(c)),
                      "`neg_inplace` would overwrite constant `[1.]`, which the function must not "
                      "change");
  Shared w = shared("w", vec({1.0}));
  REQUIRE_THROWS_AS(compile_function({}, neg_inplace(w)), InconsistencyError);
  auto f = compile_function({In(x).with_mutable()}, neg_inplace(x));
  const Tensor a = vec({3.0});
  REQUIRE(values(f(a)) == std::vector<double>{-3.0});
  REQUIRE(values(a) == std::vector<double>{-3.0});
}

namespace {
/// f64 0-d → f64 0-d, but perform misbehaves in the way `kind` says.
class Misbehave final : public Op {
 public:
  explicit Misbehave(int kind) : kind_(kind) {}
  std::string_view name() const override { return "misbehave"; }
  Props props() const override { return {{"kind", std::int64_t{kind_}}}; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TypePtr t = inputs[0]->type();
    return Apply::create(ptr(), inputs, std::span(&t, 1));
  }
  void perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    if (kind_ == 0) out[0] = in[0].astype(f32);
    else if (kind_ == 1) out[0] = Tensor();
    else throw std::runtime_error("kernel exploded");
  }

 private:
  int kind_;
};

Var misbehave(int kind, const Var& x) { return (*std::make_shared<Misbehave>(kind))({x}); }
}  // namespace

TEST_CASE("a failing node is named, and the function stays usable", "[compile]") {
  Var x = fvec("x");
  x->set_name("x");
  auto f = compile_function({x}, exp(misbehave(2, neg(x))), {.name = "f"});
  try {
    f(vec({1.0}));
    FAIL("the call did not throw");
  } catch (const ExecutionError& e) {
    REQUIRE(std::string(e.what()) ==
            "node 2 of 3 (`misbehave{kind=2}` computing `misbehave{kind=2}(-x)`) failed in "
            "function `f`: kernel exploded");
    // The original exception is nested.
    REQUIRE_THROWS_WITH(std::rethrow_if_nested(e), "kernel exploded");
  }
  auto g = compile_function({x}, misbehave(0, x));
  REQUIRE_THROWS_WITH(g(vec({1.0})),
                      "node 1 of 1 (`misbehave{kind=0}` computing `misbehave{kind=0}(x)`) in the "
                      "function returned output 0 of dtype float32 and shape (1,), which does not "
                      "fit its type f64[?]");
  auto h = compile_function({x}, misbehave(1, x));
  REQUIRE_THROWS_WITH(h(vec({1.0})),
                      "node 1 of 1 (`misbehave{kind=1}` computing `misbehave{kind=1}(x)`) in the "
                      "function left output 0 (of type f64[?]) empty");
  // Shape errors inside a kernel are ExecutionErrors too; the next call works.
  Var y = fvec("y");
  auto k = compile_function({x, y}, add(x, y));
  REQUIRE_THROWS_AS(k(vec({1.0, 2.0}), vec({1.0})), ExecutionError);
  REQUIRE(values(k(vec({1.0, 2.0}), vec({3.0, 4.0}))) == std::vector<double>{4.0, 6.0});
}

namespace {
/// Calls a callback from perform; returns its input.
class Callback final : public Op {
 public:
  explicit Callback(std::function<void()> cb) : cb_(std::move(cb)) {}
  std::string_view name() const override { return "callback"; }
  ApplyRef make_node(std::span<const Var> inputs) const override {
    const TypePtr t = inputs[0]->type();
    return Apply::create(ptr(), inputs, std::span(&t, 1));
  }
  void perform(const Apply&, std::span<const Tensor> in, std::span<Tensor> out) const override {
    cb_();
    out[0] = in[0].copy();
  }

 private:
  std::function<void()> cb_;
};
}  // namespace

TEST_CASE("a function called from inside its own run refuses", "[compile]") {
  Var x = fvec("x");
  Function<Tensor>* self = nullptr;
  auto op = std::make_shared<Callback>([&] { (*self)(vec({1.0})); });
  Function<Tensor> f = compile_function({x}, (*op)({x}), {.name = "f"});
  self = &f;
  try {
    f(vec({1.0}));
    FAIL("the call did not throw");
  } catch (const ExecutionError& e) {
    REQUIRE_THROWS_WITH(std::rethrow_if_nested(e),
                        Catch::StartsWith("function `f` was called while it was running"));
  }
  self = nullptr;
  auto g = compile_function({x}, (*std::make_shared<Callback>([] {}))({x}));
  REQUIRE(values(g(vec({2.0}))) == std::vector<double>{2.0});
}

TEST_CASE("a copied function has storage of its own", "[compile]") {
  Var x = fvec("x");
  auto f = compile_function({x}, add(x, fconst(1.0)), {.allow_gc = false, .profile = true});
  Function<Tensor> g = f;
  REQUIRE(g.schedule().size() == f.schedule().size());
  REQUIRE(g.schedule()[0] == f.schedule()[0]);  // the same compiled graph
  const Tensor a = f(vec({1.0}));
  const Tensor b = g(vec({2.0}));
  REQUIRE_FALSE(a.shares_storage(b));
  REQUIRE(values(a) == std::vector<double>{2.0});
  REQUIRE(f.profile()->calls == 1);
  REQUIRE(g.profile()->calls == 1);

  Function<Tensor> empty;
  REQUIRE_FALSE(empty);
  REQUIRE_THROWS_WITH(empty(vec({1.0})),
                      "this function is empty (default-constructed or moved from)");
}

namespace {
/// A type whose argument check, on one chosen thread, waits until released:
/// it holds a call inside its argument checks, where a second call once
/// slipped past the running-call guard.
class GateType final : public Type {
 public:
  bool equals(const Type& other) const override { return this == &other; }
  std::size_t hash() const override { return 0x9a7e; }
  std::string to_string() const override { return "gate"; }
  Tensor filter(const Tensor& value, bool, bool) const override {
    if (std::this_thread::get_id() == gated) {
      entered.set_value();
      released.wait();
    }
    return value;
  }
  bool is_valid_value(const Tensor&) const override { return true; }
  std::thread::id gated;
  mutable std::promise<void> entered;
  std::shared_future<void> released;
};
}  // namespace

TEST_CASE("a function called from another thread while it runs refuses the call", "[compile]") {
  // Misuse (one Function runs one call at a time), but it must not corrupt
  // anything: the second call throws before touching any storage.
  auto gate = std::make_shared<GateType>();
  std::promise<void> release;
  gate->released = release.get_future().share();
  Var x = Variable::make(gate, "x");
  auto op = std::make_shared<Callback>([] {});
  Function<Tensor> f = compile_function({x}, (*op)({x}), {.name = "f"});
  std::future<void> entered = gate->entered.get_future();
  std::promise<void> go;
  Tensor first;
  std::thread a([&, start = go.get_future()] {
    start.wait();
    first = f(vec({1.0, 2.0}));
  });
  gate->gated = a.get_id();
  go.set_value();
  entered.wait();  // `a` is inside its argument checks
  // CHECK, not REQUIRE: `a` must be released and joined whatever happens.
  CHECK_THROWS_WITH(f(vec({3.0})),
                    Catch::StartsWith("function `f` was called while it was running"));
  release.set_value();
  a.join();
  REQUIRE(values(first) == std::vector<double>{1.0, 2.0});
  // Once it is done, the function takes calls again.
  gate->gated = {};
  REQUIRE(values(f(vec({4.0}))) == std::vector<double>{4.0});
}

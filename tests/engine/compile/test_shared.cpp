// Shared variables, their values, and updates: computed from the values
// before the call, assigned together after it, and never on a failed call.
#include <catch2/catch.hpp>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/errors.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/errors.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

Tensor vec(std::initializer_list<double> v) { return Tensor::from(v); }

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (std::int64_t i = 0; i < t.size(); ++i) out.push_back(t.at({i}));
  return out;
}

std::vector<double> value_of(const Shared& s) { return values(s.get_value(true)); }

std::size_t count_ops(const FunctionBase& f, std::string_view name) {
  std::size_t n = 0;
  for (const Apply* node : f.schedule()) n += node->op().name() == name;
  return n;
}

}  // namespace

TEST_CASE("a shared variable holds a private copy of its value", "[compile]") {
  Tensor t = vec({1.0, 2.0});
  Shared w = shared("w", t);
  REQUIRE(w.name() == "w");
  REQUIRE(w->type()->to_string() == "f64[?]");
  REQUIRE(as_shared(w) == &w.variable());
  t.data<double>()[0] = 9.0;
  REQUIRE(value_of(w) == std::vector<double>{1.0, 2.0});

  // get_value copies unless borrowed.
  Tensor copy = w.get_value();
  REQUIRE_FALSE(copy.shares_storage(w.get_value(true)));
  REQUIRE(w.get_value(true).shares_storage(w.variable().value()));

  // borrow keeps the caller's tensor; a static shape may be given.
  Tensor u = vec({3.0});
  Shared b = shared("b", u, {.shape = StaticShape{1}, .borrow = true});
  REQUIRE(b.get_value(true).shares_storage(u));
  REQUIRE(b->type()->to_string() == "f64[1]");
  REQUIRE_THROWS_WITH(shared("c", vec({1.0, 2.0}), {.shape = StaticShape{3}}),
                      "cannot create shared variable `c`: expected a tensor of type f64[3], got "
                      "one of dtype float64 and shape (2,) (axis 0 has length 2, not 3)");
  REQUIRE_THROWS_WITH(shared("d", Tensor()), "shared variable `d` needs a value");
}

TEST_CASE("set_value checks the type and names the variable", "[compile]") {
  Shared w = shared("w", vec({1.0, 2.0}));
  REQUIRE_THROWS_WITH(w.set_value(Tensor::zeros({2, 2})),
                      "cannot set shared variable `w`: expected a tensor of type f64[?], got one "
                      "of dtype float64 and shape (2, 2) (2 dimensions instead of 1)");
  REQUIRE_THROWS_AS(w.set_value(Tensor::zeros({2, 2})), TypeError);
  REQUIRE(value_of(w) == std::vector<double>{1.0, 2.0});

  // Another length is fine (the extent is unknown); an int value converts.
  w.set_value(Tensor::from({4, 5, 6}));
  REQUIRE(w.get_value().dtype() == f64);
  REQUIRE(value_of(w) == std::vector<double>{4.0, 5.0, 6.0});

  // set_value copies unless borrowed.
  Tensor t = vec({7.0});
  w.set_value(t);
  REQUIRE_FALSE(w.get_value(true).shares_storage(t));
  w.set_value(t, true);
  REQUIRE(w.get_value(true).shares_storage(t));

  Shared s = shared("s", vec({1.0}), {.strict = true});
  REQUIRE_THROWS_WITH(s.set_value(Tensor::from({1})),
                      "cannot set shared variable `s`: expected a tensor of type f64[?], got one "
                      "of dtype int32 and shape (1,) (dtype must match exactly)");
  Shared h = shared("h", Tensor::from({1.0f}), {.allow_downcast = true});
  h.set_value(vec({0.25}));
  REQUIRE(h.get_value().dtype() == f32);
  REQUIRE(value_of(h) == std::vector<double>{0.25});

  REQUIRE_THROWS_WITH(Shared(fvec("x")), "`x` is not a shared variable");
}

TEST_CASE("a function reads the current value of the shared variables it uses", "[compile]") {
  Var x = fvec("x");
  Shared w = shared("w", vec({2.0}));
  auto f = compile_function({x}, mul(x, w));
  REQUIRE(f.shared_variables().size() == 1);
  REQUIRE(f.shared_variables()[0] == w);
  REQUIRE(f.fgraph().inputs().size() == 2);
  REQUIRE(values(f(vec({3.0}))) == std::vector<double>{6.0});
  w.set_value(vec({-1.0}));
  REQUIRE(values(f(vec({3.0}))) == std::vector<double>{-3.0});
  // The function keeps no handle on the value between calls.
  REQUIRE(w.get_value(true).storage().use_count() == 2);  // the variable and this temporary
}

TEST_CASE("updates are assigned after the call, computed from the values before it",
          "[compile]") {
  Var x = fvec("x");
  Shared w = shared("w", vec({1.0}));
  auto f = compile_function({x}, mul(x, w), {.updates = {{w, add(w, fconst(1.0))}}});
  REQUIRE(values(f(vec({10.0}))) == std::vector<double>{10.0});
  REQUIRE(value_of(w) == std::vector<double>{2.0});
  REQUIRE(values(f(vec({10.0}))) == std::vector<double>{20.0});
  REQUIRE(value_of(w) == std::vector<double>{3.0});
  // A shared variable read by an update only, with no output at all.
  auto g = compile_function({}, std::vector<Var>{}, {.updates = {{w, mul(w, w)}}});
  REQUIRE(g().empty());
  REQUIRE(value_of(w) == std::vector<double>{9.0});
}

TEST_CASE("updates that read other shared variables all see the values before the call",
          "[compile]") {
  Shared a = shared("a", vec({2.0})), b = shared("b", vec({3.0}));
  auto f = compile_function({}, std::vector<Var>{},
                            {.updates = {{a, add(a, b)}, {b, mul(a, b)}}});
  f();
  REQUIRE(value_of(a) == std::vector<double>{5.0});
  REQUIRE(value_of(b) == std::vector<double>{6.0});
  f();
  REQUIRE(value_of(a) == std::vector<double>{11.0});
  REQUIRE(value_of(b) == std::vector<double>{30.0});
}

TEST_CASE("swapping two shared variables needs no copies", "[compile]") {
  Shared a = shared("a", vec({1.0, 2.0})), b = shared("b", vec({3.0}));
  const Tensor old_a = a.get_value(true), old_b = b.get_value(true);
  auto f = compile_function({}, std::vector<Var>{}, {.updates = {{a, b}, {b, a}}});
  REQUIRE(count_ops(f, "deep_copy") == 0);
  REQUIRE(f.schedule().empty());
  f();
  REQUIRE(value_of(a) == std::vector<double>{3.0});
  REQUIRE(value_of(b) == std::vector<double>{1.0, 2.0});
  // Each took the other's buffer, which nothing else holds.
  REQUIRE(a.get_value(true).shares_storage(old_b));
  REQUIRE(b.get_value(true).shares_storage(old_a));
  f();
  REQUIRE(value_of(a) == std::vector<double>{1.0, 2.0});
}

TEST_CASE("updates and outputs never end up sharing a buffer", "[compile]") {
  Shared a = shared("a", vec({1.0})), b = shared("b", vec({2.0}));
  Var x = fvec("x");

  SECTION("the old value of an updated variable is returned without a copy") {
    auto f = compile_function({}, std::vector<Var>{a}, {.updates = {{a, add(a, fconst(1.0))}}});
    REQUIRE(count_ops(f, "deep_copy") == 0);
    const Tensor old = a.get_value(true);
    const Tensor r = f()[0];
    REQUIRE(r.shares_storage(old));
    REQUIRE(value_of(a) == std::vector<double>{2.0});
    REQUIRE_FALSE(r.shares_storage(a.get_value(true)));
  }
  SECTION("a variable that keeps its value is copied when returned") {
    auto f = compile_function({}, std::vector<Var>{a}, {.updates = {{a, a}}});
    REQUIRE(count_ops(f, "deep_copy") == 1);
    const Tensor r = f()[0];
    REQUIRE_FALSE(r.shares_storage(a.get_value(true)));
    REQUIRE(value_of(a) == std::vector<double>{1.0});
  }
  SECTION("an output that is also two update values: each update gets its own copy") {
    Var y = exp(x);
    auto f = compile_function({x}, std::vector<Var>{y}, {.updates = {{a, y}, {b, y}}});
    REQUIRE(count_ops(f, "deep_copy") == 2);
    const Tensor r = f(vec({0.0}))[0];
    REQUIRE(values(r) == std::vector<double>{1.0});
    REQUIRE(value_of(a) == std::vector<double>{1.0});
    REQUIRE(value_of(b) == std::vector<double>{1.0});
    REQUIRE_FALSE(r.shares_storage(a.get_value(true)));
    REQUIRE_FALSE(a.get_value(true).shares_storage(b.get_value(true)));
  }
  SECTION("a variable that is not updated is copied into another") {
    auto f = compile_function({}, std::vector<Var>{}, {.updates = {{a, b}}});
    REQUIRE(count_ops(f, "deep_copy") == 1);
    f();
    REQUIRE(value_of(a) == std::vector<double>{2.0});
    REQUIRE_FALSE(a.get_value(true).shares_storage(b.get_value(true)));
  }
  SECTION("constants and arguments are copied into a variable") {
    auto f = compile_function({x}, std::vector<Var>{},
                              {.updates = {{a, Constant::make(vec({7.0}))}, {b, x}}});
    REQUIRE(count_ops(f, "deep_copy") == 2);
    const Tensor arg = vec({8.0});
    f(arg);
    REQUIRE(value_of(a) == std::vector<double>{7.0});
    REQUIRE_FALSE(b.get_value(true).shares_storage(arg));
    REQUIRE(value_of(b) == std::vector<double>{8.0});
  }
}

TEST_CASE("a call that throws changes no shared variable", "[compile]") {
  Var x = fvec("x");
  Shared a = shared("a", vec({1.0, 2.0})), b = shared("b", vec({3.0, 4.0}));
  // a's update is cheap and fine; b's fails when x has the wrong length.
  auto f = compile_function({x}, std::vector<Var>{add(a, b)},
                            {.updates = {{a, neg(a)}, {b, add(b, x)}}, .name = "step"});
  const Tensor a0 = a.get_value(true), b0 = b.get_value(true);

  SECTION("a bad argument") {
    REQUIRE_THROWS_AS(f(Tensor::zeros({2, 2})), TypeError);
  }
  SECTION("a failing node") {
    REQUIRE_THROWS_AS(f(vec({1.0, 2.0, 3.0})), ExecutionError);
  }
  SECTION("the wrong number of arguments") { REQUIRE_THROWS_AS(f(), TypeError); }
  REQUIRE(a.get_value(true).shares_storage(a0));
  REQUIRE(b.get_value(true).shares_storage(b0));
  REQUIRE(value_of(a) == std::vector<double>{1.0, 2.0});
  REQUIRE(value_of(b) == std::vector<double>{3.0, 4.0});
  // The function still works afterwards.
  const auto r = f(vec({10.0, 10.0}));
  REQUIRE(values(r[0]) == std::vector<double>{4.0, 6.0});
  REQUIRE(value_of(a) == std::vector<double>{-1.0, -2.0});
  REQUIRE(value_of(b) == std::vector<double>{13.0, 14.0});
}

TEST_CASE("functions share the state of the shared variables they use", "[compile]") {
  Shared w = shared("w", vec({1.0}));
  auto inc = compile_function({}, std::vector<Var>{}, {.updates = {{w, add(w, fconst(1.0))}}});
  auto read = compile_function({}, mul(w, fconst(10.0)));
  inc();
  inc();
  REQUIRE(values(read()) == std::vector<double>{30.0});
}

TEST_CASE("bad updates are refused when compiling", "[compile]") {
  Var x = fvec("x");
  Shared w = shared("w", vec({1.0}));
  Var m = ftensor("m", {kUnknownDim, kUnknownDim});
  REQUIRE_THROWS_WITH(compile_function({x}, neg(x), {.updates = {{x, neg(x)}}}),
                      "update 0 of the function targets `x`, which is not a shared variable");
  REQUIRE_THROWS_WITH(
      compile_function({x}, neg(x), {.updates = {{w, neg(w)}, {w, exp(w)}}, .name = "f"}),
      "shared variable `w` is updated twice in function `f`");
  REQUIRE_THROWS_WITH(compile_function({m}, neg(m), {.updates = {{w, m}}}),
                      "the update of shared variable `w` in the function has type f64[?,?], but "
                      "the variable has type f64[?]");
  REQUIRE_THROWS_WITH(compile_function({x}, neg(x), {.updates = {{w, Var()}}}),
                      "update 0 of the function is null");
}

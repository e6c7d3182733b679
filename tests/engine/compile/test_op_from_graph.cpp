// OpFromGraph: the seed's three examples, shared variables, nesting,
// gradients (overrides, connection_pattern, equal to the inlined graph),
// inlining, registry and rules, printing, shapes and errors.
#include <cmath>
#include <rw/rewrite.hpp>
#include <rw/rules.hpp>

#include <catch2/catch.hpp>

#include "engine/dsl/rule_registration.hpp"

namespace {

using rw::DType;
using rw::Tensor;
using rw::Var;

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.astype(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.size());
}

double num(const Tensor& t) { return t.astype(DType::Float64).item<double>(); }

std::size_t count_ofg(const rw::FunctionBase& f) {
  std::size_t n = 0;
  for (const rw::Apply* a : f.schedule())
    if (dynamic_cast<const rw::OpFromGraph*>(&a->op())) ++n;
  return n;
}

}  // namespace

TEST_CASE("OpFromGraph example 1: an Op used like any other", "[compile]") {
  Var x = rw::scalar("x"), y = rw::scalar("y"), z = rw::scalar("z");
  Var e = x + y * z;
  auto op = rw::op_from_graph({x, y, z}, {e});
  Var e2 = (*op)({x, y, z}) + (*op)({z, y, x});
  auto fn = rw::function({x, y, z}, {e2});
  // (2 + 3*4) + (4 + 3*2)
  CHECK(num(fn(Tensor::scalar(2.0), Tensor::scalar(3.0), Tensor::scalar(4.0))[0]) == 24.0);
}

TEST_CASE("OpFromGraph example 2: a shared variable inside", "[compile]") {
  Var x = rw::scalar("x"), y = rw::scalar("y"), z = rw::scalar("z");
  rw::Rng rng(5);
  const Tensor sv = rng.uniform({2, 2});
  auto s = rw::shared("s", sv);
  Var e = x + y * z + s;
  auto op = rw::op_from_graph({x, y, z}, {e});
  CHECK(op->shared_inputs().size() == 1);
  CHECK(op->num_explicit_inputs() == 3);
  Var e2 = (*op)({x, y, z}) + (*op)({z, y, x});
  auto fn = rw::function({x, y, z}, {e2});
  const auto got = values(fn(Tensor::scalar(2.0), Tensor::scalar(3.0), Tensor::scalar(4.0))[0]);
  const auto sref = values(sv);
  for (std::size_t i = 0; i < 4; ++i) CHECK(got[i] == Approx(24.0 + 2 * sref[i]));
  // The shared value is read at call time.
  s.set_value(Tensor::zeros({2, 2}));
  CHECK(values(fn(Tensor::scalar(2.0), Tensor::scalar(3.0), Tensor::scalar(4.0))[0]) ==
        std::vector<double>(4, 24.0));
}

TEST_CASE("OpFromGraph example 3: a gradient override", "[compile]") {
  Var x = rw::scalar("x"), y = rw::scalar("y"), z = rw::scalar("z");
  Var e = x + y * z;
  auto rescale_dy = [](std::span<const Var> inps, std::span<const Var>) { return inps[2] * 2; };
  auto op = rw::op_from_graph({x, y, z}, {e}, {.grad_overrides = {{}, rescale_dy, {}}});
  Var e2 = (*op)({x, y, z});
  auto d = rw::grad(e2, {x, y, z});
  auto fn = rw::function({x, y, z}, {d[0], d[1], d[2]});
  auto [dx, dy, dz] = fn(Tensor::scalar(2.0), Tensor::scalar(3.0), Tensor::scalar(4.0));
  // The gradient with respect to y is now doubled: [1, 8, 3].
  CHECK(num(dx) == 1.0);
  CHECK(num(dy) == 8.0);
  CHECK(num(dz) == 3.0);
}

TEST_CASE("overrides: lop callables and disconnected or undefined markers", "[compile]") {
  Var a = rw::vector("a"), b = rw::vector("b");
  auto lop = [](std::span<const Var>, std::span<const Var> outs, std::span<const Var> g) {
    return g[0] * outs[0];  // pretend d/da = output
  };
  using LopO = rw::Override<rw::LopOverrideFn>;
  auto op = rw::op_from_graph({a, b}, {rw::exp(a) * b},
                              {.lop_overrides = {lop, LopO::null("no gradient for b")}});
  Var out = rw::sum((*op)({a, b}));
  auto fa = rw::function({a, b}, {rw::grad(out, a)});
  CHECK(values(fa(Tensor::from({0.0, 1.0}), Tensor::from({2.0, 2.0}))[0])[1] ==
        Approx(2 * std::exp(1.0)));
  CHECK_THROWS_WITH(rw::grad(out, b),
                    "`grad`: the gradient with respect to `b` (wrt 0) is undefined: no gradient for b");
  auto op2 = rw::op_from_graph({a, b}, {a * b},
                               {.grad_overrides = {{}, rw::Override<rw::GradOverrideFn>::disconnected()}});
  CHECK_THROWS_AS(rw::grad(rw::sum((*op2)({a, b})), b), rw::DisconnectedInputError);
}

TEST_CASE("nested OpFromGraph", "[compile]") {
  Var x = rw::vector("x"), y = rw::vector("y");
  auto inner = rw::op_from_graph({x, y}, {x * y + 1}, {.name = "inner"});
  Var p = rw::vector("p"), q = rw::vector("q");
  auto outer = rw::op_from_graph({p, q}, {rw::exp((*inner)({p, q})) - (*inner)({q, q})}, {.name = "outer"});
  Var u = rw::vector("u"), v = rw::vector("v");
  Var r = (*outer)({u, v});
  auto fn = rw::function({u, v}, {r, rw::grad(rw::sum(r), u)});
  const auto out = fn(Tensor::from({0.5, -1.0}), Tensor::from({2.0, 0.25}));
  const double us[] = {0.5, -1.0}, vs[] = {2.0, 0.25};
  for (int i = 0; i < 2; ++i) {
    CHECK(values(out[0])[i] == Approx(std::exp(us[i] * vs[i] + 1) - (vs[i] * vs[i] + 1)));
    CHECK(values(out[1])[i] == Approx(vs[i] * std::exp(us[i] * vs[i] + 1)));
  }
  const std::string printed = rw::debugprint_expanded(std::vector<Var>{r});
  CHECK(printed.find("outer") != std::string::npos);
  CHECK(printed.find("inner graph of `outer`:") != std::string::npos);
  CHECK(printed.find("inner graph of `inner`:") != std::string::npos);
  // Folded, the outer graph shows the Op by its name only.
  CHECK(rw::debugprint(r).find("inner graph") == std::string::npos);
  CHECK(rw::debugprint(r).starts_with("outer [id A]"));
}

TEST_CASE("the gradient of an OpFromGraph equals the gradient of its inlined graph", "[compile]") {
  Var w = rw::matrix("w"), x = rw::vector("x"), b = rw::vector("b");
  auto layer = rw::op_from_graph({w, x, b}, {rw::tanh(rw::dot(w, x) + b)}, {.name = "layer"});
  Var cost_ofg = rw::sum(rw::sqr((*layer)({w, x, b})));
  Var cost_inl = rw::sum(rw::sqr(rw::tanh(rw::dot(w, x) + b)));
  auto g_ofg = rw::grad(cost_ofg, {w, x, b});
  auto g_inl = rw::grad(cost_inl, {w, x, b});
  rw::Rng rng(11);
  const std::vector<Tensor> args{rng.uniform({3, 2}), rng.uniform({2}), rng.uniform({3})};
  auto f1 = rw::compile_function({w, x, b}, g_ofg);
  auto f2 = rw::compile_function({w, x, b}, g_inl);
  const auto a1 = f1.call(args), a2 = f2.call(args);
  for (std::size_t k = 0; k < 3; ++k) {
    const auto v1 = values(a1[k]), v2 = values(a2[k]);
    REQUIRE(v1.size() == v2.size());
    for (std::size_t i = 0; i < v1.size(); ++i) CHECK(v1[i] == Approx(v2[i]));
  }
  // The gradient is itself an OpFromGraph, built once and shared by every use.
  REQUIRE(g_ofg[0]->owner() != nullptr);
  const rw::Op& gop = g_ofg[0]->owner()->op();
  CHECK(gop.name() == "grad_of_layer");
  Var again = rw::grad(rw::sum((*layer)({w, x, b})), w);
  CHECK(&again->owner()->op() == &gop);
  // And verify_grad agrees through the Op, in forward mode too.
  auto fun = [&](std::span<const Var> in) { return (*layer)(in); };
  CHECK_NOTHROW(rw::verify_grad(fun, args));
  CHECK_NOTHROW(rw::verify_rop(fun, args));
}

TEST_CASE("gradients reach shared variables inside an OpFromGraph", "[compile]") {
  auto w = rw::shared("w", Tensor::from({1.0, 2.0}));
  Var x = rw::vector("x");
  auto op = rw::op_from_graph({x}, {x * w});
  Var cost = rw::sum((*op)({x}));
  auto g = rw::grad(cost, {x, w});
  auto fn = rw::function({x}, {g[0], g[1]});
  auto [gx, gw] = fn(Tensor::from({3.0, 4.0}));
  CHECK(values(gx) == std::vector<double>{1.0, 2.0});
  CHECK(values(gw) == std::vector<double>{3.0, 4.0});
}

TEST_CASE("connection_pattern is respected by grad", "[compile]") {
  Var a = rw::vector("a"), b = rw::vector("b");
  // Output 1 is declared independent of b, although the graph uses it.
  auto op = rw::op_from_graph({a, b}, {a + b, a * b},
                              {.connection_pattern = std::vector<std::vector<bool>>{{true, true}, {true, false}}});
  auto node = op->make_node(std::vector<Var>{a, b});
  Var second = node->output(1);
  CHECK_THROWS_AS(rw::grad(rw::sum(second), b), rw::DisconnectedInputError);
  auto fn = rw::function({a, b}, {rw::grad(rw::sum(node->output(0)), b)});
  CHECK(values(fn(Tensor::from({1.0}), Tensor::from({2.0}))[0]) == std::vector<double>{1.0});
  CHECK_THROWS_WITH(rw::op_from_graph({a, b}, {a}, {.connection_pattern = std::vector<std::vector<bool>>{{true}}}),
                    "`op_from_graph`: connection_pattern has 1 rows for 2 inputs");
}

TEST_CASE("inline OpFromGraph is expanded by the rewrite", "[compile]") {
  Var x = rw::vector("x");
  auto op = rw::op_from_graph({x}, {rw::exp(x) * 2}, {.name = "twice_exp", .inline_graph = true});
  Var y = (*op)({(*op)({x})});
  auto plain = rw::compile_function({x}, y);
  auto inlined = rw::compile_function(
      {x}, y, {.rewrite = [](rw::FunctionGraph& fg) { rw::expand_inline_op_from_graph(fg); }});
  CHECK(count_ofg(plain) == 2);
  CHECK(count_ofg(inlined) == 0);
  const Tensor X = Tensor::from({0.1, 0.2});
  CHECK(values(plain(X)) == values(inlined(X)));
  // Through the rewrite database: registered in canonicalize.
  auto db = rw::make_standard_db();
  rw::register_op_from_graph_rewrites(*db);
  const rw::Mode mode = rw::Mode::fast_run(db);
  auto by_mode = rw::compile_function({x}, y, {.rewrite = [mode](rw::FunctionGraph& fg) { mode.rewrite(fg); }});
  CHECK(count_ofg(by_mode) == 0);
  CHECK(values(by_mode(X))[0] == Approx(values(plain(X))[0]));
}

TEST_CASE("rules name an OpFromGraph registered under its name", "[compile]") {
  Var x = rw::scalar("x"), y = rw::scalar("y");
  auto op = rw::op_from_graph({x, y}, {x * y + x}, {.name = "fma_like"});
  rw::OpRegistry registry = rw::standard_registry();
  rw::register_op_from_graph(registry, op);
  CHECK(registry.make("fma_like") == op);
  auto db = rw::make_standard_db();
  rw::dsl::load_rules_text_into(*db, "ofg.rules",
                                "ruleset r tags(canonicalize, fast_run)\n"
                                "rule unfold: fma_like(a, b) => a * (b + 1)\n",
                                registry, {});
  Var u = rw::scalar("u"), v = rw::scalar("v");
  Var out = (*op)({u, v});
  const rw::Mode mode = rw::Mode::fast_run(db);
  auto f = rw::compile_function({u, v}, out, {.rewrite = [mode](rw::FunctionGraph& fg) { mode.rewrite(fg); }});
  CHECK(count_ofg(f) == 0);
  CHECK(num(f(Tensor::scalar(2.0), Tensor::scalar(3.0))) == 8.0);
}

TEST_CASE("OpFromGraph shapes come from the inner graph", "[compile]") {
  Var m = rw::matrix("m");
  auto op = rw::op_from_graph({m}, {rw::reshape(rw::transpose(m), {-1})});
  Var a = rw::matrix("a");
  auto node = op->make_node(std::vector<Var>{a});
  const std::vector<rw::ShapeVars> in{{rw::shape_i(a, 0), rw::shape_i(a, 1)}};
  const auto shapes = op->infer_shape(*node, in);
  REQUIRE(shapes.size() == 1);
  REQUIRE(shapes[0].size() == 1);
  auto f = rw::compile_function({a}, shapes[0][0]);
  CHECK(num(f(Tensor::zeros({3, 5}))) == 15.0);
}

TEST_CASE("OpFromGraph refuses bad inputs, naming them", "[compile]") {
  Var x = rw::vector("x"), w = rw::vector("w");
  CHECK_THROWS_WITH(rw::op_from_graph({x}, {x * w}),
                    "`op_from_graph`: the outputs depend on `w`, which is neither an input, a "
                    "constant nor a shared variable");
  CHECK_THROWS_WITH(rw::op_from_graph({x, x}, {x}), "`op_from_graph`: input 1 (`x`) is given twice");
  auto op = rw::op_from_graph({x}, {x * 2}, {.name = "double"});
  CHECK_THROWS_WITH((*op)({rw::matrix("m")}),
                    "`double`: input 0 (`m`) has type `f64[?,?]`, but the inner graph takes `f64[?]`");
  CHECK_THROWS_WITH((*op)({x, x}), "`double` takes 1 inputs, got 2");
  CHECK_THROWS_WITH(rw::op_from_graph({x}, {x}, {.grad_overrides = {{}, {}}}),
                    "`op_from_graph`: grad_overrides has 2 entries for 1 inputs");
  // Equality is identity: two wrappers of the same graph are different Ops.
  auto op2 = rw::op_from_graph({x}, {x * 2}, {.name = "double"});
  CHECK_FALSE(*op == *op2);
  CHECK(*op == *op);
}

TEST_CASE("unused inputs are accepted", "[compile]") {
  Var x = rw::vector("x"), unused = rw::vector("unused");
  auto op = rw::op_from_graph({x, unused}, {x + 1});
  Var out = (*op)({x, unused});
  auto fn = rw::function({x, unused}, {out, rw::grad(rw::sum(out), x)});
  auto r = fn(Tensor::from({1.0}), Tensor::from({9.0, 9.0}));
  CHECK(values(r[0]) == std::vector<double>{2.0});
  CHECK(values(r[1]) == std::vector<double>{1.0});
  CHECK_THROWS_AS(rw::grad(rw::sum(out), unused), rw::DisconnectedInputError);
}

TEST_CASE("R_op of an OpFromGraph: default through the inner graph, or overridden", "[compile]") {
  Var a = rw::vector("a"), v = rw::vector("v");
  auto plain = rw::op_from_graph({a}, {rw::exp(a)});
  auto twice = rw::op_from_graph(
      {a}, {rw::exp(a)},
      {.rop_overrides = {[](std::span<const Var>, std::span<const Var> ev) { return ev[0] * 2; }}});
  auto fn = rw::function({a, v}, {rw::Rop((*plain)({a}), a, v), rw::Rop((*twice)({a}), a, v)});
  auto [r1, r2] = fn(Tensor::from({0.0, 1.0}), Tensor::from({3.0, 1.0}));
  CHECK(values(r1)[0] == Approx(3.0));
  CHECK(values(r1)[1] == Approx(std::exp(1.0)));
  CHECK(values(r2) == std::vector<double>{6.0, 2.0});
}

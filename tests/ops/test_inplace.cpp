// In-place rewrites through compiled functions: which nodes become in place,
// which must not, GEMM formation, and what the VM then computes and holds.
#include <algorithm>

#include <catch2/catch.hpp>

#include "engine/compile/function.hpp"
#include "engine/compile/profile.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/trace.hpp"
#include "engine/rewrite/walking.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/inplace.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/indexing.hpp"
#include "runtime/kernels/linalg.hpp"
#include "runtime/rng.hpp"
#include "rw/function.hpp"

namespace {

using namespace rw;

GraphRewrite fast_run() {
  static const auto db = [] {
    auto d = make_standard_db();
    register_fast_run_rewrites(*d);
    return d;
  }();
  return [](FunctionGraph& fg) { Mode::fast_run(db).rewrite(fg); };
}

std::vector<std::string> schedule_ops(const FunctionBase& f) {
  std::vector<std::string> out;
  for (const Apply* n : f.schedule()) out.push_back(n->op().to_string());
  return out;
}

bool any_destroys(const FunctionBase& f) {
  const auto s = f.schedule();
  return std::any_of(s.begin(), s.end(),
                     [](const Apply* n) { return !n->op().destroy_map().empty(); });
}

}  // namespace

TEST_CASE("a fused elementwise node overwrites an intermediate nothing else reads",
          "[ops][inplace]") {
  const Var a = matrix("a"), b = matrix("b");
  const Var out = tanh(dot(a, b)) + 1.0;
  auto f = compile_function({a, b}, out, {.rewrite = fast_run(), .profile = true});
  CHECK(schedule_ops(f) ==
        std::vector<std::string>{"dot", "Composite{tanh(i0) + 1.0}{inplace=(0, 0)}"});
  Rng rng(1);
  const Tensor av = rng.uniform({16, 8}, -1.0, 1.0), bv = rng.uniform({8, 4}, -1.0, 1.0);
  const Tensor expect = elemwise(ScalarOp::Add, elemwise(ScalarOp::Tanh, matmul(av, bv)),
                                 Tensor::scalar(1.0));
  CHECK(allclose(f(av, bv), expect, 1e-12, 1e-12));
  CHECK(allclose(f(av, bv), expect, 1e-12, 1e-12));
  // The dot's buffer becomes the output: no intermediate is held beside it.
  CHECK(f.profile()->last_peak_buffers <= 1);
}

TEST_CASE("a value with another reader is not overwritten", "[ops][inplace]") {
  const Var a = matrix("a"), b = matrix("b");
  const Var s = dot(a, b);
  auto f = compile_function({a, b}, {tanh(s) + 1.0, s * 2.0}, {.rewrite = fast_run()});
  CHECK_FALSE(any_destroys(f));
  Rng rng(2);
  const Tensor av = rng.uniform({5, 3}, -1.0, 1.0), bv = rng.uniform({3, 5}, -1.0, 1.0);
  const Tensor sv = matmul(av, bv);
  const auto [t, d] = f(av, bv);
  CHECK(allclose(t, elemwise(ScalarOp::Add, elemwise(ScalarOp::Tanh, sv), Tensor::scalar(1.0)),
                 1e-12, 1e-12));
  CHECK(allclose(d, elemwise(ScalarOp::Mul, sv, Tensor::scalar(2.0)), 1e-12, 1e-12));
}

TEST_CASE("function inputs are protected, mutable ones may be overwritten", "[ops][inplace]") {
  const Var x = vector("x");
  const Var out = exp(x) * 2.0 + x;
  auto f = compile_function({x}, out, {.rewrite = fast_run()});
  CHECK_FALSE(any_destroys(f));
  const Tensor arg = Tensor::from({0.0, 1.0, 2.0});
  const Tensor before = arg.copy();
  const Tensor r = f(arg);
  CHECK(arg.equal(before));

  auto g = compile_function({In(x).with_mutable()}, out, {.rewrite = fast_run()});
  CHECK(any_destroys(g));
  const Tensor expect = elemwise(ScalarOp::Add, elemwise(ScalarOp::Mul, elemwise(ScalarOp::Exp, before),
                                                         Tensor::scalar(2.0)),
                                 before);
  CHECK(allclose(r, expect, 1e-12, 1e-12));
  const Tensor scratch = before.copy();
  const Tensor r2 = g(scratch);
  CHECK(allclose(r2, expect, 1e-12, 1e-12));
  CHECK(allclose(scratch, expect, 1e-12, 1e-12));  // the argument was the buffer
}

TEST_CASE("inc_subtensor and set_subtensor write into a value nothing else reads",
          "[ops][inplace]") {
  const Var m = matrix("m"), v = vector("v");
  const Var base = exp(m);
  const Var out = inc_subtensor(base, {1}, v);
  auto f = compile_function({m, v}, out, {.rewrite = fast_run()});
  const auto ops = schedule_ops(f);
  CHECK(std::count_if(ops.begin(), ops.end(), [](const std::string& s) {
          return s.starts_with("inc_subtensor") && s.find("inplace=true") != std::string::npos;
        }) == 1);
  const Tensor mv = Tensor::from({{0.0, 1.0}, {2.0, 3.0}}), vv = Tensor::from({10.0, 20.0});
  Tensor expect = elemwise(ScalarOp::Exp, mv);
  Tensor row = expect.select(0, 1);
  add_into(row, vv);
  CHECK(allclose(f(mv, vv), expect, 1e-12, 1e-12));

  // The same on the input itself: protected, so it is copied first.
  auto g = compile_function({m, v}, inc_subtensor(m, {1}, v), {.rewrite = fast_run()});
  CHECK_FALSE(any_destroys(g));
  const Tensor mine = mv.copy();
  g(mine, vv);
  CHECK(mine.equal(mv));
}

TEST_CASE("z + dot(x, y) becomes gemm, in place where z may be overwritten", "[ops][inplace]") {
  const Var x = matrix("x"), y = matrix("y"), w = matrix("w");
  Rng rng(3);
  const Tensor xv = rng.uniform({6, 4}, -1.0, 1.0), yv = rng.uniform({4, 5}, -1.0, 1.0),
               wv = rng.uniform({6, 5}, -1.0, 1.0);
  const Tensor xy = matmul(xv, yv), ew = elemwise(ScalarOp::Exp, wv);

  auto f = compile_function({x, y, w}, exp(w) + dot(x, y), {.rewrite = fast_run()});
  CHECK(schedule_ops(f) == std::vector<std::string>{"exp", "gemm{inplace=true}"});
  CHECK(allclose(f(xv, yv, wv), elemwise(ScalarOp::Add, ew, xy), 1e-12, 1e-12));

  // 2 * dot(x, y) - w: scaled, and w is an input, so gemm copies it.
  auto g = compile_function({x, y, w}, 2.0 * dot(x, y) - w, {.rewrite = fast_run()});
  CHECK(schedule_ops(g) == std::vector<std::string>{"gemm{inplace=false}"});
  const Tensor expect = elemwise(ScalarOp::Sub, elemwise(ScalarOp::Mul, xy, Tensor::scalar(2.0)), wv);
  const Tensor w_before = wv.copy();
  CHECK(allclose(g(xv, yv, wv), expect, 1e-12, 1e-12));
  CHECK(wv.equal(w_before));

  // A dot read elsewhere is computed once: no gemm.
  const Var d = dot(x, y);
  auto h = compile_function({x, y, w}, {w + d, d}, {.rewrite = fast_run()});
  const auto ops = schedule_ops(h);
  CHECK(std::count(ops.begin(), ops.end(), "dot") == 1);
  CHECK(std::find(ops.begin(), ops.end(), "gemm{inplace=false}") == ops.end());
}

TEST_CASE("the VM hands freed buffers on: a fused chain over non-elementwise steps holds two",
          "[ops][inplace]") {
  // Three dots, each followed by an elementwise step that fuses and runs in
  // place: the intermediates are the dot results, one alive at a time (plus
  // the next being computed).
  const Var x = matrix("x"), w1 = matrix("w1"), w2 = matrix("w2"), w3 = matrix("w3");
  const Var h1 = tanh(dot(x, w1) + 1.0);
  const Var h2 = tanh(dot(h1, w2) + 1.0);
  const Var h3 = tanh(dot(h2, w3) + 1.0);
  auto f = compile_function({x, w1, w2, w3}, h3, {.rewrite = fast_run(), .profile = true});
  Rng rng(4);
  const Tensor xv = rng.uniform({32, 32}, -1.0, 1.0), w1v = rng.uniform({32, 32}, -1.0, 1.0),
               w2v = rng.uniform({32, 32}, -1.0, 1.0), w3v = rng.uniform({32, 32}, -1.0, 1.0);
  auto layer = [](const Tensor& h, const Tensor& w) {
    return elemwise(ScalarOp::Tanh, elemwise(ScalarOp::Add, matmul(h, w), Tensor::scalar(1.0)));
  };
  CHECK(allclose(f(xv, w1v, w2v, w3v), layer(layer(layer(xv, w1v), w2v), w3v), 1e-12, 1e-12));
  const FunctionProfile& p = *f.profile();
  CHECK(p.last_peak_buffers <= 2);
  CHECK(p.last_peak_bytes <= 2 * 32 * 32 * sizeof(double));
  for (const Apply* n : f.schedule())
    if (n->op().name() == "composite") CHECK_FALSE(n->op().destroy_map().empty());
}

namespace {

/// alpha * a @ b by the obvious triple loop, as a nested vector.
std::vector<std::vector<double>> product(const Tensor& a, const Tensor& b, double alpha = 1.0) {
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const std::int64_t m = a.shape()[0], k = a.shape()[1], n = b.shape()[1];
  std::vector<std::vector<double>> out(static_cast<std::size_t>(m),
                                       std::vector<double>(static_cast<std::size_t>(n), 0.0));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (std::int64_t p = 0; p < k; ++p)
        s += ac.data<double>()[i * k + p] * bc.data<double>()[p * n + j];
      out[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] = alpha * s;
    }
  return out;
}

/// Checks `got` (m × n) against the elementwise sum of `terms`, to 1e-12.
void check_sum(const Tensor& got, const std::vector<std::vector<std::vector<double>>>& terms) {
  const Tensor g = got.contiguous();
  const std::int64_t n = got.shape()[1];
  for (std::int64_t i = 0; i < got.shape()[0]; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double want = 0;
      for (const auto& t : terms)
        want += t[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
      CHECK(g.data<double>()[i * n + j] == Approx(want).margin(1e-12));
    }
}

/// `t` (m × n, or n broadcast over m rows) times `scale`, as a nested vector.
std::vector<std::vector<double>> values(const Tensor& t, std::int64_t m, double scale = 1.0) {
  const Tensor c = t.contiguous();
  const std::int64_t n = t.shape().back();
  std::vector<std::vector<double>> out(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j)
      out[static_cast<std::size_t>(i)].push_back(scale *
                                                 c.data<double>()[(t.ndim() == 2 ? i * n : 0) + j]);
  return out;
}

/// Compiles `outputs` without rewriting (the graph is already rewritten).
Function<std::vector<Tensor>> as_is(const std::vector<Var>& inputs, std::span<const Var> outputs) {
  return compile_function(
      std::vector<In>(inputs.begin(), inputs.end()),
      std::vector<Var>(outputs.begin(), outputs.end()),
      {.rewrite = [](FunctionGraph&) {}, .on_unused_input = UnusedInput::Ignore});
}

/// Runs GemmFromDot as a walk over a graph of `outputs`.
FunctionGraph gemm_formed(const std::vector<Var>& inputs, const std::vector<Var>& outputs) {
  FunctionGraph fg(inputs, outputs, /*clone=*/false);
  WalkingRewriter("gemm", {std::make_shared<GemmFromDot>()}).rewrite(fg);
  fg.check_integrity();
  return fg;
}

std::size_t count_if_op(const FunctionGraph& fg, std::string_view name) {
  std::size_t n = 0;
  for (const Apply* a : fg.nodes()) n += a->op().name() == name ? 1 : 0;
  return n;
}

/// The Op names of the nodes from `v` down the first inputs, as far as gemms go.
std::vector<std::string> gemm_spine(Var v) {
  std::vector<std::string> out;
  while (v->owner()) {
    out.push_back(v->owner()->op().to_string());
    if (v->owner()->op().name() != "gemm") break;
    v = v->owner()->input(0);
  }
  return out;
}

}  // namespace

TEST_CASE("a sum of several products becomes a chain of gemms", "[ops][inplace]") {
  const Var a = matrix("a"), b = matrix("b"), c = matrix("c"), d = matrix("d"), z = matrix("z");
  Rng rng(11);
  const Tensor av = rng.uniform({5, 3}, -1.0, 1.0), bv = rng.uniform({3, 4}, -1.0, 1.0),
               cv = rng.uniform({5, 6}, -1.0, 1.0), dv = rng.uniform({6, 4}, -1.0, 1.0),
               zv = rng.uniform({5, 4}, -1.0, 1.0);
  const std::vector<Tensor> args = {av, bv, cv, dv, zv};
  const std::vector<Var> ins = {a, b, c, d, z};

  SECTION("one add of three terms: z + dot(a, b) + dot(c, d)") {
    const std::vector<Var> terms = {z, dot(a, b), dot(c, d)};
    const Var sum3 = elemwise_op(ScalarOp::Add)->make_node(terms)->output(0);
    FunctionGraph fg = gemm_formed(ins, {sum3});
    CHECK(gemm_spine(fg.outputs()[0]) ==
          std::vector<std::string>{"gemm{inplace=false}", "gemm{inplace=false}"});
    const Apply& outer = *fg.outputs()[0]->owner();
    const Apply& inner = *outer.input(0)->owner();
    CHECK(inner.input(0) == z);
    CHECK(inner.input(2) == a);
    CHECK(outer.input(2) == c);
    CHECK(count_if_op(fg, "dot") == 0);
    auto f = as_is(ins, fg.outputs().first(1));
    check_sum(f.call(args)[0], {values(zv, 5), product(av, bv), product(cv, dv)});
  }
  SECTION("nested adds and subs with factors: z - (2 * dot(a, b) + dot(c, d))") {
    const Var out = z - (2.0 * dot(a, b) + dot(c, d));
    FunctionGraph fg = gemm_formed(ins, {out});
    CHECK(gemm_spine(fg.outputs()[0]) ==
          std::vector<std::string>{"gemm{inplace=false}", "gemm{inplace=false}"});
    const Apply& outer = *fg.outputs()[0]->owner();
    const Apply& inner = *outer.input(0)->owner();
    CHECK(inner.input(1)->as_constant()->value().item<double>() == -2.0);
    CHECK(outer.input(1)->as_constant()->value().item<double>() == -1.0);
    CHECK(fg.num_nodes() == 2);
    auto f = as_is(ins, fg.outputs().first(1));
    check_sum(f.call(args)[0], {values(zv, 5), product(av, bv, -2.0), product(cv, dv, -1.0)});
  }
  SECTION("products only: one of them is the accumulator") {
    const Var out = dot(a, b) - dot(c, d);
    FunctionGraph fg = gemm_formed(ins, {out});
    const Apply& g = *fg.outputs()[0]->owner();
    REQUIRE(g.op().name() == "gemm");
    CHECK(g.input(0)->owner()->op().name() == "dot");
    CHECK(g.input(1)->as_constant()->value().item<double>() == -1.0);
    CHECK(g.input(4)->as_constant()->value().item<double>() == 1.0);
    auto f = as_is(ins, fg.outputs().first(1));
    check_sum(f.call(args)[0], {product(av, bv), product(cv, dv, -1.0)});
  }
  SECTION("a term that broadcasts is added to the gemm chain's result") {
    const Var bias = vector("bias");
    const Tensor biasv = rng.uniform({4}, -1.0, 1.0);
    const Var out = dot(a, b) + z + bias - dot(c, d);
    std::vector<Var> with_bias = ins;
    with_bias.push_back(bias);
    FunctionGraph fg = gemm_formed(with_bias, {out});
    const Apply& top = *fg.outputs()[0]->owner();
    REQUIRE(top.op().name() == "add");
    CHECK(gemm_spine(top.input(0)) ==
          std::vector<std::string>{"gemm{inplace=false}", "gemm{inplace=false}"});
    CHECK(top.input(1) == bias);
    std::vector<Tensor> bargs = args;
    bargs.push_back(biasv);
    auto f = as_is(with_bias, fg.outputs().first(1));
    check_sum(f.call(bargs)[0],
              {product(av, bv), values(zv, 5), values(biasv, 5), product(cv, dv, -1.0)});
  }
  SECTION("a product read elsewhere stays a dot, and may be the accumulator") {
    const Var ab = dot(a, b);
    FunctionGraph fg = gemm_formed(ins, {ab + dot(c, d), ab});
    const Apply& g = *fg.outputs()[0]->owner();
    REQUIRE(g.op().name() == "gemm");
    CHECK(g.input(0) == fg.outputs()[1]);
    CHECK(g.input(2) == c);
    auto f = as_is(ins, fg.outputs());
    check_sum(f.call(args)[0], {product(av, bv), product(cv, dv)});
  }
  SECTION("a product and a bias alone are left for fusion") {
    const Var bias = vector("bias");
    std::vector<Var> with_bias = ins;
    with_bias.push_back(bias);
    const Var out = dot(a, b) + bias;
    FunctionGraph fg = gemm_formed(with_bias, {out});
    CHECK(fg.outputs()[0]->owner()->op().name() == "add");
    CHECK(fg.outputs()[0]->owner()->input(0)->owner()->op().name() == "dot");
    const RewriteResult why =
        GemmFromDot().transform(fg, *fg.outputs()[0]->owner(), RewriteContext{});
    CHECK(why.reason() == "the addend does not have the product's type");
  }
}

TEST_CASE("a scaled product is one dot22scalar, and gemm_from_dot still takes it with an addend",
          "[ops][inplace]") {
  const Var a = matrix("a"), b = matrix("b"), z = matrix("z");
  const Var s = scalar("s");
  Rng rng(12);
  const Tensor av = rng.uniform({5, 3}, -1.0, 1.0), bv = rng.uniform({3, 4}, -1.0, 1.0),
               zv = rng.uniform({5, 4}, -1.0, 1.0);
  const Tensor sv = Tensor::scalar(-0.75);
  const std::vector<Var> ins = {a, b, z, s};
  const std::vector<Tensor> args = {av, bv, zv, sv};
  const auto compiled_ops = [&](const Var& out) {
    Function<std::vector<Tensor>> f = rw::function(std::vector<In>(ins.begin(), ins.end()), {out},
                                                   {.on_unused_input = UnusedInput::Ignore});
    std::vector<std::string> names;
    for (const Apply* node : f.fgraph().toposort()) names.emplace_back(node->op().name());
    return std::make_pair(std::move(f), names);
  };
  using Names = std::vector<std::string>;

  SECTION("s * dot(a, b): one BLAS call with alpha s") {
    auto [f, names] = compiled_ops(s * dot(a, b));
    CHECK(names == Names{"dot22scalar"});
    check_sum(f.call(args)[0], {product(av, bv, -0.75)});
  }
  SECTION("dot(a, b) * 3 (a broadcast constant): alpha 3, folded to 0-d") {
    auto [f, names] = compiled_ops(dot(a, b) * 3.0);
    REQUIRE(names == Names{"dot22scalar"});
    const Apply& d = *f.fgraph().outputs()[0]->owner();
    CHECK(d.input(2)->tensor_type()->ndim() == 0);
    CHECK(d.input(2)->as_constant()->value().item<double>() == 3.0);
    check_sum(f.call(args)[0], {product(av, bv, 3.0)});
  }
  SECTION("z + 2 * dot(a, b): still one gemm, alpha 2") {
    auto [f, names] = compiled_ops(z + 2.0 * dot(a, b));
    REQUIRE(names == Names{"gemm"});
    const Apply& g = *f.fgraph().outputs()[0]->owner();
    CHECK(g.input(1)->as_constant()->value().item<double>() == 2.0);
    check_sum(f.call(args)[0], {values(zv, 5), product(av, bv, 2.0)});
  }
  SECTION("z + s * dot(a, b), s not constant: the scaled product, then the add") {
    auto [f, names] = compiled_ops(z + s * dot(a, b));
    CHECK(std::count(names.begin(), names.end(), "dot22scalar") == 1);
    CHECK(std::count(names.begin(), names.end(), "dot") == 0);
    check_sum(f.call(args)[0], {values(zv, 5), product(av, bv, -0.75)});
  }
  SECTION("a product read twice stays one dot") {
    const Var ab = dot(a, b);
    auto [f, names] = compiled_ops(ab * s + ab);
    CHECK(std::count(names.begin(), names.end(), "dot") == 1);
    CHECK(std::count(names.begin(), names.end(), "dot22scalar") == 0);
  }
}

TEST_CASE("gemm_from_dot skips graphs without a dot and still forms gemms where one appears",
          "[ops][inplace]") {
  const GemmFormation pass;
  const Var x = matrix("x"), y = matrix("y"), z = matrix("z");

  // No dot: the walk is skipped — no node tried, the graph unchanged.
  FunctionGraph plain({x, z}, {z + x * 2.0});
  const std::string before = debugprint(plain);
  RewriteProfile prof;
  RewriteContext ctx;
  ctx.profile = &prof;
  const PassReport skipped = pass.rewrite(plain, ctx);
  CHECK(skipped.ok());
  CHECK_FALSE(skipped.changed);
  CHECK(debugprint(plain) == before);
  const PassProfile* p = prof.find("gemm_from_dot");
  REQUIRE(p != nullptr);
  CHECK(p->find_rewriter("gemm_from_dot") == nullptr);

  // The same pass on a graph with a dot: the sum becomes a gemm.
  FunctionGraph with_dot({x, y, z}, {z + dot(x, y)});
  RewriteProfile prof2;
  RewriteContext ctx2;
  ctx2.profile = &prof2;
  const PassReport formed = pass.rewrite(with_dot, ctx2);
  CHECK(formed.changed);
  REQUIRE(with_dot.num_nodes() == 1);
  CHECK(with_dot.outputs()[0]->owner()->op().to_string() == "gemm{inplace=false}");
  const RewriterStats* s = prof2.find("gemm_from_dot")->find_rewriter("gemm_from_dot");
  REQUIRE(s != nullptr);
  CHECK(s->applied == 1);
}

TEST_CASE("the in-place pass changes a node's Op, keeping the node, and traces it",
          "[ops][inplace]") {
  const Var a = matrix("a"), b = matrix("b");
  FunctionGraph fg({a, b}, {exp(a + b) * b}, /*clone=*/false);
  Apply& sum = *fg.outputs()[0]->owner()->input(0)->owner()->input(0)->owner();
  Apply& out = *fg.outputs()[0]->owner();
  Trace trace;
  auto rec = std::make_shared<TraceRecorder>();
  trace.subscribe(rec);
  RewriteContext ctx{.trace = &trace};
  InplacePass pass;
  const PassReport r = pass.rewrite(fg, ctx);
  // exp(…) and … * b overwrite their first inputs; a + b does not, as a is
  // an input of the graph that nobody declared mutable.
  CHECK(r.applications == 2);
  CHECK(sum.op().destroy_map().empty());
  CHECK(fg.contains(out));
  CHECK(out.op().destroy_map() == IoMap{{0, 0}});
  CHECK(fg.outputs()[0]->owner() == &out);
  const auto& lines = rec->lines();
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) {
          return l.find("applies mul{inplace=0} instead of mul  [insert_inplace]") !=
                 std::string::npos;
        }) == 1);
  fg.check_integrity();
}

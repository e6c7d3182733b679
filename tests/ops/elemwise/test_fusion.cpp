// ElemwiseFusion: which nodes fuse, which do not, and that results do not change.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/compile/function.hpp"
#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/predicates.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/destroy_handler.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/fusion.hpp"
#include "ops/inplace.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/rng.hpp"
#include "rw/registry.hpp"
#include "rw/standard_rules.hpp"

namespace {

using namespace rw;

std::vector<std::string> op_strings(const FunctionGraph& fg) {
  std::vector<std::string> out;
  for (const Apply* n : fg.toposort()) out.push_back(n->op().to_string());
  return out;
}

std::size_t count_ops(const FunctionGraph& fg, std::string_view name) {
  std::size_t n = 0;
  for (const Apply* a : fg.nodes()) n += a->op().name() == name ? 1 : 0;
  return n;
}

/// Runs `outputs` on `args` compiled with and without `rewrite`.
std::pair<std::vector<Tensor>, std::vector<Tensor>> both_ways(const std::vector<Var>& inputs,
                                                              const std::vector<Var>& outputs,
                                                              const std::vector<Tensor>& args,
                                                              GraphRewrite rewrite) {
  std::vector<In> ins(inputs.begin(), inputs.end());
  auto plain = compile_function(ins, outputs);
  auto fused = compile_function(ins, outputs, {.rewrite = std::move(rewrite)});
  return {plain.call(args), fused.call(args)};
}

GraphRewrite fusion_only(FusionOptions options = {}) {
  return [options](FunctionGraph& fg) { ElemwiseFusion(options).rewrite(fg); };
}

}  // namespace

TEST_CASE("a chain of elementwise nodes becomes one Composite", "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var out = exp(-x) * y + tanh(x) * (y - 1.5) / (1.0 + x * x) - sqrt(abs(y));
  FunctionGraph fg({x, y}, {out});
  const PassReport report = ElemwiseFusion().rewrite(fg);
  CHECK(report.applications == 1);
  REQUIRE(fg.num_nodes() == 1);
  const Apply& node = *fg.outputs()[0]->owner();
  CHECK(node.op().to_string() ==
        "Composite{exp(-i0) * i1 + tanh(i0) * (i1 - 1.5) / (1.0 + i0 * i0) - sqrt(abs(i1))}");
  CHECK(node.num_inputs() == 2);

  Rng rng(1);
  const std::vector<Tensor> args = {rng.uniform({1000}, -1.0, 1.0), rng.uniform({1000}, -1.0, 1.0)};
  const auto [plain, fused] = both_ways({x, y}, {out}, args, fusion_only());
  CHECK(fused[0].equal(plain[0]));
}

TEST_CASE("a value used twice inside a group is computed once", "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  const Var out = e * y + e;
  FunctionGraph fg({x, y}, {out});
  ElemwiseFusion().rewrite(fg);
  REQUIRE(fg.num_nodes() == 1);
  const auto& comp = dynamic_cast<const Composite&>(fg.outputs()[0]->owner()->op());
  const auto instrs = comp.scalar_program().instructions();
  CHECK(std::count_if(instrs.begin(), instrs.end(),
                      [](const ScalarInstr& i) { return i.op == ScalarOp::Exp; }) == 1);
}

TEST_CASE("without multi_output a value used outside its group stays a node of its own",
          "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x) * 2.0;  // used by both outputs, and returned
  const Var a = tanh(e) + y, b = e - y;
  FunctionGraph fg({x, y}, {a, b, e});
  ElemwiseFusion({.multi_output = false}).rewrite(fg);
  // e's group (exp, mul) is one Composite; each output's own group reads it.
  CHECK(count_ops(fg, "composite") == 2);
  CHECK(fg.num_nodes() == 3);
  CHECK(fg.outputs()[2]->owner()->op().to_string() == "Composite{exp(i0) * 2.0}");
  CHECK(fg.outputs()[1]->owner()->op().to_string() == "sub");
  CHECK(fg.outputs()[1]->owner()->input(0) == fg.outputs()[2]);

  Rng rng(2);
  const std::vector<Tensor> args = {rng.uniform({50}, -1.0, 1.0), rng.uniform({50}, -1.0, 1.0)};
  const auto [plain, fused] =
      both_ways({x, y}, {a, b, e}, args, fusion_only({.multi_output = false}));
  for (std::size_t k = 0; k < 3; ++k) CHECK(fused[k].equal(plain[k]));
}

TEST_CASE("a value read outside its group becomes an extra output of the Composite",
          "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x) * 2.0;  // read by both outputs, and returned
  const Var a = tanh(e) + y, b = e - y;
  FunctionGraph fg({x, y}, {a, b, e});
  const std::size_t before = fg.num_nodes();
  ElemwiseFusion().rewrite(fg);
  fg.check_integrity();
  // a's group (the last in graph order) takes e in and exports it; b, a
  // group of one node, reads it from there.
  CHECK(before == 5);
  CHECK(fg.num_nodes() == 2);
  const Apply& both = *fg.outputs()[0]->owner();
  CHECK(fg.outputs()[2]->owner() == &both);
  CHECK(fg.outputs()[2]->index() == 1);
  CHECK(both.op().to_string() == "Composite{tanh(exp(i0) * 2.0) + i1, exp(i0) * 2.0}");
  const Apply& other = *fg.outputs()[1]->owner();
  CHECK(other.op().to_string() == "sub");
  CHECK(other.input(0) == fg.outputs()[2]);
  const auto& program = dynamic_cast<const Composite&>(both.op()).scalar_program();
  const auto instrs = program.instructions();
  CHECK(std::count_if(instrs.begin(), instrs.end(),
                      [](const ScalarInstr& i) { return i.op == ScalarOp::Exp; }) == 1);

  Rng rng(2);
  const std::vector<Tensor> args = {rng.uniform({50}, -1.0, 1.0), rng.uniform({50}, -1.0, 1.0)};
  const auto [plain, fused] = both_ways({x, y}, {a, b, e}, args, fusion_only());
  for (std::size_t k = 0; k < 3; ++k) CHECK(fused[k].equal(plain[k]));
  for (std::int64_t i = 0; i < 50; ++i) {
    const double xv = args[0].data<double>()[i], yv = args[1].data<double>()[i];
    CHECK(fused[0].data<double>()[i] == Approx(std::tanh(std::exp(xv) * 2.0) + yv).epsilon(1e-15));
    CHECK(fused[1].data<double>()[i] == Approx(std::exp(xv) * 2.0 - yv).epsilon(1e-15));
    CHECK(fused[2].data<double>()[i] == Approx(std::exp(xv) * 2.0).epsilon(1e-15));
  }
}

TEST_CASE("a group reading a value another group exports reads the Composite's output",
          "[ops][fusion]") {
  // e is computed inside one group and read by the other, which is built
  // after the first replaced e: it must read the first Composite's output,
  // not bring the replaced exp and mul back.
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x) * 2.0;
  const Var a = tanh(e) + y, b = sin(e - y);
  FunctionGraph fg({x, y}, {a, b});
  ElemwiseFusion().rewrite(fg);
  fg.check_integrity();
  CHECK(fg.num_nodes() == 2);
  for (const Apply* n : fg.nodes()) CHECK(n->op().name() == "composite");
  const Apply& first = *fg.outputs()[0]->owner();
  const Apply& second = *fg.outputs()[1]->owner();
  CHECK((first.num_outputs() == 2) != (second.num_outputs() == 2));

  Rng rng(3);
  const std::vector<Tensor> args = {rng.uniform({40}, -1.0, 1.0), rng.uniform({40}, -1.0, 1.0)};
  const auto [plain, fused] = both_ways({x, y}, {a, b}, args, fusion_only());
  CHECK(fused[0].equal(plain[0]));
  CHECK(fused[1].equal(plain[1]));
  // exp as the runtime computes it (SLEEF's, an ulp from std::exp): e - y
  // cancels, which would make that ulp many of sin's.
  const Tensor exps = rw::elemwise(ScalarOp::Exp, args[0]);
  for (std::int64_t i = 0; i < 40; ++i) {
    const double ev = exps.data<double>()[i] * 2.0, yv = args[1].data<double>()[i];
    CHECK(fused[1].data<double>()[i] == Approx(std::sin(ev - yv)).epsilon(1e-15));
  }
}

TEST_CASE("a value whose outside reader leads back into the group is not exported",
          "[ops][fusion]") {
  // exp(x) is read by tanh (in the group) and by sum, whose result the group
  // also reads: exporting exp(x) would make the Composite feed itself.
  const Var x = vector("x");
  const Var e = exp(x);
  const Var out = tanh(e) + sum(e);
  FunctionGraph fg({x}, {out});
  ElemwiseFusion().rewrite(fg);
  fg.check_integrity();
  CHECK(fg.num_nodes() == 3);
  const Apply& top = *fg.outputs()[0]->owner();
  CHECK(top.op().to_string() == "Composite{tanh(i0) + i1}");
  CHECK(top.num_outputs() == 1);
  CHECK(top.input(0)->owner()->op().to_string() == "exp");
  CHECK(top.input(1)->owner()->op().name() == "sum");

  const std::vector<Tensor> args = {Tensor::from({0.25, -1.0, 0.5})};
  const auto [plain, fused] = both_ways({x}, {out}, args, fusion_only());
  const double s = std::exp(0.25) + std::exp(-1.0) + std::exp(0.5);
  for (std::int64_t i = 0; i < 3; ++i)
    CHECK(fused[0].data<double>()[i] ==
          Approx(std::tanh(std::exp(args[0].data<double>()[i])) + s).epsilon(1e-15));
  CHECK(fused[0].equal(plain[0]));
}

TEST_CASE(
    "exported values of a multi-output Composite are written in place into distinct "
    "inputs",
    "[ops][fusion]") {
  // t = tanh(a @ b) is read by the group (t * (a @ c)) and by a product
  // outside it: one Composite computes both, each into a dot's buffer.
  const Var a = matrix("a"), b = matrix("b"), c = matrix("c"), d = matrix("d");
  const Var t = tanh(dot(a, b));
  const Var u = t * dot(a, c);
  const Var w = dot(t, d);
  GraphRewrite rewrite = [](FunctionGraph& fg) {
    ElemwiseFusion().rewrite(fg);
    InplacePass().rewrite(fg);
  };
  auto f = compile_function({a, b, c, d}, {u, w}, {.rewrite = rewrite});
  std::vector<std::string> ops;
  for (const Apply* n : f.schedule()) ops.push_back(n->op().to_string());
  INFO(fmt::format("{}", fmt::join(ops, "; ")));
  CHECK(std::count(ops.begin(), ops.end(),
                   "Composite{tanh(i1) * i0, tanh(i1)}{inplace=(0, 0, 1, 1)}") == 1);
  CHECK(ops.size() == 4);

  Rng rng(12);
  const Tensor av = rng.uniform({6, 5}, -1.0, 1.0), bv = rng.uniform({5, 4}, -1.0, 1.0),
               cv = rng.uniform({5, 4}, -1.0, 1.0), dv = rng.uniform({4, 3}, -1.0, 1.0);
  const std::vector<Tensor> args = {av, bv, cv, dv};
  const auto got = f.call(args);
  auto at = [](const Tensor& m, std::int64_t i, std::int64_t j) {
    return m.data<double>()[i * m.shape()[1] + j];
  };
  std::vector<double> tv(24);
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 4; ++j) {
      double ab = 0, ac = 0;
      for (std::int64_t k = 0; k < 5; ++k) {
        ab += at(av, i, k) * at(bv, k, j);
        ac += at(av, i, k) * at(cv, k, j);
      }
      tv[static_cast<std::size_t>(i * 4 + j)] = std::tanh(ab);
      CHECK(at(got[0], i, j) == Approx(std::tanh(ab) * ac).margin(1e-13));
    }
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < 4; ++k)
        s += tv[static_cast<std::size_t>(i * 4 + k)] * at(dv, k, j);
      CHECK(at(got[1], i, j) == Approx(s).margin(1e-13));
    }
}

TEST_CASE("an in-place multi-output Composite is refused where an input is still needed",
          "[ops][fusion]") {
  // q = a @ c is read by the Composite and returned: no output may go into it.
  const Var a = matrix("a"), b = matrix("b"), c = matrix("c"), d = matrix("d");
  const Var q = dot(a, c);
  const Var t = tanh(dot(a, b));
  FunctionGraph fg({a, b, c, d}, {t * q, dot(t, d), q}, /*clone=*/false);
  ElemwiseFusion().rewrite(fg);
  const DestroyHandler& dh = require_destroy_handler(fg);
  Apply& comp = *fg.outputs()[0]->owner();
  // Inputs in graph order: q first.
  REQUIRE(comp.op().to_string() == "Composite{tanh(i1) * i0, tanh(i1)}");
  CHECK(dh.why_not_destroy(fg, comp, 0) == "`dot(a, c)` is an output of the graph");
  CHECK_FALSE(dh.why_not_destroy(fg, comp, 1));
  const std::vector<std::string> before = op_strings(fg);
  const auto ip = dynamic_cast<const Composite&>(comp.op()).with_inplace({{0, 0}, {1, 1}});
  const ApplyRef fresh =
      ip->make_node(std::vector<Var>(comp.inputs().begin(), comp.inputs().end()));
  const std::vector<std::pair<Var, Var>> pairs = {{comp.output(0), fresh->output(0)},
                                                  {comp.output(1), fresh->output(1)}};
  CHECK_THROWS_AS(fg.replace_all(pairs, "test"), ReplacementError);
  CHECK(op_strings(fg) == before);
  fg.check_integrity();
  // The pass writes output 0 into input 1 and has no input left for output 1.
  InplacePass().rewrite(fg);
  CHECK(fg.outputs()[0]->owner()->op().to_string() ==
        "Composite{tanh(i1) * i0, tanh(i1)}{inplace=(0, 1)}");
}

TEST_CASE("nodes whose output broadcasts are read by the Composite, not fused into it",
          "[ops][fusion]") {
  const Var m = matrix("m"), v = vector("v");
  const Var row = exp(v) + 1.0;  // a vector, broadcast over m's rows
  const Var out = tanh(m * row) - m;
  FunctionGraph fg({m, v}, {out});
  ElemwiseFusion().rewrite(fg);
  CHECK(count_ops(fg, "composite") == 2);
  const Apply& top = *fg.outputs()[0]->owner();
  CHECK(top.op().to_string() == "Composite{tanh(i0 * i1) - i0}");
  CHECK(top.input(1)->owner()->op().to_string() == "Composite{exp(i0) + 1.0}");

  Rng rng(4);
  const std::vector<Tensor> args = {rng.uniform({3, 5}, -1.0, 1.0), rng.uniform({5}, -1.0, 1.0)};
  const auto [plain, fused] = both_ways({m, v}, {out}, args, fusion_only());
  CHECK(fused[0].equal(plain[0]));
}

TEST_CASE("fusion respects the maximum number of inputs and mixes dtypes", "[ops][fusion]") {
  std::vector<Var> xs;
  for (int k = 0; k < 6; ++k) xs.push_back(vector("x" + std::to_string(k), k % 2 ? f32 : f64));
  Var acc = exp(xs[0]);
  for (int k = 1; k < 6; ++k) acc = acc * xs[k] + 1.0;
  FunctionGraph fg(xs, {acc});
  ElemwiseFusion({.max_inputs = 3}).rewrite(fg);
  CHECK(fg.num_nodes() > 1);
  for (const Apply* n : fg.nodes()) CHECK(n->num_inputs() <= 3);

  Rng rng(6);
  std::vector<Tensor> args;
  for (int k = 0; k < 6; ++k) args.push_back(rng.uniform({20}, -1.0, 1.0, k % 2 ? f32 : f64));
  const auto [plain, fused] = both_ways(xs, {acc}, args, fusion_only({.max_inputs = 3}));
  CHECK(fused[0].dtype() == f64);
  CHECK(fused[0].equal(plain[0]));
}

TEST_CASE("fusion is deterministic and equal Composites merge", "[ops][fusion]") {
  auto build = [] {
    const Var x = vector("x"), y = vector("y");
    return FunctionGraph({x, y}, {exp(x) * y + sin(y), exp(x) * y + sin(y) - x});
  };
  FunctionGraph a = build(), b = build();
  ElemwiseFusion().rewrite(a);
  ElemwiseFusion().rewrite(b);
  CHECK(op_strings(a) == op_strings(b));

  // Two equal expressions, each its own output: two equal Composites that
  // the standard pipeline's merge2 (after fusion) joins.
  const Var x = vector("x"), y = vector("y");
  FunctionGraph fg({x, y}, {exp(x) * y + 1.0, exp(x) * y + 1.0});
  auto db = make_standard_db();
  register_fusion_rewrites(*db);
  Mode::fast_run(db).excluding({"merge1", "merge1.1", "merge1.2", "canonicalize"}).rewrite(fg);
  CHECK(fg.num_nodes() == 1);
}

TEST_CASE("a reduction of an elementwise result becomes one CompositeReduce", "[ops][fusion]") {
  const Var x = matrix("x"), y = matrix("y");
  const Var total = sum(exp(x) * y);
  const Var cols = max(tanh(x) - y, Axes{0});
  const Var shared = exp(x) + y;  // also returned: its reduction stays separate
  FunctionGraph fg({x, y}, {total, cols, mean(shared), shared});
  ElemwiseFusion().rewrite(fg);
  CHECK(fg.outputs()[0]->owner()->op().to_string() == "sum[Composite{exp(i0) * i1}]");
  CHECK(fg.outputs()[1]->owner()->op().to_string() == "max[Composite{tanh(i0) - i1}]{axis=(0)}");
  CHECK(fg.outputs()[2]->owner()->op().name() == "mean");

  Rng rng(7);
  const std::vector<Tensor> args = {rng.uniform({30, 7}, -1.0, 1.0), rng.uniform({30, 7}, -1.0, 1.0)};
  const auto [plain, fused] = both_ways({x, y}, {total, cols, mean(shared)}, args, fusion_only());
  CHECK(fused[0].item<double>() == Approx(plain[0].item<double>()).epsilon(1e-12));
  CHECK(fused[1].equal(plain[1]));
  CHECK(fused[2].item<double>() == Approx(plain[2].item<double>()).epsilon(1e-12));
}

TEST_CASE("register_fusion_rewrites puts fusion in the standard pipeline's fast_run",
          "[ops][fusion]") {
  auto db = make_standard_db();
  register_fast_run_rewrites(*db);
  const auto names = db->selected_names(Mode::fast_run(db).query());
  const auto at = [&](std::string_view n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  REQUIRE(at("elemwise_fusion") < static_cast<std::ptrdiff_t>(names.size()));
  CHECK(at("gemm_from_dot") < at("elemwise_fusion"));
  CHECK(at("elemwise_fusion") < at("merge2"));
  CHECK(at("merge2") < at("insert_inplace"));
  CHECK(at("insert_inplace") < at("merge3"));
  const auto no_fusion = db->selected_names(Mode::fast_run(db).excluding({"fusion"}).query());
  CHECK(std::find(no_fusion.begin(), no_fusion.end(), "elemwise_fusion") == no_fusion.end());
  const auto compile = db->selected_names(Mode::named("fast_compile", db).query());
  CHECK(std::find(compile.begin(), compile.end(), "elemwise_fusion") == compile.end());
}

TEST_CASE("zeros_like and ones_like fuse as constants of their input's shape", "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var e = exp(x);
  const Var out = e * ones_like(e) + zeros_like(y) - y;
  FunctionGraph fg({x, y}, {out});
  ElemwiseFusion().rewrite(fg);
  REQUIRE(fg.num_nodes() == 1);
  CHECK(fg.outputs()[0]->owner()->op().to_string() == "Composite{exp(i0) * 1.0 + 0.0 - i1}");

  const std::vector<Tensor> args = {Tensor::from({0.0, 1.0}), Tensor::from({2.0, 3.0})};
  const auto [plain, fused] = both_ways({x, y}, {out}, args, fusion_only());
  CHECK(fused[0].equal(plain[0]));
}

TEST_CASE("the benchmark graphs chain-100, dag-100 and dag-1000 end as one Composite", "[ops][fusion]") {
  // The standard pipeline with these passes, without and with the standard
  // rule library (what rw::standard_db() gives once it registers them).
  auto bare = make_standard_db();
  register_fast_run_rewrites(*bare);
  auto with_rules = make_standard_db();
  load_standard_rules_into(*with_rules, standard_registry(), dsl::PredicateRegistry()).take();
  register_fast_run_rewrites(*with_rules);
  for (const auto& db : {bare, with_rules})
    for (const char* name : {"chain-100", "dag-100", "dag-1000"}) {
      INFO(name << (db == bare ? " without rules" : " with the standard rules"));
      const dsl::GraphFile file = dsl::load_graph(
          std::string(RW_SOURCE_DIR) + "/tests/ops/data/" + name + ".graph", standard_registry());
      FunctionGraph fg = file.function_graph();
      const PassReport report = Mode::fast_run(db).rewrite(fg);
      CHECK(report.ok());
      std::string nodes;
      for (const Apply* n : fg.toposort()) nodes += to_infix(n->output(0), 200) + "\n";
      INFO("the graph after rewriting:\n" << nodes);
      CHECK(fg.num_nodes() == 1);
      CHECK(fg.outputs()[0]->owner()->op().name() == "composite");

      Rng rng(8);
      std::vector<Tensor> args;
      for (std::size_t k = 0; k < file.inputs.size(); ++k)
        args.push_back(rng.uniform({64}, 0.5, 1.5));
      const auto [plain, fused] = both_ways(
          file.inputs, file.outputs, args, [db](FunctionGraph& g) { Mode::fast_run(db).rewrite(g); });
      CHECK(allclose(fused[0], plain[0], 1e-12, 1e-12, /*equal_nan=*/true));
    }
}

TEST_CASE("a group whose result is a constant of an input's shape computes it", "[ops][fusion]") {
  const Var x = vector("x"), y = vector("y");
  const Var ones = ones_like(exp(x) + y);  // the sum is read for its shape only
  const Var total = sum(zeros_like(x * 2.0));
  FunctionGraph fg({x, y}, {ones, total});
  ElemwiseFusion().rewrite(fg);
  CHECK(fg.outputs()[0]->owner()->op().to_string() == "Composite{1.0}");
  CHECK(fg.outputs()[1]->owner()->op().to_string() == "sum[Composite{0.0}]");
  const std::vector<Tensor> args = {Tensor::from({0.0, 1.0, 2.0}), Tensor::from({2.0, 3.0, 4.0})};
  const auto [plain, fused] = both_ways({x, y}, {ones, total}, args, fusion_only());
  CHECK(fused[0].equal(Tensor::from({1.0, 1.0, 1.0})));
  CHECK(fused[0].equal(plain[0]));
  CHECK(fused[1].equal(plain[1]));
}

namespace {

/// A random DAG of `n` elementwise nodes over six vectors, each reading two
/// earlier values (so most values have several readers and groups must
/// export them), with one-element constants; its last value and a dozen
/// others are outputs. The same seed gives the same graph.
std::pair<std::vector<Var>, std::vector<Var>> random_dag(std::uint64_t seed, int n) {
  std::uint64_t state = seed;
  auto next = [&](std::uint64_t bound) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>((state >> 33) % bound);
  };
  std::vector<Var> inputs;
  for (int k = 0; k < 6; ++k) inputs.push_back(vector(fmt::format("x{}", k)));
  std::vector<Var> values = inputs;
  for (int k = 0; k < n; ++k) {
    // Mostly recent values (chains), sometimes any earlier one (wide reach).
    auto pick = [&] {
      const std::size_t back = next(4) == 0 ? next(values.size()) : next(std::min<std::size_t>(8, values.size()));
      return values[values.size() - 1 - back];
    };
    const Var a = pick(), b = pick();
    switch (next(5)) {
      case 0: values.push_back(tanh(a + b)); break;
      case 1: values.push_back(a * b); break;
      case 2: values.push_back((a - b) * 0.5); break;
      case 3: values.push_back(maximum(a, b)); break;
      default: values.push_back(-a); break;
    }
  }
  Var all = inputs[0];  // every input is read
  for (std::size_t k = 1; k < inputs.size(); ++k) all = all + inputs[k];
  std::vector<Var> outputs = {values.back() * all};
  for (int k = 0; k < 12; ++k) outputs.push_back(values[6 + next(values.size() - 6)]);
  return {inputs, outputs};
}

}  // namespace

TEST_CASE("a large random DAG fuses into Composites that compute what it computed",
          "[ops][fusion]") {
  const FusionOptions options{.max_inputs = 8};
  const auto [inputs, outputs] = random_dag(11, 1500);
  FunctionGraph fg(inputs, outputs);
  const std::size_t before = fg.num_nodes();
  const PassReport report = ElemwiseFusion(options).rewrite(fg);
  fg.check_integrity();
  CHECK(report.applications > 0);
  CHECK(fg.num_nodes() < before / 4);
  std::size_t composites = 0;
  for (const Apply* n : fg.nodes()) {
    // A node left on its own is one no group could take in.
    if (n->op().name() != "composite") continue;
    ++composites;
    CHECK(n->num_inputs() <= options.max_inputs);
  }
  CHECK(composites == report.applications);

  // Addresses do not matter: the same graph built again (other allocations)
  // fuses into the same Composites, in the same order, reading the same inputs.
  const auto [inputs2, outputs2] = random_dag(11, 1500);
  FunctionGraph again(inputs2, outputs2);
  ElemwiseFusion(options).rewrite(again);
  CHECK(op_strings(again) == op_strings(fg));
  auto listings = [](const FunctionGraph& g) {
    std::vector<std::string> out;
    for (const Apply* n : g.toposort())
      if (const auto* c = dynamic_cast<const Composite*>(&n->op()))
        out.push_back(c->scalar_program().to_string());
    return out;
  };
  CHECK(listings(again) == listings(fg));

  Rng rng(5);
  std::vector<Tensor> args;
  for (std::size_t k = 0; k < inputs.size(); ++k) args.push_back(rng.uniform({37}, -1.0, 1.0));
  const auto [plain, fused] = both_ways(inputs, outputs, args, fusion_only(options));
  REQUIRE(fused.size() == plain.size());
  for (std::size_t k = 0; k < plain.size(); ++k) {
    INFO("output " << k);
    CHECK(allclose(fused[k], plain[k], 1e-12, 1e-12, /*equal_nan=*/true));
  }
}

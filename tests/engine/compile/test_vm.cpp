// The linker's storage plan and the VM that follows it: intermediate buffers
// freed after their last reader, handed to later nodes, or kept between calls;
// observed through the profile.
#include <catch2/catch.hpp>

#include <cmath>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/function.hpp"
#include "support/toy_ops.hpp"

using namespace rw;
using namespace rw::test;

namespace {

constexpr std::int64_t kN = 1000;
constexpr std::size_t kBytes = kN * sizeof(double);

Var exp_chain(const Var& x, int length) {
  Var v = x;
  for (int i = 0; i < length; ++i) v = exp(v);
  return v;
}

Tensor small_input() { return Tensor::full(std::vector<std::int64_t>{kN}, 1e-3); }

}  // namespace

TEST_CASE("a chain holds two intermediate buffers at a time when freeing", "[compile]") {
  Var x = fvec("x");
  auto f = compile_function({x}, exp_chain(x, 5), {.profile = true});
  const Tensor r = f(small_input());
  const double expected = std::exp(std::exp(std::exp(std::exp(std::exp(1e-3)))));
  REQUIRE(r.at({kN - 1}) == Approx(expected));
  const FunctionProfile& p = *f.profile();
  REQUIRE(p.last_peak_buffers == 2);
  REQUIRE(p.last_peak_bytes == 2 * kBytes);
  // Two buffers are allocated; every later node reuses one an earlier node
  // no longer needs, the output included.
  REQUIRE(p.new_buffers == 2);
  REQUIRE(p.reused_buffers == 3);
  f(small_input());
  REQUIRE(p.calls == 2);
  REQUIRE(p.new_buffers == 4);
  REQUIRE(p.reused_buffers == 6);
  REQUIRE(p.peak_buffers == 2);
}

TEST_CASE("a chain keeps every intermediate buffer when not freeing", "[compile]") {
  Var x = fvec("x");
  auto f = compile_function({x}, exp_chain(x, 5), {.allow_gc = false, .profile = true});
  Tensor r = f(small_input());
  const FunctionProfile& p = *f.profile();
  REQUIRE(p.last_peak_buffers == 4);
  REQUIRE(p.last_peak_bytes == 4 * kBytes);
  REQUIRE(p.new_buffers == 5);
  REQUIRE(p.reused_buffers == 0);
  // The caller still holds the last result: only the output needs a new buffer.
  Tensor r2 = f(Tensor::full(std::vector<std::int64_t>{kN}, 0.0));
  REQUIRE(p.new_buffers == 6);
  REQUIRE(p.reused_buffers == 4);
  REQUIRE_FALSE(r.shares_storage(r2));
  // Once it lets go of the latest result, nothing is allocated at all, and
  // the older result it still holds is left alone.
  r2 = Tensor();
  f(Tensor::full(std::vector<std::int64_t>{kN}, 0.0));
  REQUIRE(p.new_buffers == 6);
  REQUIRE(p.reused_buffers == 9);
  REQUIRE(p.last_peak_buffers == 4);
  REQUIRE(r.at({0}) == Approx(std::exp(std::exp(std::exp(std::exp(std::exp(1e-3)))))));
}

TEST_CASE("branches hold what their later readers still need", "[compile]") {
  Var x = fvec("x");
  Var c = add(exp(x), neg(x));
  auto f = compile_function({x}, exp(c), {.profile = true});
  const Tensor r = f(small_input());
  REQUIRE(r.at({0}) == Approx(std::exp(std::exp(1e-3) - 1e-3)));
  // exp(x) and -x are both alive while add computes c.
  REQUIRE(f.profile()->last_peak_buffers == 3);
  REQUIRE(f.profile()->last_peak_bytes == 3 * kBytes);
}

TEST_CASE("an output nobody reads is released at once and its buffer reused", "[compile]") {
  Var x = fvec("x");
  ApplyRef split = std::make_shared<ToyTwoOut>()->make_node(std::vector<Var>{x});
  auto f = compile_function({x}, exp(split->output(1)), {.profile = true});
  const Tensor r = f(Tensor::from({0.0, 1.0}));
  REQUIRE(r.at({1}) == Approx(std::exp(-1.0)));
  const FunctionProfile& p = *f.profile();
  REQUIRE(p.last_peak_buffers == 2);
  REQUIRE(p.new_buffers == 2);     // two_out allocates both of its outputs
  REQUIRE(p.reused_buffers == 1);  // exp writes into the unread one
  auto keep = compile_function({x}, exp(split->output(1)), {.allow_gc = false, .profile = true});
  keep(Tensor::from({0.0, 1.0}));
  keep(Tensor::from({0.0, 1.0}));
  REQUIRE(keep.profile()->last_peak_buffers == 2);
}

TEST_CASE("a buffer still viewed by a live variable is not handed on", "[compile]") {
  Var x = fvec("x");
  Var t = exp(x);
  Var v = view(t);
  for (bool gc : {true, false}) {
    CAPTURE(gc);
    auto f = compile_function({x}, {add(neg(t), fconst(1.0)), v}, {.allow_gc = gc});
    auto [a, b] = f(Tensor::from({0.0, 1.0}));
    REQUIRE_FALSE(a.shares_storage(b));
    REQUIRE(b.at({1}) == Approx(std::exp(1.0)));
    REQUIRE(a.at({1}) == Approx(1 - std::exp(1.0)));
    auto [a2, b2] = f(Tensor::from({0.0, 2.0}));
    REQUIRE_FALSE(a2.shares_storage(b2));
    REQUIRE_FALSE(b2.shares_storage(b));
    REQUIRE(b.at({1}) == Approx(std::exp(1.0)));
  }
}

TEST_CASE("the profile times each node in run order and can be reset", "[compile]") {
  Var x = fvec("x");
  auto f = compile_function({x}, add(exp(x), fconst(1.0)), {.name = "f", .profile = true});
  REQUIRE(f.profile()->nodes.size() == 2);
  REQUIRE(f.profile()->nodes[0].op == "exp");
  REQUIRE(f.profile()->nodes[0].node == "`exp(x)`");
  REQUIRE(f.profile()->nodes[1].op == "add");
  f(small_input());
  f(small_input());
  const FunctionProfile& p = *f.profile();
  REQUIRE(p.calls == 2);
  REQUIRE(p.nodes[0].seconds > 0);
  REQUIRE(p.seconds >= p.nodes[0].seconds + p.nodes[1].seconds);
  const std::string table = p.summary();
  REQUIRE_THAT(table, Catch::StartsWith("2 calls, "));
  REQUIRE_THAT(table, Catch::Contains("`exp(x)` = exp\n"));
  REQUIRE_THAT(table, Catch::Contains("`exp(x) + 1.0` = add\n"));
  REQUIRE_THAT(table, Catch::Contains("peak intermediate memory: 8000 bytes in 1 buffers"));
  f.reset_profile();
  REQUIRE(f.profile()->calls == 0);
  REQUIRE(f.profile()->nodes.size() == 2);
  REQUIRE(f.profile()->nodes[0].seconds == 0);
  REQUIRE(f.profile()->peak_bytes == 0);

  auto g = compile_function({x}, neg(x));
  REQUIRE(g.profile() == nullptr);
}

TEST_CASE("the profile's tables: by Op class, by Op, by node with output bytes", "[compile]") {
  Var x = fvec("x");
  auto f = compile_function({x}, add(exp(x), exp(neg(x))), {.profile = true});
  f(small_input());
  const FunctionProfile& p = *f.profile();
  REQUIRE(p.nodes.size() == 4);
  for (const NodeProfile& n : p.nodes) {
    CHECK(n.output_bytes == 8000);  // one f64[1000] each
    CHECK_FALSE(n.op_class.empty());
    CHECK(n.op_class.find("::") == std::string::npos);
  }
  const std::string table = p.summary();
  INFO(table);
  const auto cls = table.find("by Op class:\n");
  const auto ops = table.find("by Op:\n");
  const auto per_node = table.find("by node, in run order:\n");
  REQUIRE(cls != std::string::npos);
  REQUIRE(cls < ops);
  REQUIRE(ops < per_node);
  // exp runs twice: one line in the Op table with 2 nodes.
  // The toy Ops do not report their work: `-` in the GFLOP/s column.
  CHECK(table.find("      2         -  exp\n") != std::string::npos);
  CHECK(table.find("      8000         -  `exp(x)` = exp\n") != std::string::npos);
}

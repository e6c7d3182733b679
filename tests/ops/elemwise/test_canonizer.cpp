// AlgebraicCanonizer (add_canonizer, mul_canonizer, mul_cancel): what each
// simplifies, what it leaves, shapes and dtypes, determinism, and the
// end-to-end results of rw::function in the default mode.
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <catch2/catch.hpp>

#include "ops/elemwise/canonizer.hpp"
#include "rw/rewrite.hpp"
#include "support/fired_rewriters.hpp"
#include "support/graph_eval.hpp"

namespace {

using Fired = rw::testing::FiredRewriters;

/// The rewriters' own effect: fusion would wrap every result in a Composite.
rw::Mode unfused() { return rw::default_mode().excluding({"fusion", "inplace"}); }

/// What a mode makes of a graph file: every output's infix, and who fired.
struct Outcome {
  std::vector<std::string> outputs;
  std::shared_ptr<Fired> fired;
  bool settled = false;
};

Outcome rewrite(std::string_view text, const rw::Mode& mode = unfused()) {
  const rw::dsl::GraphFile g =
      rw::dsl::load_graph_text("case.graph", std::string(text), rw::standard_registry());
  rw::FunctionGraph fg = g.function_graph();
  rw::Trace trace;
  Outcome out;
  out.fired = std::make_shared<Fired>();
  trace.subscribe(out.fired);
  rw::RewriteContext ctx{.trace = &trace};
  const rw::PassReport report = mode.rewrite(fg, ctx);
  for (const rw::Var& v : fg.outputs()) out.outputs.push_back(rw::to_infix(v));
  out.settled = report.ok() && report.problems().empty() && !mode.rewrite(fg).changed;
  return out;
}

/// Checks that `text`'s only output becomes `expected`, that `rewriter`
/// fired, that rewriting settles, and that the values stay on random inputs
/// in [lo, hi), in this mode and in the whole default mode.
void check_rewrite(std::string_view text, std::string_view expected, std::string_view rewriter,
                   const rw::Mode& mode = unfused(), double lo = 0.5, double hi = 2.0) {
  const Outcome o = rewrite(text, mode);
  INFO("Input:    " << text << "\nOutput:   " << o.outputs[0] << "\nExpected: " << expected
                    << "\nfired: " << o.fired->list());
  CHECK(o.outputs[0] == expected);
  CHECK(o.fired->fired(rewriter));
  CHECK(o.settled);

  const rw::dsl::GraphFile g =
      rw::dsl::load_graph_text("case.graph", std::string(text), rw::standard_registry());
  std::vector<rw::In> inputs(g.inputs.begin(), g.inputs.end());
  const rw::FunctionOptions options{.on_unused_input = rw::UnusedInput::Ignore};
  auto plain = rw::function(inputs, g.outputs, options, rw::Mode::none(rw::standard_db()));
  auto rewritten = rw::function(inputs, g.outputs, options, mode);
  auto full = rw::function(inputs, g.outputs, options);
  rw::Rng rng(7);
  for (int draw = 0; draw < 3; ++draw) {
    const std::vector<rw::Tensor> args = rw::testing::random_args(g.inputs, rng, lo, hi);
    const rw::Tensor want = plain.call(args)[0];
    CHECK(rw::testing::close_for_dtype(rewritten.call(args)[0], want));
    CHECK(rw::testing::close_for_dtype(full.call(args)[0], want));
  }
}

// Inputs: x, y, z vectors of one unknown extent each.
#define V "input x f64[?]\ninput y f64[?]\ninput z f64[?]\n"
#define V3 "input x f64[3]\ninput y f64[3]\ninput z f64[3]\n"

}  // namespace

TEST_CASE("add_canonizer collects constants and like terms", "[ops][canonizer]") {
  check_rewrite(V "output (x + 1.0) - 1.0", "x", "add_canonizer");
  check_rewrite(V "output (1.0 + x) - 1.0", "x", "add_canonizer");
  check_rewrite(V "output (x + 2.0) + 3.0", "5.0 + x", "add_canonizer");
  check_rewrite(V "output (x + 2.0) - 3.0", "x - 1.0", "add_canonizer");
  check_rewrite(V "output (x + y) - y", "fill(y, x)", "add_canonizer");
  check_rewrite(V "output (y + x) - y", "fill(y, x)", "add_canonizer");
  check_rewrite(V "output -y + (x + y)", "fill(y, x)", "add_canonizer");
  check_rewrite(V "output 2.0 * x + 3.0 * x - x", "4.0 * x", "add_canonizer");
  check_rewrite(V "output x * 2.0 + (3.0 * x - x)", "4.0 * x", "add_canonizer");
  check_rewrite(V "output (x - y) + (y - x) + z", "fill(y, fill(x, z))", "add_canonizer");
  check_rewrite(V "output (x + (-y)) + y", "fill(y, x)", "add_canonizer");
  check_rewrite(V "output (x - (-y)) - y", "fill(y, x)", "add_canonizer");
  check_rewrite(V "output (x + y) + (z - x)", "fill(x, y + z)", "add_canonizer");
}

TEST_CASE("add_canonizer flattens single-use chains and orders terms by structure",
          "[ops][canonizer]") {
  check_rewrite(V "output (x + y) + z", "add(x, y, z)", "add_canonizer");
  // The same terms in another order: the same canonical node.
  check_rewrite(V "output (z + x) + y", "add(x, y, z)", "add_canonizer");
  check_rewrite(V "output (x - y) - (z - y)", "fill(y, x - z)", "add_canonizer");

  // Equal chains written in different orders become one node after merge.
  const Outcome o = rewrite(V "output (x + y) + z\noutput (z + x) + y\n");
  CHECK(o.outputs[0] == o.outputs[1]);
}

TEST_CASE("add_canonizer leaves what it cannot improve to other rules", "[ops][canonizer]") {
  // Two operands with nothing to combine: left as written (stabilize's
  // expm1 rules match `exp(x) - 1` and `-1 + exp(x)`).
  for (std::string_view text : {V "output x + y", V "output y + x", V "output exp(x) - 1.0",
                                V "output -1.0 + exp(x)", V "output 2.0 * x + y"}) {
    const Outcome o = rewrite(text);
    INFO(text << " -> " << o.outputs[0]);
    CHECK_FALSE(o.fired->fired("add_canonizer"));
  }
  // A partial sum used elsewhere stays a term: reading it in would compute it twice.
  const Outcome shared = rewrite(V "s = x + y\noutput s * (s + z)");
  CHECK_FALSE(shared.fired->fired("add_canonizer"));
}

TEST_CASE("add_canonizer keeps shapes and dtypes", "[ops][canonizer]") {
  // y broadcasts x to its extent: the cancelled y keeps its shape.
  check_rewrite("input x f64[1]\ninput y f64[?]\noutput (x + y) - y", "fill(y, x)",
                "add_canonizer");
  // Both of unknown extent: x may have one element at run time and y
  // broadcast it, so y's shape is kept; with equal static shapes it is x.
  check_rewrite("input x f64[?]\ninput y f64[?]\noutput (x + y) - y", "fill(y, x)",
                "add_canonizer");
  check_rewrite("input x f64[4]\ninput y f64[4]\noutput (x + y) - y", "x", "add_canonizer");
  // A matrix cancelled from a vector's sum keeps the rank.
  check_rewrite("input x f64[?]\ninput m f64[?,?]\noutput (x + m) - m", "fill(m, x)",
                "add_canonizer");
  // Integers stay integers.
  check_rewrite("input k i64[?]\noutput (k + 1) - 1", "k", "add_canonizer", unfused(), -5, 5);
  check_rewrite("input k i64[?]\ninput j i64[?]\noutput (2 * k - j) + 3 * k", "5 * k - j",
                "add_canonizer", unfused(), -5, 5);
  // Everything cancels: a zero of the chain's shape.
  check_rewrite(V "output (x + y) - (y + x)", "fill(y, fill(x, 0.0))", "add_canonizer");
}

TEST_CASE("mul_canonizer folds constants and flattens products", "[ops][canonizer]") {
  check_rewrite(V "output x * 2.0 * 3.0", "6.0 * x", "mul_canonizer");
  check_rewrite(V "output 2.0 * (x * 3.0)", "6.0 * x", "mul_canonizer");
  check_rewrite(V "output (3.0 * x) * 2.0", "6.0 * x", "mul_canonizer");
  check_rewrite(V "output (x / 2.0) * 4.0", "2.0 * x", "mul_canonizer");
  check_rewrite(V "output (x * 2.0) * 0.5", "x", "mul_canonizer");
  check_rewrite(V "output -(x * 2.0) * 3.0", "-(6.0 * x)", "mul_canonizer");
  check_rewrite(V "output (x * y) * z", "mul(x, y, z)", "mul_canonizer");
  check_rewrite(V "output ((x / y) / z) / y", "x / mul(y, y, z)", "mul_canonizer");
  check_rewrite("input k i64[?]\noutput k * 2 * 3", "6 * k", "mul_canonizer", unfused(), -5, 5);
}

TEST_CASE("mul_cancel cancels factors, and is the only part that assumes nonzero",
          "[ops][canonizer]") {
  check_rewrite(V "output (x * y * z) / (y * z)", "fill(z, fill(y, x))", "mul_cancel");
  check_rewrite(V "output (z * x * y) / (y * z)", "fill(z, fill(y, x))", "mul_cancel");
  check_rewrite(V "output (2.0 * x * y) / (y * 4.0)", "fill(y, 0.5 * x)", "mul_cancel");
  check_rewrite(V "output ((x / y) * z) * y", "fill(y, x * z)", "mul_cancel");
  // y broadcasts x: the cancelled factor keeps its shape.
  check_rewrite("input x f64[1]\ninput y f64[?]\ninput z f64[?]\noutput (x * y * z) / (y * z)",
                "fill(z, fill(y, x))", "mul_cancel");
  check_rewrite("input x f64[3]\ninput y f64[3]\ninput z f64[3]\noutput (x * y * z) / (y * z)",
                "x", "mul_cancel");

  // Without the assumption: constants and flattening only.
  const rw::Mode strict = unfused().strict();
  const Outcome o = rewrite(V "output (x * y * z) / (y * z)", strict);
  INFO(o.outputs[0]);
  CHECK_FALSE(o.fired->fired("mul_cancel"));
  CHECK(o.outputs[0] != "x");
  const Outcome k = rewrite(V "output x * 2.0 * 3.0", strict);
  CHECK(k.outputs[0] == "6.0 * x");

  // An integer product divided: the division is float, the product is not
  // read into it, and nothing cancels.
  const Outcome ints =
      rewrite("input i i64[?]\ninput j i64[?]\noutput (i * j) / j");
  CHECK_FALSE(ints.fired->fired("mul_cancel"));
}

TEST_CASE("the canonizers' fast path refuses a node with nothing to do", "[ops][canonizer]") {
  const rw::dsl::GraphFile g = rw::dsl::load_graph_text(
      "case.graph", V "output (x + y) * (exp(z) - 2.0)", rw::standard_registry());
  rw::FunctionGraph fg = g.function_graph();
  const rw::AlgebraicCanonizer add(rw::CanonizerKind::Add);
  const rw::AlgebraicCanonizer mul(rw::CanonizerKind::MulCancel);
  for (rw::Apply* node : fg.toposort()) {
    const rw::NodeRewriter& r = node->op().name() == "mul" ? static_cast<const rw::NodeRewriter&>(mul)
                                                           : add;
    if (!r.tracks().matches(node->op())) continue;
    const rw::RewriteResult res = r.transform(fg, *node, rw::RewriteContext{});
    CHECK_FALSE(res.applied());
    // mul_cancel leaves a product with no division in it before reading it.
    CHECK(res.reason() == (&r == &mul ? "no division to cancel"
                                      : "nothing to flatten, combine or cancel"));
  }
}

namespace {

/// The reason `rewriter` gives at the node computing `text`'s only output.
std::string reason_at_output(std::string_view text, const rw::AlgebraicCanonizer& rewriter) {
  const rw::dsl::GraphFile g =
      rw::dsl::load_graph_text("case.graph", std::string(text), rw::standard_registry());
  rw::FunctionGraph fg = g.function_graph();
  rw::Apply* node = fg.outputs()[0]->owner();
  REQUIRE(node);
  const rw::RewriteResult res = rewriter.transform(fg, *node, rw::RewriteContext{});
  return res.applied() ? "applied" : std::string(res.reason());
}

}  // namespace

TEST_CASE("add_canonizer reads the canonical difference without rebuilding it",
          "[ops][canonizer]") {
  const rw::AlgebraicCanonizer add(rw::CanonizerKind::Add);
  // What build_sum writes, with nothing to combine: refused before the chain
  // is read in full (it is met again at every change below it).
  CHECK(reason_at_output(V "input w f64[?]\noutput (x + y) - (z + w)", add) ==
        "the chain is already in canonical form");
  CHECK(reason_at_output(V "input w f64[?]\noutput add(x, y, exp(z)) - (w + z)", add) ==
        "the chain is already in canonical form");
  // The same shape with something to do is read, and rewritten.
  CHECK(reason_at_output(V "output (x + y) - (z + x)", add) == "applied");
  CHECK(reason_at_output(V "output (x + 0.0) - (z + y)", add) == "applied");
  CHECK(reason_at_output(V "output (x + 2.0) - (z + 3.0)", add) == "applied");
  CHECK(reason_at_output(V "output (x + y) - (z + 1.0 * y)", add) == "applied");
  CHECK(reason_at_output(V "output (x + (y + z)) - (z + x)", add) == "applied");
}

TEST_CASE("add_canonizer combines like terms in long sums", "[ops][canonizer]") {
  // Past eight terms like terms are grouped by a hash of their bases instead
  // of pairwise: the same answer, first term first.
  check_rewrite(V "output (((((((((y + x) + y) + x) + y) + x) + y) + x) + y) + x) - y",
                "5.0 * x + 4.0 * y", "add_canonizer");
  check_rewrite(V "output add(x, y, z, x, y, z, x, y, z, x) - (z + z + z)",
                "fill(z, 4.0 * x + 3.0 * y)", "add_canonizer");
  check_rewrite(V3 "output add(x, y, z, x, y, z, x, y, z, x) - (z + z + z)",
                "4.0 * x + 3.0 * y", "add_canonizer");
}

TEST_CASE("rw::function in the default mode computes the simplified chains", "[ops][canonizer]") {
  struct Case {
    std::string_view graph, expected;
  };
  // The examples, with static shapes (with unknown extents a
  // cancelled operand keeps its broadcast as a fill). One node at most:
  // nothing is left for fusion to hide.
  for (const Case& c : {Case{V3 "output x * 2.0 * 3.0", "6.0 * x"},
                        Case{V3 "output (x + 1.0) - 1.0", "x"},
                        Case{V3 "output (x + y) - y", "x"},
                        Case{V3 "output 2.0 * x + 3.0 * x - x", "4.0 * x"},
                        Case{V3 "output (x * y * z) / (y * z)", "x"}}) {
    const rw::dsl::GraphFile g =
        rw::dsl::load_graph_text("case.graph", std::string(c.graph), rw::standard_registry());
    std::vector<rw::In> inputs(g.inputs.begin(), g.inputs.end());
    const rw::FunctionOptions options{.on_unused_input = rw::UnusedInput::Ignore};
    auto f = rw::function(inputs, g.outputs, options);
    const rw::FunctionGraph& fg = f.fgraph();
    INFO(c.graph << " -> " << rw::to_infix(fg.outputs()[0]));
    // An output that is an input is returned as a copy.
    const std::string out = rw::to_infix(fg.outputs()[0]);
    CHECK((out == c.expected || out == "deep_copy(" + std::string(c.expected) + ")"));
    CHECK(fg.nodes().size() <= 1);
  }
}

TEST_CASE("the canonizers keep the values of random chains", "[ops][canonizer]") {
  // Random sums and products of x, y, z (vectors), w (one element, which
  // broadcasts) and small constants; inputs in [0.5, 2). Compared where the
  // original is finite: a random chain can divide by a difference that is
  // exactly zero, where `x - x -> 0` and mul_cancel's assumption make the
  // sign of an infinity (or a NaN) differ, as the rules do.
  std::mt19937 gen(20261202);
  const char* leaves[] = {"x", "y", "z", "w", "1.0", "2.0", "0.5", "-1.0"};
  const char* ops[] = {" + ", " - ", " * ", " / "};
  std::function<std::string(int)> expr = [&](int depth) -> std::string {
    if (depth == 0 || gen() % 4 == 0) return leaves[gen() % 8];
    if (gen() % 8 == 0) return "-(" + expr(depth - 1) + ")";
    return "(" + expr(depth - 1) + ops[gen() % 4] + expr(depth - 1) + ")";
  };
  const rw::Mode strict = rw::default_mode().strict();
  rw::Rng rng(3);
  int checked = 0;
  for (int i = 0; i < 150; ++i) {
    const std::string text = "input x f64[?]\ninput y f64[?]\ninput z f64[?]\ninput w f64[1]\n"
                             "output x + " + expr(4) + "\n";
    INFO(text);
    const rw::dsl::GraphFile g =
        rw::dsl::load_graph_text("case.graph", text, rw::standard_registry());
    std::vector<rw::In> inputs(g.inputs.begin(), g.inputs.end());
    const rw::FunctionOptions options{.on_unused_input = rw::UnusedInput::Ignore};
    auto plain = rw::function(inputs, g.outputs, options, rw::Mode::none(rw::standard_db()));
    auto assumption_free = rw::function(inputs, g.outputs, options, strict);
    auto full = rw::function(inputs, g.outputs, options);
    const std::vector<rw::Tensor> args = rw::testing::random_args(g.inputs, rng, 0.5, 2.0);
    const rw::Tensor want = plain.call(args)[0];
    INFO("after: " << rw::to_infix(full.fgraph().outputs()[0]));
    bool finite = true;
    const rw::Tensor w64 = want.contiguous().astype(rw::DType::Float64);
    const double* values = w64.data<double>();
    for (std::size_t k = 0; k < static_cast<std::size_t>(w64.size()); ++k)
      finite = finite && std::isfinite(values[k]);
    if (finite) {
      CHECK(rw::testing::close_for_dtype(assumption_free.call(args)[0], want));
      CHECK(rw::testing::close_for_dtype(full.call(args)[0], want));
      ++checked;
    }
  }
  CHECK(checked > 100);
}

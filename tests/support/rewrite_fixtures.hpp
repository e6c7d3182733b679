// Node rewriters over the toy ops shared by the rewrite tests, and a helper
// that checks a rewrite and prints Input / Output / Expected when it fails.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "support/toy_ops.hpp"

namespace rw::test {

/// The seed's Simplify example: (x * y) / y -> x and (x * y) / x -> y.
inline NodeRewriterPtr div_cancel() {
  return make_node_rewriter(
      "div_cancel", {"div"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        const Apply* num = node.input(0)->owner();
        if (!num || num->op().name() != "mul")
          return RewriteResult::fail("the numerator is not a product");
        if (num->input(1) == node.input(1)) return RewriteResult::replace_output(num->input(0));
        if (num->input(0) == node.input(1)) return RewriteResult::replace_output(num->input(1));
        return RewriteResult::fail("the denominator is not a factor of the numerator");
      },
      /*depth=*/1, /*benefit=*/1, "(x * y) / y -> x, (x * y) / x -> y");
}

/// The value of a 0-d constant, if `v` is one.
inline std::optional<double> constant_value(const Var& v) {
  const Constant* c = v->as_constant();
  return c ? c->scalar_value() : std::nullopt;
}

/// x * 1 -> x and 1 * x -> x (constants of value 1).
inline NodeRewriterPtr mul_one() {
  return make_node_rewriter(
      "mul_one", {"mul"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        if (constant_value(node.input(1)) == 1.0 &&
            node.output_var(0).type()->is_super(*node.input(0)->type()))
          return RewriteResult::replace_output(node.input(0));
        if (constant_value(node.input(0)) == 1.0 &&
            node.output_var(0).type()->is_super(*node.input(1)->type()))
          return RewriteResult::replace_output(node.input(1));
        return RewriteResult::fail("no factor is the constant 1");
      },
      /*depth=*/0);
}

/// x + 0 -> x.
inline NodeRewriterPtr add_zero() {
  return make_node_rewriter(
      "add_zero", {"add"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        if (constant_value(node.input(1)) == 0.0) return RewriteResult::replace_output(node.input(0));
        return RewriteResult::fail("the second term is not the constant 0");
      },
      /*depth=*/0);
}

/// -(-x) -> x.
inline NodeRewriterPtr neg_neg() {
  return make_node_rewriter(
      "neg_neg", {"neg"},
      [](FunctionGraph&, Apply& node, const RewriteContext&) {
        const Apply* inner = node.input(0)->owner();
        if (inner && inner->op().name() == "neg")
          return RewriteResult::replace_output(inner->input(0));
        return RewriteResult::fail("the operand is not a negation");
      },
      /*depth=*/1);
}

/// The outputs of a graph as infix text, joined by " ; ".
inline std::string infix(const FunctionGraph& fg) {
  std::string out;
  for (const Var& o : fg.outputs()) out += (out.empty() ? "" : " ; ") + to_infix(o);
  return out;
}

/// Runs an equilibrium of `rewriters` on the graph computing `output` from
/// `inputs` and checks the infix form of the result, printing Input, Output
/// and Expected when it differs.
inline void check_rewrite(std::vector<NodeRewriterPtr> rewriters, std::vector<Var> inputs,
                          const Var& output, const std::string& expected) {
  FunctionGraph fg(std::move(inputs), {output});
  const std::string input = infix(fg);
  EquilibriumRewriter eq("check", std::move(rewriters));
  const PassReport report = eq.rewrite(fg);
  fg.check_integrity();
  INFO("Input:    " << input << "\nOutput:   " << infix(fg) << "\nExpected: " << expected);
  CHECK(report.ok());
  CHECK(infix(fg) == expected);
}

}  // namespace rw::test

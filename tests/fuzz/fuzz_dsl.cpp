// libFuzzer target for the rules language: every input is parsed and checked
// as a rule file (with two importable files beside it) and built as a graph
// file; diagnostics are rendered, loaded rules printed and their guards
// evaluated. Nothing may crash, hang, leak or recurse without bound.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/dsl/graph_file.hpp"
#include "engine/dsl/rule_loader.hpp"
#include "engine/graph/type.hpp"
#include "support/pt_ops.hpp"

namespace {

using namespace rw;
using namespace rw::dsl;

std::shared_ptr<MemoryResolver> make_files() {
  auto files = std::make_shared<MemoryResolver>();
  files->add(
      "lib.rules",
      "ruleset lib tags(canonicalize)\ndeclare add: commutative\n"
      "rule lib_mul_one: x * 1 => x\nrule lib_sum: sum(x, axis=?a) => x where rank(x) == 0\n");
  files->add("bad.rules", "rule bad: lgo(x) => y\nimport \"input.rules\"\n");
  return files;
}

// Evaluates each guard with every tensor variable bound to one input and
// every parameter variable to `none`.
void exercise(const RuleModule& m) {
  const Var x = Variable::make(TensorType::make(DType::Float64, {kUnknownDim, 1}), "x");
  const Var c = Constant::make(Tensor::from({2.0, 2.0}));
  for (const CheckedRule& r : m.rules) {
    (void)r.to_string();
    if (!r.guard) continue;
    // Parameter variables stay null: a guard reads tensor variables only.
    std::vector<Var> b(r.vars.size());
    for (std::size_t i = 0; i < r.vars.size(); ++i)
      if (r.vars[i].kind == VarKind::Tensor) b[i] = i % 2 ? c : x;
    (void)r.guard->evaluate(b, nullptr);
    (void)r.guard->why_false(b, nullptr);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const auto files = make_files();
  static const PredicateRegistry predicates;
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto rules = check_rules_text("input.rules", text, test::pt_registry(), predicates, {files, {}});
  (void)render(rules.diagnostics);
  if (rules.value) exercise(*rules.value);
  auto graph = check_graph_text("input.graph", text, test::pt_registry());
  (void)render(graph.diagnostics);
  if (graph.value) (void)graph.value->function_graph(false).num_nodes();
  return 0;
}

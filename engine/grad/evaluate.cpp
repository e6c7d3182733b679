// A direct interpreter of graphs: perform, node by node.
#include "engine/grad/evaluate.hpp"

#include <fmt/format.h>

#include <unordered_map>

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"

namespace rw {

std::vector<Tensor> evaluate(std::span<const Var> inputs, std::span<const Var> outputs,
                             std::span<const Tensor> values) {
  if (inputs.size() != values.size())
    throw Error(fmt::format("`evaluate`: {} inputs but {} values", inputs.size(), values.size()));
  std::unordered_map<const Variable*, Tensor> env;
  for (std::size_t i = 0; i < inputs.size(); ++i) env[inputs[i].get()] = values[i];
  auto value_of = [&](const Var& v) -> const Tensor& {
    if (auto it = env.find(v.get()); it != env.end()) return it->second;
    if (const Constant* c = v->as_constant()) return env.emplace(v.get(), c->value()).first->second;
    throw MissingInputError(
        fmt::format("`evaluate`: {} is needed but is neither an input nor a constant", describe(*v)));
  };
  for (Apply* node : io_toposort(inputs, outputs)) {
    std::vector<Tensor> in;
    in.reserve(node->num_inputs());
    for (const Var& x : node->inputs()) in.push_back(value_of(x));
    std::vector<Tensor> out(node->num_outputs());
    node->op().perform(*node, in, out);
    for (std::size_t j = 0; j < out.size(); ++j) env[&node->output_var(j)] = std::move(out[j]);
  }
  std::vector<Tensor> result;
  for (const Var& o : outputs) result.push_back(value_of(o));
  return result;
}

}  // namespace rw

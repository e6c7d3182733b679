// ProtectInputs.
#include "engine/compile/protect_inputs.hpp"

#include <fmt/format.h>

#include "engine/compile/aliasing.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

ProtectInputs::ProtectInputs(const std::vector<Var>& protected_vars) {
  for (const Var& v : protected_vars) protected_.insert(v.get());
}

void ProtectInputs::on_attach(FunctionGraph& fgraph) {
  destroyers_.clear();
  for (Apply* node : fgraph.nodes())
    if (!node->op().cached_destroy_map().empty()) destroyers_.insert(node);
}

void ProtectInputs::on_detach(FunctionGraph&) { destroyers_.clear(); }

void ProtectInputs::on_import(FunctionGraph&, Apply& node, std::string_view) {
  if (!node.op().cached_destroy_map().empty()) destroyers_.insert(&node);
}

void ProtectInputs::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  destroyers_.erase(&node);
}

void ProtectInputs::on_change_op(FunctionGraph&, Apply& node, const OpPtr&, std::string_view) {
  if (node.op().cached_destroy_map().empty()) destroyers_.erase(&node);
  else destroyers_.insert(&node);
}

bool ProtectInputs::is_protected(const Variable& var) const {
  return var.is_constant() || protected_.contains(&var);
}

void ProtectInputs::validate(const FunctionGraph&) {
  for (const Apply* node : destroyers_)
    for (const auto& [o, i] : node->op().cached_destroy_map()) {
      if (i >= node->num_inputs()) continue;
      for (const Variable* root : alias_roots(*node->input(i)))
        if (is_protected(*root))
          throw InconsistencyError(fmt::format("`{}` would overwrite {}, which the function must not change",
                                               node->op().to_string(), describe(*root)));
    }
}

}  // namespace rw

// Checking a call's parameters against its Op's ParamSpecs, shared by rule
// and graph files: each fault is reported on the parameter that has it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/dsl/ast.hpp"
#include "engine/dsl/diagnostic.hpp"
#include "engine/graph/op_registry.hpp"

namespace rw::dsl::detail {

/// One parameter of a checked call, in the Op's parameter order.
struct ParamSlot {
  const ParamSpec* spec = nullptr;
  /// The value converted to the parameter's kind (or the default).
  std::optional<PropValue> value;
  /// Or the name of the parameter variable written there (rules only).
  std::string variable;
  /// Where the value was written, or the callee for a default.
  Span span;
  bool written = false;
};

/// Checks `call`'s parameters for `info`: no parameter twice, every name
/// known, every literal of the right kind, every required one present. Words
/// that are not literals (`axis=a`) and `?a` are parameter variables when
/// `allow_variables`, errors otherwise. Errors go to `out`; returns nullopt
/// when there was any.
std::optional<std::vector<ParamSlot>> check_params(const OpInfo& info, const ast::Call& call,
                                                   bool allow_variables, const SourcePtr& file,
                                                   std::vector<Diagnostic>& out);

/// "1 input", "at least 2 inputs", "1 to 3 inputs": what `info` accepts.
std::string inputs_text(const OpInfo& info);
/// "op `exp` takes 1 input, but 2 are given".
std::string arity_message(const OpInfo& info, std::size_t given);

}  // namespace rw::dsl::detail

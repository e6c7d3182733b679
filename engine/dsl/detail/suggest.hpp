// "Did you mean" clauses for the DSL's diagnostics (rw::closest_name).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/op_registry.hpp"

namespace rw::dsl::detail {

/// "; did you mean `x`?" when there is a close candidate, else "".
std::string did_you_mean(std::string_view name, std::span<const std::string> candidates);
/// The same among the names and aliases an OpRegistry knows.
std::string did_you_mean_op(std::string_view name, const OpRegistry& ops);

}  // namespace rw::dsl::detail

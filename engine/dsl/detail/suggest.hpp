// "Did you mean" suggestions: the closest known name by edit distance.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/graph/op_registry.hpp"

namespace rw::dsl::detail {

/// Edit distance where a swap of two neighbours counts one (optimal string
/// alignment), so that `lgo` is one edit from `log`.
std::size_t edit_distance(std::string_view a, std::string_view b);
/// The candidate closest to `name`, or an empty string when none is close:
/// within a third of the name's length (at least 1) and not entirely different.
/// Ties go to the earliest.
std::string closest(std::string_view name, std::span<const std::string> candidates);
/// "; did you mean `x`?" when there is a close candidate, else "".
std::string did_you_mean(std::string_view name, std::span<const std::string> candidates);
/// The same among the names and aliases an OpRegistry knows.
std::string did_you_mean_op(std::string_view name, const OpRegistry& ops);

}  // namespace rw::dsl::detail

// "Did you mean" suggestions: names close to a misspelt one, by edit distance,
// for every place that reports an unknown name (ops, rules, options).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

/// Edit distance where a swap of two neighbours counts one (optimal string
/// alignment), so that `lgo` is one edit from `log`.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidates close to `name`, closest first (ties in the given order):
/// within a third of the name's length (at least 1 edit) and not entirely
/// different. `name` itself is never suggested.
std::vector<std::string> near_names(std::string_view name,
                                    std::span<const std::string> candidates);

/// The closest of `near_names`, if any.
std::optional<std::string> closest_name(std::string_view name,
                                        std::span<const std::string> candidates);

}  // namespace rw

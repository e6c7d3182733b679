// "Did you mean" suggestions.
#include "engine/dsl/detail/suggest.hpp"

#include <algorithm>

#include "engine/graph/suggest.hpp"

namespace rw::dsl::detail {

std::string did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  const std::optional<std::string> c = closest_name(name, candidates);
  return c ? "; did you mean `" + *c + "`?" : std::string();
}

std::string did_you_mean_op(std::string_view name, const OpRegistry& ops) {
  std::vector<std::string> names = ops.suggest(name);
  for (const OpInfo* info : ops.all()) names.push_back(info->name);
  return did_you_mean(name, names);
}

}  // namespace rw::dsl::detail

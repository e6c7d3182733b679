// "Did you mean" suggestions.
#include "engine/dsl/detail/suggest.hpp"

#include <algorithm>

namespace rw::dsl::detail {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::size_t> d((n + 1) * (m + 1));
  auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
  for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
  for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      at(i, j) = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        at(i, j) = std::min(at(i, j), at(i - 2, j - 2) + 1);
    }
  }
  return at(n, m);
}

std::string closest(std::string_view name, std::span<const std::string> candidates) {
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::size_t best = limit + 1;
  std::string out;
  for (const std::string& c : candidates) {
    if (c == name) continue;
    const std::size_t d = edit_distance(name, c);
    if (d < best && d < std::max(name.size(), c.size())) {
      best = d;
      out = c;
    }
  }
  return out;
}

std::string did_you_mean(std::string_view name, std::span<const std::string> candidates) {
  const std::string c = closest(name, candidates);
  return c.empty() ? std::string() : "; did you mean `" + c + "`?";
}

std::string did_you_mean_op(std::string_view name, const OpRegistry& ops) {
  std::vector<std::string> names = ops.suggest(name);
  for (const OpInfo* info : ops.all()) names.push_back(info->name);
  return did_you_mean(name, names);
}

}  // namespace rw::dsl::detail

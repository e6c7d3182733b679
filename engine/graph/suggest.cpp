// Edit distance and the names close to a misspelt one.
#include "engine/graph/suggest.hpp"

#include <algorithm>

namespace rw {

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

std::vector<std::string> near_names(std::string_view name,
                                    std::span<const std::string> candidates) {
  const std::size_t limit = std::max<std::size_t>(1, name.size() / 3);
  std::vector<std::pair<std::size_t, std::size_t>> scored;  // distance, index
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& c = candidates[i];
    if (c == name) continue;
    const std::size_t d = edit_distance(name, c);
    if (d <= limit && d < std::max(name.size(), c.size())) scored.emplace_back(d, i);
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, i] : scored)
    if (std::find(out.begin(), out.end(), candidates[i]) == out.end())
      out.push_back(candidates[i]);
  return out;
}

std::optional<std::string> closest_name(std::string_view name,
                                        std::span<const std::string> candidates) {
  std::vector<std::string> near = near_names(name, candidates);
  if (near.empty()) return std::nullopt;
  return std::move(near.front());
}

}  // namespace rw

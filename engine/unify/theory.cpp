// Theory declarations and the enumeration of commutative/associative
// arrangements of operands.
#include "engine/unify/theory.hpp"

#include <algorithm>
#include <numeric>

#include "engine/unify/term.hpp"

namespace rw {

Theory& Theory::commutative(std::string_view op_name) {
  if (!is_commutative(op_name)) comm_.emplace_back(op_name);
  return *this;
}

Theory& Theory::associative(std::string_view op_name) {
  if (!is_associative(op_name)) assoc_.emplace_back(op_name);
  return *this;
}

bool Theory::is_commutative(std::string_view op_name) const {
  return std::find(comm_.begin(), comm_.end(), op_name) != comm_.end();
}

bool Theory::is_associative(std::string_view op_name) const {
  return std::find(assoc_.begin(), assoc_.end(), op_name) != assoc_.end();
}

namespace detail {

namespace {

void too_many(std::size_t k, std::size_t m) {
  throw TermError("matching " + std::to_string(k) + " operands against " + std::to_string(m) +
                  " has more than " + std::to_string(kMaxArrangements) + " arrangements");
}

}  // namespace

std::vector<Arrangement> arrangements(
    std::size_t k, std::size_t m, bool commutative, bool associative,
    const std::vector<std::pair<std::uint32_t, std::uint32_t>>& subtrees) {
  std::vector<Arrangement> out;
  if (k == 0 || k > m || (!associative && k != m)) return out;
  if (!associative && !commutative) {
    Arrangement a(k);
    for (std::uint32_t i = 0; i < k; ++i) a[i] = {i};
    out.push_back(std::move(a));
    return out;
  }
  if (!associative) {  // permutations, identity first
    std::vector<std::uint32_t> perm(m);
    std::iota(perm.begin(), perm.end(), 0u);
    do {
      if (out.size() >= kMaxArrangements) too_many(k, m);
      Arrangement a(k);
      for (std::size_t i = 0; i < k; ++i) a[i] = {perm[i]};
      out.push_back(std::move(a));
    } while (std::next_permutation(perm.begin(), perm.end()));
    return out;
  }
  if (!commutative) {  // compositions: k-1 cut points among m-1 gaps, in lexicographic order
    std::vector<std::uint32_t> cuts(k - 1);
    std::iota(cuts.begin(), cuts.end(), 1u);
    for (;;) {
      if (out.size() >= kMaxArrangements) too_many(k, m);
      Arrangement a(k);
      std::uint32_t b = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const std::uint32_t e = i + 1 < k ? cuts[i] : static_cast<std::uint32_t>(m);
        for (std::uint32_t j = b; j < e; ++j) a[i].push_back(j);
        b = e;
      }
      out.push_back(std::move(a));
      // Next combination of cut points.
      std::size_t i = cuts.size();
      while (i > 0 && cuts[i - 1] == m - (cuts.size() - i) - 1) --i;
      if (i == 0) break;
      ++cuts[i - 1];
      for (std::size_t j = i; j < cuts.size(); ++j) cuts[j] = cuts[j - 1] + 1;
    }
  } else {  // surjections of m operands onto k positions, lexicographic
    double total = 1;
    for (std::size_t i = 0; i < m; ++i) total *= static_cast<double>(k);
    if (total > 16.0 * kMaxArrangements) too_many(k, m);
    std::vector<std::uint32_t> assign(m, 0);
    for (;;) {
      std::vector<std::uint32_t> count(k, 0);
      for (std::uint32_t x : assign) ++count[x];
      if (std::all_of(count.begin(), count.end(), [](std::uint32_t c) { return c > 0; })) {
        if (out.size() >= kMaxArrangements) too_many(k, m);
        Arrangement a(k);
        for (std::uint32_t j = 0; j < m; ++j) a[assign[j]].push_back(j);
        out.push_back(std::move(a));
      }
      std::size_t i = m;
      while (i > 0 && assign[i - 1] == k - 1) --i;
      if (i == 0) break;
      ++assign[i - 1];
      for (std::size_t j = i; j < m; ++j) assign[j] = 0;
    }
  }
  // Arrangements needing no new node first; otherwise keep the order above.
  auto cost = [&](const Arrangement& a) {
    std::size_t c = 0;
    for (const auto& g : a) {
      if (g.size() < 2) continue;
      const bool contiguous = g.back() - g.front() + 1 == g.size();
      const bool exists =
          contiguous && std::find(subtrees.begin(), subtrees.end(),
                                  std::pair{g.front(), g.back() + 1}) != subtrees.end();
      if (!exists) ++c;
    }
    return c;
  };
  std::vector<std::pair<std::size_t, std::size_t>> keyed;
  keyed.reserve(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) keyed.emplace_back(cost(out[i]), i);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Arrangement> sorted;
  sorted.reserve(out.size());
  for (auto& [c, i] : keyed) sorted.push_back(std::move(out[i]));
  return sorted;
}

}  // namespace detail

}  // namespace rw

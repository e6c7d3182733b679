// Theory declarations and the enumeration of commutative/associative
// arrangements of operands.
#include "engine/unify/theory.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

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

Arrangements::Arrangements(std::size_t k, std::size_t m, bool commutative, bool associative,
                           std::vector<std::pair<std::uint32_t, std::uint32_t>> subtrees)
    : k_(static_cast<std::uint32_t>(k)),
      m_(static_cast<std::uint32_t>(m)),
      comm_(commutative),
      assoc_(associative),
      done_(k == 0 || k > m || (!associative && k != m)),
      subtrees_(std::move(subtrees)) {}

void Arrangements::restart() {
  started_ = false;
  state_.clear();
}

bool Arrangements::raw_next(Arrangement& out) {
  out.resize(k_);
  for (auto& g : out) g.clear();  // keeps the groups' storage from the last arrangement
  if (!assoc_) {
    if (!started_) {
      state_.resize(m_);
      std::iota(state_.begin(), state_.end(), 0u);
    } else if (!comm_ || !std::next_permutation(state_.begin(), state_.end())) {
      return false;  // the identity only, or the last permutation was given
    }
    started_ = true;
    for (std::size_t i = 0; i < k_; ++i) out[i].push_back(state_[i]);
    return true;
  }
  if (!comm_) {  // compositions: k-1 cut points among m-1 gaps, in lexicographic order
    if (!started_) {
      state_.resize(k_ - 1);
      std::iota(state_.begin(), state_.end(), 1u);
    } else {
      std::size_t i = state_.size();
      while (i > 0 && state_[i - 1] == m_ - (state_.size() - i) - 1) --i;
      if (i == 0) return false;
      ++state_[i - 1];
      for (std::size_t j = i; j < state_.size(); ++j) state_[j] = state_[j - 1] + 1;
    }
    started_ = true;
    std::uint32_t b = 0;
    for (std::size_t i = 0; i < k_; ++i) {
      const std::uint32_t e = i + 1 < k_ ? state_[i] : m_;
      for (std::uint32_t j = b; j < e; ++j) out[i].push_back(j);
      b = e;
    }
    return true;
  }
  // Surjections of m operands onto k positions, in lexicographic order of the
  // assignment (operand j goes to position state_[j]).
  std::vector<std::uint32_t> count(k_);
  for (;;) {
    if (!started_) {
      state_.assign(m_, 0);
      started_ = true;
    } else {
      std::size_t i = m_;
      while (i > 0 && state_[i - 1] == k_ - 1) --i;
      if (i == 0) return false;
      ++state_[i - 1];
      for (std::size_t j = i; j < m_; ++j) state_[j] = 0;
    }
    std::fill(count.begin(), count.end(), 0u);
    for (std::uint32_t x : state_) ++count[x];
    if (std::all_of(count.begin(), count.end(), [](std::uint32_t c) { return c > 0; })) break;
  }
  for (std::uint32_t j = 0; j < m_; ++j) out[state_[j]].push_back(j);
  return true;
}

std::size_t Arrangements::cost(const Arrangement& a) const {
  std::size_t c = 0;
  for (const auto& g : a) {
    if (g.size() < 2) continue;
    const bool contiguous = g.back() - g.front() + 1 == g.size();
    const bool exists = contiguous && std::find(subtrees_.begin(), subtrees_.end(),
                                                std::pair{g.front(), g.back() + 1}) != subtrees_.end();
    if (!exists) ++c;
  }
  return c;
}

bool Arrangements::next(Arrangement& out) {
  constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
  while (!done_) {
    if (!started_) next_level_ = none;
    while (raw_next(out)) {
      const std::size_t c = cost(out);
      if (c == level_) return true;
      if (c > level_ && c < next_level_) next_level_ = c;
    }
    if (next_level_ == none) {
      done_ = true;
    } else {
      level_ = next_level_;
      restart();
    }
  }
  return false;
}

}  // namespace detail

}  // namespace rw

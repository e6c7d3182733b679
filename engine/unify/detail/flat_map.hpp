// FlatMap: an open-addressing map from nonzero 64-bit words to values, for
// the memo tables of traversals (no allocation per entry; cleared in time
// proportional to what it holds).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace rw::detail {

template <class V> class FlatMap {
 public:
  /// The value for `key`, or null.
  V* find(std::uint64_t key) {
    if (used_.empty()) return nullptr;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return &values_[i];
      if (keys_[i] == 0) return nullptr;
    }
  }
  /// Inserts (key, value) unless `key` is present; returns the stored value
  /// and whether it was inserted.
  std::pair<V*, bool> insert(std::uint64_t key, V value) {
    if ((used_.size() + 1) * 2 > keys_.size()) grow();
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == key) return {&values_[i], false};
      if (keys_[i] == 0) {
        keys_[i] = key;
        values_[i] = std::move(value);
        used_.push_back(i);
        return {&values_[i], true};
      }
    }
  }
  std::size_t size() const { return used_.size(); }
  /// Empties the map, keeping its memory.
  void clear() {
    for (std::size_t i : used_) {
      keys_[i] = 0;
      values_[i] = V();
    }
    used_.clear();
  }

 private:
  std::size_t slot(std::uint64_t key) const {
    key ^= key >> 29;
    key *= 0xbf58476d1ce4e5b9ULL;
    key ^= key >> 32;
    return static_cast<std::size_t>(key) & mask_;
  }
  void grow() {
    std::vector<std::uint64_t> old_keys = std::move(keys_);
    std::vector<V> old_values = std::move(values_);
    std::vector<std::size_t> old_used = std::move(used_);
    const std::size_t cap = old_keys.empty() ? 64 : old_keys.size() * 2;
    keys_.assign(cap, 0);
    values_.clear();
    values_.resize(cap);
    used_.clear();
    used_.reserve(cap / 2);
    mask_ = cap - 1;
    for (std::size_t i : old_used) insert(old_keys[i], std::move(old_values[i]));
  }

  std::vector<std::uint64_t> keys_;
  std::vector<V> values_;
  std::vector<std::size_t> used_;
  std::size_t mask_ = 0;
};

}  // namespace rw::detail

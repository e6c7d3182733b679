// FlatTable: an open-addressing hash table (linear probing, backward-shift
// deletion) of small trivially copyable slots, for the drivers' per-node sets
// and the merge feature's signature tables: no allocation per element.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace rw::detail {

/// A table of `Slot`s. `Traits` gives `static Slot empty()`,
/// `static bool is_empty(const Slot&)` and `static std::uint64_t hash(const Slot&)`.
/// Lookups take the hash and a predicate, so one table can serve as a set, a
/// map or a multimap. Lookup only: iteration order is not meaningful.
template <class Slot, class Traits> class FlatTable {
  static_assert(std::is_trivially_copyable_v<Slot>);

 public:
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  /// Room for `n` slots without growing.
  void reserve(std::size_t n) {
    if (2 * n > slots_.size()) rehash(2 * n);
  }
  /// Empties the table, keeping its memory.
  void clear() {
    if (size_ == 0) return;
    for (Slot& s : slots_) s = Traits::empty();
    size_ = 0;
  }

  /// The first slot with hash `h` for which `match(slot)` holds, or nullptr.
  template <class Match> const Slot* find(std::uint64_t h, Match&& match) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = index(h);; i = (i + 1) & mask_) {
      const Slot& s = slots_[i];
      if (Traits::is_empty(s)) return nullptr;
      if (Traits::hash(s) == h && match(s)) return &s;
    }
  }
  template <class Match> Slot* find(std::uint64_t h, Match&& match) {
    return const_cast<Slot*>(std::as_const(*this).find(h, match));
  }
  /// Calls `f(slot)` for every slot in use, in no particular order.
  template <class F> void for_each(F&& f) const {
    for (const Slot& s : slots_)
      if (!Traits::is_empty(s)) f(s);
  }
  /// Adds `slot` (no check for an equal one).
  void insert(const Slot& slot) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.empty() ? 16 : 2 * slots_.size());
    place(slot);
    ++size_;
  }
  /// Removes the first slot with hash `h` matching `match`; false if none.
  template <class Match> bool erase(std::uint64_t h, Match&& match) {
    Slot* s = find(h, match);
    if (!s) return false;
    std::size_t i = static_cast<std::size_t>(s - slots_.data());
    // Backward shift: move later slots of the probe run into the hole when
    // their home position allows it, so no tombstones are needed.
    for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
      if (Traits::is_empty(slots_[j])) break;
      const std::size_t home = index(Traits::hash(slots_[j]));
      if (((j - home) & mask_) >= ((j - i) & mask_)) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Traits::empty();
    --size_;
    return true;
  }

 private:
  std::size_t index(std::uint64_t h) const {
    return static_cast<std::size_t>((h * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  void place(const Slot& slot) {
    std::size_t i = index(Traits::hash(slot));
    while (!Traits::is_empty(slots_[i])) i = (i + 1) & mask_;
    slots_[i] = slot;
  }
  void rehash(std::size_t want) {
    std::size_t cap = 16;
    int bits = 4;
    while (cap < want) {
      cap *= 2;
      ++bits;
    }
    std::vector<Slot> old(cap, Traits::empty());
    old.swap(slots_);
    mask_ = cap - 1;
    shift_ = 64 - bits;
    for (const Slot& s : old)
      if (!Traits::is_empty(s)) place(s);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

/// Slots that are pointers, hashed by address (null marks an empty slot).
template <class T> struct PointerSlot {
  static T* empty() { return nullptr; }
  static bool is_empty(T* p) { return p == nullptr; }
  static std::uint64_t hash(T* p) { return reinterpret_cast<std::uintptr_t>(p) >> 3; }
};

/// A set of pointers.
template <class T> class PointerSet {
 public:
  bool contains(T* p) const {
    return table_.find(PointerSlot<T>::hash(p), [&](T* s) { return s == p; }) != nullptr;
  }
  /// Adds `p`; false when it was there.
  bool insert(T* p) {
    if (contains(p)) return false;
    table_.insert(p);
    return true;
  }
  /// Removes `p`; false when it was not there.
  bool erase(T* p) { return table_.erase(PointerSlot<T>::hash(p), [&](T* s) { return s == p; }); }
  void reserve(std::size_t n) { table_.reserve(n); }
  void clear() { table_.clear(); }
  std::size_t size() const { return table_.size(); }
  bool empty() const { return table_.size() == 0; }
  /// Calls `f(p)` for every pointer in the set, in no particular order.
  template <class F> void for_each(F&& f) const { table_.for_each(f); }

 private:
  using Table = FlatTable<T*, PointerSlot<T>>;
  Table table_;
};

}  // namespace rw::detail

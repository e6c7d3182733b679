// Substitution: a persistent map from logic variables to terms (a hash array
// mapped trie on variable ids), shared between the branches of a search.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/unify/term.hpp"

namespace rw {

namespace detail {

/// One binding: the variable's word and its value.
struct HamtEntry {
  std::uint64_t key;
  Term value;
};

/// A trie node: up to 32 slots, each empty, a binding, or a child node,
/// stored compactly (CHAMP layout): bindings, then children. The count is not
/// atomic: a substitution and its copies belong to one thread at a time.
struct HamtNode {
  std::uint32_t rc;
  std::uint32_t datamap;
  std::uint32_t nodemap;
  std::uint8_t data_cap;
  std::uint8_t node_cap;
  std::uint16_t pad;
  HamtEntry* data() noexcept { return reinterpret_cast<HamtEntry*>(this + 1); }
  const HamtEntry* data() const noexcept { return reinterpret_cast<const HamtEntry*>(this + 1); }
  HamtNode** nodes() noexcept { return reinterpret_cast<HamtNode**>(data() + data_cap); }
  HamtNode* const* nodes() const noexcept {
    return reinterpret_cast<HamtNode* const*>(data() + data_cap);
  }
};
static_assert(sizeof(HamtNode) == 16);

/// Population count of a 32-bit map: the hardware instruction when the
/// target has it, else a few shifts (cheaper than libgcc's out-of-line call).
inline unsigned popcount32(std::uint32_t x) noexcept {
#if defined(__POPCNT__)
  return static_cast<unsigned>(__builtin_popcount(x));
#else
  x = x - ((x >> 1) & 0x55555555u);
  x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
  x = (x + (x >> 4)) & 0x0f0f0f0fu;
  return (x * 0x01010101u) >> 24;
#endif
}

constexpr unsigned hamt_chunk(std::uint64_t key, unsigned shift) {
  return static_cast<unsigned>((key >> 16 >> shift) & 31);
}

void hamt_release(HamtNode* n) noexcept;

}  // namespace detail

/// Variable → term bindings. Copying is O(1) and shares structure; binding
/// copies only the path to the changed slot, and not even that where the
/// path is owned by this substitution alone — so a substitution passed along
/// a search by moving is extended in place, and branches pay one path copy
/// when they first diverge.
///
/// Thread safety: a substitution and the copies made from it share nodes
/// with plain counts; keep them on one thread at a time (terms themselves
/// may be shared freely).
class Substitution {
 public:
  /// The empty substitution.
  Substitution() noexcept = default;
  Substitution(const Substitution& o) noexcept : root_(o.root_), size_(o.size_) {
    if (root_) ++root_->rc;
  }
  Substitution(Substitution&& o) noexcept
      : root_(std::exchange(o.root_, nullptr)), size_(std::exchange(o.size_, 0)) {}
  Substitution& operator=(const Substitution& o) noexcept {
    Substitution(o).swap(*this);
    return *this;
  }
  Substitution& operator=(Substitution&& o) noexcept {
    Substitution(std::move(o)).swap(*this);
    return *this;
  }
  ~Substitution() {
    if (root_) detail::hamt_release(root_);
  }
  void swap(Substitution& o) noexcept {
    std::swap(root_, o.root_);
    std::swap(size_, o.size_);
  }

  /// Number of bound variables, and whether there are none.
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  /// The value bound to the variable with word `key` (`var.bits()`), or null.
  const Term* find_bits(std::uint64_t key) const noexcept;
  /// The value bound to `var`, or null (also when `var` is not a variable).
  const Term* find(const Term& var) const noexcept {
    return var.is_var() ? find_bits(var.bits()) : nullptr;
  }
  /// Follows variable bindings from `t` until a non-variable or an unbound
  /// variable. The reference is valid until this substitution changes.
  const Term& walk(const Term& t) const noexcept {
    const Term* cur = &t;
    while (cur->is_var()) {
      const Term* next = find_bits(cur->bits());
      if (!next) break;
      cur = next;
    }
    return *cur;
  }

  /// Binds `var` to `value`, replacing a binding it has. No checks: use
  /// `unify` to keep the substitution consistent. Throws TermError when
  /// `var` is not a logic variable or `value` is null.
  void bind(const Term& var, Term value);
  /// This substitution with one more binding.
  Substitution with(const Term& var, Term value) const {
    Substitution out = *this;
    out.bind(var, std::move(value));
    return out;
  }

  /// Calls f(var, value) for every binding, in no particular order.
  template <class F> void for_each(F&& f) const {
    if (root_) for_each_node(root_, f);
  }
  /// Every binding, ordered by variable id (deterministic).
  std::vector<std::pair<Term, Term>> bindings() const;

  /// Binds without checks, for the unifier: `key` is a variable's word.
  /// Returns true when the variable was not bound before.
  bool bind_bits(std::uint64_t key, Term value);

 private:
  template <class F> static void for_each_node(const detail::HamtNode* n, F& f) {
    const unsigned nd = detail::popcount32(n->datamap);
    for (unsigned i = 0; i < nd; ++i) {
      const detail::HamtEntry& e = n->data()[i];
      if (e.value) f(Term::adopt_bits(e.key), e.value);  // vars have no count to adopt
    }
    const unsigned nn = detail::popcount32(n->nodemap);
    for (unsigned i = 0; i < nn; ++i) for_each_node(n->nodes()[i], f);
  }

  detail::HamtNode* root_ = nullptr;
  std::size_t size_ = 0;
};

inline const Term* Substitution::find_bits(std::uint64_t key) const noexcept {
  const detail::HamtNode* n = root_;
  unsigned shift = 0;
  while (n) {
    const std::uint32_t bit = std::uint32_t{1} << detail::hamt_chunk(key, shift);
    if (n->datamap & bit) {
      const detail::HamtEntry& e = n->data()[detail::popcount32(n->datamap & (bit - 1))];
      return e.key == key && e.value ? &e.value : nullptr;
    }
    if (!(n->nodemap & bit)) return nullptr;
    n = n->nodes()[detail::popcount32(n->nodemap & (bit - 1))];
    shift += 5;
  }
  return nullptr;
}

}  // namespace rw

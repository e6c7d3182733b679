// Substitution: a persistent map from logic variables to terms (a radix trie
// in variable-id order), shared between the branches of a search.
#pragma once

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/unify/term.hpp"

namespace rw {

namespace detail {

/// A node of the substitution's trie. It covers the ids whose bits above
/// `shift + 5` equal `prefix`, and has 32 slots, one per value of id bits
/// [shift, shift + 5), of which `bitmap` says which are in use; only those
/// are initialised. Slots are addressed directly (no population count on
/// the way down: without the POPCNT instruction, which the baseline x86-64
/// target lacks, that count was half the cost of a lookup). A leaf (`shift`
/// 0) holds values, then the low 16 bits of each variable's word (its
/// name); an inner node holds children, which may skip levels (path
/// compression), so a trie over few ids stays shallow. The count is not
/// atomic: a substitution and its copies belong to one thread at a time.
struct SubstNode {
  static constexpr unsigned kBits = 5;
  static constexpr unsigned kSlots = 1u << kBits;
  std::uint32_t rc;
  std::uint32_t bitmap;
  std::uint8_t shift;
  std::uint8_t pad0;
  std::uint16_t pad1;
  std::uint32_t pad2;
  std::uint64_t prefix;
  bool leaf() const noexcept { return shift == 0; }
  Term* values() noexcept { return reinterpret_cast<Term*>(this + 1); }
  const Term* values() const noexcept { return reinterpret_cast<const Term*>(this + 1); }
  std::uint16_t* lows() noexcept { return reinterpret_cast<std::uint16_t*>(values() + kSlots); }
  const std::uint16_t* lows() const noexcept {
    return reinterpret_cast<const std::uint16_t*>(values() + kSlots);
  }
  SubstNode** children() noexcept { return reinterpret_cast<SubstNode**>(this + 1); }
  SubstNode* const* children() const noexcept {
    return reinterpret_cast<SubstNode* const*>(this + 1);
  }
};
static_assert(sizeof(SubstNode) == 24);
static_assert(sizeof(Term) == sizeof(SubstNode*));

void subst_release(SubstNode* n) noexcept;

}  // namespace detail

/// Variable → term bindings. Copying is O(1) and shares structure; binding
/// copies only the path to the changed slot, and not even that where the
/// path is owned by this substitution alone — so a substitution passed along
/// a search by moving is extended in place, and branches pay one path copy
/// when they first diverge. Bindings are kept in variable-id order, so the
/// variables made together (a term's leaves, a clause's fresh variables)
/// share trie nodes.
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
    if (root_) detail::subst_release(root_);
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

  /// Calls f(var, value) for every binding, in variable-id order.
  template <class F> void for_each(F&& f) const {
    if (root_) for_each_node(root_, f);
  }
  /// Every binding, ordered by variable id (deterministic).
  std::vector<std::pair<Term, Term>> bindings() const;

  /// Binds without checks, for the unifier: `key` is a variable's word.
  /// Returns true when the variable was not bound before.
  bool bind_bits(std::uint64_t key, Term value);

 private:
  template <class F> static void for_each_node(const detail::SubstNode* n, F& f) {
    for (std::uint32_t map = n->bitmap; map; map &= map - 1) {
      const unsigned i = static_cast<unsigned>(std::countr_zero(map));
      if (!n->leaf()) {
        for_each_node(n->children()[i], f);  // depth <= 10
        continue;
      }
      const std::uint64_t id = n->prefix << detail::SubstNode::kBits | i;
      const detail::BorrowedTerm var(id << 16 | n->lows()[i]);  // variables have no count
      f(var.get(), n->values()[i]);
    }
  }

  detail::SubstNode* root_ = nullptr;
  std::size_t size_ = 0;
};

inline const Term* Substitution::find_bits(std::uint64_t key) const noexcept {
  const std::uint64_t id = key >> 16;
  for (const detail::SubstNode* n = root_; n;) {
    if ((id >> n->shift >> detail::SubstNode::kBits) != n->prefix) return nullptr;
    const unsigned i = static_cast<unsigned>(id >> n->shift) & (detail::SubstNode::kSlots - 1);
    if (!(n->bitmap >> i & 1)) return nullptr;
    if (n->leaf()) return &n->values()[i];
    n = n->children()[i];
  }
  return nullptr;
}

}  // namespace rw

// The substitution's trie: copy on write, in place where a node is owned by
// one substitution alone.
#include "engine/unify/subst.hpp"

#include <algorithm>
#include <new>

#include "runtime/detail/pool_alloc.hpp"

namespace rw {

namespace detail {

namespace {

constexpr unsigned kBits = SubstNode::kBits;
constexpr unsigned kSlots = SubstNode::kSlots;

std::size_t node_bytes(bool leaf) {
  return sizeof(SubstNode) + kSlots * (leaf ? sizeof(Term) + sizeof(std::uint16_t) : sizeof(SubstNode*));
}

// A node with no slot in use (the slots are left uninitialised).
SubstNode* alloc_node(unsigned shift, std::uint64_t prefix) {
  auto* n = static_cast<SubstNode*>(pool_alloc(node_bytes(shift == 0)));
  n->rc = 1;
  n->bitmap = 0;
  n->shift = static_cast<std::uint8_t>(shift);
  n->pad0 = 0;
  n->pad1 = 0;
  n->pad2 = 0;
  n->prefix = prefix;
  return n;
}

void free_node_memory(SubstNode* n) noexcept { pool_free(n, node_bytes(n->leaf())); }

// A copy of `n`, sharing its children and values: only the slots in use are copied.
SubstNode* copy_node(const SubstNode* n) {
  SubstNode* c = alloc_node(n->shift, n->prefix);
  c->bitmap = n->bitmap;
  for (std::uint32_t map = n->bitmap; map; map &= map - 1) {
    const unsigned i = static_cast<unsigned>(std::countr_zero(map));
    if (n->leaf()) {
      new (&c->values()[i]) Term(n->values()[i]);
      c->lows()[i] = n->lows()[i];
    } else {
      SubstNode* child = n->children()[i];
      ++child->rc;
      c->children()[i] = child;
    }
  }
  return c;
}

// `*slot`, made uniquely owned (copied when shared).
SubstNode* own(SubstNode** slot) {
  SubstNode* n = *slot;
  if (n->rc == 1) return n;
  SubstNode* c = copy_node(n);
  subst_release(n);
  return *slot = c;
}

// A leaf holding one binding.
SubstNode* leaf_of(std::uint64_t id, std::uint64_t key, Term value) {
  SubstNode* n = alloc_node(0, id >> kBits);
  const unsigned i = static_cast<unsigned>(id) & (kSlots - 1);
  n->bitmap = std::uint32_t{1} << i;
  new (&n->values()[i]) Term(std::move(value));
  n->lows()[i] = static_cast<std::uint16_t>(key);
  return n;
}

}  // namespace

void subst_release(SubstNode* n) noexcept {
  if (--n->rc != 0) return;
  for (std::uint32_t map = n->bitmap; map; map &= map - 1) {
    const unsigned i = static_cast<unsigned>(std::countr_zero(map));
    if (n->leaf()) n->values()[i].~Term();
    else subst_release(n->children()[i]);  // depth <= 10
  }
  free_node_memory(n);
}

}  // namespace detail

using detail::SubstNode;
using detail::kBits;
using detail::kSlots;

void Substitution::bind(const Term& var, Term value) {
  if (!var.is_var()) throw TermError("bind() of a " + std::string(term_kind_name(var.kind())));
  if (!value) throw TermError("cannot bind a variable to the null term");
  bind_bits(var.bits(), std::move(value));
}

bool Substitution::bind_bits(std::uint64_t key, Term value) {
  const std::uint64_t id = key >> 16;
  if (!root_) {
    root_ = detail::leaf_of(id, key, std::move(value));
    size_ = 1;
    return true;
  }
  SubstNode** slot = &root_;
  for (;;) {
    SubstNode* n = *slot;
    const std::uint64_t above = id >> n->shift >> kBits;
    if (above != n->prefix) {
      // The id is outside the node's range: a new inner node at the highest
      // level where they differ takes both the node and a leaf for the id.
      const unsigned top = n->shift + kBits + 63 - static_cast<unsigned>(std::countl_zero(above ^ n->prefix));
      const unsigned shift = top / kBits * kBits;
      SubstNode* inner = detail::alloc_node(shift, id >> shift >> kBits);
      const unsigned c_id = static_cast<unsigned>(id >> shift) & (kSlots - 1);
      const unsigned c_node = static_cast<unsigned>(n->prefix << n->shift << kBits >> shift) & (kSlots - 1);
      inner->bitmap = (std::uint32_t{1} << c_id) | (std::uint32_t{1} << c_node);
      inner->children()[c_node] = n;  // takes over the slot's reference to n
      inner->children()[c_id] = detail::leaf_of(id, key, std::move(value));
      *slot = inner;
      ++size_;
      return true;
    }
    const unsigned i = static_cast<unsigned>(id >> n->shift) & (kSlots - 1);
    const std::uint32_t bit = std::uint32_t{1} << i;
    n = detail::own(slot);
    if (n->bitmap & bit) {
      if (n->leaf()) {
        n->values()[i] = std::move(value);
        n->lows()[i] = static_cast<std::uint16_t>(key);
        return false;
      }
      slot = &n->children()[i];
      continue;
    }
    // An empty slot: the binding (or a leaf holding it) goes here.
    if (n->leaf()) {
      new (&n->values()[i]) Term(std::move(value));
      n->lows()[i] = static_cast<std::uint16_t>(key);
    } else {
      n->children()[i] = detail::leaf_of(id, key, std::move(value));
    }
    n->bitmap |= bit;
    ++size_;
    return true;
  }
}

std::vector<std::pair<Term, Term>> Substitution::bindings() const {
  std::vector<std::pair<Term, Term>> out;
  out.reserve(size_);
  for_each([&](const Term& var, const Term& value) { out.emplace_back(var, value); });
  return out;
}

}  // namespace rw

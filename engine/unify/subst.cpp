// The substitution's trie: copy on write, in place where a node is owned by
// one substitution alone.
#include "engine/unify/subst.hpp"

#include <algorithm>
#include <new>

#include "engine/unify/detail/alloc.hpp"

namespace rw {

namespace detail {

namespace {

constexpr unsigned kBits = 5;
constexpr unsigned kFanout = 1u << kBits;

std::size_t node_bytes(bool leaf, unsigned cap) {
  return sizeof(SubstNode) + cap * (leaf ? sizeof(Term) + sizeof(std::uint16_t) : sizeof(SubstNode*));
}

SubstNode* alloc_node(unsigned shift, std::uint64_t prefix, unsigned cap) {
  auto* n = static_cast<SubstNode*>(pool_alloc(node_bytes(shift == 0, cap)));
  n->rc = 1;
  n->bitmap = 0;
  n->shift = static_cast<std::uint8_t>(shift);
  n->cap = static_cast<std::uint8_t>(cap);
  n->pad0 = 0;
  n->pad1 = 0;
  n->prefix = prefix;
  return n;
}

void free_node_memory(SubstNode* n) noexcept { pool_free(n, node_bytes(n->leaf(), n->cap)); }

unsigned grown(unsigned count) { return std::min(kFanout, std::max(2u, count * 2)); }

// A copy of `n` (sharing its children and values) with room for `extra` more slots.
SubstNode* copy_node(const SubstNode* n, unsigned extra) {
  const unsigned count = popcount32(n->bitmap);
  SubstNode* c = alloc_node(n->shift, n->prefix, std::min(kFanout, count + extra));
  c->bitmap = n->bitmap;
  if (n->leaf()) {
    for (unsigned i = 0; i < count; ++i) {
      new (&c->values()[i]) Term(n->values()[i]);
      c->lows()[i] = n->lows()[i];
    }
  } else {
    for (unsigned i = 0; i < count; ++i) {
      SubstNode* child = n->children()[i];
      ++child->rc;
      c->children()[i] = child;
    }
  }
  return c;
}

// Moves the contents of a uniquely owned node into one with `cap` slots.
SubstNode* regrow(SubstNode* n, unsigned cap) {
  const unsigned count = popcount32(n->bitmap);
  SubstNode* c = alloc_node(n->shift, n->prefix, cap);
  c->bitmap = n->bitmap;
  if (n->leaf()) {
    for (unsigned i = 0; i < count; ++i) {
      // Terms are one word with no self reference: moving the word is moving the term.
      new (&c->values()[i]) Term(Term::adopt_bits(n->values()[i].release()));
      c->lows()[i] = n->lows()[i];
    }
  } else {
    for (unsigned i = 0; i < count; ++i) c->children()[i] = n->children()[i];
  }
  free_node_memory(n);
  return c;
}

// `*slot`, made uniquely owned (copied when shared) with room for `extra` more slots.
SubstNode* own(SubstNode** slot, unsigned extra) {
  SubstNode* n = *slot;
  if (n->rc != 1) {
    SubstNode* c = copy_node(n, extra);
    subst_release(n);
    return *slot = c;
  }
  if (extra) {
    const unsigned count = popcount32(n->bitmap);
    if (count + extra > n->cap) return *slot = regrow(n, grown(count + extra));
  }
  return n;
}

// A leaf holding one binding.
SubstNode* leaf_of(std::uint64_t id, std::uint64_t key, Term value) {
  SubstNode* n = alloc_node(0, id >> kBits, 2);
  n->bitmap = std::uint32_t{1} << (id & (kFanout - 1));
  new (&n->values()[0]) Term(std::move(value));
  n->lows()[0] = static_cast<std::uint16_t>(key);
  return n;
}

}  // namespace

void subst_release(SubstNode* n) noexcept {
  if (--n->rc != 0) return;
  const unsigned count = popcount32(n->bitmap);
  if (n->leaf()) {
    for (unsigned i = 0; i < count; ++i) n->values()[i].~Term();
  } else {
    for (unsigned i = 0; i < count; ++i) subst_release(n->children()[i]);  // depth <= 10
  }
  free_node_memory(n);
}

}  // namespace detail

using detail::SubstNode;
using detail::kBits;
using detail::kFanout;

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
      SubstNode* leaf = detail::leaf_of(id, key, std::move(value));
      SubstNode* inner = detail::alloc_node(shift, id >> shift >> kBits, 2);
      const unsigned c_id = (id >> shift) & (kFanout - 1);
      const unsigned c_node = (n->prefix << n->shift << kBits >> shift) & (kFanout - 1);
      inner->bitmap = (std::uint32_t{1} << c_id) | (std::uint32_t{1} << c_node);
      inner->children()[0] = c_id < c_node ? leaf : n;
      inner->children()[1] = c_id < c_node ? n : leaf;
      *slot = inner;  // takes over the slot's reference to n
      ++size_;
      return true;
    }
    const std::uint32_t bit = std::uint32_t{1} << ((id >> n->shift) & (kFanout - 1));
    const unsigned i = detail::popcount32(n->bitmap & (bit - 1));
    if (n->bitmap & bit) {
      n = detail::own(slot, 0);
      if (n->leaf()) {
        n->values()[i] = std::move(value);
        n->lows()[i] = static_cast<std::uint16_t>(key);
        return false;
      }
      slot = &n->children()[i];
      continue;
    }
    // An empty slot: the binding (or a leaf holding it) goes here.
    n = detail::own(slot, 1);
    const unsigned count = detail::popcount32(n->bitmap);
    if (n->leaf()) {
      Term* values = n->values();
      std::uint16_t* lows = n->lows();
      for (unsigned j = count; j > i; --j) {
        new (&values[j]) Term(Term::adopt_bits(values[j - 1].release()));
        lows[j] = lows[j - 1];
      }
      new (&values[i]) Term(std::move(value));
      lows[i] = static_cast<std::uint16_t>(key);
    } else {
      SubstNode** children = n->children();
      for (unsigned j = count; j > i; --j) children[j] = children[j - 1];
      children[i] = detail::leaf_of(id, key, std::move(value));
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

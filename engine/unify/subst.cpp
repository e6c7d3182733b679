// The substitution's trie: copy on write, in place where a node is owned by
// one substitution alone.
#include "engine/unify/subst.hpp"

#include <algorithm>
#include <new>

#include "engine/unify/detail/alloc.hpp"

namespace rw {

namespace detail {

namespace {

std::size_t node_bytes(unsigned data_cap, unsigned node_cap) {
  return sizeof(HamtNode) + data_cap * sizeof(HamtEntry) + node_cap * sizeof(HamtNode*);
}

HamtNode* alloc_node(unsigned data_cap, unsigned node_cap) {
  auto* n = static_cast<HamtNode*>(pool_alloc(node_bytes(data_cap, node_cap)));
  n->rc = 1;
  n->datamap = 0;
  n->nodemap = 0;
  n->data_cap = static_cast<std::uint8_t>(data_cap);
  n->node_cap = static_cast<std::uint8_t>(node_cap);
  n->pad = 0;
  return n;
}

void free_node_memory(HamtNode* n) noexcept {
  pool_free(n, node_bytes(n->data_cap, n->node_cap));
}

unsigned grown(unsigned count) { return std::min(32u, std::max(2u, count * 2)); }

// A copy of `n` (sharing its children) with room for `extra_data` more
// bindings and `extra_nodes` more children.
HamtNode* copy_node(const HamtNode* n, unsigned extra_data, unsigned extra_nodes) {
  const unsigned nd = popcount32(n->datamap), nn = popcount32(n->nodemap);
  HamtNode* c = alloc_node(std::min(32u, nd + extra_data), std::min(32u, nn + extra_nodes));
  c->datamap = n->datamap;
  c->nodemap = n->nodemap;
  for (unsigned i = 0; i < nd; ++i) new (&c->data()[i]) HamtEntry{n->data()[i].key, n->data()[i].value};
  for (unsigned i = 0; i < nn; ++i) {
    HamtNode* child = n->nodes()[i];
    ++child->rc;
    c->nodes()[i] = child;
  }
  return c;
}

// Moves the contents of a uniquely owned node into a larger one.
HamtNode* regrow(HamtNode* n, unsigned data_cap, unsigned node_cap) {
  const unsigned nd = popcount32(n->datamap), nn = popcount32(n->nodemap);
  HamtNode* c = alloc_node(data_cap, node_cap);
  c->datamap = n->datamap;
  c->nodemap = n->nodemap;
  for (unsigned i = 0; i < nd; ++i) {
    new (&c->data()[i]) HamtEntry{n->data()[i].key, std::move(n->data()[i].value)};
    n->data()[i].~HamtEntry();
  }
  for (unsigned i = 0; i < nn; ++i) c->nodes()[i] = n->nodes()[i];
  free_node_memory(n);
  return c;
}

// A node holding two bindings whose keys agree below `shift`.
HamtNode* pair_node(std::uint64_t k1, Term v1, std::uint64_t k2, Term v2, unsigned shift) {
  const unsigned c1 = hamt_chunk(k1, shift), c2 = hamt_chunk(k2, shift);
  if (c1 != c2) {
    HamtNode* n = alloc_node(2, 0);
    n->datamap = (1u << c1) | (1u << c2);
    if (c1 > c2) {
      std::swap(k1, k2);
      std::swap(v1, v2);
    }
    new (&n->data()[0]) HamtEntry{k1, std::move(v1)};
    new (&n->data()[1]) HamtEntry{k2, std::move(v2)};
    return n;
  }
  HamtNode* n = alloc_node(0, 1);
  n->nodemap = 1u << c1;
  n->nodes()[0] = pair_node(k1, std::move(v1), k2, std::move(v2), shift + 5);
  return n;
}

}  // namespace

void hamt_release(HamtNode* n) noexcept {
  if (--n->rc != 0) return;
  const unsigned nd = popcount32(n->datamap), nn = popcount32(n->nodemap);
  for (unsigned i = 0; i < nd; ++i) n->data()[i].~HamtEntry();
  for (unsigned i = 0; i < nn; ++i) hamt_release(n->nodes()[i]);  // depth <= 10
  free_node_memory(n);
}

}  // namespace detail

using detail::HamtEntry;
using detail::HamtNode;

void Substitution::bind(const Term& var, Term value) {
  if (!var.is_var()) throw TermError("bind() of a " + std::string(term_kind_name(var.kind())));
  if (!value) throw TermError("cannot bind a variable to the null term");
  bind_bits(var.bits(), std::move(value));
}

bool Substitution::bind_bits(std::uint64_t key, Term value) {
  if (!root_) {
    root_ = detail::alloc_node(2, 0);
    root_->datamap = 1u << detail::hamt_chunk(key, 0);
    new (&root_->data()[0]) HamtEntry{key, std::move(value)};
    size_ = 1;
    return true;
  }
  HamtNode** slot = &root_;
  unsigned shift = 0;
  for (;;) {
    HamtNode* n = *slot;
    const std::uint32_t bit = std::uint32_t{1} << detail::hamt_chunk(key, shift);
    const bool shared = n->rc != 1;
    if (n->datamap & bit) {
      const unsigned i = detail::popcount32(n->datamap & (bit - 1));
      if (n->data()[i].key == key) {
        if (shared) {
          HamtNode* c = detail::copy_node(n, 0, 0);
          detail::hamt_release(n);
          *slot = n = c;
        }
        n->data()[i].value = std::move(value);
        return false;
      }
      // Two keys share this slot: push both one level down.
      const unsigned nd = detail::popcount32(n->datamap), nn = detail::popcount32(n->nodemap);
      if (shared) {
        HamtNode* c = detail::copy_node(n, 0, 1);
        detail::hamt_release(n);
        *slot = n = c;
      } else if (nn + 1 > n->node_cap) {
        *slot = n = detail::regrow(n, n->data_cap, detail::grown(nn + 1));
      }
      HamtEntry old = std::move(n->data()[i]);
      for (unsigned j = i; j + 1 < nd; ++j) {
        n->data()[j].key = n->data()[j + 1].key;
        n->data()[j].value = std::move(n->data()[j + 1].value);
      }
      n->data()[nd - 1].~HamtEntry();
      n->datamap &= ~bit;
      HamtNode* child = detail::pair_node(old.key, std::move(old.value), key, std::move(value),
                                          shift + 5);
      const unsigned k = detail::popcount32(n->nodemap & (bit - 1));
      for (unsigned j = nn; j > k; --j) n->nodes()[j] = n->nodes()[j - 1];
      n->nodes()[k] = child;
      n->nodemap |= bit;
      ++size_;
      return true;
    }
    if (n->nodemap & bit) {
      if (shared) {
        HamtNode* c = detail::copy_node(n, 0, 0);
        detail::hamt_release(n);
        *slot = n = c;
      }
      slot = &n->nodes()[detail::popcount32(n->nodemap & (bit - 1))];
      shift += 5;
      continue;
    }
    // An empty slot: the binding goes here.
    const unsigned nd = detail::popcount32(n->datamap);
    if (shared) {
      HamtNode* c = detail::copy_node(n, 1, 0);
      detail::hamt_release(n);
      *slot = n = c;
    } else if (nd + 1 > n->data_cap) {
      *slot = n = detail::regrow(n, detail::grown(nd + 1), n->node_cap);
    }
    const unsigned i = detail::popcount32(n->datamap & (bit - 1));
    new (&n->data()[nd]) HamtEntry{0, Term()};
    for (unsigned j = nd; j > i; --j) {
      n->data()[j].key = n->data()[j - 1].key;
      n->data()[j].value = std::move(n->data()[j - 1].value);
    }
    n->data()[i].key = key;
    n->data()[i].value = std::move(value);
    n->datamap |= bit;
    ++size_;
    return true;
  }
}

std::vector<std::pair<Term, Term>> Substitution::bindings() const {
  std::vector<std::pair<Term, Term>> out;
  out.reserve(size_);
  for_each([&](const Term& var, const Term& value) { out.emplace_back(var, value); });
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.first.var_id() < b.first.var_id(); });
  return out;
}

}  // namespace rw

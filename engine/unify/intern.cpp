// Hash-consing: children are interned before their parents (post-order over
// an explicit stack), so a parent's lookup compares children by identity.
#include "engine/unify/intern.hpp"

#include <vector>

namespace rw {

// Children are already canonical when a node is looked up, so comparing
// them by identity is structural equality.
bool TermTable::Same::operator()(const Term& a, const Term& b) const {
  if (a.same(b)) return true;
  if (a.kind() != b.kind() || a.hash() != b.hash()) return false;
  switch (a.kind()) {
    case TermKind::Pair: return a.car().same(b.car()) && a.cdr().same(b.cdr());
    case TermKind::Compound: {
      if (a.arity() != b.arity() || !a.head().same(b.head())) return false;
      for (std::size_t i = 0; i < a.arity(); ++i)
        if (!a.args()[i].same(b.args()[i])) return false;
      return true;
    }
    default: return a == b;  // atoms and op patterns
  }
}

Term TermTable::intern(const Term& root) {
  if (!root.is_heap()) return root;  // immediates are already unique
  struct Frame {
    Term node;
    std::size_t next = 0, base = 0;
  };
  auto children = [](const Term& t) -> std::size_t {
    if (t.is_pair()) return 2;
    if (t.is_compound()) return 1 + t.arity();
    return 0;
  };
  auto child = [](const Term& t, std::size_t i) -> const Term& {
    if (t.is_pair()) return i == 0 ? t.car() : t.cdr();
    return i == 0 ? t.head() : t.args()[i - 1];
  };
  std::vector<Frame> frames{{root, 0, 0}};
  std::vector<Term> done;
  while (!frames.empty()) {
    Frame& f = frames.back();
    if (f.next < children(f.node)) {
      const Term& c = child(f.node, f.next++);
      if (c.is_heap()) {
        if (auto it = set_.find(c); it != set_.end() && it->same(c)) {
          done.push_back(*it);  // already the canonical node
        } else {
          frames.push_back({c, 0, done.size()});
        }
      } else {
        done.push_back(c);
      }
      continue;
    }
    // Rebuild with canonical children when any differs, then look it up.
    const std::size_t n = children(f.node);
    Term node = f.node;
    bool changed = false;
    for (std::size_t i = 0; i < n; ++i) changed = changed || !done[f.base + i].same(child(f.node, i));
    if (changed) {
      if (node.is_pair()) {
        node = cons(done[f.base], done[f.base + 1]);
      } else {
        node = compound(done[f.base], std::span<const Term>(done.data() + f.base + 1, n - 1));
      }
    }
    done.resize(f.base);
    frames.pop_back();
    done.push_back(*set_.insert(node).first);
  }
  return done.back();
}

}  // namespace rw

// TermTable: hash-consing where it pays — terms put through one table share
// one node per structure, so equal terms are identical and compare in O(1).
#pragma once

#include <cstddef>
#include <unordered_set>

#include "engine/unify/term.hpp"

namespace rw {

/// A hash-consing table. `intern(t)` returns the table's node for `t`'s
/// structure, interning its subterms first (iteratively), so two equal terms
/// interned in one table are the same node (`a.same(b)`), and so are their
/// equal subterms. A parser or rule compiler that builds many equal ground
/// terms keeps one table; unification then finds them equal by identity.
///
/// The table holds its terms alive until `clear()`. It is not synchronised:
/// one thread at a time (the terms it returns may be shared freely).
class TermTable {
 public:
  /// The canonical term equal to `t`.
  Term intern(const Term& t);
  /// Number of distinct nodes held.
  std::size_t size() const { return set_.size(); }
  /// Drops every term the table holds.
  void clear() { set_.clear(); }

 private:
  struct Same {
    bool operator()(const Term& a, const Term& b) const;
  };
  std::unordered_set<Term, TermHash, Same> set_;
};

}  // namespace rw

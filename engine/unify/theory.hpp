// Theory: which Ops are commutative or associative, so that matching and the
// term relations consider the arrangements of their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rw {

/// Equational properties of Ops, by Op name. Empty by default: plain
/// syntactic matching.
class Theory {
 public:
  /// `name(a, b)` equals `name(b, a)` (and, with more arguments, any
  /// permutation).
  Theory& commutative(std::string_view op_name);
  /// `name(a, name(b, c))` equals `name(name(a, b), c)`: nested applications
  /// are flattened into one list of operands.
  Theory& associative(std::string_view op_name);
  /// Both.
  Theory& ac(std::string_view op_name) { return commutative(op_name).associative(op_name); }

  /// What was declared of `op_name`.
  bool is_commutative(std::string_view op_name) const;
  bool is_associative(std::string_view op_name) const;
  /// No declarations: matching is syntactic.
  bool empty() const { return comm_.empty() && assoc_.empty(); }

 private:
  std::vector<std::string> comm_, assoc_;
};

namespace detail {

/// One way of matching k pattern operands against m subject operands: for
/// each pattern operand, the subject operands it takes (in subject order).
using Arrangement = std::vector<std::vector<std::uint32_t>>;

/// The arrangements of m subject operands over k pattern operands (k <= m),
/// produced one at a time so that a search over many operands starts at once
/// and holds one arrangement, not all of them:
///  - neither flag: the identity (k == m only);
///  - commutative: every permutation (k == m only), the identity first;
///  - associative: every split of the subject operands into k contiguous
///    non-empty groups;
///  - both: every assignment of subject operands to the k pattern operands
///    that leaves none empty.
/// `subtrees` lists the ranges [begin, end) of subject operands that exist as
/// one application (the nested nodes flattening went through); arrangements
/// whose groups all exist come first, so the reading that needs no new node
/// is tried before regroupings. That order is kept without sorting: the
/// enumeration runs once per number of missing groups, yielding those with
/// exactly that many (one run when every arrangement costs the same, as
/// permutations do).
class Arrangements {
 public:
  Arrangements() = default;
  Arrangements(std::size_t k, std::size_t m, bool commutative, bool associative,
               std::vector<std::pair<std::uint32_t, std::uint32_t>> subtrees);

  /// The next arrangement into `out`; false when there are no more.
  bool next(Arrangement& out);

 private:
  // The next arrangement of the underlying order, ignoring cost.
  bool raw_next(Arrangement& out);
  void restart();
  std::size_t cost(const Arrangement& a) const;

  std::uint32_t k_ = 0, m_ = 0;
  bool comm_ = false, assoc_ = false;
  bool started_ = false, done_ = true;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> subtrees_;
  std::vector<std::uint32_t> state_;  // a permutation, cut points or an assignment
  std::size_t level_ = 0;             // the cost this run yields
  std::size_t next_level_ = 0;        // the least cost above level_ seen in this run
};

}  // namespace detail

}  // namespace rw

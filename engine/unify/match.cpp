// The pattern compiler and the matcher: a work list of (subpattern, subject)
// pairs over slots for the pattern's variables, with choice points only for
// commutative/associative Ops.
#include "engine/unify/match.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"
#include "engine/unify/detail/graph_reader.hpp"
#include "engine/unify/detail/small_stack.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/unify.hpp"

namespace rw {

using Node = Pattern::Node;
constexpr std::uint32_t kNoParent = Pattern::kNoParent;

// ---------------------------------------------------------------------------
// Compiling.

Pattern::Pattern(Term term, Theory theory) : term_(std::move(term)), theory_(std::move(theory)) {
  if (!term_) throw TermError("a pattern needs a term");
  compile();
}

Pattern::~Pattern() = default;

Pattern& Pattern::where(std::string name, std::function<bool(const Bindings&)> check,
                        std::function<std::string(const Bindings&)> explain) {
  return where(Guard{std::move(name), std::move(check), std::move(explain), {}});
}

Pattern& Pattern::where(Guard guard) {
  if (!guard.check) throw TermError("guard `" + guard.name + "` has no check");
  for (std::uint32_t s : guard.slots)
    if (s >= vars_.size())
      throw TermError(fmt::format("guard `{}` reads slot {}, but the pattern has {} slots",
                                  guard.name, s, vars_.size()));
  guards_.push_back(std::move(guard));
  return *this;
}

Pattern& Pattern::constrain(const std::vector<std::uint32_t>& path, std::string name,
                            std::function<bool(const Variable&, const FunctionGraph*)> check) {
  if (!check) throw TermError("constraint `" + name + "` has no check");
  std::uint32_t at = 0;
  for (std::size_t step = 0; step < path.size(); ++step) {
    const Node& n = (*nodes_)[at];
    if (n.kind != Node::Kind::Apply || path[step] >= n.children.size())
      throw TermError(fmt::format("constraint `{}`: step {} of its path (input {}) leads nowhere in `{}`",
                                  name, step, path[step], to_string(n.term)));
    at = n.children[path[step]];
  }
  // Nodes may be shared with copies of this pattern: change a copy.
  auto nodes = std::make_shared<std::vector<Node>>(*nodes_);
  (*nodes)[at].constraints.push_back(static_cast<std::uint32_t>(constraints_.size()));
  constraints_.push_back({std::move(name), std::move(check)});
  nodes_ = std::move(nodes);
  return *this;
}

namespace {
/// Variables slot_of compares one by one; past them it asks an index (a rule
/// with 10^5 variables took seconds to compile by scans).
constexpr std::size_t kScanSlots = 16;
}  // namespace

int Pattern::slot_of(const Term& var) const {
  if (slot_index_) {
    if (!var.is_var()) return -1;
    const auto it = slot_index_->find(var.var_id());
    return it == slot_index_->end() ? -1 : static_cast<int>(it->second);
  }
  for (std::size_t i = 0; i < vars_.size(); ++i)
    if (vars_[i].same(var)) return static_cast<int>(i);
  return -1;
}

const Term& Pattern::subpattern(std::uint32_t node) const { return (*nodes_)[node].term; }

std::span<const Node> Pattern::program() const { return *nodes_; }

std::vector<std::uint32_t> Pattern::path_of(std::uint32_t index) const {
  std::vector<std::uint32_t> path;
  for (std::uint32_t at = index; (*nodes_).at(at).parent != kNoParent; at = (*nodes_)[at].parent)
    path.push_back((*nodes_)[at].position);
  std::reverse(path.begin(), path.end());
  return path;
}

std::optional<std::uint32_t> Pattern::slot(const Term& var) const {
  const int s = slot_of(var);
  if (s < 0) return std::nullopt;
  return static_cast<std::uint32_t>(s);
}

void Pattern::compile() {
  auto nodes = std::make_shared<std::vector<Node>>();
  std::unordered_map<std::uint64_t, std::uint32_t> slots;
  for (std::uint32_t i = 0; i < vars_.size(); ++i) slots.emplace(vars_[i].var_id(), i);
  auto slot_for = [&](const Term& var) -> std::uint32_t {
    const auto [it, fresh] = slots.emplace(var.var_id(), static_cast<std::uint32_t>(vars_.size()));
    if (fresh) vars_.push_back(var);
    return it->second;
  };
  // Variables inside property terms, in order of appearance.
  auto note_vars = [&](const Term& t) {
    std::vector<const Term*> stack{&t};
    while (!stack.empty()) {
      const Term* x = stack.back();
      stack.pop_back();
      if (x->is_var()) slot_for(*x);
      else if (x->is_compound()) {
        for (std::size_t i = x->arity(); i-- > 0;) stack.push_back(&x->args()[i]);
        stack.push_back(&x->head());
      } else if (x->is_pair()) {
        stack.push_back(&x->cdr());
        stack.push_back(&x->car());
      }
    }
  };
  // Pre-order, so slots are numbered in order of first appearance.
  struct PendingTerm {
    const Term* term;
    std::uint32_t parent, position;
  };
  std::vector<PendingTerm> pending{{&term_, kNoParent, 0}};
  while (!pending.empty()) {
    const PendingTerm item = pending.back();
    pending.pop_back();
    const auto index = static_cast<std::uint32_t>(nodes->size());
    nodes->emplace_back();
    Node& n = nodes->back();
    n.term = *item.term;
    n.parent = item.parent;
    n.position = item.position;
    if (item.parent != kNoParent) {
      Node& parent = (*nodes)[item.parent];
      parent.children.push_back(index);
      n.depth = parent.depth + 1;
    }
    const Term& t = *item.term;
    switch (t.kind()) {
      case TermKind::Var:
        n.kind = Node::Kind::Var;
        n.slot = slot_for(t);
        break;
      case TermKind::Int:
      case TermKind::Float:
      case TermKind::Bool: n.kind = Node::Kind::Literal; break;
      case TermKind::Graph: n.kind = Node::Kind::Leaf; break;
      case TermKind::Compound: {
        const Term& h = t.head();
        n.head_term = h;
        switch (h.kind()) {
          case TermKind::Op:
            n.head = Node::Head::OpAtom;
            n.name = std::string(h.op()->name());
            break;
          case TermKind::OpPattern:
            n.head = Node::Head::OpPattern;
            n.name = h.op_pattern_name();
            for (const PropTerm& p : h.op_pattern_props()) note_vars(p.value);
            break;
          case TermKind::String:
            n.head = Node::Head::Symbol;
            n.name = std::string(h.as_string());
            break;
          case TermKind::Var:
            n.head = Node::Head::Var;
            n.slot = slot_for(h);
            break;
          default: break;  // a tuple or other head: no graph node matches it
        }
        const TermKind hk = h.kind();
        if (hk != TermKind::Op && hk != TermKind::OpPattern && hk != TermKind::String &&
            hk != TermKind::Var)
          break;
        n.kind = Node::Kind::Apply;
        if (!n.name.empty()) {
          n.op_kind = OpKind::of(n.name);
          n.commutative = theory_.is_commutative(n.name);
          n.associative = theory_.is_associative(n.name);
          has_choices_ = has_choices_ || n.commutative || n.associative;
        }
        for (std::size_t i = t.arity(); i-- > 0;)
          pending.push_back({&t.args()[i], index, static_cast<std::uint32_t>(i)});
        break;
      }
      default: n.kind = Node::Kind::Never; break;
    }
  }
  // Flattened operands of associative applications: nested applications of
  // the same head are one list of operands.
  for (std::uint32_t i = 0; i < nodes->size(); ++i) {
    Node& n = (*nodes)[i];
    if (n.kind != Node::Kind::Apply || !n.associative) continue;
    std::vector<std::uint32_t> stack(n.children.rbegin(), n.children.rend());
    while (!stack.empty()) {
      const std::uint32_t c = stack.back();
      stack.pop_back();
      const Node& child = (*nodes)[c];
      if (child.kind == Node::Kind::Apply && child.head_term == n.head_term) {
        for (auto it = child.children.rbegin(); it != child.children.rend(); ++it) stack.push_back(*it);
      } else {
        n.operands.push_back(c);
      }
    }
  }
  const Node& root = nodes->front();
  if (root.kind == Node::Kind::Apply) root_name_ = root.name;
  nodes_ = std::move(nodes);
  auto facts = std::make_shared<Facts>();
  for (std::uint32_t i = 0; i < nodes_->size(); ++i) {
    const Node& n = (*nodes_)[i];
    if (n.kind == Node::Kind::Leaf) facts->leaves.push_back(n.term);
    if (n.kind != Node::Kind::Apply) continue;
    facts->commutative = facts->commutative || n.commutative;
    facts->associative = facts->associative || n.associative;
    facts->depth = std::max(facts->depth, static_cast<int>(n.depth));
    if (i != 0) facts->intermediates.push_back(path_of(i));
  }
  std::sort(facts->intermediates.begin(), facts->intermediates.end());
  facts_ = std::move(facts);
  slot_index_ = vars_.size() > kScanSlots
                    ? std::make_shared<const std::unordered_map<std::uint64_t, std::uint32_t>>(
                          std::move(slots))
                    : nullptr;
}

// ---------------------------------------------------------------------------
// Bindings.

Term Bindings::operator[](const Term& var) const {
  const int s = pattern_.slot_of(var);
  if (s < 0) return Term();
  const std::uint64_t bits = slots_[static_cast<std::size_t>(s)];
  detail::retain_bits(bits);
  return Term::adopt_bits(bits);
}

Var Bindings::graph_at(std::uint32_t slot) const {
  Variable* v = slot < slots_.size() ? detail::graph_of(slots_[slot]) : nullptr;
  return v ? Var(v) : Var();
}

Var Bindings::graph(const Term& var) const {
  const Term t = (*this)[var];
  return t.is_graph() ? t.as_graph_var() : Var();
}

// ---------------------------------------------------------------------------
// Matching.

namespace {

using detail::graph_bits;
using detail::graph_of;
using detail::input_bits;
using detail::same_op;
using detail::term_node;

// Whether two ground values are the same graph value (identity, equal
// constants, or equal structure).
bool same_value(std::uint64_t a, std::uint64_t b) {
  if (a == b) return true;
  // Distinct graph inputs are different values: no need to unify them.
  const Variable* ga = graph_of(a);
  const Variable* gb = graph_of(b);
  if (ga && gb && ((!ga->owner() && !ga->is_constant()) || (!gb->owner() && !gb->is_constant())))
    return false;
  detail::BorrowedTerm x(a), y(b);
  Substitution s;
  return detail::unify_into(x, y, s, false, nullptr);
}

}  // namespace

/// The matching machine for one (pattern, variable) pair. Slots hold words
/// borrowed from the graph or from `temps_`; nothing is allocated unless a
/// choice point or a property value needs it.
class Matcher {
 public:
  Matcher(const Pattern& p, const Variable& v, const MatchOptions& options)
      : p_(p), nodes_(*p.nodes_), options_(options) {
    slots_.assign(p.vars_.size(), 0);
    work_.push_back({0, graph_bits(&v)});
  }
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  /// Finds the next match; false when there are no more.
  bool next() {
    if (started_ && !backtrack()) return false;
    started_ = true;
    for (;;) {
      bool ok = true;
      while (!work_.empty()) {
        const Work w = work_.back();
        work_.pop_back();
        if (!step(w)) {
          ok = false;
          break;
        }
      }
      if (ok) {
        const Bindings b(p_, std::span<const std::uint64_t>(slots_.data(), slots_.size()),
                         options_.fgraph);
        std::size_t g = 0;
        for (; g < p_.guards_.size(); ++g)
          if (!p_.guards_[g].check(b)) break;
        if (g == p_.guards_.size()) return true;
        if (failure_.kind == MatchFailKind::None && options_.explain && p_.guards_[g].explain)
          explanation_ = p_.guards_[g].explain(b);
        fail({MatchFailKind::GuardFailed, 0, nullptr, g});
      }
      if (!backtrack()) return false;
    }
  }

  Substitution substitution() const {
    Substitution s;
    for (std::size_t i = 0; i < slots_.size(); ++i) {
      if (!slots_[i]) continue;
      detail::retain_bits(slots_[i]);
      s.bind(p_.vars_[i], Term::adopt_bits(slots_[i]));
    }
    return s;
  }

  std::vector<std::uint64_t> key() const {
    return std::vector<std::uint64_t>(slots_.data(), slots_.data() + slots_.size());
  }

  const MatchFailure& failure() const { return failure_; }
  std::string take_explanation() { return std::move(explanation_); }

 private:
  struct Work {
    std::uint32_t node;
    std::uint64_t subject;  // a graph variable, or a term made for a regrouping
  };
  /// What a choice restores when it tries its next arrangement: the work
  /// list then (kept in saved_work_, which choices share as a stack), and
  /// how far the trail and the temporaries went.
  struct Saved {
    std::uint32_t work_begin = 0, work_size = 0;
    std::uint32_t trail = 0, temps = 0;
  };
  struct Choice {
    Saved saved;
    std::uint32_t node = 0;
    OpPtr op;                                // the Op whose operands are arranged
    std::vector<std::uint64_t> operands;     // subject operands
    std::vector<std::pair<std::uint32_t, std::uint32_t>> subtrees;
    std::vector<std::uint64_t> subtree_bits;
    detail::Arrangements arrangements;  // those not tried yet, produced on demand
    detail::Arrangement pending;        // the next one to try
    bool has_pending = false;
  };

  void fail(const MatchFailure& f) {
    if (failure_.kind == MatchFailKind::None) failure_ = f;
  }
  bool fail_at(MatchFailKind kind, std::uint32_t node, std::uint64_t subject,
               std::uint64_t detail = 0) {
    fail({kind, node, graph_of(subject), detail});
    return false;
  }

  void bind(std::uint32_t slot, std::uint64_t bits) {
    slots_[slot] = bits;
    trail_.push_back(slot);
  }

  // Binds or checks a variable's slot.
  bool var_step(std::uint32_t node, std::uint32_t slot, std::uint64_t subject) {
    const std::uint64_t bound = slots_[slot];
    if (!bound) {
      bind(slot, subject);
      return true;
    }
    if (same_value(bound, subject)) return true;
    return fail_at(MatchFailKind::BindingMismatch, node, subject, graph_of(bound) ? bound : 0);
  }

  // A term this match made (a regrouping, a property value); kept until the end.
  std::uint64_t keep(Term t) {
    temps_.push_back(std::move(t));
    return temps_.back().bits();
  }

  // Matches property terms of an op pattern against the Op's properties.
  bool props_step(const Node& n, std::uint32_t index, const Op& op, std::uint64_t subject) {
    const Props& props = op.cached_props();
    struct Pair {
      const Term* pat;
      std::uint64_t bits;
    };
    detail::SmallStack<Pair, 8> stack;
    for (const PropTerm& pt : n.head_term.op_pattern_props()) {
      const PropValue* value = find_prop(props, pt.name);
      if (!value) return fail_at(MatchFailKind::OpMismatch, index, subject);
      stack.push_back({&pt.value, keep(prop_to_term(*value))});
    }
    while (!stack.empty()) {
      const auto [pat, bits] = stack.back();
      stack.pop_back();
      detail::BorrowedTerm value(bits);
      if (pat->is_var()) {
        const auto s = static_cast<std::uint32_t>(p_.slot_of(*pat));
        if (!slots_[s]) {
          bind(s, bits);
        } else {
          detail::BorrowedTerm bound(slots_[s]);
          if (!(bound.get() == value.get())) return fail_at(MatchFailKind::OpMismatch, index, subject);
        }
      } else if (pat->is_compound() && value.get().is_compound() &&
                 pat->arity() == value.get().arity() && pat->head() == value.get().head()) {
        for (std::size_t i = 0; i < pat->arity(); ++i)
          stack.push_back({&pat->args()[i], value.get().args()[i].bits()});
      } else if (!(*pat == value.get())) {
        return fail_at(MatchFailKind::OpMismatch, index, subject);
      }
    }
    return true;
  }

  // Checks the head of application `n` against `node`.
  bool head_step(const Node& n, std::uint32_t index, const Apply& node, std::uint64_t subject) {
    switch (n.head) {
      case Node::Head::OpAtom:
        if (!same_op(*n.head_term.op(), node.op()))
          return fail_at(MatchFailKind::OpMismatch, index, subject);
        return true;
      case Node::Head::OpPattern:
        if (node.op().kind() != n.op_kind) return fail_at(MatchFailKind::OpMismatch, index, subject);
        return n.head_term.op_pattern_props().empty() || props_step(n, index, node.op(), subject);
      case Node::Head::Symbol:
        if (node.op().kind() != n.op_kind) return fail_at(MatchFailKind::OpMismatch, index, subject);
        return true;
      case Node::Head::Var: {
        const std::uint64_t bound = slots_[n.slot];
        if (!bound) {
          bind(n.slot, keep(Term::op_atom(node.op_ptr())));
          return true;
        }
        detail::BorrowedTerm b(bound);
        if (b.get().kind() == TermKind::Op && same_op(*b.get().op(), node.op())) return true;
        return fail_at(MatchFailKind::OpMismatch, index, subject);
      }
    }
    return false;
  }

  // The constraints of subpattern `n`; a regrouping of operands (no graph
  // variable) cannot satisfy one.
  bool constraints_hold(const Node& n, std::uint32_t index, std::uint64_t subject) {
    const Variable* g = graph_of(subject);
    for (std::uint32_t c : n.constraints)
      if (!g || !p_.constraints_[c].check(*g, options_.fgraph))
        return fail_at(MatchFailKind::ConstraintFailed, index, subject, c);
    return true;
  }

  bool step(const Work& w) {
    const Node& n = nodes_[w.node];
    const Variable* g = graph_of(w.subject);
    if (!n.constraints.empty() && n.kind != Node::Kind::Apply &&
        !constraints_hold(n, w.node, w.subject))
      return false;
    switch (n.kind) {
      case Node::Kind::Var: return var_step(w.node, n.slot, w.subject);
      case Node::Kind::Literal: {
        const Constant* c = g ? g->as_constant() : nullptr;
        if (!c) return fail_at(MatchFailKind::NotConstant, w.node, w.subject);
        if (!literal_matches_constant(n.term, *c))
          return fail_at(MatchFailKind::LiteralMismatch, w.node, w.subject);
        return true;
      }
      case Node::Kind::Leaf:
        if (same_value(n.term.bits(), w.subject)) return true;
        return fail_at(MatchFailKind::LeafMismatch, w.node, w.subject);
      case Node::Kind::Never: return fail_at(MatchFailKind::NeverMatches, w.node, w.subject);
      case Node::Kind::Apply: break;
    }
    if (!g) return fail_at(MatchFailKind::OpMismatch, w.node, w.subject);
    const Apply* node = g->owner();
    if (!node) return fail_at(MatchFailKind::NotComputed, w.node, w.subject);
    if (!has_term_view(*g)) return fail_at(MatchFailKind::NotDefaultOutput, w.node, w.subject);
    if (!head_step(n, w.node, *node, w.subject)) return false;
    // An application's constraints run once its Op is known to fit, before a
    // choice point over its operands (which backtracking would not re-check).
    if (!n.constraints.empty() && !constraints_hold(n, w.node, w.subject)) return false;
    if (n.associative || n.commutative) return choose(n, w.node, *node, w.subject);
    if (n.children.size() != node->num_inputs())
      return fail_at(MatchFailKind::ArityMismatch, w.node, w.subject, node->num_inputs());
    for (std::size_t i = n.children.size(); i-- > 0;)
      work_.push_back({n.children[i], input_bits(*node, i)});
    return true;
  }

  // A commutative or associative application: a choice point over the
  // arrangements of its operands.
  bool choose(const Node& n, std::uint32_t index, const Apply& node, std::uint64_t subject) {
    if (n.commutative && !n.associative && n.children.size() == 2 && node.num_inputs() == 2)
      return swap_choice(n, index, node);
    Choice c;
    c.node = index;
    c.op = node.op_ptr();
    const std::vector<std::uint32_t>& pattern_ops = n.associative ? n.operands : n.children;
    if (n.associative) {
      // Flatten nested applications of the same Op into one operand list,
      // noting the ranges that are nodes of their own.
      struct Frame {
        const Apply* a;
        std::uint32_t next, begin;
      };
      std::vector<Frame> stack{{&node, 0, 0}};
      while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.next < f.a->num_inputs()) {
          const Variable* in = f.a->input(f.next++).get();
          const Apply* owner = term_node(*in);
          if (owner && same_op(owner->op(), node.op())) {
            const auto begin = static_cast<std::uint32_t>(c.operands.size());
            stack.push_back({owner, 0, begin});
          } else {
            c.operands.push_back(graph_bits(in));
          }
          continue;
        }
        if (stack.size() > 1) {
          c.subtrees.emplace_back(f.begin, static_cast<std::uint32_t>(c.operands.size()));
          c.subtree_bits.push_back(graph_bits(&f.a->output_var(0)));
        }
        stack.pop_back();
      }
    } else {
      for (const Var& in : node.inputs()) c.operands.push_back(graph_bits(in.get()));
    }
    c.arrangements = detail::Arrangements(pattern_ops.size(), c.operands.size(), n.commutative,
                                          n.associative, c.subtrees);
    c.has_pending = c.arrangements.next(c.pending);
    if (!c.has_pending)
      return fail_at(n.associative ? MatchFailKind::NoArrangement : MatchFailKind::ArityMismatch,
                     index, subject, c.operands.size());
    c.saved = save();
    choices_.push_back(std::move(c));
    order_.push_back(kGeneral);
    apply_next(choices_.back());
    return true;
  }

  // Two operands of a commutative (not associative) Op: the written order,
  // then the swapped one — the two arrangements the general choice would
  // produce, in its order — kept on inline stacks, so that trying a
  // commutative product allocates nothing.
  bool swap_choice(const Node& n, std::uint32_t index, const Apply& node) {
    Swap sw;
    sw.node = index;
    sw.saved = save();
    sw.operands[0] = input_bits(node, 0);
    sw.operands[1] = input_bits(node, 1);
    swaps_.push_back(sw);
    order_.push_back(kSwap);
    work_.push_back({n.children[1], sw.operands[1]});
    work_.push_back({n.children[0], sw.operands[0]});
    return true;
  }

  // Pushes the work of the choice's next arrangement.
  void apply_next(Choice& c) {
    const Node& n = nodes_[c.node];
    const std::vector<std::uint32_t>& pattern_ops = n.associative ? n.operands : n.children;
    const detail::Arrangement& a = c.pending;
    for (std::size_t i = a.size(); i-- > 0;) {
      const auto& group = a[i];
      std::uint64_t subject = 0;
      if (group.size() == 1) {
        subject = c.operands[group[0]];
      } else {
        const bool contiguous = group.back() - group.front() + 1 == group.size();
        for (std::size_t s = 0; contiguous && s < c.subtrees.size(); ++s)
          if (c.subtrees[s] == std::pair{group.front(), group.back() + 1}) subject = c.subtree_bits[s];
        if (!subject) {  // a grouping that is no node of the graph: a new term, left-nested
          const Term head = Term::op_atom(c.op);
          auto operand = [&](std::uint32_t j) {
            detail::retain_bits(c.operands[j]);
            return Term::adopt_bits(c.operands[j]);
          };
          Term acc = operand(group[0]);
          for (std::size_t j = 1; j < group.size(); ++j) acc = compound(head, std::move(acc), operand(group[j]));
          subject = keep(std::move(acc));
        }
      }
      work_.push_back({pattern_ops[i], subject});
    }
    c.has_pending = c.arrangements.next(c.pending);
  }

  // The state a choice made now goes back to.
  Saved save() {
    Saved s;
    s.work_begin = static_cast<std::uint32_t>(saved_work_.size());
    s.work_size = static_cast<std::uint32_t>(work_.size());
    for (std::size_t i = 0; i < work_.size(); ++i) saved_work_.push_back(work_[i]);
    s.trail = static_cast<std::uint32_t>(trail_.size());
    s.temps = static_cast<std::uint32_t>(temps_.size());
    return s;
  }
  // Back to that state: its work list, and nothing bound or made since.
  void restore(const Saved& s) {
    work_.clear();
    for (std::uint32_t i = 0; i < s.work_size; ++i) work_.push_back(saved_work_[s.work_begin + i]);
    while (trail_.size() > s.trail) {
      slots_[trail_.back()] = 0;
      trail_.pop_back();
    }
    temps_.resize(s.temps);
  }

  bool backtrack() {
    while (!order_.empty()) {
      if (order_.back() == kSwap) {
        Swap& sw = swaps_.back();
        if (sw.pending) {
          sw.pending = false;
          restore(sw.saved);
          const Node& n = nodes_[sw.node];
          work_.push_back({n.children[1], sw.operands[0]});
          work_.push_back({n.children[0], sw.operands[1]});
          return true;
        }
        saved_work_.truncate(sw.saved.work_begin);
        swaps_.pop_back();
        order_.pop_back();
        continue;
      }
      Choice& c = choices_.back();
      if (c.has_pending) {
        restore(c.saved);
        apply_next(c);
        return true;
      }
      saved_work_.truncate(c.saved.work_begin);
      choices_.pop_back();
      order_.pop_back();
    }
    return false;
  }

  const Pattern& p_;
  const std::vector<Node>& nodes_;
  const MatchOptions& options_;
  std::string explanation_;
  detail::SmallStack<std::uint64_t, 16> slots_;
  detail::SmallStack<Work, 32> work_;
  detail::SmallStack<std::uint32_t, 16> trail_;
  std::vector<Term> temps_;
  std::vector<Choice> choices_;
  // Two-operand commutative choices (swap_choice); `order_` says which
  // stack each open choice is on, newest last; saved_work_ holds the work
  // lists every open choice restores, in the same order.
  struct Swap {
    std::uint32_t node = 0;
    Saved saved;
    std::uint64_t operands[2] = {0, 0};
    bool pending = true;                          // the swapped order is still to try
  };
  static constexpr std::uint8_t kGeneral = 0, kSwap = 1;
  detail::SmallStack<Swap, 4> swaps_;
  detail::SmallStack<Work, 32> saved_work_;
  detail::SmallStack<std::uint8_t, 8> order_;
  MatchFailure failure_;
  bool started_ = false;
};

// ---------------------------------------------------------------------------
// Entry points.

namespace {

// The failure at the root Op, found without building a matcher: the common
// case of a rewriter trying a pattern on a node it does not fit.
bool root_rejects(const Node& root, const Variable& v, MatchFailure& out) {
  if (root.kind != Node::Kind::Apply || root.head == Node::Head::Var) return false;
  const Apply* a = v.owner();
  if (!a) {
    out = {MatchFailKind::NotComputed, 0, &v, 0};
    return true;
  }
  if (a->op().kind() != root.op_kind) {
    out = {MatchFailKind::OpMismatch, 0, &v, 0};
    return true;
  }
  return false;
}

const MatchOptions kNoOptions;

}  // namespace

MatchResult match(const Pattern& p, const Var& v) {
  if (!v) throw TermError("match() of a null variable");
  return match(p, *v, kNoOptions);
}

MatchResult match(const Pattern& p, const Variable& v, const MatchOptions& options) {
  MatchResult r;
  r.pattern_ = &p;
  if (root_rejects(p.nodes_->front(), v, r.failure_)) return r;
  Matcher m(p, v, options);
  if (m.next()) {
    r.subst_ = m.substitution();
  } else {
    r.failure_ = m.failure();
    if (r.failure_.kind == MatchFailKind::GuardFailed) r.explanation_ = m.take_explanation();
  }
  return r;
}

std::size_t match_each(const Pattern& p, const Var& v,
                       const std::function<bool(const Substitution&)>& f) {
  if (!v) throw TermError("match_each() of a null variable");
  return match_each(p, *v, kNoOptions, f);
}

std::size_t match_each(const Pattern& p, const Variable& v, const MatchOptions& options,
                       const std::function<bool(const Substitution&)>& f) {
  MatchFailure ignored;
  if (root_rejects(p.nodes_->front(), v, ignored)) return 0;
  Matcher m(p, v, options);
  std::set<std::vector<std::uint64_t>> seen;
  std::size_t n = 0;
  while (m.next()) {
    if (p.has_choices_ && !seen.insert(m.key()).second) continue;
    ++n;
    if (!f(m.substitution())) break;
  }
  return n;
}

std::vector<Substitution> match_all(const Pattern& p, const Var& v, std::size_t limit) {
  std::vector<Substitution> out;
  if (limit == 0) return out;
  match_each(p, v, [&](const Substitution& s) {
    out.push_back(s);
    return out.size() < limit;
  });
  return out;
}

// ---------------------------------------------------------------------------
// Messages.

namespace {

std::string head_display(const Node& n) {
  switch (n.head) {
    case Node::Head::OpAtom: return n.head_term.op()->to_string();
    case Node::Head::OpPattern: return to_string(n.head_term);
    case Node::Head::Symbol: return n.name;
    case Node::Head::Var: return to_string(n.head_term);
  }
  return {};
}

std::string got(const Variable* subject) {
  return subject ? describe(*subject) : std::string("a regrouping of operands");
}

}  // namespace

std::string Pattern::listing() const {
  const std::vector<Node>& nodes = *nodes_;
  std::string out = fmt::format("match `{}`: {} instruction{}, {} slot{}\n", to_string(term_),
                                nodes.size(), nodes.size() == 1 ? "" : "s", vars_.size(),
                                vars_.size() == 1 ? "" : "s");
  std::vector<bool> bound(vars_.size(), false);
  auto slot_name = [&](std::uint32_t slot) { return fmt::format("slot {} ({})", slot, to_string(vars_[slot])); };
  for (std::uint32_t i = 0; i < nodes.size(); ++i) {
    const Node& n = nodes[i];
    const std::string where =
        n.parent == kNoParent ? std::string("root") : fmt::format("input {} of %{}", n.position, n.parent);
    std::string what;
    switch (n.kind) {
      case Node::Kind::Var:
        what = bound[n.slot] ? "same value as " + slot_name(n.slot) : "bind " + slot_name(n.slot);
        bound[n.slot] = true;
        break;
      case Node::Kind::Literal: what = "constant " + to_string(n.term); break;
      case Node::Kind::Leaf: what = "the graph variable " + to_string(n.term); break;
      case Node::Kind::Never: what = "never matches: " + to_string(n.term); break;
      case Node::Kind::Apply: {
        switch (n.head) {
          case Node::Head::OpAtom: what = "op " + head_display(n); break;
          case Node::Head::OpPattern: what = "op " + head_display(n) + " (properties unified)"; break;
          case Node::Head::Symbol: what = "any op named " + n.name; break;
          case Node::Head::Var:
            what = (bound[n.slot] ? "the op in " : "any op, bound to ") + slot_name(n.slot);
            bound[n.slot] = true;
            break;
        }
        if (n.associative) {
          what += fmt::format(", associative: operands");
          for (std::uint32_t o : n.operands) what += fmt::format(" %{}", o);
          what += n.commutative ? " in any order and grouping" : " in any grouping";
        } else {
          what += fmt::format(", {} input{}", n.children.size(), n.children.size() == 1 ? "" : "s");
          if (n.commutative) what += " in either order";
        }
        break;
      }
    }
    for (std::uint32_t c : n.constraints) what += "; constraint " + constraints_[c].name;
    out += fmt::format("  %{:<3} {:<16} {}\n", i, where, what);
  }
  for (const Guard& g : guards_) {
    out += "guard `" + g.name + "`";
    if (!g.slots.empty()) {
      out += " reads";
      for (std::size_t k = 0; k < g.slots.size(); ++k)
        out += (k ? ", " : " ") + (g.slots[k] < vars_.size() ? slot_name(g.slots[k]) : fmt::format("slot {}", g.slots[k]));
    }
    out += "\n";
  }
  return out;
}

std::string Pattern::explain(const MatchFailure& f) const {
  if (f.kind == MatchFailKind::None) return {};
  const std::vector<Node>& nodes = *nodes_;
  if (f.kind == MatchFailKind::GuardFailed)
    return "guard `" + (f.detail < guards_.size() ? guards_[f.detail].name : std::string("?")) +
           "` failed";
  // The path from the root: "input 0 of `div`, input 1 of `mul`: ".
  std::vector<std::string> steps;
  for (std::uint32_t i = f.node; nodes[i].parent != kNoParent; i = nodes[i].parent) {
    const Node& parent = nodes[nodes[i].parent];
    const std::string pname = parent.name.empty() ? to_string(parent.head_term) : parent.name;
    steps.push_back(fmt::format("input {} of `{}`", nodes[i].position, pname));
  }
  std::string out;
  for (std::size_t i = steps.size(); i-- > 0;) {
    out += steps[i];
    out += i ? ", " : ": ";
  }
  const Node& n = nodes[f.node];
  const Variable* s = f.subject;
  switch (f.kind) {
    case MatchFailKind::NotComputed:
      out += fmt::format("expected `{}`, got {}{}", head_display(n), got(s),
                         s && !s->is_constant() ? " (a graph input)" : "");
      break;
    case MatchFailKind::NotDefaultOutput:
      out += fmt::format("expected `{}`, got output {} of `{}`, which has several outputs",
                         head_display(n), s->index(), s->owner()->op().to_string());
      break;
    case MatchFailKind::OpMismatch:
      if (s && s->owner())
        out += fmt::format("expected `{}`, got `{}`", head_display(n), s->owner()->op().to_string());
      else
        out += fmt::format("expected `{}`, got {}", head_display(n), got(s));
      break;
    case MatchFailKind::ArityMismatch:
      out += fmt::format("`{}` has {} inputs, the pattern gives {}", s->owner()->op().to_string(),
                         s->owner()->num_inputs(), n.children.size());
      break;
    case MatchFailKind::NoArrangement:
      out += fmt::format("the {} operands of `{}` cannot be arranged as the pattern's {}", f.detail,
                         s->owner()->op().to_string(), n.operands.size());
      break;
    case MatchFailKind::NotConstant:
      out += fmt::format("expected constant {}, got {}", to_string(n.term), got(s));
      break;
    case MatchFailKind::LiteralMismatch:
      out += fmt::format("expected constant {}, got {}", to_string(n.term), got(s));
      break;
    case MatchFailKind::LeafMismatch:
      out += fmt::format("expected {}, got {}", describe(*n.term.graph_var()), got(s));
      break;
    case MatchFailKind::BindingMismatch: {
      const Variable* bound = f.detail ? graph_of(f.detail) : nullptr;
      out += fmt::format("`{}` stands for {} here, got {}", to_string(n.term),
                         bound ? describe(*bound) : std::string("another value"), got(s));
      break;
    }
    case MatchFailKind::NeverMatches:
      out += fmt::format("expected `{}`, which no graph variable can be", to_string(n.term));
      break;
    case MatchFailKind::ConstraintFailed: {
      const std::string name =
          f.detail < constraints_.size() ? constraints_[f.detail].name : std::string("?");
      out += s ? fmt::format("{} does not satisfy `{}`", got(s), name)
               : fmt::format("a regrouping of operands cannot satisfy `{}`", name);
      break;
    }
    default: break;
  }
  return out;
}

std::string MatchResult::why() const {
  if (!pattern_ || failure_.kind == MatchFailKind::None) return {};
  if (!explanation_.empty()) return explanation_;
  return pattern_->explain(failure_);
}

}  // namespace rw

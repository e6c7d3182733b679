// The unifier (an explicit work stack of term pairs), the occurs check and
// the rebuilding walk behind substitute and reify.
#include "engine/unify/unify.hpp"

#include <memory>
#include <unordered_set>

#include "engine/graph/apply.hpp"
#include "engine/graph/op.hpp"
#include "engine/unify/detail/flat_map.hpp"
#include "engine/unify/detail/graph_reader.hpp"
#include "engine/unify/detail/small_stack.hpp"
#include "engine/unify/graph_terms.hpp"

namespace rw {

namespace detail {

namespace {

std::uint64_t tag(std::uint64_t bits) { return bits & kTagMask; }
const TermNode* as_node(std::uint64_t bits) {
  return reinterpret_cast<const TermNode*>(bits);
}
// The characters of a short symbol's word (borrowed: the word is held by the caller's term).
std::string_view symbol_text(const std::uint64_t& bits) {
  return {reinterpret_cast<const char*>(&bits) + 1, static_cast<std::size_t>((bits >> 3) & 7)};
}
bool ground_bits(std::uint64_t bits) {
  if (tag(bits) == kTagHeap) return bits && (as_node(bits)->flags & TermNode::kGround);
  return tag(bits) != kTagVar;
}
bool shared_node(std::uint64_t bits) {
  return tag(bits) == kTagHeap && bits &&
         as_node(bits)->rc.load(std::memory_order_relaxed) > 1;
}

// Asks for a child node's cache line ahead of its visit: a traversal reaches
// a node's later children only after the earlier ones' subterms, and terms
// beyond the caches otherwise cost one memory wait per level.
inline void prefetch_node(std::uint64_t bits) {
  if (tag(bits) == kTagHeap && bits) __builtin_prefetch(reinterpret_cast<const void*>(bits));
}

struct PairHash {
  std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const noexcept {
    return mix(p.first * 31 + p.second);
  }
};

/// Bindings a unification has made but not yet written to the substitution.
struct PendingBinding {
  std::uint64_t var, value;
};

// The value of var `b` among `pending`, or 0.
std::uint64_t pending_value(const PendingBinding* pending, std::size_t n, std::uint64_t b) {
  for (std::size_t i = 0; i < n; ++i)
    if (pending[i].var == b) return pending[i].value;
  return 0;
}

// Whether var `x` occurs in `t` under `s` (and `pending`). Shared nodes are
// visited once, so a term that is a DAG costs its size, not its unfolding's.
bool occurs_bits(std::uint64_t x, std::uint64_t t, const Substitution& s,
                 const PendingBinding* pending = nullptr, std::size_t n_pending = 0) {
  SmallStack<std::uint64_t, 32> stack;
  FlatMap<char> seen;
  stack.push_back(t);
  while (!stack.empty()) {
    std::uint64_t b = stack.back();
    stack.pop_back();
    while (tag(b) == kTagVar) {
      if (b == x) return true;
      if (const std::uint64_t v = pending_value(pending, n_pending, b)) {
        b = v;
        continue;
      }
      const Term* p = s.find_bits(b);
      if (!p) break;
      b = p->bits();
    }
    if (tag(b) == kTagVar) continue;
    if (ground_bits(b)) continue;
    if (shared_node(b) && !seen.insert(b, 1).second) continue;
    const TermNode* n = as_node(b);
    switch (n->kind) {
      case TermKind::Pair: {
        const auto* p = static_cast<const PairNode*>(n);
        stack.push_back(p->cdr.bits());
        stack.push_back(p->car.bits());
        break;
      }
      case TermKind::Compound: {
        const auto* c = static_cast<const CompoundNode*>(n);
        for (std::uint32_t i = c->arity; i-- > 0;) {
          prefetch_node(c->args()[i].bits());
          stack.push_back(c->args()[i].bits());
        }
        stack.push_back(c->head.bits());
        break;
      }
      case TermKind::OpPattern:
        for (const PropTerm& p : static_cast<const OpPatternNode*>(n)->props)
          stack.push_back(p.value.bits());
        break;
      default: break;
    }
  }
  return false;
}

class Unifier {
 public:
  Unifier(Substitution& s, bool occurs_check, std::vector<std::uint64_t>* added)
      : s_(s), occurs_check_(occurs_check), added_(added) {}

  bool run(std::uint64_t u, std::uint64_t v) {
    stack_.push_back({u, v});
    while (!stack_.empty()) {
      auto [a, b] = stack_.back();
      stack_.pop_back();
      a = walk(a);
      b = walk(b);
      if (a == b) continue;
      const bool va = tag(a) == kTagVar, vb = tag(b) == kTagVar;
      if (va || vb) {
        // Two variables: bind the younger to the older, as faster-miniKanren does.
        const bool bind_a = va && (!vb || (a >> 16) > (b >> 16));
        if (!(bind_a ? bind(a, b) : bind(b, a))) return false;
        continue;
      }
      if (!step(a, b)) return false;
    }
    flush();
    return true;
  }

 private:
  struct Work {
    std::uint64_t u, v;
  };

  std::uint64_t walk(std::uint64_t b) const {
    while (tag(b) == kTagVar) {
      if (const std::uint64_t v = pending_value(pending_, n_pending_, b)) {
        b = v;
        continue;
      }
      const Term* p = s_.find_bits(b);
      if (!p) break;
      b = p->bits();
    }
    return b;
  }

  // Bindings wait in a small buffer and reach the substitution when it fills
  // or the unification succeeds: a unification that fails after binding a
  // variable or two (the common case in a search) then never copies the
  // substitution's path.
  bool bind(std::uint64_t var, std::uint64_t value) {
    if (occurs_check_ && !ground_bits(value) &&
        occurs_bits(var, value, s_, pending_, n_pending_))
      return false;
    if (n_pending_ == kPending) flush();
    pending_[n_pending_++] = {var, value};
    return true;
  }

  void flush() {
    for (std::size_t i = 0; i < n_pending_; ++i) {
      retain_bits(pending_[i].value);
      s_.bind_bits(pending_[i].var, Term::adopt_bits(pending_[i].value));
      if (added_) added_->push_back(pending_[i].var);
    }
    n_pending_ = 0;
  }

  // Keeps a term made during unification alive until it ends.
  std::uint64_t keep(Term t) {
    temps_.push_back(std::move(t));
    return temps_.back().bits();
  }

  void push(std::uint64_t u, std::uint64_t v) { stack_.push_back({u, v}); }

  // A pair of graph variables is compared once per unification: graphs are
  // DAGs whose unfolding can be exponentially larger.
  bool first_visit(std::uint64_t a, std::uint64_t b) {
    if (!visited_) visited_ = std::make_unique<std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, PairHash>>();
    return visited_->insert({std::min(a, b), std::max(a, b)}).second;
  }

  // Two ground terms unify exactly when they are equal, unless a view could
  // relate different shapes: an Op or graph variable inside either, or a
  // pair on one side and a compound on the other.
  static bool plainly_comparable(std::uint64_t a, std::uint64_t b) {
    const std::uint8_t fa = as_node(a)->flags, fb = as_node(b)->flags;
    if (!(fa & fb & TermNode::kGround)) return false;
    if ((fa | fb) & TermNode::kHasOpView) return false;
    if ((fa & TermNode::kHasPair) && (fb & TermNode::kHasCompound)) return false;
    if ((fb & TermNode::kHasPair) && (fa & TermNode::kHasCompound)) return false;
    return true;
  }

  // Unifies an Op-like head (`head`, not a graph term) with the Op `op`.
  bool head_vs_op(std::uint64_t head, const Apply& node) {
    head = walk(head);
    if (tag(head) == kTagSymbol) return symbol_text(head) == node.op().name();
    if (tag(head) == kTagHeap && head) {
      const TermNode* n = as_node(head);
      if (n->kind == TermKind::Op) return same_op(*static_cast<const OpNode*>(n)->op, node.op());
      if (n->kind == TermKind::String)
        return static_cast<const StringNode*>(n)->value == node.op().name();
    }
    push(head, keep(Term::op_atom(node.op_ptr())));
    return true;
  }

  // Unifies op pattern `pat` with the Op `op`: same name, listed properties unify.
  bool pattern_vs_op(const OpPatternNode& pat, const Op& op) {
    if (pat.name != op.name()) return false;
    if (pat.props.empty()) return true;
    const Props& props = op.cached_props();
    for (const PropTerm& p : pat.props) {
      const PropValue* value = find_prop(props, p.name);
      if (!value) return false;
      push(p.value.bits(), keep(prop_to_term(*value)));
    }
    return true;
  }

  // Compound `c` against graph variable `g` read as op(inputs…).
  bool compound_vs_graph(const CompoundNode& c, const Variable& g) {
    const Apply* node = term_node(g);
    if (!node || c.arity != node->num_inputs()) return false;
    for (std::size_t i = node->num_inputs(); i-- > 0;)
      push(c.args()[i].bits(), input_bits(*node, i));
    return head_vs_op(c.head.bits(), *node);
  }

  // The cons view of a graph node: (op input…).
  bool pair_vs_graph(const PairNode& p, const Variable& g) {
    const Apply* node = term_node(g);
    if (!node) return false;
    std::vector<Term> inputs;
    inputs.reserve(node->num_inputs());
    for (const Var& in : node->inputs()) inputs.emplace_back(in);
    push(p.cdr.bits(), keep(list(inputs)));
    push(p.car.bits(), keep(Term::op_atom(node->op_ptr())));
    return true;
  }

  bool graph_vs_graph(const Variable& x, const Variable& y) {
    if (x.is_constant() || y.is_constant()) {
      return x.is_constant() && y.is_constant() && x.as_constant()->same_value(*y.as_constant());
    }
    const Apply* nx = term_node(x);
    const Apply* ny = term_node(y);
    if (!nx || !ny) return false;
    if (!same_op(nx->op(), ny->op()) || nx->num_inputs() != ny->num_inputs()) return false;
    if (!first_visit(graph_bits(&x), graph_bits(&y))) return true;
    for (std::size_t i = nx->num_inputs(); i-- > 0;) push(input_bits(*nx, i), input_bits(*ny, i));
    return true;
  }

  // Op-like atoms: an Op, an op pattern, a symbol.
  bool op_like(const TermNode& a, const TermNode& b) {
    if (a.kind == TermKind::Op && b.kind == TermKind::Op)
      return same_op(*static_cast<const OpNode&>(a).op, *static_cast<const OpNode&>(b).op);
    if (a.kind == TermKind::Op && b.kind == TermKind::OpPattern)
      return pattern_vs_op(static_cast<const OpPatternNode&>(b), *static_cast<const OpNode&>(a).op);
    if (a.kind == TermKind::OpPattern && b.kind == TermKind::Op)
      return pattern_vs_op(static_cast<const OpPatternNode&>(a), *static_cast<const OpNode&>(b).op);
    if (a.kind == TermKind::OpPattern && b.kind == TermKind::OpPattern) {
      const auto& pa = static_cast<const OpPatternNode&>(a);
      const auto& pb = static_cast<const OpPatternNode&>(b);
      if (pa.name != pb.name) return false;
      for (const PropTerm& p : pa.props)
        for (const PropTerm& q : pb.props)
          if (p.name == q.name) push(p.value.bits(), q.value.bits());
      return true;
    }
    // A symbol stands for any Op of its name.
    auto name_of = [](const TermNode& n) -> std::string_view {
      switch (n.kind) {
        case TermKind::Op: return static_cast<const OpNode&>(n).op->name();
        case TermKind::OpPattern: return static_cast<const OpPatternNode&>(n).name;
        default: return static_cast<const StringNode&>(n).value;
      }
    };
    return name_of(a) == name_of(b);
  }

  // A short symbol `sym` against a distinct non-variable term `t`: equal
  // symbols have equal words, so only an Op or op pattern of its name unifies.
  static bool symbol_vs(std::uint64_t sym, std::uint64_t t) {
    if (tag(t) != kTagHeap) return false;
    const TermNode* n = as_node(t);
    if (n->kind == TermKind::Op) return static_cast<const OpNode*>(n)->op->name() == symbol_text(sym);
    if (n->kind == TermKind::OpPattern)
      return static_cast<const OpPatternNode*>(n)->name == symbol_text(sym);
    return false;
  }

  static bool is_op_like(TermKind k) {
    return k == TermKind::Op || k == TermKind::OpPattern || k == TermKind::String;
  }

  // a and b are walked, distinct, and neither is a variable.
  bool step(std::uint64_t a, std::uint64_t b) {
    if (tag(a) == kTagGraph) return graph_vs(graph_of(a), b);
    if (tag(b) == kTagGraph) return graph_vs(graph_of(b), a);
    if (tag(a) == kTagSymbol) return symbol_vs(a, b);
    if (tag(b) == kTagSymbol) return symbol_vs(b, a);
    if (tag(a) != kTagHeap || tag(b) != kTagHeap) return false;  // distinct immediates
    if (plainly_comparable(a, b)) {
      if (node_hash(as_node(a)) != node_hash(as_node(b))) return false;
      BorrowedTerm x(a), y(b);
      return equal(x, y);
    }
    const TermNode* na = as_node(a);
    const TermNode* nb = as_node(b);
    if (na->kind == nb->kind) {
      switch (na->kind) {
        case TermKind::Pair: {
          const auto* pa = static_cast<const PairNode*>(na);
          const auto* pb = static_cast<const PairNode*>(nb);
          push(pa->cdr.bits(), pb->cdr.bits());
          push(pa->car.bits(), pb->car.bits());
          return true;
        }
        case TermKind::Compound: {
          const auto* ca = static_cast<const CompoundNode*>(na);
          const auto* cb = static_cast<const CompoundNode*>(nb);
          if (ca->arity != cb->arity) return false;
          for (std::uint32_t i = ca->arity; i-- > 0;) {
            prefetch_node(ca->args()[i].bits());
            prefetch_node(cb->args()[i].bits());
            push(ca->args()[i].bits(), cb->args()[i].bits());
          }
          if (ca->head.bits() != cb->head.bits()) push(ca->head.bits(), cb->head.bits());
          return true;
        }
        case TermKind::Int: return static_cast<const IntNode*>(na)->value == static_cast<const IntNode*>(nb)->value;
        case TermKind::Float: {
          BorrowedTerm x(a), y(b);
          return equal(x, y);
        }
        default: break;
      }
    }
    if (is_op_like(na->kind) && is_op_like(nb->kind)) {
      if (na->kind == TermKind::String && nb->kind == TermKind::String)
        return static_cast<const StringNode*>(na)->value == static_cast<const StringNode*>(nb)->value;
      return op_like(*na, *nb);
    }
    // The cons view of a compound: (head arg…).
    if (na->kind == TermKind::Pair && nb->kind == TermKind::Compound) std::swap(na, nb);
    if (na->kind == TermKind::Compound && nb->kind == TermKind::Pair) {
      const auto* c = static_cast<const CompoundNode*>(na);
      const auto* p = static_cast<const PairNode*>(nb);
      push(p->cdr.bits(), keep(list(std::span<const Term>(c->args(), c->arity))));
      push(p->car.bits(), c->head.bits());
      return true;
    }
    return false;
  }

  // Graph variable g against a non-variable term t (which may be a graph term).
  bool graph_vs(Variable* g, std::uint64_t t) {
    if (tag(t) == kTagGraph) return graph_vs_graph(*g, *graph_of(t));
    if (tag(t) == kTagInt) {
      const Constant* c = g->as_constant();
      BorrowedTerm lit(t);
      return c && literal_matches_constant(lit, *c);
    }
    if (tag(t) == kTagSpecial) {
      const Constant* c = g->as_constant();
      BorrowedTerm lit(t);
      return c && lit.get().kind() == TermKind::Bool && literal_matches_constant(lit, *c);
    }
    if (tag(t) != kTagHeap) return false;
    const TermNode* n = as_node(t);
    switch (n->kind) {
      case TermKind::Int:
      case TermKind::Float: {
        const Constant* c = g->as_constant();
        BorrowedTerm lit(t);
        return c && literal_matches_constant(lit, *c);
      }
      case TermKind::Compound: return compound_vs_graph(*static_cast<const CompoundNode*>(n), *g);
      case TermKind::Pair: return pair_vs_graph(*static_cast<const PairNode*>(n), *g);
      default: return false;
    }
  }

  static constexpr std::size_t kPending = 8;
  Substitution& s_;
  bool occurs_check_;
  std::vector<std::uint64_t>* added_;
  PendingBinding pending_[kPending];
  std::size_t n_pending_ = 0;
  SmallStack<Work, 32> stack_;
  std::vector<Term> temps_;
  std::unique_ptr<std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, PairHash>> visited_;
};

// The rebuilding walk: post-order over an explicit stack of frames. Results
// are words, each *owned* (a node this walk built that no parent has taken
// yet) or *borrowed* (a subterm of the input, a value in the substitution, or
// a remembered result, all alive until the walk ends). A borrowed word is
// counted only when a new node takes it, so the parts of a term that do not
// change cost no count traffic, and a new node takes its owned children
// without counting either. An owned result is a node address with kOwned
// set: node addresses are 16-byte aligned (pool_alloc's blocks, and malloc's
// under the sanitizers), so bit 3 of a borrowed node's word is zero. Other
// words use bit 3 (an integer's lowest bit, a symbol's length), so ownership
// is read from the low four bits together: tag heap and bit 3.
// An owned result never passes for an unchanged child.
struct RebuildFrame {
  std::uint64_t node;      // the walked, non-ground heap term
  std::uint64_t memo_key;  // set when the result should be remembered
  const char* kids;        // its first child; the others follow every `stride` bytes
  std::uint32_t stride;
  std::uint32_t next, count;
  std::size_t base;  // where its children's results start
  const Term& child(std::uint32_t i) const {
    return *reinterpret_cast<const Term*>(kids + std::size_t{i} * stride);
  }
};

constexpr std::uint64_t kOwned = 8;
constexpr bool is_owned(std::uint64_t r) { return (r & (kTagMask | kOwned)) == kOwned; }

// Buffers a rebuild reuses from call to call on one thread.
struct RebuildScratch {
  std::vector<RebuildFrame> frames;
  std::vector<std::uint64_t> results;
  std::vector<Term> args;
  FlatMap<std::uint64_t> memo;  // node -> its (borrowed) result
  bool busy = false;

  // Empties the buffers, dropping the results still owned (after a throw).
  void reset() noexcept {
    for (const std::uint64_t r : results)
      if (is_owned(r)) release_bits(r & ~kOwned);
    results.clear();
    frames.clear();
    args.clear();
    memo.clear();
  }
};
thread_local RebuildScratch t_rebuild;

class Rebuilder {
 public:
  Rebuilder(const Substitution& s, std::unordered_map<std::uint64_t, std::uint64_t>* names,
            RebuildScratch& scratch)
      : s_(s), names_(names), frames_(scratch.frames), results_(scratch.results),
        args_(scratch.args), memo_(scratch.memo) {}

  Term run(const Term& root) {
    visit(root.bits());
    while (!frames_.empty()) {
      RebuildFrame& f = frames_.back();
      if (f.next < f.count) {
        visit(f.child(f.next++).bits());  // may grow frames_: f is not used after
        continue;
      }
      finish();
    }
    std::uint64_t out = results_.back();
    results_.clear();
    memo_.clear();
    return take(out);
  }

 private:
  void visit(std::uint64_t b) {
    bool via_var = false;
    while (tag(b) == kTagVar) {
      const Term* p = s_.find_bits(b);
      if (!p) break;
      b = p->bits();
      via_var = true;
    }
    if (tag(b) == kTagVar) {
      results_.push_back(names_ ? rename(b) : b);
      return;
    }
    if (ground_bits(b)) {
      results_.push_back(b);
      return;
    }
    // A node reached through a variable, or shared, may be met again: its
    // result is remembered, so a DAG is rebuilt once per node.
    const bool remember = via_var || shared_node(b);
    if (remember) {
      if (const std::uint64_t* done = memo_.find(b)) {
        results_.push_back(*done);
        return;
      }
    }
    const TermNode* n = as_node(b);
    RebuildFrame& f = frames_.emplace_back();  // filled in place: no copy through the stack
    f.node = b;
    f.memo_key = remember ? b : 0;
    f.stride = sizeof(Term);
    f.next = 0;
    f.count = 0;
    f.base = results_.size();
    switch (n->kind) {
      case TermKind::Pair:
        f.kids = reinterpret_cast<const char*>(&static_cast<const PairNode*>(n)->car);
        f.count = 2;
        break;
      case TermKind::Compound: {
        const auto* c = static_cast<const CompoundNode*>(n);
        f.kids = reinterpret_cast<const char*>(&c->head);  // the arguments follow the head
        f.count = 1 + c->arity;
        for (std::uint32_t i = 0; i < c->arity; ++i) prefetch_node(c->args()[i].bits());
        break;
      }
      case TermKind::OpPattern: {
        const auto& props = static_cast<const OpPatternNode*>(n)->props;
        f.kids = reinterpret_cast<const char*>(&props.front().value);  // not ground: not empty
        f.stride = sizeof(PropTerm);
        f.count = static_cast<std::uint32_t>(props.size());
        break;
      }
      default: break;
    }
  }

  std::uint64_t rename(std::uint64_t var) {
    auto [it, fresh] = names_->emplace(var, names_->size());
    return Term::reified(it->second).release();
  }

  // The frame on top has all its children's results: replace them by its own.
  void finish() {
    const RebuildFrame f = frames_.back();
    frames_.pop_back();
    std::uint64_t* kids = results_.data() + f.base;
    bool same = true;
    for (std::uint32_t i = 0; i < f.count; ++i)
      if (kids[i] != f.child(i).bits()) {
        same = false;
        break;
      }
    // Unchanged children are all borrowed, so an unchanged node is borrowed too.
    std::uint64_t out = f.node;
    if (!same) {
      out = build(f, kids).release();
      if (f.memo_key) memo_.insert(f.memo_key, out);  // alive: a new node is never dropped
      out |= kOwned;
    } else if (f.memo_key) {
      memo_.insert(f.memo_key, out);
    }
    results_.resize(f.base);
    results_.push_back(out);
  }

  // The child result as a counted term: an owned one is handed over.
  static Term take(std::uint64_t& r) {
    if (!is_owned(r)) {
      retain_bits(r);
      return Term::adopt_bits(r);
    }
    const std::uint64_t bits = r & ~kOwned;
    r = bits;
    return Term::adopt_bits(bits);
  }

  Term build(const RebuildFrame& f, std::uint64_t* kids) {
    const TermNode* n = as_node(f.node);
    switch (n->kind) {
      case TermKind::Pair: {
        Term car = take(kids[0]);
        Term cdr = take(kids[1]);
        return cons(std::move(car), std::move(cdr));
      }
      case TermKind::Compound: {
        Term head = take(kids[0]);
        const std::uint32_t arity = f.count - 1;
        if (arity <= 4) {
          Term args[4];
          for (std::uint32_t i = 0; i < arity; ++i) args[i] = take(kids[i + 1]);
          return make_compound(std::move(head), args, arity);
        }
        args_.clear();
        for (std::uint32_t i = 1; i < f.count; ++i) args_.push_back(take(kids[i]));
        return make_compound(std::move(head), args_.data(), args_.size());
      }
      default: {
        const auto* p = static_cast<const OpPatternNode*>(n);
        std::vector<PropTerm> props;
        props.reserve(f.count);
        for (std::uint32_t i = 0; i < f.count; ++i) props.push_back({p->props[i].name, take(kids[i])});
        return op_pattern(p->name, std::move(props));
      }
    }
  }

  const Substitution& s_;
  std::unordered_map<std::uint64_t, std::uint64_t>* names_;
  std::vector<RebuildFrame>& frames_;
  std::vector<std::uint64_t>& results_;
  std::vector<Term>& args_;
  FlatMap<std::uint64_t>& memo_;
};

}  // namespace

bool unify_into(const Term& u, const Term& v, Substitution& s, bool occurs_check,
                std::vector<std::uint64_t>* added) {
  return Unifier(s, occurs_check, added).run(u.bits(), v.bits());
}

Term rebuild(const Term& t, const Substitution& s,
             std::unordered_map<std::uint64_t, std::uint64_t>* names) {
  if (t.is_ground()) return t;
  if (t_rebuild.busy) {  // a rebuild further up this thread's stack: use fresh buffers
    RebuildScratch local;
    struct Release {
      RebuildScratch& scratch;
      ~Release() { scratch.reset(); }
    } release{local};
    return Rebuilder(s, names, local).run(t);
  }
  t_rebuild.busy = true;
  struct Release {
    ~Release() {
      t_rebuild.busy = false;
      t_rebuild.reset();
    }
  } release;
  return Rebuilder(s, names, t_rebuild).run(t);
}

}  // namespace detail

std::optional<Substitution> unify(const Term& u, const Term& v, Substitution s,
                                  const UnifyOptions& options) {
  if (!detail::unify_into(u, v, s, options.occurs_check, nullptr)) return std::nullopt;
  return s;
}

bool unify_in(const Term& u, const Term& v, Substitution& s, const UnifyOptions& options) {
  Substitution work = s;  // shares: s itself is never written
  if (!detail::unify_into(u, v, work, options.occurs_check, nullptr)) return false;
  s = std::move(work);
  return true;
}

bool occurs(const Term& var, const Term& t, const Substitution& s) {
  if (!var.is_var()) throw TermError("occurs() needs a variable, got a " +
                                     std::string(term_kind_name(var.kind())));
  return detail::occurs_bits(s.walk(var).is_var() ? s.walk(var).bits() : var.bits(), t.bits(), s);
}

Term substitute(const Term& t, const Substitution& s) { return detail::rebuild(t, s, nullptr); }

Term reify(const Term& t, const Substitution& s) {
  std::unordered_map<std::uint64_t, std::uint64_t> names;
  return detail::rebuild(t, s, &names);
}

Term Reifier::operator()(const Term& t) { return detail::rebuild(t, s_, &names_); }

}  // namespace rw

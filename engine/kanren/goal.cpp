// Goals and the search machine: faster-miniKanren's stream protocol (empty,
// one state, a suspension, a state and a suspension) run by an explicit stack
// of mplus/bind frames instead of recursion.
#include "engine/kanren/goal.hpp"

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include "engine/kanren/clauses.hpp"
#include "engine/unify/print.hpp"

#include "runtime/detail/pool_alloc.hpp"
#include "engine/unify/detail/small_stack.hpp"

namespace rw::kanren {

namespace detail {

using rw::detail::CompoundNode;
using rw::detail::PairNode;
using rw::detail::pool_alloc;
using rw::detail::pool_free;


struct EqNode : GoalNode {
  Term u, v;
};
/// Conjunction: its goals follow the node.
struct alignas(8) ConjNode : GoalNode {
  std::uint32_t n = 0;
  Goal* goals() noexcept { return reinterpret_cast<Goal*>(this + 1); }
};
/// Alternatives of conjunctions: clause ends, then the goals, follow the node.
struct alignas(8) CondeNode : GoalNode {
  std::uint32_t n_clauses = 0, n_goals = 0;
  std::uint32_t* ends() noexcept { return reinterpret_cast<std::uint32_t*>(this + 1); }
  Goal* goals() noexcept {
    return reinterpret_cast<Goal*>(reinterpret_cast<char*>(this + 1) + ends_bytes(n_clauses));
  }
  static std::size_t ends_bytes(std::uint32_t n) { return (n * sizeof(std::uint32_t) + 7) / 8 * 8; }
};
static_assert(sizeof(ConjNode) % alignof(Goal) == 0 && sizeof(CondeNode) % alignof(Goal) == 0);
/// A clause table applied to arguments: the arguments follow the node.
struct alignas(8) CallNode : GoalNode {
  std::shared_ptr<const ClauseTableData> table;
  std::uint32_t n = 0;
  Term* args() noexcept { return reinterpret_cast<Term*>(this + 1); }
};
static_assert(sizeof(CallNode) % alignof(Term) == 0);
/// Clause `k` of a call, waiting for its fresh variables.
struct CallClauseNode : GoalNode {
  Goal call{nullptr};
  std::uint32_t k = 0;
};

std::size_t call_bytes(std::uint32_t n) { return sizeof(CallNode) + n * sizeof(Term); }

std::size_t conj_bytes(std::uint32_t n) { return sizeof(ConjNode) + n * sizeof(Goal); }
std::size_t conde_bytes(std::uint32_t c, std::uint32_t g) {
  return sizeof(CondeNode) + CondeNode::ends_bytes(c) + g * sizeof(Goal);
}

template <class N> N* new_goal(GoalKind kind, std::size_t bytes = sizeof(N)) {
  N* n = new (pool_alloc(bytes)) N();
  n->kind = kind;
  return n;
}

using GoalPending = rw::detail::SmallStack<GoalNode*, 64>;
thread_local GoalPending* t_goal_pending = nullptr;

void drop_goal(Goal& g, GoalPending& pending) noexcept {
  GoalNode* n = g.node();
  new (&g) Goal(nullptr);  // the slot no longer owns n
  if (n && n->rc.fetch_sub(1, std::memory_order_acq_rel) == 1) pending.push_back(n);
}

void free_goal(GoalNode* n, GoalPending& pending) noexcept {
  switch (n->kind) {
    case GoalKind::Eq:
    case GoalKind::Neq:
      static_cast<EqNode*>(n)->~EqNode();
      pool_free(n, sizeof(EqNode));
      break;
    case GoalKind::Conj: {
      auto* c = static_cast<ConjNode*>(n);
      const std::uint32_t count = c->n;
      for (std::uint32_t i = 0; i < count; ++i) {
        drop_goal(c->goals()[i], pending);
        c->goals()[i].~Goal();
      }
      c->~ConjNode();
      pool_free(n, conj_bytes(count));
      break;
    }
    case GoalKind::Conde: {
      auto* c = static_cast<CondeNode*>(n);
      const std::uint32_t nc = c->n_clauses, ng = c->n_goals;
      for (std::uint32_t i = 0; i < ng; ++i) {
        drop_goal(c->goals()[i], pending);
        c->goals()[i].~Goal();
      }
      c->~CondeNode();
      pool_free(n, conde_bytes(nc, ng));
      break;
    }
    case GoalKind::Call: {
      auto* c = static_cast<CallNode*>(n);
      const std::uint32_t count = c->n;
      for (std::uint32_t i = 0; i < count; ++i) c->args()[i].~Term();
      c->~CallNode();
      pool_free(n, call_bytes(count));
      break;
    }
    case GoalKind::CallClause: {
      auto* c = static_cast<CallClauseNode*>(n);
      drop_goal(c->call, pending);
      c->~CallClauseNode();
      pool_free(n, sizeof(CallClauseNode));
      break;
    }
    case GoalKind::Fresh:
    case GoalKind::Delay:
    case GoalKind::WithState: {
      auto* f = static_cast<FnGoalNode*>(n);
      const std::uint32_t bytes = f->bytes;
      if (f->destroy) f->destroy(f);
      f->~FnGoalNode();
      pool_free(n, bytes);
      break;
    }
    default:
      n->~GoalNode();
      pool_free(n, sizeof(GoalNode));
      break;
  }
}


void* goal_alloc(std::size_t bytes) { return pool_alloc(bytes); }

void goal_release(GoalNode* g) noexcept {
  if (g->rc.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  // Freeing a goal releases its subgoals; queue them instead of recursing.
  if (t_goal_pending) {
    t_goal_pending->push_back(g);
    return;
  }
  GoalPending pending;
  t_goal_pending = &pending;
  free_goal(g, pending);
  while (!pending.empty()) {
    GoalNode* n = pending.back();
    pending.pop_back();
    free_goal(n, pending);
  }
  t_goal_pending = nullptr;
}

// ---------------------------------------------------------------------------
// Streams.


enum class ThunkKind : std::uint8_t { Apply, Resume, Clauses, Mplus, Bind };

struct Thunk {
  ThunkKind kind;
};
/// Apply `goal` to `st` (Apply), or run the suspended body of a fresh, conde
/// or delay goal (Resume).
struct GoalThunk : Thunk {
  Goal goal;
  State st;
};
/// mplus* of the clauses of a conde from clause `k` on.
struct ClausesThunk : Thunk {
  Goal goal;
  std::uint32_t k;
  State st;
};
/// (lambda () (mplus (f) f2))
struct MplusThunk : Thunk {
  Thunk* f;
  Thunk* f2;
};
/// (lambda () (bind (f) goal))
struct BindThunk : Thunk {
  Thunk* f;
  Goal goal;
};

template <class T, class... A> Thunk* new_thunk(A&&... a) {
  return new (pool_alloc(sizeof(T))) T{std::forward<A>(a)...};
}

template <class T> void free_thunk(T* t) noexcept {
  t->~T();
  pool_free(t, sizeof(T));
}

// Mplus and bind suspensions share one block size, so a block of either can
// hold the other.
static_assert(sizeof(MplusThunk) == sizeof(BindThunk));
constexpr std::size_t kWrapBytes = sizeof(MplusThunk);
void free_spare(Thunk* spare) noexcept {
  if (spare) pool_free(spare, kWrapBytes);
}
Thunk* wrap_mplus(Thunk* spare, Thunk* f, Thunk* f2) {
  void* mem = spare ? static_cast<void*>(spare) : pool_alloc(kWrapBytes);
  return new (mem) MplusThunk{{ThunkKind::Mplus}, f, f2};
}
Thunk* wrap_bind(Thunk* spare, Thunk* f, Goal g) {
  void* mem = spare ? static_cast<void*>(spare) : pool_alloc(kWrapBytes);
  return new (mem) BindThunk{{ThunkKind::Bind}, f, std::move(g)};
}

// Drops thunks that will never be forced, without recursion.
void drop_thunks(Thunk* t) noexcept {
  rw::detail::SmallStack<Thunk*, 32> pending;
  pending.push_back(t);
  while (!pending.empty()) {
    Thunk* x = pending.back();
    pending.pop_back();
    if (!x) continue;
    switch (x->kind) {
      case ThunkKind::Apply:
      case ThunkKind::Resume: free_thunk(static_cast<GoalThunk*>(x)); break;
      case ThunkKind::Clauses: free_thunk(static_cast<ClausesThunk*>(x)); break;
      case ThunkKind::Mplus: {
        auto* m = static_cast<MplusThunk*>(x);
        pending.push_back(m->f);
        pending.push_back(m->f2);
        free_thunk(m);
        break;
      }
      case ThunkKind::Bind: {
        auto* b = static_cast<BindThunk*>(x);
        pending.push_back(b->f);
        free_thunk(b);
        break;
      }
    }
  }
}

enum class ValueKind : std::uint8_t { Empty, Unit, Susp, Choice };

/// What forcing a suspension gives: nothing, a state, a further suspension,
/// or a state and a suspension for the rest.
struct Value {
  ValueKind kind = ValueKind::Empty;
  State st;
  Thunk* t = nullptr;
};

enum class FrameKind : std::uint8_t { Mplus, Bind, Clauses };

/// Work waiting for a stream value: mplus with a suspension (`f2`), bind
/// with a goal (`goal`), or mplus with the suspended later clauses of a conde
/// (`goal` is the conde, `k` the next clause, `st` the state they start
/// from) — kept unallocated until the value shows they are needed.
struct Frame {
  FrameKind kind;
  std::uint32_t k = 0;
  Thunk* f2 = nullptr;
  GoalNode* goal = nullptr;  // owned
  // The block of the mplus/bind suspension whose forcing pushed this frame:
  // when the frame wraps a suspension again, it reuses the block.
  Thunk* spare = nullptr;
};
static_assert(std::is_trivially_copyable_v<Frame>);

/// The machine's work on this thread: the frames waiting for values, and the
/// states of Clauses frames, in the order of those frames.
struct Stacks {
  std::vector<Frame> frames;
  std::vector<State> states;
};

class Machine {
 public:
  /// Forces `t` (consumed) to its stream value.
  static Value force(Thunk* t);

  static bool apply_eq(State& st, const EqNode& g);
  static bool apply_neq(State& st, const EqNode& g);
  // The equations of a clause of a call, with `env` for its template variables.
  // (`env` holds the arguments, then null for fresh variables not yet given a value).
  static bool apply_clause(State& st, const ClauseTableData& table, const Clause& clause,
                           std::span<Term> env);
  // Runs clause `k` of call `c` on `st`: true when `goal` is what to apply
  // next, false when `v` is the value. Kept out of force's loop, which the
  // conde and fresh goals run hot.
  // Starts clause `k` of call `c`, the later ones waiting in a frame (as
  // start_clause does for a conde); same results as run_clause.
  [[gnu::noinline]] static bool start_call_clause(Stacks& stacks, CallNode* c, std::uint32_t k,
                                                  State& st, Goal& goal, Value& v);
  [[gnu::noinline]] static bool run_clause(CallNode* c, std::uint32_t k, State& st, Goal& goal,
                                           Value& v);
};

// Reached once per force and handed down: each use of a thread_local with a
// constructor goes through its initialisation check.
thread_local Stacks t_stacks;

// On unwinding, drops the frames a force pushed.
struct FrameGuard {
  Stacks& stacks;
  std::size_t base, state_base;
  ~FrameGuard() {
    while (stacks.frames.size() > base) {
      Frame& f = stacks.frames.back();
      if (f.f2) drop_thunks(f.f2);
      if (f.goal) goal_release(f.goal);
      free_spare(f.spare);
      stacks.frames.pop_back();
    }
    stacks.states.resize(state_base);
  }
};

GoalNode* retain(const Goal& g) {
  g.node()->rc.fetch_add(1, std::memory_order_relaxed);
  return g.node();
}

GoalNode* retain_node(GoalNode* n) {
  n->rc.fetch_add(1, std::memory_order_relaxed);
  return n;
}

// --- Disequality constraints ------------------------------------------------

Term constraint_from(const std::vector<std::uint64_t>& added, const Substitution& s) {
  std::vector<Term> pairs;
  pairs.reserve(added.size());
  for (std::uint64_t var : added) pairs.push_back(cons(Term::adopt_bits(var), *s.find_bits(var)));
  return list(pairs);
}


// Attaches `constraint` (a list of (var . value)) to the variables it can be
// woken by: the first pair's variable, and its value when that is a variable.
void attach(Substitution& store, const Term& constraint) {
  const Term& first = constraint.car();
  auto add = [&](const Term& var) {
    const Term* old = store.find(var);
    store.bind(var, cons(constraint, old ? *old : Term::nil()));
  };
  add(first.car());
  if (first.cdr().is_var()) add(first.cdr());
}

bool Machine::apply_neq(State& st, const EqNode& g) {
  Substitution tmp = st.subst_;
  std::vector<std::uint64_t> added;
  if (!rw::detail::unify_into(g.u, g.v, tmp, true, &added)) return true;  // never equal
  if (added.empty()) return false;                                         // equal already
  attach(st.store_, constraint_from(added, tmp));
  return true;
}

namespace {

// Re-checks one constraint under st: false when it is now violated.
bool recheck(Substitution& store, const Term& constraint, const Substitution& s) {
  Substitution tmp = s;
  std::vector<std::uint64_t> added;
  for (const Term* c = &constraint; c->is_pair(); c = &c->cdr())
    if (!rw::detail::unify_into(c->car().car(), c->car().cdr(), tmp, true, &added)) return true;
  if (added.empty()) return false;
  attach(store, constraint_from(added, tmp));
  return true;
}

// Re-checks the constraints attached to the variables a unification bound.
bool recheck_added(Substitution& store, const Substitution& s,
                   const std::vector<std::uint64_t>& added) {
  for (std::uint64_t var : added) {
    const Term* attached = store.find_bits(var);
    if (!attached || attached->is_nil()) continue;
    const Term constraints = *attached;
    store.bind_bits(var, Term::nil());
    for (const Term* c = &constraints; c->is_pair(); c = &c->cdr())
      if (!recheck(store, c->car(), s)) return false;
  }
  return true;
}

}  // namespace

bool Machine::apply_eq(State& st, const EqNode& g) {
  if (st.store_.empty()) return rw::detail::unify_into(g.u, g.v, st.subst_, true, nullptr);
  std::vector<std::uint64_t> added;
  if (!rw::detail::unify_into(g.u, g.v, st.subst_, true, &added)) return false;
  return recheck_added(st.store_, st.subst_, added);
}

namespace {

/// Unifies the two sides of a clause's equation, both templates: terms whose
/// template variables are read as their values in the environment. Where
/// the other side has the template's shape (a compound of the same arity, a
/// pair) the two are taken apart in place, so a clause whose head does not
/// fit builds nothing; elsewhere the template is instantiated and unified as
/// a whole, by the unifier. A fresh variable not yet given a value (a null
/// slot of the environment) takes the term it first meets as its value,
/// without a binding: nothing else can know it yet, so it cannot occur in
/// that term nor carry a constraint.
class TemplateUnifier {
 public:
  TemplateUnifier(const ClauseTableData& table, const Clause& clause, std::span<Term> env,
                  Substitution& s, std::vector<std::uint64_t>* added)
      : table_(table), clause_(clause), env_(env), s_(s), added_(added) {}

  // Both sides templates.
  bool unify(const Term& t1, const Term& t2) {
    if (t1.is_var()) return var_vs_template(slot(t1), t2);
    if (t2.is_var()) return var_vs_template(slot(t2), t1);
    if (t1.is_ground() && t2.is_ground()) return plain(t1, t2);
    if (t1.is_compound() && t2.is_compound()) {
      const CompoundNode& c1 = compound_of(t1);
      const CompoundNode& c2 = compound_of(t2);
      if (c1.arity == c2.arity) {
        if (!unify(c1.head, c2.head)) return false;
        for (std::uint32_t i = 0; i < c1.arity; ++i)
          if (!unify(c1.args()[i], c2.args()[i])) return false;
        return true;
      }
    }
    if (t1.is_pair() && t2.is_pair())
      return unify(pair_of(t1).car, pair_of(t2).car) && unify(pair_of(t1).cdr, pair_of(t2).cdr);
    return plain(instantiate(t1), instantiate(t2));
  }

 private:
  // The checked accessors of Term (head(), arg(i), …) are calls GCC does not
  // inline here; the kinds are tested first, so the nodes are read directly.
  static const CompoundNode& compound_of(const Term& t) {
    return *static_cast<const CompoundNode*>(t.node());
  }
  static const PairNode& pair_of(const Term& t) { return *static_cast<const PairNode*>(t.node()); }

  bool var_vs_template(Term& v, const Term& t) {
    if (!v) {
      Term inst = instantiate(t);
      // t may mention v itself (y == f(y)): then v has a value now, and the
      // occurs check must see the equation.
      if (v) return plain(v, inst);
      v = std::move(inst);
      return true;
    }
    return unify_value(t, v);
  }

  // Template `t` against `u`, a term of the search (no template variables).
  bool unify_value(const Term& t, const Term& u) {
    if (t.is_var()) {
      Term& v = slot(t);
      if (!v) {
        v = u;
        return true;
      }
      return plain(v, u);
    }
    if (word_atom(t)) {
      // Atoms held in their words unify exactly when equal: no view relates two of them.
      const std::uint64_t w = s_.walk(u).bits();
      return word_atom_bits(w) ? w == t.bits() : plain(t, u);
    }
    if (t.is_ground()) return plain(t, u);
    if (t.is_compound() || t.is_pair()) {
      // The walked term's word, borrowed rather than counted: it is `u` or a
      // value bound in the substitution, and a unification only adds
      // bindings, so it stays alive while the substitution changes below.
      const rw::detail::BorrowedTerm walked(s_.walk(u).bits());
      const Term& w = walked;
      if (t.is_compound() && w.is_compound()) {
        const CompoundNode& ct = compound_of(t);
        const CompoundNode& cw = compound_of(w);
        if (ct.arity == cw.arity) {
          if (!unify_value(ct.head, cw.head)) return false;
          for (std::uint32_t i = 0; i < ct.arity; ++i)
            if (!unify_value(ct.args()[i], cw.args()[i])) return false;
          return true;
        }
      }
      if (t.is_pair() && w.is_pair())
        return unify_value(pair_of(t).car, pair_of(w).car) &&
               unify_value(pair_of(t).cdr, pair_of(w).cdr);
      // Only a variable, a graph variable (read as op(inputs…)) or the
      // other of pair and compound (the cons view) can still unify with
      // this shape: anything else fails without building the template —
      // a clause tried on a leaf, most often.
      if (!w.is_var() && !w.is_graph() && !(t.is_compound() ? w.is_pair() : w.is_compound()))
        return false;
      return plain(instantiate(t), w);
    }
    return plain(instantiate(t), u);
  }

  // The unifier on two terms of the search. A variable against a ground term
  // or another variable is bound here, as the unifier would bind it (the
  // younger of two variables to the older; no occurs check against a ground
  // term), without setting the unifier up.
  bool plain(const Term& a, const Term& b) {
    const std::uint64_t x = s_.walk(a).bits(), y = s_.walk(b).bits();
    if (x == y) return true;
    const bool vx = var_bits(x), vy = var_bits(y);
    std::uint64_t var = 0, value = 0;
    if (vx && vy) {
      var = (x >> 16) > (y >> 16) ? x : y;
      value = var == x ? y : x;
    } else if (vx && ground(y)) {
      var = x;
      value = y;
    } else if (vy && ground(x)) {
      var = y;
      value = x;
    } else {
      return rw::detail::unify_into(a, b, s_, true, added_);
    }
    rw::detail::retain_bits(value);
    s_.bind_bits(var, Term::adopt_bits(value));
    if (added_) added_->push_back(var);
    return true;
  }

  static bool var_bits(std::uint64_t b) { return (b & rw::detail::kTagMask) == rw::detail::kTagVar; }
  static bool ground(std::uint64_t b) {
    const rw::detail::BorrowedTerm t(b);
    return t.get().is_ground();
  }
  // Integers, short symbols and specials: not a node, a variable or a graph variable.
  static bool word_atom_bits(std::uint64_t b) {
    const std::uint64_t tag = b & rw::detail::kTagMask;
    return tag != rw::detail::kTagHeap && tag != rw::detail::kTagVar &&
           tag != rw::detail::kTagGraph;
  }
  static bool word_atom(const Term& t) { return word_atom_bits(t.bits()); }

  // The environment slot of a template variable (checked when the table was built).
  Term& slot(const Term& var) {
    const std::uint64_t b = var.bits();
    const auto& ps = table_.params;
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (ps[i] == b) return env_[i];
    std::size_t i = 0;
    while (clause_.fresh[i].bits() != b) ++i;
    return env_[ps.size() + i];
  }

  // The template with its variables replaced by their values.
  Term instantiate(const Term& t) {
    if (t.is_var()) {
      Term& v = slot(t);
      if (!v) v = lvar();
      return v;
    }
    if (t.is_ground()) return t;
    if (t.is_compound()) {
      const CompoundNode& c = compound_of(t);
      const std::size_t n = c.arity;
      Term head = instantiate(c.head);
      if (n <= 4) {
        Term args[4];
        for (std::size_t i = 0; i < n; ++i) args[i] = instantiate(c.args()[i]);
        return rw::detail::make_compound(std::move(head), args, n);
      }
      std::vector<Term> args;
      args.reserve(n);
      for (std::size_t i = 0; i < n; ++i) args.push_back(instantiate(c.args()[i]));
      return rw::detail::make_compound(std::move(head), args.data(), n);
    }
    if (t.is_pair()) {
      Term car = instantiate(pair_of(t).car);
      return cons(std::move(car), instantiate(pair_of(t).cdr));
    }
    // Op patterns and whatever else: through a substitution of the template variables.
    for (Term& v : env_)
      if (!v) v = lvar();
    Substitution renaming;
    for (std::size_t i = 0; i < table_.params.size(); ++i)
      renaming.bind_bits(table_.params[i], env_[i]);
    for (std::size_t i = 0; i < clause_.fresh.size(); ++i)
      renaming.bind(clause_.fresh[i], env_[table_.params.size() + i]);
    return substitute(t, renaming);
  }

  const ClauseTableData& table_;
  const Clause& clause_;
  std::span<Term> env_;
  Substitution& s_;
  std::vector<std::uint64_t>* added_;
};

}  // namespace

bool Machine::apply_clause(State& st, const ClauseTableData& table, const Clause& clause,
                           std::span<Term> env) {
  // One equation at a time, as the conde's eq goals would be.
  std::vector<std::uint64_t> added;
  const bool watch = !st.store_.empty();
  for (const auto& [u, v] : clause.eqs) {
    added.clear();
    TemplateUnifier tu(table, clause, env, st.subst_, watch ? &added : nullptr);
    if (!tu.unify(u, v)) return false;
    if (watch && !recheck_added(st.store_, st.subst_, added)) return false;
  }
  if (clause.then)  // the continuation sees every fresh variable
    for (Term& v : env)
      if (!v) v = lvar();
  return true;
}

bool Machine::start_call_clause(Stacks& stacks, CallNode* c, std::uint32_t k, State& st,
                                Goal& goal, Value& v) {
  if (k + 1 < c->table->clauses.size()) {
    ++c->rc;
    // insert, not push_back: a second caller of force's push_back makes GCC
    // stop inlining it there (+6% instructions on zebra).
    stacks.frames.insert(stacks.frames.end(), Frame{FrameKind::Clauses, k + 1, nullptr, c});
    stacks.states.insert(stacks.states.end(), st);
  }
  if (c->table->clauses[k].fresh.empty()) return run_clause(c, k, st, goal, v);
  // Suspend, as the fresh goal of a conde clause does.
  auto* cc = new_goal<CallClauseNode>(GoalKind::CallClause);
  cc->call = Goal(retain_node(c));
  cc->k = k;
  v = Value{ValueKind::Susp, State(), new_thunk<GoalThunk>(ThunkKind::Resume, Goal(cc), std::move(st))};
  st = State();
  return false;
}

namespace {
// The environment of a clause run: the call's arguments, borrowed (the call
// is held by the goal being run, and a borrowed word costs no atomic count),
// then the clause's fresh variables, owned.
class ClauseEnvBuffer {
 public:
  ClauseEnvBuffer(CallNode& c, std::size_t n_fresh) : n_args_(c.n), n_(c.n + n_fresh) {
    if (n_ > kInline) heap_ = std::make_unique<Term[]>(n_);
    env_ = heap_ ? heap_.get() : reinterpret_cast<Term*>(inline_);
    if (!heap_)
      for (std::size_t i = 0; i < n_; ++i) new (&env_[i]) Term();
    for (std::size_t i = 0; i < n_args_; ++i) env_[i] = Term::adopt_bits(c.args()[i].bits());
  }
  ClauseEnvBuffer(const ClauseEnvBuffer&) = delete;
  ClauseEnvBuffer& operator=(const ClauseEnvBuffer&) = delete;
  ~ClauseEnvBuffer() {
    for (std::size_t i = 0; i < n_args_; ++i) (void)env_[i].release();
    if (!heap_)
      for (std::size_t i = 0; i < n_; ++i) env_[i].~Term();
  }
  std::span<Term> span() { return {env_, n_}; }

 private:
  static constexpr std::size_t kInline = 8;
  std::size_t n_args_, n_;
  Term* env_;
  std::unique_ptr<Term[]> heap_;
  alignas(Term) unsigned char inline_[kInline * sizeof(Term)];
};
}  // namespace

bool Machine::run_clause(CallNode* c, std::uint32_t k, State& st, Goal& goal, Value& v) {
  const ClauseTableData& table = *c->table;
  const Clause& clause = table.clauses[k];
  ClauseEnvBuffer env(*c, clause.fresh.size());
  if (!apply_clause(st, table, clause, env.span())) {
    v = Value{};
    st = State();
    return false;
  }
  if (clause.then) {
    Goal next = clause.then(env.span());
    goal = std::move(next);  // may free the call, whose arguments env borrows: env is not read after
    return true;
  }
  v = Value{ValueKind::Unit, std::move(st), nullptr};
  st = State();
  return false;
}

Value Machine::force(Thunk* t) {
  enum class Mode { Force, Apply, Return };
  Stacks& stacks = t_stacks;
  std::vector<Frame>& frames = stacks.frames;
  std::vector<State>& states = stacks.states;
  FrameGuard guard{stacks, frames.size(), states.size()};
  const std::size_t base = guard.base;
  Mode mode = Mode::Force;
  Thunk* th = t;
  Goal goal(nullptr);
  State st;
  Value v;

  // Runs clause k of conde `c` (held by `owner`) on `st`, with the later
  // clauses waiting in a frame.
  // Runs clause k of call `c` on `st`: its equations, then what follows them.
  auto run_call_clause = [&](CallNode* c, std::uint32_t k) {
    mode = run_clause(c, k, st, goal, v) ? Mode::Apply : Mode::Return;
  };
  auto start_clause = [&](GoalNode* owner, std::uint32_t k) {
    if (owner->kind == GoalKind::Call) {
      mode = start_call_clause(stacks, static_cast<CallNode*>(owner), k, st, goal, v) ? Mode::Apply
                                                                                : Mode::Return;
      return;
    }
    auto* c = static_cast<CondeNode*>(owner);
    const std::uint32_t b = k == 0 ? 0 : c->ends()[k - 1], e = c->ends()[k];
    if (k + 1 < c->n_clauses) {
      ++owner->rc;
      frames.push_back({FrameKind::Clauses, k + 1, nullptr, owner});
      states.push_back(st);
    }
    for (std::uint32_t i = e; i-- > b + 1;) frames.push_back({FrameKind::Bind, 0, nullptr, retain(c->goals()[i])});
    goal = c->goals()[b];
    mode = Mode::Apply;
  };
  // The later clauses of a waiting frame as a suspension.
  auto clauses_thunk = [&states](Frame& f) -> Thunk* {
    Thunk* rest = new_thunk<ClausesThunk>(ThunkKind::Clauses, Goal(std::exchange(f.goal, nullptr)),
                                       f.k, std::move(states.back()));
    states.pop_back();
    return rest;
  };

  for (;;) {
    switch (mode) {
      case Mode::Force: {
        switch (th->kind) {
          case ThunkKind::Apply: {
            auto* x = static_cast<GoalThunk*>(th);
            goal = std::move(x->goal);
            st = std::move(x->st);
            free_thunk(x);
            mode = Mode::Apply;
            break;
          }
          case ThunkKind::Resume: {
            auto* x = static_cast<GoalThunk*>(th);
            goal = std::move(x->goal);
            st = std::move(x->st);
            free_thunk(x);
            GoalNode* n = goal.node();
            if (n->kind == GoalKind::Conde || n->kind == GoalKind::Call) {
              start_clause(n, 0);
            } else if (n->kind == GoalKind::CallClause) {
              auto* cc = static_cast<CallClauseNode*>(n);
              run_call_clause(static_cast<CallNode*>(cc->call.node()), cc->k);
            } else {
              auto* f = static_cast<FnGoalNode*>(n);
              Term vars[8];
              std::vector<Term> many;
              Term* vp = vars;
              if (f->n_vars > 8) {
                many.resize(f->n_vars);
                vp = many.data();
              }
              for (std::uint32_t i = 0; i < f->n_vars; ++i) vp[i] = lvar();
              goal = f->call(f, vp, &st);
              mode = Mode::Apply;
            }
            break;
          }
          case ThunkKind::Clauses: {
            auto* x = static_cast<ClausesThunk*>(th);
            Goal conde = std::move(x->goal);
            st = std::move(x->st);
            const std::uint32_t k = x->k;
            free_thunk(x);
            start_clause(conde.node(), k);
            break;
          }
          case ThunkKind::Mplus: {
            auto* x = static_cast<MplusThunk*>(th);
            frames.push_back({FrameKind::Mplus, 0, x->f2, nullptr, x});
            th = x->f;
            break;
          }
          case ThunkKind::Bind: {
            auto* x = static_cast<BindThunk*>(th);
            frames.push_back({FrameKind::Bind, 0, nullptr, x->goal.release(), x});
            th = x->f;
            break;
          }
        }
        break;
      }
      case Mode::Apply: {
        GoalNode* n = goal.node();
        switch (n->kind) {
          case GoalKind::Succeed:
            v = Value{ValueKind::Unit, std::move(st), nullptr};
            mode = Mode::Return;
            break;
          case GoalKind::Fail:
            v = Value{};
            st = State();
            mode = Mode::Return;
            break;
          case GoalKind::Eq:
            if (apply_eq(st, *static_cast<EqNode*>(n))) v = Value{ValueKind::Unit, std::move(st), nullptr};
            else v = Value{};
            st = State();
            mode = Mode::Return;
            break;
          case GoalKind::Neq:
            if (apply_neq(st, *static_cast<EqNode*>(n))) v = Value{ValueKind::Unit, std::move(st), nullptr};
            else v = Value{};
            st = State();
            mode = Mode::Return;
            break;
          case GoalKind::Conj: {
            auto* c = static_cast<ConjNode*>(n);
            if (c->n == 0) {
              v = Value{ValueKind::Unit, std::move(st), nullptr};
              mode = Mode::Return;
              break;
            }
            for (std::uint32_t i = c->n; i-- > 1;)
              frames.push_back({FrameKind::Bind, 0, nullptr, retain(c->goals()[i])});
            goal = c->goals()[0];
            break;
          }
          case GoalKind::Conde:
          case GoalKind::Fresh:
          case GoalKind::Delay:
          case GoalKind::Call:
          case GoalKind::CallClause:
            // Suspend: the body runs when this suspension is forced.
            v = Value{ValueKind::Susp, State(),
                      new_thunk<GoalThunk>(ThunkKind::Resume, std::move(goal), std::move(st))};
            goal = Goal(nullptr);
            st = State();
            mode = Mode::Return;
            break;
          case GoalKind::WithState: {
            auto* f = static_cast<FnGoalNode*>(n);
            goal = f->call(f, nullptr, &st);
            break;
          }
        }
        break;
      }
      case Mode::Return: {
        if (frames.size() == base) return v;
        Frame& f = frames.back();
        switch (f.kind) {
          case FrameKind::Mplus: {  // mplus(v, f2)
            Thunk* f2 = f.f2;
            Thunk* spare = f.spare;
            frames.pop_back();
            switch (v.kind) {
              case ValueKind::Empty:
                free_spare(spare);
                th = f2;
                mode = Mode::Force;
                break;
              case ValueKind::Susp: v.t = wrap_mplus(spare, f2, v.t); break;
              case ValueKind::Unit:
                free_spare(spare);
                v.kind = ValueKind::Choice;
                v.t = f2;
                break;
              case ValueKind::Choice: v.t = wrap_mplus(spare, f2, v.t); break;
            }
            break;
          }
          case FrameKind::Clauses: {  // mplus(v, suspend(mplus* of clauses k…))
            if (v.kind == ValueKind::Empty) {
              // Nothing to interleave with: run the next clause now, no thunk needed.
              Goal conde(std::exchange(f.goal, nullptr));
              st = std::move(states.back());
              states.pop_back();
              const std::uint32_t k = f.k;
              frames.pop_back();
              start_clause(conde.node(), k);
              break;
            }
            Thunk* rest = clauses_thunk(f);
            frames.pop_back();
            switch (v.kind) {
              case ValueKind::Unit:
                v.kind = ValueKind::Choice;
                v.t = rest;
                break;
              default: v.t = wrap_mplus(nullptr, rest, v.t); break;
            }
            break;
          }
          case FrameKind::Bind: {  // bind(v, goal)
            Goal g(f.goal);  // takes the frame's reference
            Thunk* spare = f.spare;
            frames.pop_back();
            switch (v.kind) {
              case ValueKind::Empty: free_spare(spare); break;
              case ValueKind::Susp: v.t = wrap_bind(spare, v.t, std::move(g)); break;
              case ValueKind::Unit:
                free_spare(spare);
                goal = std::move(g);
                st = std::move(v.st);
                v = Value{};
                mode = Mode::Apply;
                break;
              case ValueKind::Choice:
                frames.push_back({FrameKind::Mplus, 0, wrap_bind(spare, v.t, g), nullptr, nullptr});
                goal = std::move(g);
                st = std::move(v.st);
                v = Value{};
                mode = Mode::Apply;
                break;
            }
            break;
          }
        }
        break;
      }
    }
  }
}

}  // namespace detail

using detail::GoalKind;
using detail::GoalNode;

Goal::Goal(const Goal& o) noexcept : p_(o.p_) {
  if (p_) p_->rc.fetch_add(1, std::memory_order_relaxed);
}

Term State::reify(const Term& t) const { return rw::reify(t, subst_); }

std::size_t State::num_constraints() const {
  std::unordered_set<std::uint64_t> seen;
  store_.for_each([&](const Term&, const Term& lst) {
    for (const Term* c = &lst; c->is_pair(); c = &c->cdr()) seen.insert(c->car().bits());
  });
  return seen.size();
}

std::vector<Term> State::reify_constraints(Reifier& reifier) const {
  std::vector<Term> out;
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::pair<std::uint64_t, Term>> all;
  store_.for_each([&](const Term&, const Term& lst) {
    for (const Term* c = &lst; c->is_pair(); c = &c->cdr())
      if (seen.insert(c->car().bits()).second) all.emplace_back(c->car().bits(), c->car());
  });
  // Deterministic order: by the first variable's id, then by term hash.
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) {
    const std::uint64_t ia = a.second.car().car().var_id(), ib = b.second.car().car().var_id();
    return ia != ib ? ia < ib : a.second.hash() < b.second.hash();
  });
  for (auto& [bits, c] : all) {
    const Term walked = substitute(c, subst_);
    // Keep only constraints all of whose variables appear in the answer.
    bool visible = true;
    std::vector<const Term*> stack{&walked};
    while (!stack.empty() && visible) {
      const Term* x = stack.back();
      stack.pop_back();
      if (x->is_var()) visible = reifier.named(*x);
      else if (x->is_pair()) {
        stack.push_back(&x->car());
        stack.push_back(&x->cdr());
      } else if (x->is_compound()) {
        stack.push_back(&x->head());
        for (const Term& a : x->args()) stack.push_back(&a);
      }
    }
    if (visible) out.push_back(reifier(walked));
  }
  return out;
}

// --- Goal constructors -------------------------------------------------------

Goal succeed() { return Goal(detail::new_goal<GoalNode>(GoalKind::Succeed)); }
Goal fail() { return Goal(detail::new_goal<GoalNode>(GoalKind::Fail)); }

Goal eq(Term u, Term v) {
  if (!u || !v) throw TermError("eq() of the null term");
  auto* n = detail::new_goal<detail::EqNode>(GoalKind::Eq);
  n->u = std::move(u);
  n->v = std::move(v);
  return Goal(n);
}

Goal neq(Term u, Term v) {
  if (!u || !v) throw TermError("neq() of the null term");
  auto* n = detail::new_goal<detail::EqNode>(GoalKind::Neq);
  n->u = std::move(u);
  n->v = std::move(v);
  return Goal(n);
}

Goal conj(std::span<const Goal> goals) {
  if (goals.size() == 1) return goals[0];
  const auto n = static_cast<std::uint32_t>(goals.size());
  auto* c = detail::new_goal<detail::ConjNode>(GoalKind::Conj, detail::conj_bytes(n));
  c->n = n;
  for (std::uint32_t i = 0; i < n; ++i) new (&c->goals()[i]) Goal(goals[i]);
  return Goal(c);
}

Goal conj(std::initializer_list<Goal> goals) {
  return conj(std::span<const Goal>(goals.begin(), goals.size()));
}

namespace {
template <class Fill> Goal make_conde(std::uint32_t n_clauses, std::uint32_t n_goals, Fill&& fill) {
  auto* c = detail::new_goal<detail::CondeNode>(GoalKind::Conde,
                                                detail::conde_bytes(n_clauses, n_goals));
  c->n_clauses = n_clauses;
  c->n_goals = n_goals;
  fill(c->ends(), c->goals());
  return Goal(c);
}
}  // namespace

Goal disj(std::span<const Goal> goals) {
  if (goals.empty()) return fail();
  const auto n = static_cast<std::uint32_t>(goals.size());
  return make_conde(n, n, [&](std::uint32_t* ends, Goal* gs) {
    for (std::uint32_t i = 0; i < n; ++i) {
      ends[i] = i + 1;
      new (&gs[i]) Goal(goals[i]);
    }
  });
}

Goal disj(std::initializer_list<Goal> goals) {
  return disj(std::span<const Goal>(goals.begin(), goals.size()));
}

Goal conde(const std::vector<std::vector<Goal>>& clauses) {
  if (clauses.empty()) return fail();
  std::uint32_t n_goals = 0;
  for (const auto& c : clauses) n_goals += static_cast<std::uint32_t>(std::max<std::size_t>(c.size(), 1));
  return make_conde(static_cast<std::uint32_t>(clauses.size()), n_goals,
                    [&](std::uint32_t* ends, Goal* gs) {
                      std::uint32_t k = 0;
                      for (std::size_t i = 0; i < clauses.size(); ++i) {
                        if (clauses[i].empty()) new (&gs[k++]) Goal(succeed());
                        for (const Goal& g : clauses[i]) new (&gs[k++]) Goal(g);
                        ends[i] = k;
                      }
                    });
}

Goal conde(std::initializer_list<std::initializer_list<Goal>> clauses) {
  if (clauses.size() == 0) return fail();
  std::uint32_t n_goals = 0;
  for (const auto& c : clauses) n_goals += static_cast<std::uint32_t>(std::max<std::size_t>(c.size(), 1));
  return make_conde(static_cast<std::uint32_t>(clauses.size()), n_goals,
                    [&](std::uint32_t* ends, Goal* gs) {
                      std::uint32_t k = 0, i = 0;
                      for (const auto& clause : clauses) {
                        if (clause.size() == 0) new (&gs[k++]) Goal(succeed());
                        for (const Goal& g : clause) new (&gs[k++]) Goal(g);
                        ends[i++] = k;
                      }
                    });
}

Goal fresh(std::size_t n, std::function<Goal(std::span<const Term>)> body) {
  if (!body) throw TermError("fresh() needs a body");
  return detail::make_fn_goal(
      GoalKind::Fresh, static_cast<std::uint32_t>(n), std::move(body),
      [](const detail::FnGoalNode* self, const Term* vars, const State*) -> Goal {
        const auto& f = *static_cast<const std::function<Goal(std::span<const Term>)>*>(self->fn());
        return f(std::span<const Term>(vars, self->n_vars));
      });
}

// --- Streams and run -------------------------------------------------------

Stream::Stream(const Goal& goal, State start)
    : pending_(detail::new_thunk<detail::GoalThunk>(detail::ThunkKind::Apply, goal, std::move(start))) {}

Stream& Stream::operator=(Stream&& o) noexcept {
  if (this != &o) {
    if (pending_) detail::drop_thunks(pending_);
    pending_ = std::exchange(o.pending_, nullptr);
  }
  return *this;
}

Stream::~Stream() {
  if (pending_) detail::drop_thunks(pending_);
}

std::optional<State> Stream::next() { return next(std::numeric_limits<std::size_t>::max()); }

std::optional<State> Stream::next(std::size_t max_steps) {
  for (std::size_t step = 0; pending_ && step < max_steps; ++step) {
    detail::Thunk* t = std::exchange(pending_, nullptr);
    detail::Value v = detail::Machine::force(t);
    switch (v.kind) {
      case detail::ValueKind::Empty: return std::nullopt;
      case detail::ValueKind::Susp: pending_ = v.t; break;
      case detail::ValueKind::Unit: return std::move(v.st);
      case detail::ValueKind::Choice: pending_ = v.t; return std::move(v.st);
    }
  }
  return std::nullopt;
}

std::vector<Term> run(std::size_t n, const Term& q, const Goal& goal) {
  std::vector<Term> out;
  if (n == 0) return out;
  Stream s(goal);
  while (out.size() < n) {
    std::optional<State> st = s.next();
    if (!st) break;
    out.push_back(st->reify(q));
  }
  return out;
}

std::vector<Term> run_all(const Term& q, const Goal& goal) { return run(kAll, q, goal); }

// --- Clause tables ----------------------------------------------------------

namespace {

// Calls f(var) for every logic variable in t.
template <class F> void for_each_var(const Term& t, F&& f) {
  std::vector<const Term*> stack{&t};
  while (!stack.empty()) {
    const Term* x = stack.back();
    stack.pop_back();
    if (x->is_var()) {
      f(*x);
    } else if (x->is_ground()) {
      continue;
    } else if (x->is_pair()) {
      stack.push_back(&x->cdr());
      stack.push_back(&x->car());
    } else if (x->is_compound()) {
      for (const Term& a : x->args()) stack.push_back(&a);
      stack.push_back(&x->head());
    } else if (x->kind() == TermKind::OpPattern) {
      for (const PropTerm& p : x->op_pattern_props()) stack.push_back(&p.value);
    }
  }
}

}  // namespace

ClauseTable::ClauseTable(std::vector<Term> params, std::vector<Clause> clauses) {
  auto data = std::make_shared<detail::ClauseTableData>();
  std::unordered_set<std::uint64_t> seen;
  for (const Term& p : params) {
    if (!p.is_var()) throw TermError("a clause table's parameters must be logic variables, got `" + to_string(p) + "`");
    if (!seen.insert(p.bits()).second) throw TermError("parameter `" + to_string(p) + "` is listed twice");
    data->params.push_back(p.bits());
  }
  for (std::size_t k = 0; k < clauses.size(); ++k) {
    const Clause& c = clauses[k];
    std::unordered_set<std::uint64_t> known(seen);
    for (const Term& f : c.fresh) {
      if (!f.is_var())
        throw TermError("clause " + std::to_string(k) + ": a fresh variable must be a logic variable, got `" + to_string(f) + "`");
      if (!known.insert(f.bits()).second)
        throw TermError("clause " + std::to_string(k) + ": `" + to_string(f) + "` is declared twice");
    }
    for (const auto& [u, v] : c.eqs) {
      if (!u || !v) throw TermError("clause " + std::to_string(k) + ": an equation with the null term");
      for (const Term* side : {&u, &v})
        for_each_var(*side, [&](const Term& x) {
          if (!known.count(x.bits()))
            throw TermError("clause " + std::to_string(k) + " uses `" + to_string(x) +
                            "`, which is neither a parameter nor one of its fresh variables");
        });
    }
  }
  data->clauses = std::move(clauses);
  data_ = std::move(data);
}

Goal ClauseTable::operator()(std::span<const Term> args) const {
  if (args.size() != data_->params.size())
    throw TermError("a clause table of " + std::to_string(data_->params.size()) +
                    " parameters applied to " + std::to_string(args.size()) + " arguments");
  if (data_->clauses.empty()) return fail();
  for (const Term& a : args)
    if (!a) throw TermError("a clause table applied to the null term");
  const auto n = static_cast<std::uint32_t>(args.size());
  auto* c = detail::new_goal<detail::CallNode>(GoalKind::Call, detail::call_bytes(n));
  c->table = data_;
  c->n = n;
  for (std::uint32_t i = 0; i < n; ++i) new (&c->args()[i]) Term(args[i]);
  return Goal(c);
}

std::vector<Answer> run_answers(std::size_t n, const Term& q, const Goal& goal) {
  std::vector<Answer> out;
  if (n == 0) return out;
  Stream s(goal);
  while (out.size() < n) {
    std::optional<State> st = s.next();
    if (!st) break;
    Reifier r(st->subst());
    Answer a{r(q), {}};
    a.neq = st->reify_constraints(r);
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace rw::kanren

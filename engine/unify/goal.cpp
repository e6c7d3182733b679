// Goals and the search machine: faster-miniKanren's stream protocol (empty,
// one state, a suspension, a state and a suspension) run by an explicit stack
// of mplus/bind frames instead of recursion.
#include "engine/unify/goal.hpp"

#include <unordered_set>

#include "engine/unify/detail/alloc.hpp"
#include "engine/unify/detail/small_stack.hpp"

namespace rw::kanren {

namespace detail {

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

class Machine {
 public:
  /// Forces `t` (consumed) to its stream value.
  static Value force(Thunk* t);

  static bool apply_eq(State& st, const EqNode& g);
  static bool apply_neq(State& st, const EqNode& g);
};

thread_local std::vector<Frame> t_frames;
// The states of Clauses frames, in the order of those frames.
thread_local std::vector<State> t_frame_states;

// On unwinding, drops the frames a force pushed.
struct FrameGuard {
  std::size_t base, state_base;
  ~FrameGuard() {
    while (t_frames.size() > base) {
      Frame& f = t_frames.back();
      if (f.f2) drop_thunks(f.f2);
      if (f.goal) goal_release(f.goal);
      free_spare(f.spare);
      t_frames.pop_back();
    }
    t_frame_states.resize(state_base);
  }
};

GoalNode* retain(const Goal& g) {
  g.node()->rc.fetch_add(1, std::memory_order_relaxed);
  return g.node();
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

}  // namespace

bool Machine::apply_eq(State& st, const EqNode& g) {
  if (st.store_.empty()) return rw::detail::unify_into(g.u, g.v, st.subst_, true, nullptr);
  std::vector<std::uint64_t> added;
  if (!rw::detail::unify_into(g.u, g.v, st.subst_, true, &added)) return false;
  for (std::uint64_t var : added) {
    const Term* attached = st.store_.find_bits(var);
    if (!attached || attached->is_nil()) continue;
    const Term constraints = *attached;
    st.store_.bind_bits(var, Term::nil());
    for (const Term* c = &constraints; c->is_pair(); c = &c->cdr())
      if (!recheck(st.store_, c->car(), st.subst_)) return false;
  }
  return true;
}

Value Machine::force(Thunk* t) {
  enum class Mode { Force, Apply, Return };
  std::vector<Frame>& frames = t_frames;
  std::vector<State>& states = t_frame_states;
  FrameGuard guard{frames.size(), states.size()};
  const std::size_t base = guard.base;
  Mode mode = Mode::Force;
  Thunk* th = t;
  Goal goal(nullptr);
  State st;
  Value v;

  // Runs clause k of conde `c` (held by `owner`) on `st`, with the later
  // clauses waiting in a frame.
  auto start_clause = [&](GoalNode* owner, std::uint32_t k) {
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
            if (n->kind == GoalKind::Conde) {
              start_clause(n, 0);
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

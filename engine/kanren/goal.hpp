// miniKanren: search states, goals (eq, neq, conj, disj, conde, fresh), lazy
// interleaving streams of answers, and run.
#pragma once

#include <atomic>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"
#include "engine/unify/unify.hpp"

namespace rw::kanren {

class Goal;
class State;

namespace detail {
struct GoalNode;
struct Thunk;
void goal_release(GoalNode* g) noexcept;
class Machine;
}  // namespace detail

/// A point of the search: the substitution and the disequality constraints
/// still pending. States are values; copies share structure (see
/// Substitution for thread safety).
class State {
 public:
  /// The empty state: no bindings, no constraints.
  State() = default;
  /// A state starting from the bindings of `s`.
  explicit State(Substitution s) : subst_(std::move(s)) {}
  State(const State&) = default;
  State(State&&) noexcept = default;
  State& operator=(const State&) = default;
  // Forced inline: the search machine moves states on every step, and GCC
  // otherwise outlines this once the machine has enough call sites (+6%
  // instructions on zebra).
  [[gnu::always_inline]] State& operator=(State&& o) noexcept {
    subst_ = std::move(o.subst_);
    store_ = std::move(o.store_);
    return *this;
  }

  /// The bindings.
  const Substitution& subst() const { return subst_; }
  /// `t` walked one step under the substitution.
  const Term& walk(const Term& t) const { return subst_.walk(t); }
  /// `t` with every bound variable replaced, unbound ones renamed `_0`, `_1`, ….
  Term reify(const Term& t) const;
  /// The disequalities still pending, each a list of `(var . value)` pairs
  /// that must not all hold at once, reified with `reifier`'s naming; those
  /// that mention a variable the reifier has not named are left out (they
  /// constrain nothing visible).
  std::vector<Term> reify_constraints(Reifier& reifier) const;
  /// Number of pending disequality constraints.
  std::size_t num_constraints() const;

 private:
  friend class detail::Machine;
  Substitution subst_;
  Substitution store_;  // variable → list of constraints attached to it
};

/// A goal: a relation applied to terms, which maps a state to a lazy stream
/// of states. Goals are immutable and shared; build them with the functions
/// below.
class Goal {
 public:
  Goal(const Goal& o) noexcept;
  Goal(Goal&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Goal& operator=(const Goal& o) noexcept {
    Goal(o).swap(*this);
    return *this;
  }
  Goal& operator=(Goal&& o) noexcept {
    Goal(std::move(o)).swap(*this);
    return *this;
  }
  ~Goal() {
    if (p_) detail::goal_release(p_);
  }
  void swap(Goal& o) noexcept { std::swap(p_, o.p_); }

  /// Adopts a node (internal: goals are made by the functions below).
  explicit Goal(detail::GoalNode* p) noexcept : p_(p) {}
  /// The node (internal).
  detail::GoalNode* node() const noexcept { return p_; }
  /// Gives up the node's reference without dropping it (internal).
  [[nodiscard]] detail::GoalNode* release() noexcept { return std::exchange(p_, nullptr); }

 private:
  detail::GoalNode* p_;
};

/// The goal that succeeds once / never.
Goal succeed();
Goal fail();
/// u and v unify (`==`), with the occurs check.
Goal eq(Term u, Term v);
/// u and v never become equal (`=/=`): a constraint re-checked whenever a
/// variable it involves is bound, failing the branch that would violate it.
Goal neq(Term u, Term v);
/// All of the goals, in order (an empty conjunction succeeds).
Goal conj(std::span<const Goal> goals);
Goal conj(std::initializer_list<Goal> goals);
/// Any of the goals, interleaved fairly (an empty disjunction fails).
Goal disj(std::span<const Goal> goals);
Goal disj(std::initializer_list<Goal> goals);
/// Clauses tried as alternatives, each a conjunction: `conde({{a, b}, {c}})`.
Goal conde(std::initializer_list<std::initializer_list<Goal>> clauses);
Goal conde(const std::vector<std::vector<Goal>>& clauses);

template <class... G>
  requires(sizeof...(G) != 1 && (std::convertible_to<G, Goal> && ...))
Goal conj(G&&... goals) {
  const Goal gs[] = {Goal(std::forward<G>(goals))...};
  return conj(std::span<const Goal>(gs, sizeof...(G)));
}
template <class... G>
  requires(sizeof...(G) != 1 && (std::convertible_to<G, Goal> && ...))
Goal disj(G&&... goals) {
  const Goal gs[] = {Goal(std::forward<G>(goals))...};
  return disj(std::span<const Goal>(gs, sizeof...(G)));
}

namespace detail {

enum class GoalKind : std::uint8_t {
  Succeed, Fail, Eq, Neq, Conj, Conde, Fresh, Delay, WithState,
  Call,        // a ClauseTable applied to arguments (clauses.hpp)
  CallClause,  // one clause of a call, suspended by its fresh variables
};

struct GoalNode {
  std::atomic<std::uint32_t> rc{1};
  GoalKind kind;
};

/// A goal holding a callable, stored in the same allocation after the node.
/// `call` builds the goal it stands for: from fresh variables (Fresh), from
/// nothing (Delay) or from the current state (WithState).
struct FnGoalNode : GoalNode {
  std::uint32_t n_vars = 0;
  std::uint32_t bytes = 0;  // of the whole allocation
  Goal (*call)(const FnGoalNode*, const Term* vars, const State* state) = nullptr;
  void (*destroy)(FnGoalNode*) noexcept = nullptr;
  void* fn() noexcept { return this + 1; }
  const void* fn() const noexcept { return this + 1; }
};

void* goal_alloc(std::size_t bytes);

template <class F, class Call>
Goal make_fn_goal(GoalKind kind, std::uint32_t n_vars, F&& f, Call call) {
  using Fn = std::decay_t<F>;
  static_assert(alignof(Fn) <= 16, "goal callables must not be over-aligned");
  const std::size_t bytes = sizeof(FnGoalNode) + sizeof(Fn);
  auto* n = new (goal_alloc(bytes)) FnGoalNode();
  n->kind = kind;
  n->n_vars = n_vars;
  n->bytes = static_cast<std::uint32_t>(bytes);
  try {
    new (n->fn()) Fn(std::forward<F>(f));
  } catch (...) {
    n->destroy = nullptr;
    goal_release(n);
    throw;
  }
  n->call = call;
  n->destroy = [](FnGoalNode* self) noexcept { static_cast<Fn*>(self->fn())->~Fn(); };
  return Goal(n);
}

template <class F> struct call_arity : call_arity<decltype(&std::decay_t<F>::operator())> {};
template <class C, class R, class... A> struct call_arity<R (C::*)(A...) const> {
  static constexpr std::size_t value = sizeof...(A);
};
template <class C, class R, class... A> struct call_arity<R (C::*)(A...)> {
  static constexpr std::size_t value = sizeof...(A);
};

template <class Fn, std::size_t... I>
Goal call_with_vars(const Fn& f, const Term* vars, std::index_sequence<I...>) {
  return f(vars[I]...);
}

}  // namespace detail

/// `fresh([](Term a, Term d) { return …; })`: introduces one new logic
/// variable per parameter and runs the goal the body builds. The body runs
/// when the search reaches the goal (it may call recursive relations).
template <class F> Goal fresh(F&& body) {
  using Fn = std::decay_t<F>;
  constexpr std::size_t n = detail::call_arity<Fn>::value;
  return detail::make_fn_goal(
      detail::GoalKind::Fresh, n, std::forward<F>(body),
      [](const detail::FnGoalNode* self, const Term* vars, const State*) -> Goal {
        return detail::call_with_vars(*static_cast<const Fn*>(self->fn()), vars,
                                      std::make_index_sequence<n>());
      });
}

/// `n` fresh variables passed to the body as a span.
Goal fresh(std::size_t n, std::function<Goal(std::span<const Term>)> body);

/// A goal built only when the search reaches it, after a suspension
/// (miniKanren's Zzz): for recursive relations that would otherwise build
/// themselves forever.
template <class F> Goal delay(F&& make) {
  using Fn = std::decay_t<F>;
  return detail::make_fn_goal(detail::GoalKind::Delay, 0, std::forward<F>(make),
                              [](const detail::FnGoalNode* self, const Term*, const State*) -> Goal {
                                return (*static_cast<const Fn*>(self->fn()))();
                              });
}

/// A goal built only when the search applies it, without a suspension (so
/// the order of answers is that of calling `make()` in place): a recursive
/// relation call at the end of a conjunction costs nothing when an earlier
/// goal fails — what a miniKanren closure costs in Scheme.
template <class F> Goal lazy(F&& make) {
  using Fn = std::decay_t<F>;
  return detail::make_fn_goal(detail::GoalKind::WithState, 0, std::forward<F>(make),
                              [](const detail::FnGoalNode* self, const Term*, const State*) -> Goal {
                                return (*static_cast<const Fn*>(self->fn()))();
                              });
}

/// A goal computed from the state it is applied to (kanren's `project`): the
/// callable sees walked values and returns the goal to run.
template <class F> Goal with_state(F&& make) {
  using Fn = std::decay_t<F>;
  return detail::make_fn_goal(detail::GoalKind::WithState, 0, std::forward<F>(make),
                              [](const detail::FnGoalNode* self, const Term*, const State* s) -> Goal {
                                return (*static_cast<const Fn*>(self->fn()))(*s);
                              });
}

/// The answers of a goal, produced on demand: miniKanren's interleaving
/// search (faster-miniKanren's streams, so answers come in its order), run
/// by an explicit machine rather than recursion, so deep searches do not
/// grow the C++ stack.
class Stream {
 public:
  /// The states in which `goal` holds, starting from `start`.
  explicit Stream(const Goal& goal, State start = {});
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : pending_(std::exchange(o.pending_, nullptr)) {}
  Stream& operator=(Stream&& o) noexcept;
  ~Stream();

  /// The next answer, or nullopt when there are no more. A goal with no
  /// further answers and an infinite search never returns (bound the work
  /// with `next(max_steps)`).
  std::optional<State> next();
  /// The next answer, or nullopt when none came within `max_steps`
  /// suspensions; `exhausted()` tells the two apart.
  std::optional<State> next(std::size_t max_steps);
  /// True once the search is over.
  bool exhausted() const { return pending_ == nullptr; }

 private:
  detail::Thunk* pending_;
};

/// Every answer: run until the stream is exhausted.
inline constexpr std::size_t kAll = std::numeric_limits<std::size_t>::max();

/// Up to `n` answers of `goal` for the query variable `q`, reified.
std::vector<Term> run(std::size_t n, const Term& q, const Goal& goal);
/// Every answer (`run*`).
std::vector<Term> run_all(const Term& q, const Goal& goal);
/// `run(n, [](Term q) { return …; })`: the query variable is made for you.
template <class F>
  requires std::is_invocable_r_v<Goal, F, Term>
std::vector<Term> run(std::size_t n, F&& make) {
  const Term q = lvar("q");
  return run(n, q, std::forward<F>(make)(q));
}

/// An answer with the disequalities that still constrain it.
struct Answer {
  /// The reified query variable.
  Term value;
  /// Each a list of `(var . value)` pairs that must not all hold.
  std::vector<Term> neq;
};
/// Up to `n` answers, each with its pending disequalities.
std::vector<Answer> run_answers(std::size_t n, const Term& q, const Goal& goal);

}  // namespace rw::kanren

// The relations library, written with the goals of goal.hpp as a miniKanren
// program would be (so they search in the same order), except eq_mod, which
// inspects the state to enumerate arrangements.
#include "engine/unify/relations.hpp"

#include "engine/unify/graph_terms.hpp"

namespace rw::kanren {

Goal conso(Term a, Term d, Term l) { return eq(cons(std::move(a), std::move(d)), std::move(l)); }

Goal caro(Term l, Term a) {
  return fresh([l = std::move(l), a = std::move(a)](Term d) { return eq(cons(a, d), l); });
}

Goal cdro(Term l, Term d) {
  return fresh([l = std::move(l), d = std::move(d)](Term a) { return eq(cons(a, d), l); });
}

Goal nullo(Term l) { return eq(std::move(l), Term::nil()); }

Goal membero(Term x, Term l) {
  return conde({{fresh([x, l](Term d) { return eq(cons(x, d), l); })},
                {fresh([x, l](Term a, Term d) {
                  return conj(eq(cons(a, d), l), lazy([x, d] { return membero(x, d); }));
                })}});
}

Goal appendo(Term l, Term s, Term out) {
  return conde({{eq(Term::nil(), l), eq(s, out)},
                {fresh([l, s, out](Term a, Term d, Term res) {
                  return conj(eq(cons(a, d), l), eq(cons(a, res), out),
                              lazy([d, s, res] { return appendo(d, s, res); }));
                })}});
}

Goal lall(std::span<const Goal> goals) { return conj(goals); }
Goal lall(std::initializer_list<Goal> goals) { return conj(goals); }
Goal lany(std::span<const Goal> goals) { return disj(goals); }
Goal lany(std::initializer_list<Goal> goals) { return disj(goals); }

namespace {

// A graph variable read one level as op(inputs…); other terms as they are.
Term view(const Term& t) {
  if (t.is_graph() && has_term_view(*t.graph_var())) return expand_graph(t.as_graph_var());
  return t;
}

// The items of a proper list, or nullopt when its spine is not complete.
std::optional<std::vector<Term>> proper_list(const Term& l, const State& s) {
  std::vector<Term> items;
  const Term* cur = &s.walk(l);
  while (cur->is_pair()) {
    items.push_back(cur->car());
    cur = &s.walk(cur->cdr());
  }
  if (!cur->is_nil()) return std::nullopt;
  return items;
}

/// Operands of nested applications of one associative Op, with the ranges
/// that are applications of their own.
struct Flat {
  std::vector<Term> operands;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> subtrees;
  std::vector<Term> subtree_terms;
};

Flat flatten(const Term& t, std::string_view name, const State& s) {
  Flat out;
  struct Frame {
    Term node;
    std::uint32_t next;
    std::uint32_t begin;
  };
  std::vector<Frame> stack{{t, 0, 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next < f.node.arity()) {
      Term arg = view(s.walk(f.node.args()[f.next++]));
      if (arg.is_compound() && op_head_name(s.walk(arg.head())) == name) {
        const auto begin = static_cast<std::uint32_t>(out.operands.size());
        stack.push_back({std::move(arg), 0, begin});
      } else {
        out.operands.push_back(std::move(arg));
      }
      continue;
    }
    if (stack.size() > 1) {  // the root is the whole list, not a group
      out.subtrees.emplace_back(f.begin, static_cast<std::uint32_t>(out.operands.size()));
      out.subtree_terms.push_back(f.node);
    }
    stack.pop_back();
  }
  return out;
}

// The term standing for a group of operands: the operand itself, the
// application that exists for that range, or a new one.
Term group_term(const Flat& flat, const std::vector<std::uint32_t>& group, const Term& head,
                std::size_t arity) {
  if (group.size() == 1) return flat.operands[group[0]];
  const bool contiguous = group.back() - group.front() + 1 == group.size();
  if (contiguous) {
    for (std::size_t i = 0; i < flat.subtrees.size(); ++i)
      if (flat.subtrees[i] == std::pair{group.front(), group.back() + 1}) return flat.subtree_terms[i];
  }
  if (arity == 2) {
    Term acc = flat.operands[group[0]];
    for (std::size_t i = 1; i < group.size(); ++i) acc = compound(head, {acc, flat.operands[group[i]]});
    return acc;
  }
  std::vector<Term> items;
  for (std::uint32_t j : group) items.push_back(flat.operands[j]);
  return compound(head, items);
}

Goal eq_mod_step(const Term& u, const Term& v, const std::shared_ptr<const Theory>& th,
                 const State& s) {
  Term a = s.walk(u), b = s.walk(v);
  if (a.is_var() || b.is_var()) return eq(std::move(a), std::move(b));
  a = view(a);
  b = view(b);
  if (!a.is_compound() || !b.is_compound()) return eq(std::move(a), std::move(b));
  const Term& ha = s.walk(a.head());
  const Term& hb = s.walk(b.head());
  const std::string_view name = op_head_name(ha);
  const bool comm = !name.empty() && th->is_commutative(name);
  const bool assoc = !name.empty() && th->is_associative(name);
  if ((!comm && !assoc) || name != op_head_name(hb)) {
    if (a.arity() != b.arity()) return fail();
    std::vector<Goal> goals{eq(a.head(), b.head())};
    for (std::size_t i = 0; i < a.arity(); ++i) goals.push_back(eq_mod(a.args()[i], b.args()[i], th));
    return conj(goals);
  }
  Flat fa, fb;
  if (assoc) {
    fa = flatten(a, name, s);
    fb = flatten(b, name, s);
  } else {
    fa.operands.assign(a.args().begin(), a.args().end());
    fb.operands.assign(b.args().begin(), b.args().end());
  }
  // The side with fewer operands is the one whose operands take groups.
  const bool swapped = fa.operands.size() > fb.operands.size();
  const Flat& few = swapped ? fb : fa;
  const Flat& many = swapped ? fa : fb;
  const Term& many_head = swapped ? a.head() : b.head();
  const std::size_t many_arity = swapped ? a.arity() : b.arity();
  rw::detail::Arrangements arrs(few.operands.size(), many.operands.size(), comm, assoc,
                                many.subtrees);
  std::vector<Goal> alternatives;
  for (rw::detail::Arrangement arr; arrs.next(arr);) {
    std::vector<Goal> goals{eq(a.head(), b.head())};
    for (std::size_t i = 0; i < arr.size(); ++i)
      goals.push_back(eq_mod(few.operands[i], group_term(many, arr[i], many_head, many_arity), th));
    alternatives.push_back(conj(goals));
  }
  return disj(alternatives);
}

}  // namespace

Goal applyo(Term head, Term args, Term t) {
  return with_state([head = std::move(head), args = std::move(args), t = std::move(t)](
                        const State& s) -> Goal {
    Term x = view(s.walk(t));
    if (x.is_compound()) {
      return conj(eq(head, x.head()), eq(args, list(x.args())));
    }
    if (x.is_var()) {
      if (auto items = proper_list(args, s)) return eq(x, compound(s.walk(head), *items));
      return eq(x, cons(head, args));
    }
    return eq(cons(head, args), x);  // a pair, or nothing that can be taken apart
  });
}

Goal eq_mod(Term u, Term v, std::shared_ptr<const Theory> theory) {
  if (!theory) throw TermError("eq_mod() needs a theory");
  return with_state([u = std::move(u), v = std::move(v), th = std::move(theory)](const State& s) {
    return eq_mod_step(u, v, th, s);
  });
}

Goal eq_mod(Term u, Term v, const Theory& theory) {
  return eq_mod(std::move(u), std::move(v), std::make_shared<const Theory>(theory));
}

}  // namespace rw::kanren

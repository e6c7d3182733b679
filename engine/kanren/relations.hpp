// The relations library: lists (conso, membero, appendo, …), conjunction and
// disjunction over collections (lall, lany), and the term relations rewriting
// needs — taking terms apart (applyo) and equality modulo commutativity and
// associativity (eq_mod, and the generative eq_comm, eq_assoc, eq_assoccomm).
#pragma once

#include <initializer_list>
#include <memory>
#include <span>

#include "engine/kanren/goal.hpp"
#include "engine/unify/theory.hpp"

namespace rw::kanren {

/// l is the pair (a . d).
Goal conso(Term a, Term d, Term l);
/// a is the first element of l.
Goal caro(Term l, Term a);
/// d is l without its first element.
Goal cdro(Term l, Term d);
/// l is the empty list.
Goal nullo(Term l);
/// x is an element of the list l (once per occurrence).
Goal membero(Term x, Term l);
/// out is the list l followed by the list s.
Goal appendo(Term l, Term s, Term out);

/// Every goal holds (kanren's lall; `conj` under its Python name).
Goal lall(std::span<const Goal> goals);
Goal lall(std::initializer_list<Goal> goals);
/// Some goal holds (kanren's lany; `disj`).
Goal lany(std::span<const Goal> goals);
Goal lany(std::initializer_list<Goal> goals);

/// t is the term head(arg…) where args is the list (arg …): takes a compound
/// or a graph node apart, or builds one (as a compound when the list of
/// arguments is proper, as the list (head . args) when it is open, and none
/// when args is no list at all).
Goal applyo(Term head, Term args, Term t);

/// u and v are equal modulo the theory: at every level, the arguments of a
/// commutative Op may be permuted, and nested applications of an associative
/// Op regrouped (`a + (b + c)` = `(a + b) + c`); graph nodes are read as
/// terms. Alternatives are tried in the order `detail::Arrangements` gives —
/// the plain reading first — as a fair disjunction built as the search
/// reaches each one. A side with more operands than the other has them
/// grouped into new applications (left-nested when the Op is binary). A
/// variable is unified with the term it meets as it is: this relation checks
/// and matches, it does not enumerate forms (eq_assoccomm does).
Goal eq_mod(Term u, Term v, const Theory& theory);
/// The same with a theory shared between many goals (no copy per call).
Goal eq_mod(Term u, Term v, std::shared_ptr<const Theory> theory);

/// The generative term relations of pythological/kanren's assoccomm module,
/// with the laws the theory declares: eq_comm permutes the arguments of
/// commutative Ops, eq_assoc regroups nested applications of associative
/// Ops, eq_assoccomm does both. Between two known terms they check (and
/// bind the variables inside) as eq_mod does, with only their laws. Where a
/// variable meets a term — one side, or a part of one — it takes every form
/// of the term the laws allow, one answer each, produced as the search
/// reaches them (no list of all forms, no limit on operands): at each
/// rearranged application the first rearrangement, then the term as given,
/// then the rest (kanren's order), e.g. eq_assoc(a(1, 2, 3), x) gives
/// a(a(1, 2), 3), a(1, 2, 3), a(1, a(2, 3)). Forms are complete trees over
/// the flattened operands (a binary Op's only binary trees) with equal
/// operands not permuted among themselves. A pair against an application
/// is (head . arguments) of each of its forms. Two unbound variables are
/// simply unified.
Goal eq_comm(Term u, Term v, const Theory& theory);
Goal eq_comm(Term u, Term v, std::shared_ptr<const Theory> theory);
Goal eq_assoc(Term u, Term v, const Theory& theory);
Goal eq_assoc(Term u, Term v, std::shared_ptr<const Theory> theory);
Goal eq_assoccomm(Term u, Term v, const Theory& theory);
Goal eq_assoccomm(Term u, Term v, std::shared_ptr<const Theory> theory);

}  // namespace rw::kanren

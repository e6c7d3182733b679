// The list relations, written with the goals of goal.hpp as a miniKanren
// program would be, so they search in the same order. The term relations
// (applyo and equality modulo a theory) are in term_relations.cpp.
#include "engine/kanren/relations.hpp"

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

}  // namespace rw::kanren

// The term relations of relations.hpp: applyo, and equality modulo a
// theory's commutative and associative Ops (eq_mod, eq_comm, eq_assoc,
// eq_assoccomm). Unlike the list relations they inspect the state, to read
// graph nodes as terms and to enumerate arrangements and forms.
#include "engine/kanren/relations.hpp"

#include <algorithm>
#include <unordered_set>

#include "engine/unify/graph_terms.hpp"

namespace rw::kanren {

namespace {

// A graph variable read one level as op(inputs…); other terms as they are.
Term view(const Term& t) {
  if (t.is_graph() && has_term_view(*t.graph_var())) return expand_graph(t.as_graph_var());
  return t;
}

// The items of a list, and what its spine ends in: `()` for a proper list, a
// variable for an open one, anything else for no list at all.
struct Spine {
  std::vector<Term> items;
  Term end;
};

Spine spine(const Term& l, const State& s) {
  Spine out;
  const Term* cur = &s.walk(l);
  while (cur->is_pair()) {
    out.items.push_back(cur->car());
    cur = &s.walk(cur->cdr());
  }
  out.end = *cur;
  return out;
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

// What a term relation may use, shared by every goal one call makes.
struct Laws {
  std::shared_ptr<const Theory> theory;
  bool comm = false, assoc = false;
  // A variable meeting a term takes each of the term's equal forms (eq_comm,
  // eq_assoc, eq_assoccomm), rather than the term as it is (eq_mod).
  bool generate = false;

  bool commutative(std::string_view name) const {
    return comm && !name.empty() && theory->is_commutative(name);
  }
  bool associative(std::string_view name) const {
    return assoc && !name.empty() && theory->is_associative(name);
  }
};
using LawsPtr = std::shared_ptr<const Laws>;

Goal equal_under(Term u, Term v, LawsPtr laws);
Goal forms_of(Term t, Term x, LawsPtr laws);

// Whether some application under t could be rearranged by the laws: when
// none can, t is its only form. `seen` holds the graph nodes already looked
// through, so a graph that shares subexpressions is read once, not once per
// path.
bool has_forms(const Term& t, const Laws& laws, const State& s, std::unordered_set<const Variable*>& seen) {
  const Term& w = s.walk(t);
  if (w.is_graph()) {
    if (!seen.insert(w.graph_var()).second) return false;
  }
  const Term x = view(w);
  if (x.is_pair()) return has_forms(x.car(), laws, s, seen) || has_forms(x.cdr(), laws, s, seen);
  if (!x.is_compound()) return false;
  const std::string_view name = op_head_name(s.walk(x.head()));
  if (x.arity() >= 2 && (laws.commutative(name) || laws.associative(name))) return true;
  for (const Term& a : x.args())
    if (has_forms(a, laws, s, seen)) return true;
  return false;
}

bool has_forms(const Term& t, const Laws& laws, const State& s) {
  std::unordered_set<const Variable*> seen;
  return has_forms(t, laws, s, seen);
}

// The term standing for t in a form being built: t itself when it has no
// other form, else a new variable that a goal appended to `goals` ranges
// over t's forms.
Term form_slot(const Term& t, bool varies, const LawsPtr& laws, std::vector<Goal>& goals) {
  if (!varies) return t;
  Term y = lvar();
  goals.push_back(forms_of(t, y, laws));
  return y;
}

/// One application whose forms are enumerated: its operands (flattened when
/// the Op is associative), the distinct ones numbered so that permutations do
/// not repeat a form, and what may be done to them.
struct FormNode {
  Term head;
  std::vector<Term> leaves;         // by id: the distinct operands
  std::vector<bool> leaf_varies;    // by id: has forms of its own
  std::vector<std::uint32_t> ids;   // the operands in their given order
  bool permute = false, regroup = false;
  bool binary = false;  // a binary Op: build binary trees only
  LawsPtr laws;
};

/// A form of a FormNode: the operands in some order, split into contiguous
/// parts, each a leaf or a nested application.
struct Shape {
  std::vector<std::uint32_t> order;  // ids
  std::vector<std::uint32_t> parts;  // sizes, summing to order.size()
};

/// The shapes of a node, one at a time. The underlying order is: for each
/// permutation (the given order first, then the others in lexicographic
/// order of ids), each split (one operand per part first, then fewer parts,
/// larger parts first). The first two are swapped, as kanren's interleaving
/// of "rearrange" with "leave as is" gives them: the first rearrangement,
/// then the term as given, then the rest.
class Shapes {
 public:
  explicit Shapes(const FormNode& n)
      : ids_(n.ids), permute_(n.permute), regroup_(n.regroup), binary_(n.binary) {}

  bool next(Shape& out) {
    if (!started_) {
      started_ = true;
      Shape first;
      if (!underlying(first)) return false;
      if (underlying(out)) {
        stash_ = std::move(first);
        has_stash_ = true;
      } else {
        out = std::move(first);
      }
      return true;
    }
    if (has_stash_) {
      has_stash_ = false;
      out = std::move(stash_);
      return true;
    }
    return underlying(out);
  }

 private:
  bool underlying(Shape& out) {
    for (;;) {
      if (!have_order_) {
        if (!next_order()) return false;
        have_order_ = true;
        parts_count_ = 0;
      }
      if (next_split(out.parts)) {
        out.order = order_;
        return true;
      }
      have_order_ = false;
    }
  }

  // Permutations of ids_: the given order, then the distinct others.
  bool next_order() {
    if (order_phase_ == 0) {
      order_ = ids_;
      order_phase_ = 1;
      return true;
    }
    if (!permute_) return false;
    if (order_phase_ == 1) {
      order_phase_ = 2;
      lex_ = ids_;
      std::sort(lex_.begin(), lex_.end());
      if (lex_ != ids_) {
        order_ = lex_;
        return true;
      }
    }
    while (std::next_permutation(lex_.begin(), lex_.end())) {
      if (lex_ != ids_) {
        order_ = lex_;
        return true;
      }
    }
    return false;
  }

  // Splits of the operands into parts: all of them apart first (or, for a
  // binary Op, two parts only), then fewer parts; among splits into r parts,
  // cut points in decreasing lexicographic order (larger first parts first).
  bool next_split(std::vector<std::uint32_t>& parts) {
    const auto m = static_cast<std::uint32_t>(ids_.size());
    if (!regroup_) {
      if (parts_count_ != 0) return false;
      parts_count_ = m;
      parts.assign(m, 1);
      return true;
    }
    auto first_cuts = [&](std::uint32_t r) {
      cuts_.resize(r - 1);
      for (std::uint32_t j = 0; j + 1 < r; ++j) cuts_[j] = m - (r - 1) + j;
    };
    if (parts_count_ == 0) {
      parts_count_ = binary_ ? 2 : m;
      first_cuts(parts_count_);
    } else {
      std::size_t i = cuts_.size();
      while (i > 0 && cuts_[i - 1] <= (i == 1 ? 1u : cuts_[i - 2] + 1)) --i;
      if (i > 0) {
        --cuts_[i - 1];
        for (std::size_t j = i; j < cuts_.size(); ++j)
          cuts_[j] = m - static_cast<std::uint32_t>(cuts_.size()) + static_cast<std::uint32_t>(j);
      } else {
        if (--parts_count_ < 2) return false;
        first_cuts(parts_count_);
      }
    }
    parts.clear();
    std::uint32_t b = 0;
    for (std::uint32_t c : cuts_) {
      parts.push_back(c - b);
      b = c;
    }
    parts.push_back(m - b);
    return true;
  }

  std::vector<std::uint32_t> ids_;
  bool permute_, regroup_, binary_;
  bool started_ = false, has_stash_ = false, have_order_ = false;
  Shape stash_;
  int order_phase_ = 0;
  std::vector<std::uint32_t> order_, lex_;
  std::uint32_t parts_count_ = 0;
  std::vector<std::uint32_t> cuts_;
};

Goal node_forms(std::shared_ptr<const FormNode> n, Term x);

// The goal "x is the form `shape` of the node".
Goal shaped(const std::shared_ptr<const FormNode>& n, const Shape& shape, const Term& x) {
  std::vector<Goal> goals;
  std::vector<Term> children;
  children.reserve(shape.parts.size());
  goals.emplace_back(succeed());  // replaced below by the binding of x, which goes first
  std::size_t at = 0;
  for (std::uint32_t size : shape.parts) {
    if (size == 1) {
      const std::uint32_t id = shape.order[at];
      children.push_back(form_slot(n->leaves[id], n->leaf_varies[id], n->laws, goals));
    } else {
      // A nested application of the same Op over these operands, in this
      // order: its own regroupings, not its permutations (the permutations
      // here already give every order of its operands).
      auto sub = std::make_shared<FormNode>();
      sub->head = n->head;
      sub->regroup = true;
      sub->binary = n->binary;
      sub->laws = n->laws;
      for (std::size_t j = 0; j < size; ++j) {
        const std::uint32_t id = shape.order[at + j];
        sub->ids.push_back(static_cast<std::uint32_t>(sub->leaves.size()));
        sub->leaves.push_back(n->leaves[id]);
        sub->leaf_varies.push_back(n->leaf_varies[id]);
      }
      Term y = lvar();
      goals.push_back(node_forms(std::move(sub), y));
      children.push_back(std::move(y));
    }
    at += size;
  }
  goals.front() = eq(x, compound(n->head, children));
  return conj(goals);
}

// x ranges over the forms of the node, built as the search reaches them: one
// shape and the suspended rest, so that no list of all forms is ever made.
Goal node_forms_from(std::shared_ptr<const FormNode> n, Shape shape, Shapes rest, Term x) {
  Goal here = shaped(n, shape, x);
  Shape after;
  if (!rest.next(after)) return here;
  return disj(std::move(here),
              delay([n = std::move(n), after = std::move(after), rest = std::move(rest), x] {
                return node_forms_from(n, after, rest, x);
              }));
}

Goal node_forms(std::shared_ptr<const FormNode> n, Term x) {
  Shapes shapes(*n);
  Shape first;
  if (!shapes.next(first)) return fail();
  return node_forms_from(std::move(n), std::move(first), std::move(shapes), std::move(x));
}

// The forms of t (walked) for the fresh variable x.
Goal forms_step(const Term& walked, const Term& x, const LawsPtr& laws, const State& s) {
  const Term t = view(walked);
  if (!has_forms(t, *laws, s)) return eq(x, t);
  std::vector<Goal> goals{succeed()};
  if (t.is_pair()) {
    Term a = form_slot(t.car(), has_forms(t.car(), *laws, s), laws, goals);
    Term d = form_slot(t.cdr(), has_forms(t.cdr(), *laws, s), laws, goals);
    goals.front() = eq(x, cons(std::move(a), std::move(d)));
    return conj(goals);
  }
  const Term& head = s.walk(t.head());
  const std::string_view name = op_head_name(head);
  const bool comm = laws->commutative(name), assoc = laws->associative(name);
  if (t.arity() < 2 || (!comm && !assoc)) {
    std::vector<Term> children;
    for (const Term& a : t.args()) children.push_back(form_slot(a, has_forms(a, *laws, s), laws, goals));
    goals.front() = eq(x, compound(head, children));
    return conj(goals);
  }
  auto n = std::make_shared<FormNode>();
  n->head = head;
  n->permute = comm;
  n->regroup = assoc;
  n->laws = laws;
  std::vector<Term> operands;
  if (assoc) {
    Flat flat = flatten(t, name, s);
    operands = std::move(flat.operands);
    // A graph Op has a fixed number of inputs; a symbol takes any number.
    n->binary = head.kind() == TermKind::Op && t.arity() == 2;
    for (const Term& sub : flat.subtree_terms) n->binary = n->binary && sub.arity() == 2;
  } else {
    for (const Term& a : t.args()) operands.push_back(view(s.walk(a)));
  }
  for (const Term& o : operands) {
    std::uint32_t id = 0;
    while (id < n->leaves.size() && !(n->leaves[id] == o)) ++id;
    if (id == n->leaves.size()) {
      n->leaves.push_back(o);
      n->leaf_varies.push_back(has_forms(o, *laws, s));
    }
    n->ids.push_back(id);
  }
  return node_forms(std::move(n), x);
}

Goal forms_of(Term t, Term x, LawsPtr laws) {
  return with_state([t = std::move(t), x = std::move(x), laws = std::move(laws)](const State& s) {
    return forms_step(s.walk(t), x, laws, s);
  });
}

/// The operands of two applications of one Op, to be paired by arrangements.
struct Pairing {
  Term head_a, head_b;
  Flat few, many;
  Term many_head;
  std::size_t many_arity = 0;
  LawsPtr laws;
};

Goal arranged(const Pairing& p, const rw::detail::Arrangement& arr) {
  std::vector<Goal> goals{eq(p.head_a, p.head_b)};
  for (std::size_t i = 0; i < arr.size(); ++i)
    goals.push_back(
        equal_under(p.few.operands[i], group_term(p.many, arr[i], p.many_head, p.many_arity), p.laws));
  return conj(goals);
}

// One arrangement and the suspended rest, as for node_forms_from: a choice
// over many operands costs one arrangement at a time.
Goal arranged_from(std::shared_ptr<const Pairing> p, rw::detail::Arrangement arr,
                   rw::detail::Arrangements rest) {
  Goal here = arranged(*p, arr);
  rw::detail::Arrangement after;
  if (!rest.next(after)) return here;
  return disj(std::move(here),
              delay([p = std::move(p), after = std::move(after), rest = std::move(rest)] {
                return arranged_from(p, after, rest);
              }));
}

Goal equal_step(const Term& u, const Term& v, const LawsPtr& laws, const State& s) {
  Term a = s.walk(u), b = s.walk(v);
  if (laws->generate && a.is_var() != b.is_var()) {
    return a.is_var() ? forms_step(b, a, laws, s) : forms_step(a, b, laws, s);
  }
  if (a.is_var() || b.is_var()) return eq(std::move(a), std::move(b));
  a = view(a);
  b = view(b);
  if (laws->generate) {
    if (a.is_pair() && b.is_pair())
      return conj(equal_under(a.car(), b.car(), laws), equal_under(a.cdr(), b.cdr(), laws));
    // A pair against an application: the pair is (head . arguments) of one
    // of the application's forms, as kanren's terms are tuples.
    if (a.is_pair() != b.is_pair() && (a.is_compound() || b.is_compound())) {
      const Term& pair = a.is_pair() ? a : b;
      const Term& app = a.is_pair() ? b : a;
      Term z = lvar();
      return conj(forms_of(app, z, laws), applyo(pair.car(), pair.cdr(), z));
    }
  }
  if (!a.is_compound() || !b.is_compound()) return eq(std::move(a), std::move(b));
  const Term& ha = s.walk(a.head());
  const Term& hb = s.walk(b.head());
  const std::string_view name = op_head_name(ha);
  const bool comm = laws->commutative(name);
  const bool assoc = laws->associative(name);
  if ((!comm && !assoc) || name != op_head_name(hb)) {
    if (a.arity() != b.arity()) return fail();
    std::vector<Goal> goals{eq(a.head(), b.head())};
    for (std::size_t i = 0; i < a.arity(); ++i) goals.push_back(equal_under(a.args()[i], b.args()[i], laws));
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
  auto p = std::make_shared<Pairing>();
  p->head_a = a.head();
  p->head_b = b.head();
  p->many_head = swapped ? a.head() : b.head();
  p->many_arity = swapped ? a.arity() : b.arity();
  p->few = std::move(swapped ? fb : fa);
  p->many = std::move(swapped ? fa : fb);
  p->laws = laws;
  rw::detail::Arrangements arrs(p->few.operands.size(), p->many.operands.size(), comm, assoc,
                                p->many.subtrees);
  rw::detail::Arrangement first;
  if (!arrs.next(first)) return fail();
  return arranged_from(std::move(p), std::move(first), std::move(arrs));
}

Goal equal_under(Term u, Term v, LawsPtr laws) {
  return with_state([u = std::move(u), v = std::move(v), laws = std::move(laws)](const State& s) {
    return equal_step(u, v, laws, s);
  });
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
      Spine a = spine(args, s);
      if (a.end.is_nil()) return eq(x, compound(s.walk(head), a.items));
      // Arguments that are no list, like kanren's applyo(1, 2, x): nothing to build.
      if (!a.end.is_var()) return fail();
      return eq(x, cons(head, args));
    }
    return eq(cons(head, args), x);  // a pair, or nothing that can be taken apart
  });
}

namespace {

LawsPtr laws(std::shared_ptr<const Theory> theory, bool comm, bool assoc, bool generate,
             const char* who) {
  if (!theory) throw TermError(std::string(who) + "() needs a theory");
  return std::make_shared<const Laws>(Laws{std::move(theory), comm, assoc, generate});
}

}  // namespace

Goal eq_mod(Term u, Term v, std::shared_ptr<const Theory> theory) {
  return equal_under(std::move(u), std::move(v), laws(std::move(theory), true, true, false, "eq_mod"));
}

Goal eq_mod(Term u, Term v, const Theory& theory) {
  return eq_mod(std::move(u), std::move(v), std::make_shared<const Theory>(theory));
}

Goal eq_comm(Term u, Term v, std::shared_ptr<const Theory> theory) {
  return equal_under(std::move(u), std::move(v), laws(std::move(theory), true, false, true, "eq_comm"));
}

Goal eq_comm(Term u, Term v, const Theory& theory) {
  return eq_comm(std::move(u), std::move(v), std::make_shared<const Theory>(theory));
}

Goal eq_assoc(Term u, Term v, std::shared_ptr<const Theory> theory) {
  return equal_under(std::move(u), std::move(v), laws(std::move(theory), false, true, true, "eq_assoc"));
}

Goal eq_assoc(Term u, Term v, const Theory& theory) {
  return eq_assoc(std::move(u), std::move(v), std::make_shared<const Theory>(theory));
}

Goal eq_assoccomm(Term u, Term v, std::shared_ptr<const Theory> theory) {
  return equal_under(std::move(u), std::move(v),
                     laws(std::move(theory), true, true, true, "eq_assoccomm"));
}

Goal eq_assoccomm(Term u, Term v, const Theory& theory) {
  return eq_assoccomm(std::move(u), std::move(v), std::make_shared<const Theory>(theory));
}

}  // namespace rw::kanren

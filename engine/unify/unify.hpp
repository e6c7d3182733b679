// Unification, the occurs check, and reification — all iterative, so terms of
// any depth are safe; graph variables unify through their `op(inputs…)` view.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "engine/unify/subst.hpp"
#include "engine/unify/term.hpp"

namespace rw {

/// How `unify` behaves.
struct UnifyOptions {
  /// Refuse to bind a variable to a term that contains it (`x = f(x)`).
  /// Without it such a binding makes a cyclic term that walking never leaves.
  bool occurs_check = true;
};

/// The most general extension of `s` under which `u` and `v` are equal, or
/// nullopt. Pass `s` by moving to extend it in place.
///
/// Beyond syntactic equality:
///  - a graph variable with an owner unifies as `op(inputs…)` (walking into
///    the graph only as deep as the other side goes); two graph variables are
///    equal when identical, when both are constants with the same type and
///    value, or when their nodes apply equal Ops to inputs that unify;
///  - a literal (integer, number, boolean) unifies with a graph constant by
///    value, per `literal_matches_constant`;
///  - an Op atom unifies with an equal Op, an op pattern of its name whose
///    property terms unify with its properties, or a symbol naming it;
///  - a pair unifies with a compound or a graph node read as the list
///    `(head arg…)` (Aesara's etuple view), so `conso` takes terms apart.
std::optional<Substitution> unify(const Term& u, const Term& v, Substitution s = {},
                                  const UnifyOptions& options = {});

/// Like `unify`, extending `s` in place; on failure `s` is left as it was.
bool unify_in(const Term& u, const Term& v, Substitution& s, const UnifyOptions& options = {});

/// Whether variable `var` occurs in `t` under `s`.
bool occurs(const Term& var, const Term& t, const Substitution& s);

/// `t` with every bound variable replaced by its value, throughout (walk*).
/// Unchanged subterms are shared, not copied.
Term substitute(const Term& t, const Substitution& s);

/// `substitute`, then every unbound variable renamed to a reified variable
/// `_0`, `_1`, … in order of first appearance (depth first, left to right).
Term reify(const Term& t, const Substitution& s);

/// Reifies several terms with one naming: `_0` in the second term is the
/// variable that was `_0` in the first.
class Reifier {
 public:
  /// Reifies under `s`, which must outlive the reifier.
  explicit Reifier(const Substitution& s) : s_(s) {}
  /// `t` reified, naming new unbound variables after those named so far.
  Term operator()(const Term& t);
  /// Whether `var` (unbound under the substitution) got a name so far.
  bool named(const Term& var) const { return names_.count(var.bits()) != 0; }

 private:
  const Substitution& s_;
  std::unordered_map<std::uint64_t, std::uint64_t> names_;
};

namespace detail {
/// The unifier behind `unify`: extends `s` in place; on failure `s` holds
/// part of the work and must be discarded. The word of each variable it binds
/// is appended to `added` when given.
bool unify_into(const Term& u, const Term& v, Substitution& s, bool occurs_check,
                std::vector<std::uint64_t>* added);
/// Rebuilds `t` under `s`; with `names`, unbound variables are renamed.
Term rebuild(const Term& t, const Substitution& s,
             std::unordered_map<std::uint64_t, std::uint64_t>* names);
}  // namespace detail

}  // namespace rw

// rwcheck lint: shadowed rules, rules that undo each other, rules that grow
// the graph and can match their own output.
#include "tools/rwcheck/lint.hpp"

#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/unify/unify.hpp"

namespace rw::check {

namespace {

struct LintRule {
  const dsl::CheckedRule* rule;
  std::string group;
  dsl::RuleTerms terms;  // the rule's terms
  dsl::RuleTerms fresh;  // the same rule over other variables (renamed apart)
  Term frozen_lhs;       // the left side with each variable a unique atom
  Term frozen_rhs;       // the right side likewise
  std::size_t lhs_size;  // op applications on each side
  std::size_t rhs_size;
};

Term freeze(const Term& t, const dsl::RuleTerms& terms, const std::string& rule) {
  Substitution s;
  for (std::size_t i = 0; i < terms.vars.size(); ++i)
    s.bind(terms.vars[i], Term::string(fmt::format("?{}#{}", rule, i)));
  return substitute(t, s);
}

std::size_t applications(const dsl::Pattern& p) {
  std::size_t n = 0;
  for (const dsl::PatternNode& node : p.nodes) n += node.kind == dsl::PatternNode::Kind::Apply;
  return n;
}

// Whether `instance` (frozen: no variables) is an instance of `general`.
bool is_instance(const Term& instance, const Term& general) {
  return unify(general, instance).has_value();
}

// Every compound subterm of `t` whose head is not the tuple tag.
void applications_of(const Term& t, std::vector<Term>& out) {
  if (t.kind() != TermKind::Compound) return;
  if (!t.is_tuple()) out.push_back(t);
  for (const Term& a : t.args()) applications_of(a, out);
}

std::string lhs_text(const dsl::CheckedRule& r) {
  return r.lhs.to_string(r.vars);
}
std::string rhs_text(const dsl::CheckedRule& r) {
  return r.rhs.to_string(r.vars);
}

dsl::Diagnostic at_rule(const dsl::CheckedRule& r, std::string message) {
  return dsl::make_warning(r.file, r.name_span, std::move(message));
}
dsl::Diagnostic note_at(const dsl::CheckedRule& r, std::string message) {
  return dsl::make_note(r.file, r.name_span, std::move(message));
}

// The Op at the root of a side, or null for a variable or a literal. A side
// can be an instance of another only when their roots are the same Op or the
// other's root is not an Op, which is what lets lint compare each rule with a
// few others instead of all.
const void* root_key(const dsl::Pattern& p) {
  const dsl::PatternNode& n = p.root();
  return n.kind == dsl::PatternNode::Kind::Apply ? static_cast<const void*>(n.op_info) : nullptr;
}

// The rules, by index, whose left side's root is `key` or not an Op.
class RootIndex {
 public:
  void add(const void* key, std::size_t rule) { by_key_[key].push_back(rule); }
  // Calls `f(i)` for each rule of key `key` or null, in increasing order,
  // until it returns true.
  template <class F> void for_each(const void* key, F&& f) const {
    static const std::vector<std::size_t> kNone;
    const std::vector<std::size_t>& a = find(key);
    const std::vector<std::size_t>& b = key ? find(nullptr) : kNone;
    std::size_t i = 0, k = 0;
    while (i < a.size() || k < b.size()) {
      const bool take_a = k == b.size() || (i < a.size() && a[i] < b[k]);
      if (f(take_a ? a[i++] : b[k++])) return;
    }
  }

 private:
  const std::vector<std::size_t>& find(const void* key) const {
    static const std::vector<std::size_t> kNone;
    const auto it = by_key_.find(key);
    return it == by_key_.end() ? kNone : it->second;
  }
  std::unordered_map<const void*, std::vector<std::size_t>> by_key_;
};

}  // namespace

std::vector<dsl::Diagnostic> lint_rules(const RuleSet& rules) {
  std::vector<LintRule> all;
  for (const RuleRef& ref : rules.rules()) {
    const dsl::CheckedRule& r = *ref.rule->rule;
    LintRule l{&r, ref.rule->group,     dsl::rule_terms(r), dsl::rule_terms(r), {},
               {}, applications(r.lhs), applications(r.rhs)};
    l.frozen_lhs = freeze(l.terms.lhs, l.terms, r.name);
    l.frozen_rhs = freeze(l.terms.rhs, l.terms, r.name);
    all.push_back(std::move(l));
  }

  std::vector<dsl::Diagnostic> out;
  RootIndex by_lhs;  // the rules before j (then up to j), by the root of their left side
  for (std::size_t j = 0; j < all.size(); ++j) {
    const LintRule& later = all[j];
    const dsl::CheckedRule& b = *later.rule;
    // Shadowed by an earlier rule of the group that is tried first.
    by_lhs.for_each(root_key(b.lhs), [&](std::size_t i) {
      const LintRule& earlier = all[i];
      const dsl::CheckedRule& a = *earlier.rule;
      if (earlier.group != later.group || a.guard || a.priority < b.priority) return false;
      if (b.multiple_clients && !a.multiple_clients) return false;
      if (!is_instance(later.frozen_lhs, earlier.terms.lhs)) return false;
      dsl::Diagnostic d = at_rule(
          b, fmt::format("rule `{}` is shadowed by `{}`: whatever `{}` matches, `{}` matches too, "
                         "and `{}` is tried first; `{}` fires only where the result of `{}` does "
                         "not fit (it cannot be built, or its type is not the node's)",
                         b.name, a.name, lhs_text(b), lhs_text(a), a.name, b.name, a.name));
      d.notes.push_back(note_at(a, fmt::format("`{}` is here", a.name)));
      out.push_back(std::move(d));
      return true;
    });
    by_lhs.add(root_key(b.lhs), j);
    // Undone by an earlier rule (or by itself): its left side must take this
    // rule's right side.
    by_lhs.for_each(root_key(b.rhs), [&](std::size_t i) {
      const LintRule& other = all[i];
      const dsl::CheckedRule& a = *other.rule;
      if (!is_instance(later.frozen_rhs, other.terms.lhs) ||
          !is_instance(other.frozen_rhs, later.terms.lhs))
        return false;
      if (i == j) {
        out.push_back(at_rule(
            b, fmt::format("rule `{}` can undo itself: its right side `{}` matches its left side "
                           "`{}`, so it can fire forever",
                           b.name, rhs_text(b), lhs_text(b))));
      } else {
        dsl::Diagnostic d = at_rule(
            b, fmt::format("rules `{}` and `{}` undo each other: `{}` turns `{}` into `{}`, which "
                           "`{}` turns back",
                           a.name, b.name, b.name, lhs_text(b), rhs_text(b), a.name));
        d.notes.push_back(note_at(a, fmt::format("`{}` is here", a.name)));
        out.push_back(std::move(d));
      }
      return false;
    });
    // Grows the graph with nodes it can match again.
    if (later.rhs_size > later.lhs_size) {
      std::vector<Term> subterms;
      applications_of(later.fresh.rhs, subterms);
      for (const Term& t : subterms) {
        if (!unify(later.terms.lhs, t)) continue;
        out.push_back(at_rule(
            b, fmt::format("rule `{}` grows the graph ({} op{} on the left, {} on the right) and "
                           "its right side `{}` can match its left side again: it could loop",
                           b.name, later.lhs_size, later.lhs_size == 1 ? "" : "s", later.rhs_size,
                           rhs_text(b))));
        break;
      }
    }
  }
  return out;
}

std::vector<dsl::Diagnostic> lint_load_diagnostics(std::vector<dsl::Diagnostic> diagnostics) {
  for (dsl::Diagnostic& d : diagnostics)
    if (d.severity == dsl::Severity::Error && d.message.starts_with("unknown op "))
      d.severity = dsl::Severity::Warning;
  return diagnostics;
}

}  // namespace rw::check

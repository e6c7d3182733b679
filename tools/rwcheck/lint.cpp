// rwcheck lint: shadowed rules, rules that undo each other, rules that grow
// the graph and can match their own output.
#include "tools/rwcheck/lint.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <unordered_map>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/unify/unify.hpp"
#include "runtime/hash_mix.hpp"

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

// What lint compares each rule with: the earlier rules whose left side may
// be more general, found by a discrimination tree of the left sides instead
// of every earlier rule of the same root (10^4 rules sharing `mul` took 8 s).
//
// A left side is stored as the symbols of its nodes in pre-order: an Op and
// its arity, a literal's value (ints and floats alike: 1 and 1.0 share one),
// and kAny for a variable, whose subterm is not read. A query walks the tree
// with a side's own pre-order, following at each step the edge of its symbol
// and the kAny edge, which skips the whole subterm there; a variable of the
// query (frozen: it matches only a variable) follows kAny alone. Symbols are
// hashes: a collision only adds candidates, which is_instance turns away.
constexpr std::uint64_t kAny = 0;

std::uint64_t symbol(const dsl::PatternNode& n) {
  switch (n.kind) {
    case dsl::PatternNode::Kind::Var:
      return kAny;
    case dsl::PatternNode::Kind::Literal: {
      const double v = std::visit([](auto x) { return static_cast<double>(x); }, n.literal);
      return hash_mix(1, std::hash<double>()(v)) | 1;
    }
    case dsl::PatternNode::Kind::Apply:
      return hash_mix(hash_mix(2, std::hash<const void*>()(n.op_info)), n.inputs.size()) | 1;
  }
  return kAny;
}

class PatternIndex {
 public:
  /// Adds rule `rule` under its left side `p`.
  void add(const dsl::Pattern& p, std::size_t rule) {
    flatten(p);
    std::uint32_t at = 0;
    for (const Step& step : steps_) {
      auto [it, fresh] = nodes_[at].next.try_emplace(step.symbol, 0);
      if (fresh) {
        it->second = static_cast<std::uint32_t>(nodes_.size());
        nodes_.emplace_back();  // invalidates `it` after this line only
      }
      at = nodes_[at].next.at(step.symbol);
    }
    nodes_[at].rules.push_back(rule);
  }

  /// Calls `f(i)` for each rule whose left side may be more general than
  /// `p`, in increasing order, until it returns true.
  template <class F> void for_each(const dsl::Pattern& p, F&& f) {
    flatten(p);
    found_.clear();
    walk(0, 0);
    std::sort(found_.begin(), found_.end());
    found_.erase(std::unique(found_.begin(), found_.end()), found_.end());
    for (std::size_t i : found_)
      if (f(i)) return;
  }

 private:
  struct Step {
    std::uint64_t symbol;
    std::uint32_t end;  // the step after this node's subterm
  };
  struct TrieNode {
    std::unordered_map<std::uint64_t, std::uint32_t> next;
    std::vector<std::size_t> rules;
  };

  /// `p` in pre-order into steps_ (a variable's subterm is itself alone).
  void flatten(const dsl::Pattern& p) {
    steps_.clear();
    struct Item {
      std::uint32_t node;
      bool done;
      std::uint32_t step;
    };
    std::vector<Item> stack{{p.root_index(), false, 0}};
    while (!stack.empty()) {
      Item item = stack.back();
      stack.pop_back();
      if (item.done) {
        steps_[item.step].end = static_cast<std::uint32_t>(steps_.size());
        continue;
      }
      const dsl::PatternNode& n = p.nodes[item.node];
      const auto step = static_cast<std::uint32_t>(steps_.size());
      steps_.push_back({symbol(n), 0});
      stack.push_back({item.node, true, step});
      if (n.kind == dsl::PatternNode::Kind::Apply)
        for (auto it = n.inputs.rbegin(); it != n.inputs.rend(); ++it) stack.push_back({*it, false, 0});
    }
  }

  /// Collects the rules reachable from trie node `at` with the query's steps
  /// from `k` on (an explicit stack: patterns may be deep).
  void walk(std::uint32_t at, std::uint32_t k) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> pending{{at, k}};
    while (!pending.empty()) {
      const auto [t, i] = pending.back();
      pending.pop_back();
      const TrieNode& node = nodes_[t];
      if (i == steps_.size()) {
        found_.insert(found_.end(), node.rules.begin(), node.rules.end());
        continue;
      }
      if (const auto any = node.next.find(kAny); any != node.next.end())
        pending.push_back({any->second, steps_[i].end});
      if (steps_[i].symbol != kAny)
        if (const auto same = node.next.find(steps_[i].symbol); same != node.next.end())
          pending.push_back({same->second, i + 1});
    }
  }

  std::vector<TrieNode> nodes_ = std::vector<TrieNode>(1);  // the root first
  std::vector<Step> steps_;
  std::vector<std::size_t> found_;
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
  PatternIndex by_lhs;  // the rules before j (then up to j), by their left sides
  for (std::size_t j = 0; j < all.size(); ++j) {
    const LintRule& later = all[j];
    const dsl::CheckedRule& b = *later.rule;
    // Shadowed by an earlier rule of the group that is tried first.
    by_lhs.for_each(b.lhs, [&](std::size_t i) {
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
    by_lhs.add(b.lhs, j);
    // Undone by an earlier rule (or by itself): its left side must take this
    // rule's right side.
    by_lhs.for_each(b.rhs, [&](std::size_t i) {
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

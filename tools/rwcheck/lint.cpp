// rwcheck lint: shadowed rules, rules that undo each other, rules that grow
// the graph and can match their own output; allow comments that silence them.
#include "tools/rwcheck/lint.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "engine/dsl/rule_compiler.hpp"
#include "engine/graph/suggest.hpp"
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
// `d` with a note pointing at the other rule `a` of the finding.
dsl::Diagnostic pointing_at(dsl::Diagnostic d, const dsl::CheckedRule& a, std::string_view how = "") {
  d.notes.push_back(note_at(a, fmt::format("`{}` is here{}", a.name, how)));
  return d;
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

/// The `# lint: allow(...)` comments of the rules' files: the kinds each
/// allows, by file and line; and a finding for each comment that is wrong.
class AllowComments {
 public:
  explicit AllowComments(const std::vector<const dsl::CheckedRule*>& rules) {
    std::map<const dsl::SourceFile*, std::set<std::uint32_t>> rule_lines;
    std::vector<dsl::SourcePtr> files;
    for (const dsl::CheckedRule* r : rules) {
      if (!r->file) continue;
      auto [it, fresh] = rule_lines.try_emplace(r->file.get());
      if (fresh) files.push_back(r->file);
      it->second.insert(r->file->location(r->name_span.begin).line);
    }
    for (const dsl::SourcePtr& f : files) read(f, rule_lines.at(f.get()));
  }

  /// Whether the comment before `r` allows `kind`.
  bool allows(const dsl::CheckedRule& r, std::string_view kind) const {
    if (!r.file) return false;
    const auto it = allowed_.find({r.file.get(), r.file->location(r.name_span.begin).line - 1});
    return it != allowed_.end() && it->second.contains(std::string(kind));
  }

  /// The wrong comments, in file order.
  std::vector<LintFinding>& problems() { return problems_; }

 private:
  void problem(const dsl::SourcePtr& f, std::uint32_t at, std::uint32_t end, std::string message) {
    problems_.push_back({"allow", dsl::make_warning(f, {at, end}, std::move(message))});
  }

  void read(const dsl::SourcePtr& f, const std::set<std::uint32_t>& rule_lines) {
    static const std::vector<std::string> kKinds(kLintKinds.begin(), kLintKinds.end());
    const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    for (std::uint32_t line = 1; line <= f->line_count(); ++line) {
      const std::string_view text = f->line_text(line);
      const std::uint32_t start = f->line_start(line);
      std::size_t i = 0;
      const auto skip = [&] {
        while (i < text.size() && is_space(text[i])) ++i;
      };
      skip();
      if (i == text.size() || text[i] != '#') continue;
      const std::size_t hash = i++;
      skip();
      if (text.substr(i, 5) != "lint:") continue;
      i += 5;
      skip();
      const auto at = [&](std::size_t k) { return static_cast<std::uint32_t>(start + k); };
      const std::size_t close = text.find(')', i);
      std::size_t after = close == std::string_view::npos ? close : close + 1;
      while (after < text.size() && is_space(text[after])) ++after;
      if (text.substr(i, 6) != "allow(" || close == std::string_view::npos || after != text.size()) {
        problem(f, at(hash), at(text.size()),
                "expected `# lint: allow(KIND, ...)`, the kinds one or more of `shadowed`, "
                "`undo`, `growth`");
        continue;
      }
      if (!rule_lines.contains(line + 1)) {
        problem(f, at(hash), at(text.size()),
                "a `# lint: allow` comment must be on the line just before the rule it is about");
        continue;
      }
      std::set<std::string>& kinds = allowed_[{f.get(), line}];
      for (std::size_t k = i + 6; k <= close;) {
        std::size_t end = text.find_first_of(",)", k);
        std::size_t b = k, e = end;
        while (b < e && is_space(text[b])) ++b;
        while (e > b && is_space(text[e - 1])) --e;
        const std::string kind(text.substr(b, e - b));
        if (std::find(kLintKinds.begin(), kLintKinds.end(), kind) != kLintKinds.end()) {
          kinds.insert(kind);
        } else {
          std::string msg = kind.empty()
                                ? std::string("empty kind in `# lint: allow(...)`")
                                : fmt::format("unknown lint kind `{}` in `# lint: allow(...)`", kind);
          msg += "; the kinds are `shadowed`, `undo`, `growth`";
          if (const auto c = closest_name(kind, kKinds); c && !kind.empty())
            msg += fmt::format("; did you mean `{}`?", *c);
          problem(f, at(b), at(std::max(e, b + 1)), std::move(msg));
        }
        k = end + 1;
      }
    }
  }

  std::map<std::pair<const dsl::SourceFile*, std::uint32_t>, std::set<std::string>> allowed_;
  std::vector<LintFinding> problems_;
};

}  // namespace

std::vector<LintFinding> lint_rules(const RuleSet& rules) {
  std::vector<LintRule> all;
  for (const RuleRef& ref : rules.rules()) {
    const dsl::CheckedRule& r = *ref.rule->rule;
    LintRule l{&r, ref.rule->group,     dsl::rule_terms(r), dsl::rule_terms(r), {},
               {}, applications(r.lhs), applications(r.rhs)};
    l.frozen_lhs = freeze(l.terms.lhs, l.terms, r.name);
    l.frozen_rhs = freeze(l.terms.rhs, l.terms, r.name);
    all.push_back(std::move(l));
  }
  std::vector<const dsl::CheckedRule*> checked;
  for (const LintRule& l : all) checked.push_back(l.rule);
  AllowComments allow(checked);

  std::vector<LintFinding> out = std::move(allow.problems());
  const auto report = [&](const dsl::CheckedRule& r, std::string_view kind, dsl::Diagnostic d) {
    if (!allow.allows(r, kind)) out.push_back({std::string(kind), std::move(d)});
  };
  PatternIndex by_lhs;  // the rules before j (then up to j), by their left sides
  for (std::size_t j = 0; j < all.size(); ++j) {
    const LintRule& later = all[j];
    const dsl::CheckedRule& b = *later.rule;
    // Shadowed by an earlier rule of the group that is tried first; by a
    // guarded one, only where its guard holds (a note, if no rule without a
    // guard shadows it).
    std::optional<std::size_t> guarded;
    bool shadowed = false;
    by_lhs.for_each(b.lhs, [&](std::size_t i) {
      const LintRule& earlier = all[i];
      const dsl::CheckedRule& a = *earlier.rule;
      if (earlier.group != later.group || a.priority < b.priority) return false;
      if (b.multiple_clients && !a.multiple_clients) return false;
      if (!is_instance(later.frozen_lhs, earlier.terms.lhs)) return false;
      if (a.guard) {
        if (!guarded) guarded = i;
        return false;
      }
      report(b, "shadowed",
             pointing_at(at_rule(b, fmt::format("rule `{}` is shadowed by `{}`: whatever `{}` "
                                                "matches, `{}` matches too, and `{}` is tried "
                                                "first; `{}` fires only where the result of `{}` "
                                                "does not fit (it cannot be built, or its type is "
                                                "not the node's)",
                                                b.name, a.name, lhs_text(b), lhs_text(a), a.name,
                                                b.name, a.name)),
                         a));
      shadowed = true;
      return true;
    });
    if (!shadowed && guarded) {
      const dsl::CheckedRule& a = *all[*guarded].rule;
      report(b, "shadowed",
             pointing_at(note_at(b, fmt::format("rule `{}` is shadowed by `{}` wherever the guard "
                                                "of `{}` holds: whatever `{}` matches, `{}` "
                                                "matches too, and `{}` is tried first",
                                                b.name, a.name, a.name, lhs_text(b), lhs_text(a),
                                                a.name)),
                         a, ", with its guard"));
    }
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
        report(b, "undo",
               at_rule(b, fmt::format("rule `{}` can undo itself: its right side `{}` matches its "
                                      "left side `{}`, so it can fire forever",
                                      b.name, rhs_text(b), lhs_text(b))));
      } else {
        report(b, "undo",
               pointing_at(at_rule(b, fmt::format("rules `{}` and `{}` undo each other: `{}` "
                                                  "turns `{}` into `{}`, which `{}` turns back",
                                                  a.name, b.name, b.name, lhs_text(b),
                                                  rhs_text(b), a.name)),
                           a));
      }
      return false;
    });
    // Grows the graph with nodes it can match again.
    if (later.rhs_size > later.lhs_size) {
      std::vector<Term> subterms;
      applications_of(later.fresh.rhs, subterms);
      for (const Term& t : subterms) {
        if (!unify(later.terms.lhs, t)) continue;
        report(b, "growth",
               at_rule(b, fmt::format("rule `{}` grows the graph ({} op{} on the left, {} on the "
                                      "right) and its right side `{}` can match its left side "
                                      "again: it could loop",
                                      b.name, later.lhs_size, later.lhs_size == 1 ? "" : "s",
                                      later.rhs_size, rhs_text(b))));
        break;
      }
    }
  }
  return out;
}

}  // namespace rw::check

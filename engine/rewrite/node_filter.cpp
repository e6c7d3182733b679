// NodeFilter: building the checks and running them.
#include "engine/rewrite/node_filter.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/print.hpp"
#include "engine/unify/term.hpp"

namespace rw {

namespace detail {
struct FilterLiterals {
  std::vector<Term> terms;
  Props props;  // the node's Op must have each of these
  std::shared_ptr<const Op> op;  // and be equal to this one
};
}  // namespace detail

NodeFilter& NodeFilter::op(OpKind kind) {
  kind_ = kind;
  return *this;
}

NodeFilter& NodeFilter::arity(std::size_t n) {
  arity_ = static_cast<std::uint32_t>(std::min<std::size_t>(n, kAnyArity - 1));
  update_glance();
  return *this;
}

void NodeFilter::update_glance() {
  glance_ = Glance{};
  const auto want = [&](std::size_t field, std::uint32_t value, std::uint32_t mask) {
    glance_.value[field] = value;
    glance_.mask[field] = mask;
  };
  constexpr std::uint32_t kAll = ~0u;
  if (arity_ != kAnyArity) want(0, arity_, kAll);
  if (all_constant_)  // each input seen is a constant, or there is none
    for (std::size_t i = 1; i < glance_.value.size(); ++i)
      want(i, kConstantInput, kAll & ~(kConstantInput ^ kNoInput));
  for (const Check& c : checks_) {
    const std::size_t field = std::size_t{c.input} + 1;  // the arity comes first
    if (c.parent != kNode || field >= glance_.value.size()) continue;
    switch (c.what) {
      case Require::Computed:
        if (c.kind) want(field, c.kind.index(), kAll);
        else want(field, 0, kNotComputed);
        break;
      case Require::Constant:
      case Require::Literal:
        want(field, kConstantInput, kAll);
        break;
      case Require::Same:
        break;
    }
  }
}

NodeFilter& NodeFilter::all_inputs_constant() {
  all_constant_ = true;
  update_glance();
  return *this;
}

NodeFilter& NodeFilter::some_input_computed(OpKind kind) {
  if (!kind) throw RewriteError("a node filter needs an op kind for some_input_computed");
  Check c;
  c.kind = kind;
  some_inputs_.push_back(c);
  return *this;
}

NodeFilter& NodeFilter::some_input_constant() {
  Check c;
  c.what = Require::Constant;
  some_inputs_.push_back(c);
  return *this;
}

NodeFilter& NodeFilter::some_input_literal(FilterLiteral value) {
  Check c;
  c.what = Require::Literal;
  c.literal = add_literal(value);
  some_inputs_.push_back(c);
  return *this;
}

std::uint32_t NodeFilter::add_literal(FilterLiteral value) {
  const auto index = literals_ ? static_cast<std::uint32_t>(literals_->terms.size()) : 0;
  auto more = literals_ ? std::make_shared<detail::FilterLiterals>(*literals_)
                        : std::make_shared<detail::FilterLiterals>();
  more->terms.push_back(std::visit(
      [](auto v) {
        using T = decltype(v);
        if constexpr (std::is_same_v<T, bool>) return Term::boolean(v);
        else if constexpr (std::is_same_v<T, double>) return Term::number(v);
        else return Term::integer(v);
      },
      value));
  literals_ = std::move(more);
  return index;
}

NodeFilter& NodeFilter::op_equal_to(std::shared_ptr<const Op> op) {
  if (!op) throw RewriteError("a node filter cannot compare with a null op");
  kind_ = op->kind();
  auto more = literals_ ? std::make_shared<detail::FilterLiterals>(*literals_)
                        : std::make_shared<detail::FilterLiterals>();
  more->op = std::move(op);
  literals_ = std::move(more);
  has_op_checks_ = true;
  return *this;
}

NodeFilter& NodeFilter::prop(std::string name, PropValue value) {
  auto more = literals_ ? std::make_shared<detail::FilterLiterals>(*literals_)
                        : std::make_shared<detail::FilterLiterals>();
  more->props.push_back({std::move(name), std::move(value)});
  literals_ = std::move(more);
  has_op_checks_ = true;
  return *this;
}

int NodeFilter::node_at(std::span<const std::uint32_t> path) {
  int at = kNode;
  for (std::size_t depth = 0; depth < path.size(); ++depth) {
    const std::uint32_t input = path[depth];
    int found = -1;
    for (std::size_t i = 0; i < first_literal_; ++i) {
      const Check& c = checks_[i];
      if (c.what == Require::Computed && c.parent == at && c.input == input) {
        found = static_cast<int>(i);
        break;
      }
    }
    if (found < 0) {
      if (checks_.size() == kMaxChecks || input > kNode - 1) return -1;
      Check c;
      c.parent = static_cast<std::uint16_t>(at);
      c.input = static_cast<std::uint16_t>(input);
      checks_.insert(checks_.begin() + static_cast<std::ptrdiff_t>(first_literal_), c);
      found = static_cast<int>(first_literal_++);
    }
    at = found;
  }
  update_glance();
  return at;
}

bool NodeFilter::add(std::span<const std::uint32_t> path, Check c) {
  if (path.empty()) throw RewriteError("a node filter check needs a path to an input");
  const int parent = node_at(path.first(path.size() - 1));
  const std::uint32_t input = path.back();
  if (parent < 0 || checks_.size() == kMaxChecks || input > kNode - 1) return false;
  c.parent = static_cast<std::uint16_t>(parent);
  c.input = static_cast<std::uint16_t>(input);
  if (c.what == Require::Literal || c.what == Require::Same) {
    checks_.push_back(std::move(c));
  } else {
    checks_.insert(checks_.begin() + static_cast<std::ptrdiff_t>(first_literal_), std::move(c));
    ++first_literal_;
  }
  update_glance();
  return true;
}

NodeFilter& NodeFilter::computed(std::span<const std::uint32_t> path, OpKind kind,
                                 std::optional<std::size_t> arity) {
  if (path.empty()) throw RewriteError("a node filter check needs a path to an input");
  const int at = node_at(path);
  if (at < 0) return *this;
  Check& c = checks_[static_cast<std::size_t>(at)];
  if (kind) c.kind = kind;
  if (arity) c.arity = static_cast<std::uint32_t>(std::min<std::size_t>(*arity, kAnyArity - 1));
  update_glance();
  return *this;
}

NodeFilter& NodeFilter::constant(std::span<const std::uint32_t> path) {
  Check c;
  c.what = Require::Constant;
  add(path, std::move(c));
  return *this;
}

NodeFilter& NodeFilter::literal(std::span<const std::uint32_t> path, FilterLiteral value) {
  Check c;
  c.what = Require::Literal;
  c.literal = literals_ ? static_cast<std::uint32_t>(literals_->terms.size()) : 0;
  if (add(path, c)) add_literal(value);
  return *this;
}

NodeFilter& NodeFilter::same_value(std::span<const std::uint32_t> path,
                                   std::span<const std::uint32_t> other) {
  if (other.empty()) throw RewriteError("a node filter check needs a path to an input");
  if (path.empty()) throw RewriteError("a node filter check needs a path to an input");
  const int other_parent = node_at(other.first(other.size() - 1));
  if (other_parent < 0 || other.back() > kNode - 1) return *this;
  Check c;
  c.what = Require::Same;
  c.other_parent = static_cast<std::uint16_t>(other_parent);
  c.other_input = static_cast<std::uint16_t>(other.back());
  add(path, c);
  return *this;
}

bool NodeFilter::accepts(const Apply& node) const {
  if (kind_ && node.op().kind() != kind_) return false;
  if (arity_ != kAnyArity && node.num_inputs() != arity_) return false;
  if (all_constant_)
    for (const Var& in : node.inputs())
      if (!in->is_constant()) return false;
  for (const Check& some : some_inputs_) {
    const auto inputs = node.inputs();
    if (std::none_of(inputs.begin(), inputs.end(), [&](const Var& in) {
          switch (some.what) {
            case Require::Computed: {
              const Apply* owner = in->owner();
              return owner && owner->kind_index() == some.kind.index();
            }
            case Require::Constant: return in->is_constant();
            case Require::Literal: {
              const Constant* k = in->as_constant();
              return k && literal_matches_constant(literals_->terms[some.literal], *k);
            }
            case Require::Same: break;
          }
          return false;
        }))
      return false;
  }
  if (has_op_checks_) {
    const Op* same = literals_->op.get();
    if (same && (node.op().hash() != same->hash() || !(node.op() == *same))) return false;
    const Props& props = node.op().cached_props();
    for (const Prop& want : literals_->props) {
      const PropValue* have = find_prop(props, want.name);
      if (!have || !(*have == want.value)) return false;
    }
  }
  const Apply* at[kMaxChecks];
  const std::size_t n = checks_.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Check& c = checks_[i];
    const Apply* parent = c.parent == kNode ? &node : at[c.parent];
    if (c.input >= parent->num_inputs()) return false;
    const Variable& v = *parent->input(c.input);
    switch (c.what) {
      case Require::Computed: {
        const Apply* owner = v.owner();
        if (!owner || (c.kind && owner->op().kind() != c.kind) ||
            (c.arity != kAnyArity && owner->num_inputs() != c.arity))
          return false;
        at[i] = owner;
        break;
      }
      case Require::Constant:
        if (!v.is_constant()) return false;
        break;
      case Require::Same: {
        const Apply* other = c.other_parent == kNode ? &node : at[c.other_parent];
        if (c.other_input >= other->num_inputs()) return false;
        const Variable& w = *other->input(c.other_input);
        if (&v == &w || (v.is_constant() && w.is_constant())) break;
        const Apply* a = v.owner();
        const Apply* b = w.owner();
        if (!a || !b || a->op().kind() != b->op().kind() || a->num_inputs() != b->num_inputs())
          return false;
        break;
      }
      case Require::Literal: {
        const Constant* k = v.as_constant();
        if (!k || !literal_matches_constant(literals_->terms[c.literal], *k)) return false;
        break;
      }
    }
  }
  return true;
}

std::string NodeFilter::to_string() const {
  if (accepts_all()) return "any";
  std::string out;
  auto sep = [&] { return out.empty() ? "" : ", "; };
  auto node = [](OpKind kind, std::uint32_t arity) {
    std::string s = kind ? std::string(kind.name()) : std::string("_");
    if (arity != kAnyArity) s += fmt::format("/{}", arity);
    return s;
  };
  if (kind_ || arity_ != kAnyArity) out += node(kind_, arity_);
  if (has_op_checks_ && literals_->op) out += "=" + literals_->op->to_string();
  if (has_op_checks_ && !literals_->props.empty()) {
    std::string props;
    for (const Prop& p : literals_->props)
      props += fmt::format("{}{}={}", props.empty() ? "" : ",", p.name,
                           format_prop_value(p.name, p.value));
    out += "{" + props + "}";
  }
  if (all_constant_) out += std::string(sep()) + "*=const";
  for (const Check& some : some_inputs_) {
    switch (some.what) {
      case Require::Computed: out += fmt::format("{}[?]:{}", sep(), some.kind.name()); break;
      case Require::Constant: out += fmt::format("{}[?]=const", sep()); break;
      case Require::Literal: out += fmt::format("{}[?]={}", sep(), rw::to_string(literals_->terms[some.literal])); break;
      case Require::Same: break;
    }
  }
  auto at = [&](std::uint16_t parent, std::uint16_t input) {
    std::vector<std::uint32_t> path{input};
    for (std::uint16_t p = parent; p != kNode; p = checks_[p].parent) path.push_back(checks_[p].input);
    std::string where = "[";
    for (std::size_t i = path.size(); i-- > 0;) where += fmt::format("{}{}", path[i], i ? "," : "");
    return where + "]";
  };
  for (const Check& c : checks_) {
    const std::string where = at(c.parent, c.input);
    switch (c.what) {
      case Require::Computed: out += fmt::format("{}{}:{}", sep(), where, node(c.kind, c.arity)); break;
      case Require::Constant: out += fmt::format("{}{}=const", sep(), where); break;
      case Require::Literal: out += fmt::format("{}{}={}", sep(), where, rw::to_string(literals_->terms[c.literal])); break;
      case Require::Same: out += fmt::format("{}{}=={}", sep(), where, at(c.other_parent, c.other_input)); break;
    }
  }
  return out;
}

}  // namespace rw

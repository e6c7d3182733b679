// PatternNodeRewriter: match, check shared intermediates, build, type-check.
#include "engine/rewrite/pattern_rewriter.hpp"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "engine/graph/apply.hpp"
#include "engine/graph/type.hpp"
#include "engine/rewrite/errors.hpp"
#include "engine/rewrite/trace.hpp"
#include "engine/unify/graph_terms.hpp"
#include "engine/unify/print.hpp"

namespace rw {

namespace {

/// What the input pattern's shape tells the rewriter.
struct PatternShape {
  int depth = 0;                      // of the deepest application (root: 0)
  bool commutative = false, associative = false;
  std::vector<std::vector<std::uint32_t>> intermediates;  // paths of applications below the root
  std::vector<Term> leaves;           // graph variables written into the pattern
};

bool is_application(const Term& t) {
  if (!t.is_compound() || t.is_tuple()) return false;
  const TermKind h = t.head().kind();
  return h == TermKind::Op || h == TermKind::OpPattern || h == TermKind::String ||
         h == TermKind::Var;
}

PatternShape shape_of(const Pattern& p) {
  PatternShape out;
  struct Item {
    const Term* term;
    std::vector<std::uint32_t> path;
  };
  std::vector<Item> stack{{&p.term(), {}}};
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const Term& t = *item.term;
    if (t.is_graph()) {
      out.leaves.push_back(t);
      continue;
    }
    if (!is_application(t)) continue;
    const std::string_view name = op_head_name(t.head());
    if (!name.empty()) {
      out.commutative = out.commutative || p.theory().is_commutative(name);
      out.associative = out.associative || p.theory().is_associative(name);
    }
    out.depth = std::max(out.depth, static_cast<int>(item.path.size()));
    if (!item.path.empty()) out.intermediates.push_back(item.path);
    for (std::uint32_t i = 0; i < t.arity(); ++i) {
      std::vector<std::uint32_t> path = item.path;
      path.push_back(i);
      stack.push_back({&t.args()[i], std::move(path)});
    }
  }
  std::sort(out.intermediates.begin(), out.intermediates.end());
  return out;
}

Tracks tracks_of(const Pattern& p) {
  if (p.root_op_name().empty())
    throw RewriteError(fmt::format(
        "the input pattern `{}` must be an application of a named op: a rewriter is dispatched "
        "on its root op",
        to_string(p.term())));
  return Tracks(std::vector<std::string>{std::string(p.root_op_name())});
}

bool is_literal(const Term& t) {
  const TermKind k = t.kind();
  return k == TermKind::Int || k == TermKind::Float || k == TermKind::Bool;
}

// The necessary condition the pattern's structure states about a node, down
// to its first commutative or associative application (whose operands are
// matched in any arrangement).
NodeFilter filter_of(const Pattern& p, std::span<const Term> constant_vars) {
  NodeFilter f;
  struct Item {
    const Term* term;
    std::vector<std::uint32_t> path;
  };
  std::vector<Item> stack{{&p.term(), {}}};
  // Where each variable was met first (in the matcher's order), for the
  // occurrences after it, which must be the same value; by variable id, as
  // a rule may have 10^5 variables.
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> first;
  while (!stack.empty()) {
    Item item = std::move(stack.back());
    stack.pop_back();
    const Term& t = *item.term;
    if (t.is_var() && !item.path.empty()) {
      const auto [seen, fresh] = first.try_emplace(t.var_id(), item.path);
      if (fresh) {
        if (std::any_of(constant_vars.begin(), constant_vars.end(),
                        [&](const Term& c) { return c.same(t); }))
          f.constant(item.path);
      } else {
        f.same_value(item.path, seen->second);
      }
      continue;
    }
    if (is_literal(t)) {
      if (item.path.empty()) continue;
      if (t.kind() == TermKind::Int) f.literal(item.path, t.as_int());
      else if (t.kind() == TermKind::Float) f.literal(item.path, t.as_float());
      else f.literal(item.path, t.as_bool());
      continue;
    }
    if (!is_application(t)) continue;
    const std::string_view name = op_head_name(t.head());
    const bool arranged =
        !name.empty() && (p.theory().is_commutative(name) || p.theory().is_associative(name));
    const OpKind kind = name.empty() ? OpKind() : OpKind::of(name);
    std::optional<std::size_t> arity;
    if (!arranged) arity = t.arity();
    if (item.path.empty()) {
      if (kind) f.op(kind);
      if (arity) f.arity(*arity);
      // Properties written as values (`order=(0, 1)`) are compared with the
      // Op's own. Floats are left to the matcher, whose term equality and
      // PropValue's may differ on them (-0.0, NaN).
      // An Op with properties is compared whole; without, its kind says enough.
      if (t.head().kind() == TermKind::Op && !t.head().op()->cached_props().empty())
        f.op_equal_to(t.head().op());
      if (t.head().kind() == TermKind::OpPattern)
        for (const PropTerm& pt : t.head().op_pattern_props()) {
          if (!pt.value.is_ground()) continue;
          std::optional<PropValue> value = term_to_prop(pt.value);
          if (value && !std::holds_alternative<double>(*value)) f.prop(pt.name, std::move(*value));
        }
    } else {
      f.computed(item.path, kind, arity);
    }
    if (arranged) continue;
    for (std::uint32_t i = t.arity(); i-- > 0;) {
      std::vector<std::uint32_t> path = item.path;
      path.push_back(i);
      stack.push_back({&t.args()[i], std::move(path)});
    }
  }
  return f;
}

int default_depth(const Pattern& p) {
  const PatternShape s = shape_of(p);
  return s.associative ? kAnyDepth : s.depth;
}

// Adds the graph variables inside `t` (a binding: a graph variable, or a
// regrouping of operands built as a term) to `out`.
void graph_vars_in(const Term& t, std::vector<const Variable*>& out) {
  std::vector<const Term*> stack{&t};
  while (!stack.empty()) {
    const Term* x = stack.back();
    stack.pop_back();
    if (x->is_graph()) out.push_back(x->graph_var());
    else if (x->is_compound())
      for (const Term& a : x->args()) stack.push_back(&a);
  }
}

}  // namespace

PatternNodeRewriter::PatternNodeRewriter(std::string name, Pattern in, Term out,
                                         PatternRewriteOptions options)
    : NodeRewriter(std::move(name), tracks_of(in), options.depth.value_or(default_depth(in)),
                   options.benefit),
      in_(std::move(in)),
      out_(std::move(out)),
      registry_(options.registry),
      allow_multiple_clients_(options.allow_multiple_clients),
      description_(std::move(options.description)) {
  if (!out_) throw RewriteError(fmt::format("`{}`: the output pattern is the null term", this->name()));
  PatternShape s = shape_of(in_);
  arranged_ = s.commutative || s.associative;
  associative_ = s.associative;
  pattern_depth_ = s.depth;
  has_intermediates_ = !s.intermediates.empty();
  if (!arranged_) intermediate_paths_ = std::move(s.intermediates);
  leaves_ = std::move(s.leaves);
  // Refusing shared intermediates reads their uses.
  if (!allow_multiple_clients_ && has_intermediates_) set_reads_uses();
  set_filter(filter_of(in_, options.constant_vars));
}

std::string PatternNodeRewriter::describe() const {
  if (!description_.empty()) return description_;
  return to_string(in_.term()) + " -> " + to_string(out_);
}

std::optional<std::string> PatternNodeRewriter::shared_intermediate(const FunctionGraph& fgraph,
                                                                    const Apply& node,
                                                                    const Substitution& s,
                                                                    bool explain) const {
  auto refuse = [&](const Variable& v) -> std::optional<std::string> {
    if (!explain) return std::string();
    return fmt::format(
        "`{}`, matched below the root, has {} uses: rewriting would compute it twice "
        "(multiple clients are not allowed)",
        brief(v), fgraph.num_clients(v));
  };
  if (!arranged_) {
    // Each application of the pattern below the root is at a fixed path.
    for (const auto& path : intermediate_paths_) {
      const Apply* at = &node;
      const Variable* v = nullptr;
      for (std::uint32_t i : path) {
        v = at->input(i).get();
        at = v->owner();
      }
      if (fgraph.num_clients(*v) > 1) return refuse(*v);
    }
    return std::nullopt;
  }
  // Commutative or associative: the arrangement that matched is not known,
  // so walk down from the root to the bound variables (and the pattern's own
  // graph variables); what lies between was matched by applications.
  std::vector<const Variable*> stop;
  for (const Term& v : in_.variables()) {
    const Term& bound = s.walk(v);
    if (!bound.is_var()) graph_vars_in(bound, stop);
  }
  for (const Term& leaf : leaves_) stop.push_back(leaf.graph_var());
  struct Item {
    const Variable* var;
    const Apply* parent;
    int level;
  };
  std::vector<Item> pending;
  std::vector<const Variable*> seen;
  for (const Var& in : node.inputs()) pending.push_back({in.get(), &node, 1});
  while (!pending.empty()) {
    const Item item = pending.back();
    pending.pop_back();
    const Variable* v = item.var;
    const Apply* owner = v->owner();
    if (!owner || std::find(stop.begin(), stop.end(), v) != stop.end() ||
        std::find(seen.begin(), seen.end(), v) != seen.end())
      continue;
    // Flattening an associative Op goes down chains of that Op without
    // going deeper into the pattern.
    const bool flattened = associative_ && owner->op().name() == item.parent->op().name() &&
                           in_.theory().is_associative(owner->op().name());
    const int level = flattened ? item.level - 1 : item.level;
    if (level > pattern_depth_) continue;
    seen.push_back(v);
    if (fgraph.num_clients(*v) > 1) return refuse(*v);
    for (const Var& in : owner->inputs()) pending.push_back({in.get(), owner, level + 1});
  }
  return std::nullopt;
}

RewriteResult PatternNodeRewriter::run(const FunctionGraph& fgraph, const Apply& node,
                                       bool explain) const {
  auto fail = [&](auto&& make_reason, std::string_view silent) {
    return explain ? RewriteResult::fail_owned(make_reason()) : RewriteResult::fail(silent);
  };
  std::size_t index = 0;
  if (node.num_outputs() != 1) {
    const auto d = node.op().default_output();
    if (!d)
      return fail([&] { return fmt::format("`{}` has {} outputs and no default one", node.op().to_string(), node.num_outputs()); },
                  "the node has several outputs and no default one");
    index = *d;
  }
  const Variable& var = node.output_var(index);

  MatchResult m;
  try {
    m = match(in_, var, MatchOptions{&fgraph, explain});
  } catch (const TermError& e) {
    // A constraint whose path leads nowhere in this graph, say.
    return fail([&] { return std::string(e.what()); }, "the pattern cannot be matched here");
  }
  if (!m) return fail([&] { return m.why(); }, "the pattern does not match");

  if (!allow_multiple_clients_ && has_intermediates_)
    if (auto why = shared_intermediate(fgraph, node, *m, explain))
      return fail([&] { return std::move(*why); }, "an intermediate node has other uses");

  const TensorType* out_type = var.tensor_type();
  GraphBuildOptions build{registry_, &cache_, std::nullopt};
  if (out_type) build.literal_dtype = out_type->dtype();
  GraphResult built = reify_to_graph(out_, *m, build);
  if (!built)
    return fail([&] { return "the right side cannot be built: " + built.why; },
                "the right side cannot be built");
  Var result = std::move(built.var);

  // A literal alone: a constant of the replaced output's type.
  if (is_literal(out_) && out_type && out_type->ndim() > 0) {
    if (!out_type->shape_known())
      return fail(
          [&] {
            return fmt::format("the right side is the constant {}, but `{}` is {}, whose shape "
                               "is not known statically",
                               to_string(out_), brief(var), out_type->to_string());
          },
          "a constant cannot stand for an output of unknown shape");
    const Tensor value = result->as_constant()->value().broadcast_to(out_type->shape()).contiguous();
    result = Constant::make(value, var.type());
  }

  if (!var.type()->is_super(*result->type()))
    return fail(
        [&] {
          return fmt::format("the right side `{}` is {}, which cannot replace `{}` of type {}",
                             brief(*result), result->type()->to_string(), brief(var),
                             var.type()->to_string());
        },
        "the right side's type cannot replace the output's");
  if (node.num_outputs() == 1) return RewriteResult::replace_output(std::move(result));
  return RewriteResult::replace({{node.output(index), std::move(result)}});
}

RewriteResult PatternNodeRewriter::transform(FunctionGraph& fgraph, Apply& node,
                                             const RewriteContext& ctx) const {
  return run(fgraph, node, ctx.explaining());
}

std::optional<std::string> PatternNodeRewriter::why_not(const FunctionGraph& fgraph,
                                                        const Apply& node) const {
  const RewriteResult r = run(fgraph, node, /*explain=*/true);
  if (r.applied()) return std::nullopt;
  return std::string(r.reason());
}

}  // namespace rw

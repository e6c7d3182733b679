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

// Two operands of a commutative Op go to either input, but what both ask of
// their input is asked of each: `x * x` gives `[1]==[0]`, `a * x + b * x`
// gives `[0]:mul/2, [1]:mul/2`.
void same_at_both_inputs(const Pattern& p, std::uint32_t index, NodeFilter& f) {
  using Node = Pattern::Node;
  const std::span<const Node> program = p.program();
  const Node& n = program[index];
  if (n.children.size() != 2) return;
  const Node& a = program[n.children[0]];
  const Node& b = program[n.children[1]];
  std::vector<std::uint32_t> first = p.path_of(n.children[0]), second = p.path_of(n.children[1]);
  if (a.kind == Node::Kind::Var && b.kind == Node::Kind::Var && a.slot == b.slot) {
    f.same_value(second, first);
  } else if (a.kind == Node::Kind::Apply && b.kind == Node::Kind::Apply && a.op_kind &&
             a.op_kind == b.op_kind && !a.associative && !b.associative &&
             a.children.size() == b.children.size()) {
    f.computed(first, a.op_kind, a.children.size());
    f.computed(second, a.op_kind, a.children.size());
  }
}

// The necessary condition the pattern's program states about a node, down to
// its first commutative or associative applications (whose operands are
// matched in any arrangement): read off the program's instructions, which
// are in the matcher's order (pre-order).
NodeFilter filter_of(const Pattern& p, std::span<const Term> constant_vars) {
  using Node = Pattern::Node;
  const std::span<const Node> program = p.program();
  NodeFilter f;
  // Instructions below an arranged application have no fixed path.
  std::vector<bool> fixed(program.size(), true);
  // Where each slot was met first, for the occurrences after it, which must
  // be the same value.
  std::vector<std::optional<std::vector<std::uint32_t>>> first(p.variables().size());
  for (std::uint32_t i = 0; i < program.size(); ++i) {
    const Node& n = program[i];
    if (n.parent != Pattern::kNoParent) {
      const Node& parent = program[n.parent];
      fixed[i] = fixed[n.parent] && !parent.commutative && !parent.associative;
    }
    if (!fixed[i]) continue;
    const bool root = n.parent == Pattern::kNoParent;
    switch (n.kind) {
      case Node::Kind::Var: {
        if (root) break;
        std::vector<std::uint32_t> path = p.path_of(i);
        if (first[n.slot]) {
          f.same_value(path, *first[n.slot]);
        } else {
          if (std::any_of(constant_vars.begin(), constant_vars.end(),
                          [&](const Term& c) { return c.same(n.term); }))
            f.constant(path);
          first[n.slot] = std::move(path);
        }
        break;
      }
      case Node::Kind::Literal: {
        if (root) break;
        const Term& t = n.term;
        if (t.kind() == TermKind::Int) f.literal(p.path_of(i), t.as_int());
        else if (t.kind() == TermKind::Float) f.literal(p.path_of(i), t.as_float());
        else f.literal(p.path_of(i), t.as_bool());
        break;
      }
      case Node::Kind::Apply: {
        // Only flattening changes the number of operands; a commutative Op
        // arranges as many as it has.
        std::optional<std::size_t> arity;
        if (!n.associative) arity = n.children.size();
        if (n.commutative && !n.associative) same_at_both_inputs(p, i, f);
        if (!root) {
          f.computed(p.path_of(i), n.op_kind, arity);
          break;
        }
        if (n.op_kind) f.op(n.op_kind);
        if (arity) f.arity(*arity);
        // A commutative root's inputs have no fixed positions, but each
        // must be found at some position.
        if (n.commutative && !n.associative)
          for (std::uint32_t c : n.children) {
            const Node& child = program[c];
            if (child.kind == Node::Kind::Literal) {
              const Term& t = child.term;
              if (t.kind() == TermKind::Int) f.some_input_literal(t.as_int());
              else if (t.kind() == TermKind::Float) f.some_input_literal(t.as_float());
              else f.some_input_literal(t.as_bool());
            } else if (child.kind == Node::Kind::Apply && child.op_kind) {
              f.some_input_computed(child.op_kind);
            } else if (child.kind == Node::Kind::Var &&
                       std::any_of(constant_vars.begin(), constant_vars.end(),
                                   [&](const Term& v) { return v.same(child.term); })) {
              f.some_input_constant();
            }
          }
        // Properties written as values (`order=(0, 1)`) are compared with the
        // Op's own. Floats are left to the matcher, whose term equality and
        // PropValue's may differ on them (-0.0, NaN). An Op with properties
        // is compared whole; without, its kind says enough.
        if (n.head == Node::Head::OpAtom && !n.head_term.op()->cached_props().empty())
          f.op_equal_to(n.head_term.op());
        if (n.head == Node::Head::OpPattern)
          for (const PropTerm& pt : n.head_term.op_pattern_props()) {
            if (!pt.value.is_ground()) continue;
            std::optional<PropValue> value = term_to_prop(pt.value);
            if (value && !std::holds_alternative<double>(*value)) f.prop(pt.name, std::move(*value));
          }
        break;
      }
      case Node::Kind::Leaf:
      case Node::Kind::Never: break;
    }
  }
  return f;
}

// Resolves, once, every Op the output pattern names (op patterns and
// symbols): a name the registry does not know, or a name with no registry,
// is refused when the rewriter is made rather than at each attempt. Heads
// that are variables are bound by the match and checked when it builds.
void check_output_ops(const std::string& rewriter, const Term& out, const OpRegistry* registry) {
  std::vector<const Term*> stack{&out};
  while (!stack.empty()) {
    const Term& t = *stack.back();
    stack.pop_back();
    if (!t.is_compound()) continue;
    for (const Term& a : t.args()) stack.push_back(&a);
    const Term& head = t.head();
    if (head.kind() != TermKind::OpPattern && head.kind() != TermKind::String) continue;
    const std::string_view name = op_head_name(head);
    if (!registry)
      throw RewriteError(fmt::format(
          "`{}`: the output pattern names the op `{}`, but no op registry was given to build it "
          "(PatternRewriteOptions::registry)",
          rewriter, name));
    if (registry->find(name)) continue;
    std::string msg = fmt::format("`{}`: the output pattern names the op `{}`, which the registry does not know",
                                  rewriter, name);
    if (const auto close = registry->suggest(name); !close.empty())
      msg += fmt::format("; did you mean `{}`?", close.front());
    throw RewriteError(msg);
  }
}

int default_depth(const Pattern& p) {
  return p.facts().associative ? kAnyDepth : p.facts().depth;
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
  check_output_ops(this->name(), out_, registry_);
  const Pattern::Facts& facts = in_.facts();
  arranged_ = facts.commutative || facts.associative;
  has_intermediates_ = !facts.intermediates.empty();
  // Refusing shared intermediates reads their uses.
  if (!allow_multiple_clients_ && has_intermediates_) set_reads_uses();
  set_filter(filter_of(in_, options.constant_vars));
}

std::string PatternNodeRewriter::describe() const {
  if (!description_.empty()) return description_;
  return to_string(in_.term()) + " -> " + to_string(out_);
}

std::string PatternNodeRewriter::program_listing() const {
  std::string out = in_.listing();
  out += "build `" + to_string(out_) + "`\n";
  out += "filter " + filter().to_string() + "\n";
  out += depth() == kAnyDepth ? std::string("depth any (re-tried after any change)\n")
                              : fmt::format("depth {}\n", depth());
  if (!has_intermediates_) {
    out += "intermediates none\n";
  } else if (allow_multiple_clients_) {
    out += "intermediates may have other uses (multiple_clients)\n";
  } else if (arranged_) {
    out += "intermediates refused when shared: found from the match (arranged operands)\n";
  } else {
    out += "intermediates refused when shared:";
    for (const auto& path : in_.facts().intermediates) {
      out += " [";
      for (std::size_t k = 0; k < path.size(); ++k) out += fmt::format("{}{}", k ? "," : "", path[k]);
      out += "]";
    }
    out += "\n";
  }
  return out;
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
  const Pattern::Facts& facts = in_.facts();
  if (!arranged_) {
    // Each application of the pattern below the root is at a fixed path.
    for (const auto& path : facts.intermediates) {
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
  for (const Term& leaf : facts.leaves) stop.push_back(leaf.graph_var());
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
    const bool flattened = facts.associative && owner->op().name() == item.parent->op().name() &&
                           in_.theory().is_associative(owner->op().name());
    const int level = flattened ? item.level - 1 : item.level;
    if (level > facts.depth) continue;
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

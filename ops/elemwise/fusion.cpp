// ElemwiseFusion: finding groups of elementwise nodes, building their
// Composites, and fusing reductions of elementwise results.
#include "ops/elemwise/fusion.hpp"

#include <algorithm>
#include <queue>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/shape/alloc.hpp"

namespace rw {

namespace {

/// The most nodes one search for a path from a reader of an exported value
/// back into its group visits before it gives up and keeps the value out.
constexpr std::size_t kCycleSearchBudget = 512;

/// Whether `node` computes its outputs elementwise from its inputs: an
/// elementwise Op not in place, or zeros_like/ones_like (a constant of the
/// input's shape: a program that reads nothing of its input).
bool fusable(const Apply& node) {
  if (const auto* e = dynamic_cast<const ElemwiseBase*>(&node.op()))
    return e->inplace_pattern().empty();
  return dynamic_cast<const FullLike*>(&node.op()) != nullptr;
}

/// The program computing `node`'s outputs from inputs of these dtypes.
ScalarProgram node_program(const Apply& node, std::span<const DType> dtypes) {
  if (const auto* e = dynamic_cast<const ElemwiseBase*>(&node.op())) return e->program(dtypes);
  const auto& full = dynamic_cast<const FullLike&>(node.op());
  ScalarProgram p;
  p.input(dtypes[0]);
  const DType out = node.output_var(0).tensor_type()->dtype();
  p.output(p.constant(full.ones() ? 1.0 : 0.0, out));
  return p;
}

/// Same rank and the same axes of static extent 1.
bool same_pattern(const TensorType& a, const TensorType& b) {
  if (a.ndim() != b.ndim()) return false;
  for (std::size_t k = 0; k < a.ndim(); ++k)
    if ((a.shape()[k] == 1) != (b.shape()[k] == 1)) return false;
  return true;
}

/// A constant of one element, which the program can hold as a constant.
bool foldable_constant(const Variable& v) {
  const Constant* c = v.as_constant();
  return c && c->value().size() == 1;
}

/// One group, found on the unchanged graph and built afterwards.
struct Group {
  std::vector<Var> inputs;   // what the Composite reads
  std::vector<Var> outputs;  // the root's outputs it replaces
  ScalarProgram program;
};

void emit_replaced(RewriteContext& ctx, const std::string& pass, const Var& old_var,
                   const Var& new_var) {
  if (!ctx.tracing()) return;
  TraceEvent e;
  e.kind = TraceKind::Replaced;
  e.pass = pass;
  e.rewriter = pass;
  e.old_var = old_var.get();
  e.new_var = new_var.get();
  ctx.trace->emit(e);
}

void emit_refused(RewriteContext& ctx, const std::string& pass, Apply* node,
                  const std::string& message) {
  if (!ctx.tracing()) return;
  TraceEvent e;
  e.kind = TraceKind::Refused;
  e.pass = pass;
  e.rewriter = pass;
  e.node = node;
  e.message = message;
  ctx.trace->emit(e);
}

}  // namespace

ElemwiseFusion::ElemwiseFusion(FusionOptions options, std::string name)
    : GraphRewriter(std::move(name)), options_(options) {}

PassReport ElemwiseFusion::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport report;
  report.stop = StopReason::Completed;

  const std::vector<Apply*> order = fgraph.toposort();
  const std::span<const Var> graph_inputs = fgraph.inputs();
  std::unordered_map<const Apply*, std::size_t> position;
  for (std::size_t k = 0; k < order.size(); ++k) position.emplace(order[k], k);
  std::unordered_set<const Apply*> assigned;
  std::vector<Group> groups;

  // Groups grow from the outputs towards the inputs, each node popped from a
  // heap ordered by graph position (latest first): every client a node has
  // in the group is then already a member when the node is considered.
  for (std::size_t r = order.size(); r-- > 0;) {
    Apply* root = order[r];
    if (assigned.contains(root) || !fusable(*root)) continue;
    const TensorType& pattern = *root->output_var(0).tensor_type();
    std::unordered_set<const Apply*> members;
    // Variables the group reads from outside (one-element constants apart).
    std::unordered_set<const Variable*> external;
    // Nodes outside the group known to reach a member through their clients,
    // and known not to. Both stay true while the group grows: later members
    // come earlier in graph order than every node a check has visited.
    std::unordered_set<const Apply*> reaches, clear;
    const std::size_t root_position = r;
    // Whether a node outside the group, reading a value the group would
    // export, leads back into the group (the Composite would then feed
    // itself). A forward search bounded by the root's position, which every
    // member precedes, and by a budget: a search that runs out says yes.
    auto leads_back = [&](const Apply* start) {
      std::vector<const Apply*> stack = {start}, seen;
      std::size_t budget = kCycleSearchBudget;
      bool found = false;
      std::unordered_set<const Apply*> visited = {start};
      while (!stack.empty() && !found) {
        const Apply* n = stack.back();
        stack.pop_back();
        seen.push_back(n);
        if (members.contains(n) || reaches.contains(n) || budget-- == 0) {
          found = true;
          break;
        }
        if (clear.contains(n) || position.at(n) > root_position) continue;
        for (std::size_t o = 0; o < n->num_outputs(); ++o)
          for (const Client& c : fgraph.clients(n->output_var(o)))
            if (!c.is_output() && visited.insert(c.node).second) stack.push_back(c.node);
      }
      // Every node seen lies on a path from start: when start reaches the
      // group only start is known to (the others may not); otherwise none does.
      if (found) reaches.insert(start);
      else clear.insert(seen.begin(), seen.end());
      return found;
    };
    auto exportable = [&](const Apply& p) {
      for (std::size_t o = 0; o < p.num_outputs(); ++o)
        for (const Client& c : fgraph.clients(p.output_var(o)))
          if (!c.is_output() && !members.contains(c.node) && leads_back(c.node)) return false;
      return true;
    };
    // Grows the group. Unbounded, the inputs counted while growing include
    // values the group absorbs later (a wide DAG has many), so the limit is
    // checked on the result; bounded (when that result reads too many), a
    // node joins only if the inputs counted so far stay within the limit.
    auto grow = [&](bool bounded) {
      members = {root};
      external.clear();
      reaches.clear();
      clear.clear();
      auto add_inputs = [&](const Apply& node) {
        for (const Var& in : node.inputs())
          if (!foldable_constant(*in)) external.insert(in.get());
      };
      add_inputs(*root);
      std::priority_queue<std::size_t> heap;
      std::unordered_set<const Apply*> queued;
      auto push_owners = [&](const Apply& node) {
        for (const Var& in : node.inputs())
          if (Apply* o = in->owner(); o && !assigned.contains(o) && queued.insert(o).second)
            heap.push(position.at(o));
      };
      push_owners(*root);
      while (!heap.empty()) {
        Apply* p = order[heap.top()];
        heap.pop();
        if (!fusable(*p) || members.contains(p)) continue;
        bool fits = true, used_outside = false;
        for (std::size_t o = 0; o < p->num_outputs() && fits; ++o) {
          const Variable& out = p->output_var(o);
          fits = same_pattern(*out.tensor_type(), pattern);
          for (const Client& c : fgraph.clients(out))
            if (c.is_output() || !members.contains(c.node)) used_outside = true;
        }
        if (!fits) continue;
        if (used_outside && !(options_.multi_output && exportable(*p))) continue;
        if (bounded) {
          // The inputs after absorbing p: p's outputs are no longer read
          // from outside, p's own inputs are.
          std::size_t count = external.size();
          for (std::size_t o = 0; o < p->num_outputs(); ++o)
            count -= external.contains(&p->output_var(o)) ? 1 : 0;
          std::unordered_set<const Variable*> fresh;
          for (const Var& in : p->inputs())
            if (!foldable_constant(*in) && !external.contains(in.get())) fresh.insert(in.get());
          if (count + fresh.size() > options_.max_inputs) continue;
        }
        members.insert(p);
        for (std::size_t o = 0; o < p->num_outputs(); ++o) external.erase(&p->output_var(o));
        add_inputs(*p);
        push_owners(*p);
      }
    };
    grow(/*bounded=*/false);
    if (external.size() > options_.max_inputs) grow(/*bounded=*/true);
    for (const Apply* m : members) assigned.insert(m);
    if (members.size() < 2 || external.empty()) continue;

    // The program: members in graph order, inputs numbered by first use.
    std::vector<const Apply*> sorted(members.begin(), members.end());
    std::sort(sorted.begin(), sorted.end(),
              [&](const Apply* a, const Apply* b) { return position.at(a) < position.at(b); });
    Group g;
    std::unordered_map<const Variable*, Reg> regs;
    // Inputs in a stable, readable order: the graph's inputs as the graph
    // lists them, then computed values in graph order, then constants.
    for (const Apply* m : sorted)
      for (const Var& in : m->inputs())
        if (!foldable_constant(*in) && !members.contains(in->owner()) &&
            std::find(g.inputs.begin(), g.inputs.end(), in) == g.inputs.end())
          g.inputs.push_back(in);
    const auto rank_of = [&](const Var& v) -> std::size_t {
      if (const Apply* o = v->owner()) return graph_inputs.size() + position.at(o);
      const auto it = std::find(graph_inputs.begin(), graph_inputs.end(), v);
      return it != graph_inputs.end() ? static_cast<std::size_t>(it - graph_inputs.begin())
                                      : graph_inputs.size() + order.size();
    };
    std::stable_sort(g.inputs.begin(), g.inputs.end(),
                     [&](const Var& a, const Var& b) { return rank_of(a) < rank_of(b); });
    for (const Var& in : g.inputs) regs.emplace(in.get(), g.program.input(in->tensor_type()->dtype()));
    for (const Apply* m : sorted) {
      std::vector<Reg> args;
      DTypes dtypes;
      for (const Var& in : m->inputs()) {
        auto it = regs.find(in.get());
        if (it == regs.end()) {
          Reg reg;
          if (foldable_constant(*in)) {
            const Tensor& value = in->as_constant()->value();
            reg = visit_dtype(value.dtype(), [&]<class T>() {
              return g.program.constant_of<T>(value.contiguous().item<T>());
            });
          } else {
            throw std::logic_error("ElemwiseFusion: an input of the group was not collected");
          }
          it = regs.emplace(in.get(), reg).first;
        }
        args.push_back(it->second);
        dtypes.push_back(in->tensor_type()->dtype());
      }
      const ScalarProgram sub = node_program(*m, dtypes);
      const std::vector<Reg> outs = inline_program(g.program, sub, args);
      for (std::size_t o = 0; o < outs.size(); ++o) regs[&m->output_var(o)] = outs[o];
    }
    // The root's outputs, then the values other nodes (or the graph) read
    // from inside the group, in graph order.
    for (std::size_t o = 0; o < root->num_outputs(); ++o) {
      g.program.output(regs.at(&root->output_var(o)));
      g.outputs.push_back(root->output(o));
    }
    for (const Apply* m : sorted) {
      if (m == root) continue;
      for (std::size_t o = 0; o < m->num_outputs(); ++o) {
        bool outside = false;
        for (const Client& c : fgraph.clients(m->output_var(o)))
          outside = outside || c.is_output() || !members.contains(c.node);
        if (!outside) continue;
        g.program.output(regs.at(&m->output_var(o)));
        g.outputs.push_back(m->output(o));
      }
    }
    groups.push_back(std::move(g));
  }

  // Later groups first: an earlier group's root output is an input of a later
  // Composite until it is itself replaced, which moves that use along. A
  // value a later group exports may be an input of an earlier one, which is
  // built after the replacement: it reads the Composite's output instead.
  std::unordered_map<const Variable*, Var> moved;
  for (Group& g : groups) {
    for (Var& in : g.inputs)
      if (const auto it = moved.find(in.get()); it != moved.end()) in = it->second;
    const auto op = std::make_shared<Composite>(std::move(g.program));
    const ApplyRef node = op->make_node(g.inputs);
    std::vector<std::pair<Var, Var>> pairs;
    for (std::size_t o = 0; o < g.outputs.size(); ++o)
      if (fgraph.num_clients(*g.outputs[o]) > 0) pairs.emplace_back(g.outputs[o], node->output(o));
    try {
      fgraph.replace_all(pairs, name());
    } catch (const ReplacementError& err) {
      emit_refused(ctx, name(), g.outputs[0]->owner(), err.what());
      continue;
    }
    ++report.applications;
    for (const auto& [old_var, new_var] : pairs) {
      moved.emplace(old_var.get(), new_var);
      emit_replaced(ctx, name(), old_var, new_var);
    }
  }

  if (options_.fuse_reductions) {
    for (Apply* node : fgraph.toposort()) {
      const auto* red = dynamic_cast<const Reduce*>(&node->op());
      if (!red) continue;
      const Var& in = node->input(0);
      const Apply* owner = in->owner();
      if (!owner || !fusable(*owner) || owner->num_outputs() != 1 || fgraph.num_clients(*in) != 1)
        continue;
      DTypes dtypes;
      for (const Var& v : owner->inputs()) dtypes.push_back(v->tensor_type()->dtype());
      std::optional<std::vector<std::int64_t>> axis;
      if (red->axis()) {
        const std::vector<bool> mask = red->reduced_axes(*node);
        axis.emplace();
        for (std::size_t a = 0; a < mask.size(); ++a)
          if (mask[a]) axis->push_back(static_cast<std::int64_t>(a));
      }
      const auto op = std::make_shared<CompositeReduce>(red->reduce_op(), std::move(axis),
                                                        node_program(*owner, dtypes));
      std::vector<Var> inputs(owner->inputs().begin(), owner->inputs().end());
      const Var out = op->make_node(inputs)->output(0);
      const Var old_var = node->output(0);
      try {
        fgraph.replace(old_var, out, name());
      } catch (const ReplacementError& err) {
        emit_refused(ctx, name(), node, err.what());
        continue;
      }
      ++report.applications;
      emit_replaced(ctx, name(), old_var, out);
    }
  }
  report.changed = report.applications > 0;
  return report;
}

void register_fusion_rewrites(SequenceDB& db, FusionOptions options) {
  db.add(std::make_shared<ElemwiseFusion>(options), {"fast_run", "fusion"},
         {.position = position::kFusion});
}

}  // namespace rw

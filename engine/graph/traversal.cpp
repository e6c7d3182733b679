// Iterative graph walks: none of these recurse, so deep graphs are safe.
#include "engine/graph/traversal.hpp"

#include <unordered_set>

#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"

namespace rw {

namespace {
// Post-order walk from `outputs` over inputs, stopping at `stop` variables.
// Calls visit(var) once per variable, after every variable it depends on.
template <class Visit>
void walk_post_order(std::span<const Var> outputs, const std::unordered_set<const Variable*>& stop,
                     Visit&& visit) {
  std::unordered_set<const Variable*> done;
  struct Frame {
    Variable* var;
    std::size_t next;
  };
  std::vector<Frame> stack;
  for (const Var& out : outputs) {
    if (!out || done.contains(out.get())) continue;
    stack.push_back({out.get(), 0});
    while (!stack.empty()) {
      Frame& f = stack.back();
      Apply* owner = f.var->owner();
      if (done.contains(f.var)) {
        stack.pop_back();
        continue;
      }
      const bool leaf = !owner || stop.contains(f.var);
      if (!leaf && f.next < owner->num_inputs()) {
        Variable* in = owner->input(f.next++).get();
        if (!done.contains(in)) stack.push_back({in, 0});
        continue;
      }
      done.insert(f.var);
      Variable* v = f.var;
      stack.pop_back();
      visit(v, leaf);
    }
  }
}

std::unordered_set<const Variable*> as_set(std::span<const Var> vars) {
  std::unordered_set<const Variable*> s;
  for (const Var& v : vars) s.insert(v.get());
  return s;
}
}  // namespace

std::vector<Var> ancestors(std::span<const Var> outputs, std::span<const Var> blockers) {
  std::vector<Var> out;
  walk_post_order(outputs, as_set(blockers), [&](Variable* v, bool) { out.push_back(v->ref()); });
  return out;
}

std::vector<Var> graph_inputs(std::span<const Var> outputs, std::span<const Var> blockers) {
  std::vector<Var> out;
  walk_post_order(outputs, as_set(blockers), [&](Variable* v, bool leaf) {
    if (leaf) out.push_back(v->ref());
  });
  return out;
}

std::vector<Apply*> io_toposort(std::span<const Var> inputs, std::span<const Var> outputs) {
  std::vector<Apply*> order;
  std::unordered_set<const Apply*> seen;
  walk_post_order(outputs, as_set(inputs), [&](Variable* v, bool leaf) {
    if (!leaf && seen.insert(v->owner()).second) order.push_back(v->owner());
  });
  return order;
}

namespace {
// Variables between inputs and outputs: ancestors of outputs that depend on an input.
std::unordered_set<const Variable*> between(std::span<const Var> inputs,
                                            std::span<const Var> outputs,
                                            std::vector<Variable*>* order) {
  const auto ins = as_set(inputs);
  std::unordered_set<const Variable*> on_path;
  walk_post_order(outputs, ins, [&](Variable* v, bool leaf) {
    bool reach = ins.contains(v);
    if (!leaf)
      for (const Var& in : v->owner()->inputs())
        if (on_path.contains(in.get())) reach = true;
    if (reach) {
      on_path.insert(v);
      if (order) order->push_back(v);
    }
  });
  return on_path;
}
}  // namespace

std::vector<Apply*> applys_between(std::span<const Var> inputs, std::span<const Var> outputs) {
  std::vector<Variable*> order;
  const auto ins = as_set(inputs);
  between(inputs, outputs, &order);
  std::vector<Apply*> out;
  std::unordered_set<const Apply*> seen;
  for (Variable* v : order)
    if (v->owner() && !ins.contains(v) && seen.insert(v->owner()).second)
      out.push_back(v->owner());
  return out;
}

std::vector<Var> vars_between(std::span<const Var> inputs, std::span<const Var> outputs) {
  std::vector<Variable*> order;
  between(inputs, outputs, &order);
  std::vector<Var> out;
  out.reserve(order.size());
  for (Variable* v : order) out.push_back(v->ref());
  return out;
}

bool depends_on(const Var& var, const Var& ancestor) {
  if (var == ancestor) return true;
  bool found = false;
  const Var outs[] = {var};
  walk_post_order(outs, {}, [&](Variable* v, bool) {
    if (v == ancestor.get()) found = true;
  });
  return found;
}

ClonedGraph clone_graph(std::span<const Var> inputs, std::span<const Var> outputs,
                        bool copy_orphans) {
  ClonedGraph result;
  auto& map = result.map;
  for (const Var& in : inputs) {
    if (map.contains(in.get()))
      throw Error("clone_graph: input `" + in->name() + "` is given twice");
    Var copy = Variable::make(in->type(), in->name());
    map.emplace(in.get(), copy);
    result.inputs.push_back(std::move(copy));
  }
  std::vector<Var> new_inputs;
  walk_post_order(outputs, as_set(inputs), [&](Variable* v, bool leaf) {
    if (map.contains(v)) return;
    if (leaf) {
      if (copy_orphans) {
        if (const Constant* c = v->as_constant())
          map.emplace(v, Constant::make(c->value(), c->type(), c->name()));
        else
          map.emplace(v, Variable::make(v->type(), v->name()));
      }
      return;
    }
    Apply* node = v->owner();
    new_inputs.clear();
    for (const Var& in : node->inputs()) {
      auto it = map.find(in.get());
      new_inputs.push_back(it == map.end() ? in : it->second);
    }
    ApplyRef copy = node->clone_with_inputs(new_inputs);
    for (std::size_t i = 0; i < node->num_outputs(); ++i)
      map.emplace(&node->output_var(i), copy->output(i));
  });
  for (const Var& out : outputs) {
    auto it = map.find(out.get());
    result.outputs.push_back(it == map.end() ? out : it->second);
  }
  return result;
}

std::vector<Var> clone_replace(std::span<const Var> outputs,
                               const std::unordered_map<const Variable*, Var>& replace) {
  std::unordered_map<const Variable*, Var> map = replace;
  std::unordered_set<const Variable*> stop;
  for (const auto& [from, to] : replace) stop.insert(from);
  std::vector<Var> new_inputs;
  walk_post_order(outputs, stop, [&](Variable* v, bool leaf) {
    if (leaf || map.contains(v)) return;
    Apply* node = v->owner();
    bool changed = false;
    new_inputs.clear();
    for (const Var& in : node->inputs()) {
      auto it = map.find(in.get());
      changed |= it != map.end();
      new_inputs.push_back(it == map.end() ? in : it->second);
    }
    if (!changed) return;
    // Same input types: a structural copy. Otherwise the Op types the new node.
    bool same_types = true;
    for (std::size_t i = 0; i < node->num_inputs(); ++i)
      same_types &= new_inputs[i]->type()->equals(*node->input(i)->type());
    ApplyRef copy =
        same_types ? node->clone_with_inputs(new_inputs) : node->op().make_node(new_inputs);
    for (std::size_t i = 0; i < node->num_outputs(); ++i)
      map.emplace(&node->output_var(i), copy->output(i));
  });
  std::vector<Var> out;
  for (const Var& o : outputs) {
    auto it = map.find(o.get());
    out.push_back(it == map.end() ? o : it->second);
  }
  return out;
}

}  // namespace rw

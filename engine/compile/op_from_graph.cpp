// OpFromGraph: construction, perform through a compiled inner function,
// shapes and gradients from the inner graph, inlining and printing.
#include "engine/compile/op_from_graph.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/compile/scan.hpp"
#include "engine/compile/shared.hpp"
#include "engine/grad/grad.hpp"
#include "engine/grad/rop.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "engine/rewrite/rewrite_result.hpp"
#include "ops/api.hpp"

namespace rw {
namespace {

bool is_float_tensor(const Var& v) {
  const TensorType* t = v->tensor_type();
  return t && is_float(t->dtype());
}

/// connection[i][j]: whether outputs[j] depends on inputs[i], following
/// each node's connection pattern.
std::vector<std::vector<bool>> compute_pattern(std::span<const Var> inputs,
                                               std::span<const Var> outputs) {
  std::unordered_map<const Variable*, std::vector<bool>> deps;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    auto& d = deps[inputs[i].get()];
    d.resize(inputs.size());
    d[i] = true;
  }
  for (Apply* node : io_toposort(inputs, outputs)) {
    const auto pattern = node->op().connection_pattern(*node);
    for (std::size_t j = 0; j < node->num_outputs(); ++j) {
      std::vector<bool> d(inputs.size());
      for (std::size_t k = 0; k < node->num_inputs(); ++k) {
        if (!pattern[k][j]) continue;
        auto it = deps.find(node->input(k).get());
        if (it == deps.end()) continue;
        for (std::size_t i = 0; i < inputs.size(); ++i) d[i] = d[i] || it->second[i];
      }
      deps[&node->output_var(j)] = std::move(d);
    }
  }
  std::vector<std::vector<bool>> out(inputs.size(), std::vector<bool>(outputs.size()));
  for (std::size_t j = 0; j < outputs.size(); ++j)
    if (auto it = deps.find(outputs[j].get()); it != deps.end())
      for (std::size_t i = 0; i < inputs.size(); ++i) out[i][j] = it->second[i];
  return out;
}

/// A fresh copy of the graph from `inputs` to `outputs`, with `replacements`
/// in place of the inputs.
std::vector<Var> copy_with(std::span<const Var> inputs, std::span<const Var> outputs,
                           std::span<const Var> replacements) {
  const ClonedGraph c = clone_graph(inputs, outputs);
  std::unordered_map<const Variable*, Var> map;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) map[c.inputs[i].get()] = replacements[i];
  return clone_replace(c.outputs, map);
}

}  // namespace

OpFromGraph::OpFromGraph(std::vector<Var> inputs, std::vector<Var> outputs,
                         OpFromGraphOptions options)
    : options_(std::move(options)) {
  const std::string& nm = options_.name;
  if (nm.empty()) throw Error("`OpFromGraph`: the name is empty");
  if (outputs.empty()) throw Error(fmt::format("`{}`: an OpFromGraph needs at least one output", nm));
  std::unordered_set<const Variable*> seen;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]) throw Error(fmt::format("`{}`: input {} is null", nm, i));
    if (inputs[i]->is_constant())
      throw Error(fmt::format("`{}`: input {} is a constant ({}); constants belong in the graph",
                              nm, i, describe(*inputs[i])));
    if (!seen.insert(inputs[i].get()).second)
      throw Error(fmt::format("`{}`: input {} ({}) is given twice", nm, i, describe(*inputs[i])));
  }
  for (std::size_t j = 0; j < outputs.size(); ++j)
    if (!outputs[j]) throw Error(fmt::format("`{}`: output {} is null", nm, j));
  for (const Var& root : graph_inputs(outputs, inputs)) {
    if (seen.count(root.get()) || root->is_constant()) continue;
    if (as_shared(root)) {
      shared_.push_back(root);
      continue;
    }
    throw MissingInputError(fmt::format(
        "`{}`: the outputs depend on {}, which is neither an input, a constant nor a shared "
        "variable",
        nm, describe(*root)));
  }
  num_explicit_ = inputs.size();
  std::vector<Var> all = inputs;
  all.insert(all.end(), shared_.begin(), shared_.end());
  ClonedGraph c = clone_graph(all, outputs);
  inner_inputs_ = std::move(c.inputs);
  inner_outputs_ = std::move(c.outputs);

  if (!options_.grad_overrides.empty() && !options_.lop_overrides.empty())
    throw Error(fmt::format("`{}`: give grad_overrides or lop_overrides, not both", nm));
  auto check_count = [&](std::size_t got, std::size_t want, const char* what, const char* per) {
    if (got != 0 && got != want)
      throw Error(fmt::format("`{}`: {} has {} entries for {} {}", nm, what, got, want, per));
  };
  check_count(options_.grad_overrides.size(), num_explicit_, "grad_overrides", "inputs");
  check_count(options_.lop_overrides.size(), num_explicit_, "lop_overrides", "inputs");
  check_count(options_.rop_overrides.size(), outputs.size(), "rop_overrides", "outputs");

  pattern_ = compute_pattern(inner_inputs_, inner_outputs_);
  if (options_.connection_pattern) {
    const auto& given = *options_.connection_pattern;
    if (given.size() != num_explicit_ && given.size() != all.size())
      throw Error(fmt::format("`{}`: connection_pattern has {} rows for {} inputs", nm,
                              given.size(), num_explicit_));
    for (std::size_t i = 0; i < given.size(); ++i) {
      if (given[i].size() != outputs.size())
        throw Error(fmt::format("`{}`: connection_pattern row {} has {} entries for {} outputs", nm,
                                i, given[i].size(), outputs.size()));
      pattern_[i] = given[i];
    }
  }
}

ApplyRef OpFromGraph::make_node(std::span<const Var> inputs) const {
  std::vector<Var> in(inputs.begin(), inputs.end());
  if (in.size() == num_explicit_ && !shared_.empty())
    in.insert(in.end(), shared_.begin(), shared_.end());
  if (in.size() != inner_inputs_.size())
    throw TypeError(fmt::format("`{}` takes {} inputs, got {}", options_.name, num_explicit_,
                                inputs.size()));
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) throw TypeError(fmt::format("`{}`: input {} is null", options_.name, i));
    const Type& want = *inner_inputs_[i]->type();
    if (!want.is_super(*in[i]->type()))
      throw TypeError(fmt::format("`{}`: input {} ({}) has type `{}`, but the inner graph takes `{}`",
                                  options_.name, i, describe(*in[i]), in[i]->type()->to_string(),
                                  want.to_string()));
  }
  std::vector<TypePtr> types;
  for (const Var& o : inner_outputs_) types.push_back(o->type());
  return Apply::create(ptr(), in, types);
}

void OpFromGraph::perform(const Apply&, std::span<const Tensor> inputs,
                          std::span<Tensor> outputs) const {
  std::call_once(compiled_once_, [&] {
    FunctionOptions fo;
    fo.rewrite = options_.rewrite;
    fo.name = options_.name;
    fo.on_unused_input = UnusedInput::Ignore;
    std::vector<In> ins(inner_inputs_.begin(), inner_inputs_.end());
    fn_ = std::make_unique<FunctionBase>(std::move(ins), inner_outputs_, std::move(fo));
  });
  // One compiled function serves every node of this Op; its storage is not
  // for concurrent calls.
  std::lock_guard lock(call_mutex_);
  fn_->call_into(inputs, outputs.data());
}

std::vector<ShapeVars> OpFromGraph::infer_shape(const Apply& node,
                                                std::span<const ShapeVars> input_shapes) const {
  std::unordered_map<const Variable*, ShapeVars> shapes;
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i)
    shapes[inner_inputs_[i].get()] = input_shapes[i];
  auto shape_of = [&](const Var& v) -> const ShapeVars& {
    if (auto it = shapes.find(v.get()); it != shapes.end()) return it->second;
    if (const Constant* c = v->as_constant()) {
      ShapeVars s;
      for (std::int64_t e : c->value().shape()) s.push_back(constant(static_cast<double>(e), DType::Int64));
      return shapes.emplace(v.get(), std::move(s)).first->second;
    }
    throw NotImplementedError(
        fmt::format("`{}`: no shape for {} in the inner graph", options_.name, describe(*v)));
  };
  for (Apply* inner : io_toposort(inner_inputs_, inner_outputs_)) {
    std::vector<ShapeVars> in;
    for (const Var& x : inner->inputs()) in.push_back(shape_of(x));
    std::vector<ShapeVars> out = inner->op().infer_shape(*inner, in);
    for (std::size_t j = 0; j < out.size(); ++j) shapes[&inner->output_var(j)] = std::move(out[j]);
  }
  // The shapes may read inner variables (a reshape's target): rebuild them on
  // the node's inputs.
  std::vector<Var> flat;
  std::vector<std::size_t> sizes;
  for (const Var& o : inner_outputs_) {
    const ShapeVars& s = shape_of(o);
    sizes.push_back(s.size());
    flat.insert(flat.end(), s.begin(), s.end());
  }
  std::unordered_map<const Variable*, Var> map;
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i) map[inner_inputs_[i].get()] = node.input(i);
  const std::vector<Var> outer = clone_replace(flat, map);
  std::vector<ShapeVars> result;
  std::size_t at = 0;
  for (std::size_t n : sizes) {
    result.emplace_back(outer.begin() + static_cast<std::ptrdiff_t>(at),
                        outer.begin() + static_cast<std::ptrdiff_t>(at + n));
    at += n;
  }
  return result;
}

std::vector<std::vector<bool>> OpFromGraph::connection_pattern(const Apply&) const {
  return pattern_;
}

void OpFromGraph::build_lop() const {
  const ClonedGraph c = clone_graph(inner_inputs_, inner_outputs_);
  const std::vector<Var>& ins = c.inputs;
  const std::vector<Var>& outs = c.outputs;
  std::vector<Var> ogs;
  for (std::size_t j = 0; j < outs.size(); ++j)
    ogs.push_back(Variable::make(outs[j]->type(), fmt::format("g{}", j)));

  GradOptions go;
  go.disconnected_inputs = DisconnectedInputs::Ignore;
  go.return_disconnected = ReturnDisconnected::Disconnected;
  go.null_gradients = NullGradients::Return;
  for (std::size_t j = 0; j < outs.size(); ++j)
    if (is_float_tensor(outs[j])) go.known_grads.emplace_back(outs[j], ogs[j]);

  std::vector<Var> defaults(ins.size());
  if (!go.known_grads.empty()) defaults = rw::grad(Var(), ins, go);

  std::vector<Var> grad_outputs;
  lop_index_.assign(ins.size(), -1);
  lop_marker_.assign(ins.size(), Var());
  for (std::size_t i = 0; i < ins.size(); ++i) {
    Var g;
    bool connected = false;
    for (bool b : pattern_[i]) connected = connected || b;
    using K = Override<GradOverrideFn>::Kind;
    K kind = K::Default;
    std::string why;
    if (i < options_.grad_overrides.size()) {
      const auto& o = options_.grad_overrides[i];
      kind = o.kind();
      why = o.why();
      if (kind == K::Callable) g = o.fn()(ins, ogs);
    } else if (i < options_.lop_overrides.size()) {
      const auto& o = options_.lop_overrides[i];
      kind = static_cast<K>(o.kind());
      why = o.why();
      if (kind == K::Callable) g = o.fn()(ins, outs, ogs);
    }
    if (kind == K::Default) g = connected ? defaults[i] : Var();
    if (kind == K::Null) g = Variable::make(NullType::make(why));
    if (!g || is_disconnected_grad(g)) {
      lop_marker_[i] = Variable::make(DisconnectedType::make());
      continue;
    }
    if (is_null_grad(g)) {
      lop_marker_[i] = g;
      continue;
    }
    const TensorType* gt = g->tensor_type();
    const TensorType* xt = ins[i]->tensor_type();
    if (!gt || !xt || gt->ndim() != xt->ndim())
      throw Error(fmt::format("`{}`: the gradient override of input {} gives `{}` for an input of "
                              "type `{}`",
                              options_.name, i, g->type()->to_string(), ins[i]->type()->to_string()));
    if (is_float(xt->dtype()) && gt->dtype() != xt->dtype()) g = cast(g, xt->dtype());
    lop_index_[i] = static_cast<int>(grad_outputs.size());
    grad_outputs.push_back(g);
  }
  if (grad_outputs.empty()) return;
  std::vector<Var> lop_inputs = ins;
  lop_inputs.insert(lop_inputs.end(), ogs.begin(), ogs.end());
  OpFromGraphOptions o;
  o.name = "grad_of_" + options_.name;
  o.inline_graph = options_.inline_graph;
  o.rewrite = options_.rewrite;
  lop_op_ = std::make_shared<OpFromGraph>(std::move(lop_inputs), std::move(grad_outputs), std::move(o));
}

std::vector<Var> OpFromGraph::L_op(const Apply& node, std::span<const Var> output_grads) const {
  std::call_once(lop_once_, [&] { build_lop(); });
  std::vector<Var> result(node.num_inputs());
  std::vector<Var> outs;
  if (lop_op_) {
    std::vector<Var> args(node.inputs().begin(), node.inputs().end());
    for (std::size_t j = 0; j < node.num_outputs(); ++j) {
      const Var& g = output_grads[j];
      const Var o = node.output(j);
      args.push_back(is_float_tensor(o) && !is_disconnected_grad(g) && !is_null_grad(g) ? g
                                                                                      : zeros_like(o));
    }
    outs = lop_op_->make_node(args)->outputs();
  }
  for (std::size_t i = 0; i < node.num_inputs(); ++i)
    result[i] = lop_index_[i] >= 0 ? outs[static_cast<std::size_t>(lop_index_[i])] : lop_marker_[i];
  return result;
}

void OpFromGraph::build_rop() const {
  const ClonedGraph c = clone_graph(inner_inputs_, inner_outputs_);
  const std::vector<Var>& ins = c.inputs;
  const std::vector<Var>& outs = c.outputs;
  std::vector<Var> evs, wrt, points;
  for (std::size_t i = 0; i < ins.size(); ++i) {
    evs.push_back(Variable::make(ins[i]->type(), fmt::format("v{}", i)));
    if (is_float_tensor(ins[i])) {
      wrt.push_back(ins[i]);
      points.push_back(evs.back());
    }
  }
  std::vector<Var> results(outs.size());
  std::vector<Var> defaults;
  bool need_defaults = false;
  for (std::size_t j = 0; j < outs.size(); ++j)
    need_defaults = need_defaults || j >= options_.rop_overrides.size() ||
                    options_.rop_overrides[j].kind() == Override<RopOverrideFn>::Kind::Default;
  if (need_defaults) defaults = Rop(outs, wrt, points, DisconnectedInputs::Ignore);
  for (std::size_t j = 0; j < outs.size(); ++j) {
    using K = Override<RopOverrideFn>::Kind;
    const K kind = j < options_.rop_overrides.size() ? options_.rop_overrides[j].kind() : K::Default;
    switch (kind) {
      case K::Default: results[j] = defaults[j]; break;
      case K::Callable: results[j] = options_.rop_overrides[j].fn()(ins, evs); break;
      case K::Disconnected: results[j] = zeros_like(outs[j]); break;
      case K::Null:
        throw NotImplementedError(fmt::format("`{}`: R_op of output {} is undefined: {}",
                                              options_.name, j, options_.rop_overrides[j].why()));
    }
    if (!results[j]) results[j] = zeros_like(outs[j]);
  }
  std::vector<Var> rop_inputs = ins;
  rop_inputs.insert(rop_inputs.end(), evs.begin(), evs.end());
  OpFromGraphOptions o;
  o.name = "rop_of_" + options_.name;
  o.inline_graph = options_.inline_graph;
  o.rewrite = options_.rewrite;
  rop_op_ = std::make_shared<OpFromGraph>(std::move(rop_inputs), std::move(results), std::move(o));
}

std::vector<Var> OpFromGraph::R_op(const Apply& node, std::span<const Var> eval_points) const {
  std::call_once(rop_once_, [&] { build_rop(); });
  std::vector<Var> args(node.inputs().begin(), node.inputs().end());
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    const Var& x = node.input(i);
    Var v = eval_points[i] && is_float_tensor(x) ? eval_points[i] : zeros_like(x);
    if (v->tensor_type()->dtype() != x->tensor_type()->dtype()) v = cast(v, x->tensor_type()->dtype());
    args.push_back(v);
  }
  return rop_op_->make_node(args)->outputs();
}

std::vector<Var> OpFromGraph::expand(std::span<const Var> inputs) const {
  return copy_with(inner_inputs_, inner_outputs_, inputs);
}

std::shared_ptr<const OpFromGraph> op_from_graph(std::vector<Var> inputs, std::vector<Var> outputs,
                                                 OpFromGraphOptions options) {
  return std::make_shared<OpFromGraph>(std::move(inputs), std::move(outputs), std::move(options));
}

namespace {

/// op_from_graph{inline}(x…) -> its inner graph on x…
class InlineOpFromGraph final : public OpRewriter<OpFromGraph> {
 public:
  InlineOpFromGraph() : OpRewriter("inline_op_from_graph", /*depth=*/0) {}
  std::string describe() const override { return "op_from_graph{inline}(x…) -> inner graph(x…)"; }

 protected:
  RewriteResult rewrite(FunctionGraph&, Apply& node, const OpFromGraph& op,
                        const RewriteContext&) const override {
    if (!op.is_inline()) return RewriteResult::fail("the OpFromGraph is not inline");
    return RewriteResult::replace_outputs(op.expand(node.inputs()));
  }
};

}  // namespace

NodeRewriterPtr inline_op_from_graph_rewriter() {
  static const NodeRewriterPtr r = std::make_shared<InlineOpFromGraph>();
  return r;
}

void register_op_from_graph_rewrites(RewriteDB& optdb) {
  optdb.sub<EquilibriumDB>("canonicalize")
      .add(inline_op_from_graph_rewriter(), {"fast_run", "fast_compile"});
}

std::size_t expand_inline_op_from_graph(FunctionGraph& fgraph) {
  std::size_t count = 0;
  for (bool changed = true; changed;) {
    changed = false;
    for (Apply* node : fgraph.toposort()) {
      const auto* op = dynamic_cast<const OpFromGraph*>(&node->op());
      if (!op || !op->is_inline()) continue;
      const std::vector<Var> repl = op->expand(node->inputs());
      std::vector<std::pair<Var, Var>> pairs;
      for (std::size_t j = 0; j < repl.size(); ++j) pairs.emplace_back(node->output(j), repl[j]);
      fgraph.replace_all(pairs, "inline_op_from_graph");
      ++count;
      changed = true;
      break;  // the node list is stale after a change
    }
  }
  return count;
}

void register_op_from_graph(OpRegistry& registry, std::shared_ptr<const OpFromGraph> op) {
  const int n = static_cast<int>(op->num_explicit_inputs());
  const int all = static_cast<int>(op->inner_inputs().size());
  registry.add({.name = std::string(op->name()),
                .doc = fmt::format("OpFromGraph `{}` ({} inputs, {} outputs)", op->name(), n,
                                   op->inner_outputs().size()),
                .params = {},
                .min_inputs = n,
                .max_inputs = all,
                .factory = [op](const Props&) -> OpPtr { return op; }});
}

std::string debugprint_expanded(std::span<const Var> outputs) {
  std::string out = debugprint(outputs);
  // Every Op with an inner graph (OpFromGraph, Scan), each once.
  struct Inner {
    std::string_view name;
    std::span<const Var> outputs;
  };
  std::vector<Inner> queue;
  std::unordered_set<const Op*> seen;
  auto collect = [&](std::span<const Var> roots) {
    for (const Var& v : ancestors(roots)) {
      if (!v->owner()) continue;
      const Op& op = v->owner()->op();
      if (const auto* ofg = dynamic_cast<const OpFromGraph*>(&op); ofg && seen.insert(&op).second)
        queue.push_back({ofg->name(), ofg->inner_outputs()});
      else if (const auto* loop = dynamic_cast<const ScanOp*>(&op); loop && seen.insert(&op).second)
        queue.push_back({loop->name(), loop->inner_outputs()});
    }
  };
  collect(outputs);
  for (std::size_t k = 0; k < queue.size(); ++k) {
    out += fmt::format("\ninner graph of `{}`:\n", queue[k].name);
    out += debugprint(queue[k].outputs);
    collect(queue[k].outputs);
  }
  return out;
}

}  // namespace rw

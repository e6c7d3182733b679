// ElemwiseFusion: finding groups of elementwise nodes, building their
// Composites, and fusing reductions of elementwise results.
#include "ops/elemwise/fusion.hpp"

#include <algorithm>
#include <optional>
#include <span>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/detail/flat_table.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/shape/alloc.hpp"

namespace rw {

namespace {

/// The most nodes one search for a path from a reader of an exported value
/// back into its group visits before it gives up and keeps the value out.
constexpr std::size_t kCycleSearchBudget = 512;

using ops_detail::op_as;

/// The elementwise Op of `op`: an Elemwise, Fill or Composite (the classes
/// of ElemwiseBase, all final), or nullptr.
const ElemwiseBase* elemwise_base(const Op& op) {
  if (const auto* e = op_as<Elemwise>(op)) return e;
  if (const auto* c = op_as<Composite>(op)) return c;
  if (const auto* f = op_as<Fill>(op)) return f;
  return nullptr;
}

/// Whether `node` computes its outputs elementwise from its inputs: an
/// elementwise Op not in place, or zeros_like/ones_like (a constant of the
/// input's shape: a program that reads nothing of its input).
bool fusable(const Apply& node) {
  if (const ElemwiseBase* e = elemwise_base(node.op())) return e->inplace_pattern().empty();
  return op_as<FullLike>(node.op()) != nullptr;
}

/// The program computing `node`'s outputs from inputs of these dtypes: the
/// Op's own (cached by the Op), or for zeros_like/ones_like one built in
/// `scratch`.
const ScalarProgram& node_program(const Apply& node, std::span<const DType> dtypes,
                                  ScalarProgram& scratch) {
  if (const ElemwiseBase* e = elemwise_base(node.op())) return e->program(dtypes);
  const auto& full = dynamic_cast<const FullLike&>(node.op());
  scratch = ScalarProgram();
  scratch.input(dtypes[0]);
  const DType out = node.output_var(0).tensor_type()->dtype();
  scratch.output(scratch.constant(full.ones() ? 1.0 : 0.0, out));
  return scratch;
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

/// A pointer and the dense number it was given.
template <class T> struct NumberedSlot {
  const T* key;
  std::uint32_t number;
};
template <class T> struct NumberedTraits {
  static NumberedSlot<T> empty() { return {nullptr, 0}; }
  static bool is_empty(const NumberedSlot<T>& s) { return s.key == nullptr; }
  static std::uint64_t hash(const NumberedSlot<T>& s) { return hash_of(s.key); }
  static std::uint64_t hash_of(const T* p) { return reinterpret_cast<std::uintptr_t>(p) >> 3; }
};

/// Dense numbers for pointers, in the order they are first asked for.
template <class T> class Numbering {
 public:
  /// The number of `p`, if it has one.
  std::optional<std::uint32_t> find(const T* p) const {
    const auto* s = table_.find(Traits::hash_of(p), [&](const Slot& x) { return x.key == p; });
    return s ? std::optional<std::uint32_t>(s->number) : std::nullopt;
  }
  /// The number of `p`, giving it the next one when it has none.
  std::uint32_t number(const T* p) {
    if (const auto n = find(p)) return *n;
    const auto n = static_cast<std::uint32_t>(table_.size());
    table_.insert({p, n});
    return n;
  }
  std::size_t size() const { return table_.size(); }
  void reserve(std::size_t n) { table_.reserve(n); }

 private:
  using Slot = NumberedSlot<T>;
  using Traits = NumberedTraits<T>;
  detail::FlatTable<Slot, Traits> table_;
};

/// The grouping of one run of the pass. Nodes are numbered by their position
/// in the graph's topological order and variables densely (each node's
/// outputs in a row, then the inputs and constants it reads); the graph's
/// edges are read once into flat arrays of those numbers (each node's inputs,
/// each output's clients in the graph's order), so growing groups hashes
/// nothing. Everything a growth asks (membership, the cycle searches' marks,
/// what each variable is to the group) lives in flat arrays stamped with the
/// growth it belongs to, so that starting a new group clears nothing.
class Grouper {
 public:
  Grouper(const FunctionGraph& fgraph, const FusionOptions& options)
      : fgraph_(fgraph), options_(options), order_(fgraph.toposort()) {
    const std::size_t n = order_.size();
    nodes_.resize(n);
    position_.reserve(n);
    out_base_.resize(n + 1);
    for (std::size_t k = 0; k < n; ++k) {
      const Apply& node = *order_[k];
      position_.number(&node);
      nodes_[k].fusable = fusable(node);
      has_reduce_ = has_reduce_ || op_as<Reduce>(node.op()) != nullptr;
      out_base_[k + 1] = out_base_[k] + static_cast<std::uint32_t>(node.num_outputs());
    }
    const std::uint32_t num_outputs = out_base_[n];
    in_begin_.resize(n + 1);
    for (std::size_t k = 0; k < n; ++k) {
      for (const Var& in : order_[k]->inputs()) {
        Edge e{};
        if (const Apply* o = in->owner()) {
          e.owner = *position_.find(o);
          e.var = out_base_[e.owner] + static_cast<std::uint32_t>(in->index());
        } else {
          e.owner = kNone;
          e.var = num_outputs + roots_.number(in.get());
          e.foldable = foldable_constant(*in);
        }
        in_.push_back(e);
      }
      in_begin_[k + 1] = static_cast<std::uint32_t>(in_.size());
    }
    clients_begin_.reserve(num_outputs + 1);
    clients_begin_.push_back(0);
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t o = 0; o < order_[k]->num_outputs(); ++o) {
        for (const Client& c : fgraph.clients(order_[k]->output_var(o)))
          clients_.push_back(c.is_output() ? kNone : *position_.find(c.node));
        clients_begin_.push_back(static_cast<std::uint32_t>(clients_.size()));
      }
    vars_.resize(num_outputs + roots_.size());
  }

  /// Whether the graph had a Reduce node when grouping started.
  bool has_reduce() const { return has_reduce_; }

  /// Finds the groups, latest root first, and builds their programs.
  std::vector<Group> find_groups() {
    std::vector<Group> groups;
    // Groups grow from the outputs towards the inputs, each node popped from
    // a heap ordered by graph position (latest first): every client a node
    // has in the group is then already a member when the node is considered.
    for (std::size_t r = order_.size(); r-- > 0;) {
      if (nodes_[r].assigned || !nodes_[r].fusable) continue;
      root_ = static_cast<std::uint32_t>(r);
      pattern_ = order_[r]->output_var(0).tensor_type();
      grow(/*bounded=*/false);
      if (num_external_ > options_.max_inputs) grow(/*bounded=*/true);
      for (std::uint32_t m : members_) nodes_[m].assigned = true;
      if (members_.size() < 2 || num_external_ == 0) continue;
      groups.push_back(build());
    }
    return groups;
  }

 private:
  /// No node: the owner of a graph input or constant, the reader of a graph
  /// output.
  static constexpr std::uint32_t kNone = 0xffffffffu;
  /// Per node (by position): facts, and marks stamped with the growth (or,
  /// for `visited`, the search) that set them.
  struct NodeState {
    bool fusable = false;
    bool assigned = false;  // taken by an earlier group (or its root)
    std::uint32_t member = 0;
    std::uint32_t queued = 0;
    std::uint32_t reaches = 0;  // known to lead back into the group
    std::uint32_t clear = 0;    // known not to
    std::uint32_t visited = 0;
  };
  /// One input slot: the variable read, its owner's position (kNone for a
  /// graph input or constant), and whether it is a constant of one element.
  struct Edge {
    std::uint32_t var;
    std::uint32_t owner;
    bool foldable = false;
  };
  /// What a variable is to the growing group, valid when `stamp` is its stamp.
  enum class Role : std::uint8_t { None, External, Internal, Input, Constant };
  struct VarState {
    std::uint32_t stamp = 0;
    Role role = Role::None;
    Reg reg;  // for Internal (once built), Input and Constant
  };

  std::span<const Edge> inputs(std::uint32_t p) const {
    return {in_.data() + in_begin_[p], in_.data() + in_begin_[p + 1]};
  }
  /// The readers of variable `v`, an output of a node, in the graph's order.
  std::span<const std::uint32_t> clients(std::uint32_t v) const {
    return {clients_.data() + clients_begin_[v], clients_.data() + clients_begin_[v + 1]};
  }
  VarState& var(std::uint32_t v) {
    VarState& s = vars_[v];
    if (s.stamp != stamp_) s = {stamp_, Role::None, Reg{}};
    return s;
  }
  bool outside(std::uint32_t client) const {
    return client == kNone || nodes_[client].member != stamp_;
  }

  /// Whether a node outside the group, reading a value the group would
  /// export, leads back into the group (the Composite would then feed
  /// itself). A forward search bounded by the root's position, which every
  /// member precedes, and by a budget: a search that runs out says yes.
  /// Nodes it proves to reach the group, or not to, keep that answer while
  /// the group grows: later members come earlier in graph order than every
  /// node a search has visited.
  bool leads_back(std::uint32_t start) {
    ++search_;
    stack_.assign(1, start);
    seen_.clear();
    nodes_[start].visited = search_;
    std::size_t budget = kCycleSearchBudget;
    bool found = false;
    while (!stack_.empty()) {
      const std::uint32_t n = stack_.back();
      stack_.pop_back();
      seen_.push_back(n);
      const NodeState& s = nodes_[n];
      if (s.member == stamp_ || s.reaches == stamp_ || budget-- == 0) {
        found = true;
        break;
      }
      if (s.clear == stamp_ || n > root_) continue;
      for (std::uint32_t v = out_base_[n]; v < out_base_[n + 1]; ++v)
        for (std::uint32_t c : clients(v))
          if (c != kNone && nodes_[c].visited != search_) {
            nodes_[c].visited = search_;
            stack_.push_back(c);
          }
    }
    // Every node seen lies on a path from start: when start reaches the
    // group only start is known to (the others may not); otherwise none does.
    if (found) nodes_[start].reaches = stamp_;
    else
      for (std::uint32_t n : seen_) nodes_[n].clear = stamp_;
    return found;
  }

  /// Adds `p` to the group: its outputs are no longer read from outside, its
  /// inputs are, and their owners are candidates.
  void join(std::uint32_t p) {
    nodes_[p].member = stamp_;
    members_.push_back(p);
    for (std::uint32_t v = out_base_[p]; v < out_base_[p + 1]; ++v) {
      VarState& s = var(v);
      if (s.role == Role::External) --num_external_;
      s.role = Role::Internal;
    }
    for (const Edge& e : inputs(p))
      if (!e.foldable)
        if (VarState& s = var(e.var); s.role == Role::None) {
          s.role = Role::External;
          ++num_external_;
        }
    for (const Edge& e : inputs(p))
      if (e.owner != kNone) {
        NodeState& s = nodes_[e.owner];
        if (!s.assigned && s.queued != stamp_) {
          s.queued = stamp_;
          heap_.push_back(e.owner);
          std::push_heap(heap_.begin(), heap_.end());
        }
      }
  }

  /// Grows the group from the root. Unbounded, the inputs counted while
  /// growing include values the group absorbs later (a wide DAG has many),
  /// so the limit is checked on the result; bounded (when that result reads
  /// too many), a node joins only if the inputs counted so far stay within
  /// the limit.
  void grow(bool bounded) {
    ++stamp_;
    members_.clear();
    heap_.clear();
    num_external_ = 0;
    join(root_);
    while (!heap_.empty()) {
      std::pop_heap(heap_.begin(), heap_.end());
      const std::uint32_t p = heap_.back();
      heap_.pop_back();
      if (!nodes_[p].fusable || nodes_[p].member == stamp_) continue;
      const Apply& node = *order_[p];
      bool fits = true, used_outside = false;
      for (std::size_t o = 0; o < node.num_outputs() && fits; ++o) {
        fits = same_pattern(*node.output_var(o).tensor_type(), *pattern_);
        for (std::uint32_t c : clients(out_base_[p] + static_cast<std::uint32_t>(o)))
          used_outside = used_outside || outside(c);
      }
      if (!fits) continue;
      if (used_outside && !(options_.multi_output && exportable(p))) continue;
      if (bounded && !within_limit(p)) continue;
      join(p);
    }
  }

  /// Whether every reader of `p`'s outputs outside the group may read them
  /// from the Composite (none leads back into the group).
  bool exportable(std::uint32_t p) {
    for (std::uint32_t v = out_base_[p]; v < out_base_[p + 1]; ++v)
      for (std::uint32_t c : clients(v))
        if (c != kNone && nodes_[c].member != stamp_ && leads_back(c)) return false;
    return true;
  }

  /// Whether the group, with `p`, still reads at most max_inputs values.
  bool within_limit(std::uint32_t p) {
    std::size_t count = num_external_;
    for (std::uint32_t v = out_base_[p]; v < out_base_[p + 1]; ++v)
      count -= var(v).role == Role::External ? 1 : 0;
    SmallVec<std::uint32_t, 8> fresh;
    for (const Edge& e : inputs(p))
      if (!e.foldable && var(e.var).role == Role::None &&
          std::find(fresh.begin(), fresh.end(), e.var) == fresh.end())
        fresh.push_back(e.var);
    return count + fresh.size() <= options_.max_inputs;
  }

  /// The rank of an input of a Composite: the graph's inputs as the graph
  /// lists them, then computed values in graph order, then constants.
  std::size_t input_rank(const Edge& e, const Variable& v) {
    const std::span<const Var> graph_inputs = fgraph_.inputs();
    if (e.owner != kNone) return graph_inputs.size() + e.owner;
    if (graph_inputs_.size() == 0)
      for (const Var& in : graph_inputs) graph_inputs_.number(in.get());
    const auto k = graph_inputs_.find(&v);
    return k ? *k : graph_inputs.size() + order_.size();
  }

  /// The group as a Composite's inputs, program and replaced outputs. The
  /// program has the members in graph order (they joined latest first),
  /// inputs in a stable, readable order.
  Group build() {
    Group g;
    std::reverse(members_.begin(), members_.end());
    // (rank, first use): sorting these is a stable sort by rank.
    ranked_.clear();
    first_use_.clear();
    for (std::uint32_t m : members_) {
      const std::span<const Edge> edges = inputs(m);
      for (std::size_t i = 0; i < edges.size(); ++i)
        if (VarState& s = var(edges[i].var); s.role == Role::External) {
          s.role = Role::Input;
          const Var& in = order_[m]->input(i);
          ranked_.emplace_back(input_rank(edges[i], *in), first_use_.size());
          first_use_.emplace_back(in, edges[i].var);
        }
    }
    std::sort(ranked_.begin(), ranked_.end());
    // Each member's own program (cached by its Op), then the group's sized
    // for all of them at once.
    subs_.clear();
    std::size_t registers = ranked_.size(), instructions = 0;
    DTypes dtypes;
    for (std::uint32_t m : members_) {
      const Apply& node = *order_[m];
      dtypes.clear();
      for (const Var& in : node.inputs()) dtypes.push_back(in->tensor_type()->dtype());
      const ElemwiseBase* e = elemwise_base(node.op());
      const ScalarProgram* sub = e ? &e->program(dtypes) : nullptr;
      subs_.push_back(sub);
      registers += sub ? sub->num_registers() : 2;
      instructions += sub ? sub->instructions().size() : 0;
    }
    g.program.reserve(registers, instructions, ranked_.size());
    g.inputs.reserve(ranked_.size());
    for (const auto& [rank, k] : ranked_) {
      const auto& [in, id] = first_use_[k];
      var(id).reg = g.program.input(in->tensor_type()->dtype());
      g.inputs.push_back(in);
    }
    SmallVec<Reg, 4> args;
    ScalarProgram scratch;
    for (std::size_t k = 0; k < members_.size(); ++k) {
      const std::uint32_t m = members_[k];
      const Apply& node = *order_[m];
      const std::span<const Edge> edges = inputs(m);
      args.clear();
      for (std::size_t i = 0; i < edges.size(); ++i) {
        VarState& s = var(edges[i].var);
        if (s.role == Role::None) {
          RW_ASSERT(edges[i].foldable, "ElemwiseFusion: an input of the group was not collected");
          const Tensor& value = node.input(i)->as_constant()->value();
          s.reg = visit_dtype(value.dtype(), [&]<class T>() {
            return g.program.constant_of<T>(value.contiguous().item<T>());
          });
          s.role = Role::Constant;
        }
        args.push_back(s.reg);
      }
      if (!subs_[k]) {  // zeros_like/ones_like
        dtypes.clear();
        for (const Var& in : node.inputs()) dtypes.push_back(in->tensor_type()->dtype());
        subs_[k] = &node_program(node, dtypes, scratch);
      }
      const std::span<const Reg> outs = inliner_.inline_into(
          g.program, *subs_[k], std::span<const Reg>(args.begin(), args.size()));
      for (std::size_t o = 0; o < outs.size(); ++o)
        var(out_base_[m] + static_cast<std::uint32_t>(o)).reg = outs[o];
    }
    // The root's outputs, then the values other nodes (or the graph) read
    // from inside the group, in graph order.
    const Apply& root = *order_[root_];
    for (std::size_t o = 0; o < root.num_outputs(); ++o) {
      g.program.output(var(out_base_[root_] + static_cast<std::uint32_t>(o)).reg);
      g.outputs.push_back(root.output(o));
    }
    for (std::uint32_t m : members_) {
      if (m == root_) continue;
      for (std::uint32_t v = out_base_[m]; v < out_base_[m + 1]; ++v) {
        const std::span<const std::uint32_t> readers = clients(v);
        if (std::none_of(readers.begin(), readers.end(),
                         [&](std::uint32_t c) { return outside(c); }))
          continue;
        g.program.output(var(v).reg);
        g.outputs.push_back(order_[m]->output(v - out_base_[m]));
      }
    }
    return g;
  }

  const FunctionGraph& fgraph_;
  const FusionOptions& options_;
  const std::vector<Apply*> order_;
  Numbering<Apply> position_;
  std::vector<NodeState> nodes_;
  // The graph, read once: node p's outputs are variables out_base_[p] …
  // out_base_[p + 1] - 1; its input slots in_[in_begin_[p] …]; the readers
  // of output variable v clients_[clients_begin_[v] …] (kNone: the graph).
  std::vector<std::uint32_t> out_base_;
  std::vector<std::uint32_t> in_begin_;
  std::vector<Edge> in_;
  std::vector<std::uint32_t> clients_begin_;
  std::vector<std::uint32_t> clients_;
  Numbering<Variable> roots_;  // graph inputs and constants, numbered after the outputs
  std::vector<VarState> vars_;
  Numbering<Variable> graph_inputs_;
  bool has_reduce_ = false;
  // The group being grown.
  std::uint32_t root_ = 0;
  const TensorType* pattern_ = nullptr;
  std::uint32_t stamp_ = 0;
  std::uint32_t search_ = 0;
  std::vector<std::uint32_t> members_;  // latest first while growing
  std::size_t num_external_ = 0;       // values the group reads (constants of one element apart)
  std::vector<std::uint32_t> heap_;
  std::vector<std::uint32_t> stack_, seen_;
  // Buffers of build().
  std::vector<std::pair<std::size_t, std::size_t>> ranked_;
  std::vector<std::pair<Var, std::uint32_t>> first_use_;
  std::vector<const ScalarProgram*> subs_;
  ProgramInliner inliner_;
};

}  // namespace

ElemwiseFusion::ElemwiseFusion(FusionOptions options, std::string name)
    : GraphRewriter(std::move(name)), options_(options) {}

PassReport ElemwiseFusion::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport report;
  report.stop = StopReason::Completed;

  Grouper grouper(fgraph, options_);
  std::vector<Group> groups = grouper.find_groups();

  // Later groups first: an earlier group's root output is an input of a later
  // Composite until it is itself replaced, which moves that use along. A
  // value a later group exports may be an input of an earlier one, which is
  // built after the replacement: it reads the Composite's output instead.
  Numbering<Variable> moved_from;
  std::vector<Var> moved_to;
  for (Group& g : groups) {
    if (!moved_to.empty())
      for (Var& in : g.inputs)
        if (const auto k = moved_from.find(in.get())) in = moved_to[*k];
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
      if (!moved_from.find(old_var.get())) {
        moved_from.number(old_var.get());
        moved_to.push_back(new_var);
      }
      emit_replaced(ctx, name(), old_var, new_var);
    }
  }

  // Replacing groups removes no reduction: without one at the start there is
  // none to fuse.
  if (options_.fuse_reductions && grouper.has_reduce()) {
    for (Apply* node : fgraph.toposort()) {
      const auto* red = op_as<Reduce>(node->op());
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
      ScalarProgram scratch;
      ScalarProgram program = node_program(*owner, dtypes, scratch);
      const auto op =
          std::make_shared<CompositeReduce>(red->reduce_op(), std::move(axis), std::move(program));
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

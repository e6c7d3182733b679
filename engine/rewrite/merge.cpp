// MergeFeature's signature tables and MergeOptimizer.
#include "engine/rewrite/merge.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <string_view>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/op.hpp"
#include "engine/rewrite/detail/flat_table.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw {
namespace detail {

struct NodeSlot {
  std::uint64_t hash;
  Apply* node;
};
struct NodeSlotTraits {
  static NodeSlot empty() { return {0, nullptr}; }
  static bool is_empty(const NodeSlot& s) { return s.node == nullptr; }
  static std::uint64_t hash(const NodeSlot& s) { return s.hash; }
};
struct ConstSlot {
  std::uint64_t hash;
  Variable* constant;
};
struct ConstSlotTraits {
  static ConstSlot empty() { return {0, nullptr}; }
  static bool is_empty(const ConstSlot& s) { return s.constant == nullptr; }
  static std::uint64_t hash(const ConstSlot& s) { return s.hash; }
};

// A node is registered under the signature of its current inputs; when an
// input changes, the signature it was registered under is recomputed from the
// old input, so no second table maps nodes to their signatures.
struct MergeTables {
  FlatTable<NodeSlot, NodeSlotTraits> nodes;
  FlatTable<ConstSlot, ConstSlotTraits> constants;
  // Representative constants stay alive while they are in the table.
  std::vector<Var> keep;
  // An Op stands for its name in the signature: its kind, an integer the Op
  // keeps. Not Op::hash: nodes with equal inputs are rare, so same_node's
  // full comparison seldom runs, while Op::hash would write out every
  // parameter of every new Op (a fused Composite's whole program).
  static std::uint64_t op_hash(const Op& op) { return op.kind().index() * 0xC2B2AE3D27D4EB4FULL; }

  /// The signature of `node`, with input `slot` taken to be `at_slot` (the
  /// signature a node had before an input changed), or its Op taken to be
  /// `as_op` (before its Op changed).
  std::uint64_t signature(const Apply& node, std::size_t slot = SIZE_MAX,
                          const Variable* at_slot = nullptr, const Op* as_op = nullptr) const {
    std::uint64_t h = op_hash(as_op ? *as_op : node.op()) ^ (node.num_outputs() * 0x9E3779B97F4A7C15ULL);
    const std::span<const Var> ins = node.inputs();
    for (std::size_t i = 0; i < ins.size(); ++i) {
      const Variable* in = i == slot ? at_slot : ins[i].get();
      h ^= reinterpret_cast<std::uintptr_t>(in) + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    }
    return h;
  }
};

}  // namespace detail

namespace {

bool same_node(const Apply& a, const Apply& b) {
  if (a.num_inputs() != b.num_inputs() || a.num_outputs() != b.num_outputs()) return false;
  for (std::size_t i = 0; i < a.num_inputs(); ++i)
    if (a.input(i) != b.input(i)) return false;
  return a.op_ptr() == b.op_ptr() || a.op() == b.op();
}

}  // namespace

MergeFeature::MergeFeature() : tables_(std::make_unique<detail::MergeTables>()) {}
MergeFeature::~MergeFeature() = default;

std::size_t MergeFeature::scheduled() const { return scheduled_.size(); }

void MergeFeature::process_constant(const FunctionGraph& fgraph, Variable& c) {
  const Constant* k = c.as_constant();
  const std::uint64_t h = k->signature_hash();
  detail::ConstSlot* found = tables_->constants.find(h, [&](const detail::ConstSlot& s) {
    return s.constant == &c || s.constant->as_constant()->same_value(*k);
  });
  if (!found) {
    tables_->constants.insert({h, &c});
    tables_->keep.push_back(c.ref());
    return;
  }
  if (found->constant == &c) return;
  if (!fgraph.contains(*found->constant)) {
    // The representative left the graph: this constant takes its place.
    found->constant = &c;
    tables_->keep.push_back(c.ref());
    return;
  }
  scheduled_.push_back({nullptr, nullptr, c.ref(), found->constant->ref()});
}

void MergeFeature::process_node(Apply& node) {
  if (!node.op().mergeable()) return;
  const std::uint64_t h = tables_->signature(node);
  detail::NodeSlot* found = tables_->nodes.find(
      h, [&](const detail::NodeSlot& s) { return s.node == &node || same_node(node, *s.node); });
  if (!found) {
    tables_->nodes.insert({h, &node});
  } else if (found->node != &node) {
    scheduled_.push_back({ApplyRef(&node), ApplyRef(found->node), nullptr, nullptr});
  }
}

void MergeFeature::forget_node(Apply& node, std::uint64_t registered_as) {
  tables_->nodes.erase(registered_as, [&](const detail::NodeSlot& s) { return s.node == &node; });
}

void MergeFeature::on_attach(FunctionGraph& fgraph) {
  if (attached_) throw RewriteError("a MergeFeature serves one FunctionGraph at a time");
  attached_ = true;
  // In the graph's order labels, so that of duplicates already there the
  // earliest stays (see MergeOptimizer::apply). Labels are distinct, and in a
  // graph not yet rewritten the import order is already the label order.
  std::vector<std::pair<std::uint64_t, Apply*>> nodes;
  const std::vector<Apply*> all = fgraph.nodes();
  nodes.reserve(all.size());
  for (Apply* node : all) nodes.emplace_back(fgraph.order_of(*node), node);
  const auto by_label = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(nodes.begin(), nodes.end(), by_label))
    std::sort(nodes.begin(), nodes.end(), by_label);
  tables_->nodes.reserve(nodes.size());
  for (const auto& [order, node] : nodes) on_import(fgraph, *node, "merge: attach");
}

void MergeFeature::on_detach(FunctionGraph&) {
  attached_ = false;
  scheduled_.clear();
  tables_ = std::make_unique<detail::MergeTables>();
}

void MergeFeature::on_import(FunctionGraph& fgraph, Apply& node, std::string_view) {
  for (const Var& in : node.inputs())
    if (in->is_constant()) process_constant(fgraph, *in);
  process_node(node);
}

void MergeFeature::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  forget_node(node, tables_->signature(node));
}

void MergeFeature::on_change_input(FunctionGraph& fgraph, const Client& client,
                                   const Var& old_var, const Var& new_var, std::string_view) {
  if (new_var->is_constant()) process_constant(fgraph, *new_var);
  if (client.node) {
    forget_node(*client.node, tables_->signature(*client.node, client.slot, old_var.get()));
    process_node(*client.node);
  }
}

void MergeFeature::on_change_op(FunctionGraph&, Apply& node, const OpPtr& old_op,
                                std::string_view) {
  forget_node(node, tables_->signature(node, SIZE_MAX, nullptr, old_op.get()));
  process_node(node);
}

MergeOptimizer::MergeOptimizer(std::string name) : GraphRewriter(std::move(name)) {}

void MergeOptimizer::add_requirements(FunctionGraph& fgraph) const {
  if (!fgraph.find_feature<MergeFeature>()) fgraph.attach_feature(std::make_shared<MergeFeature>());
}

namespace {

/// A scheduled merge with the position it is made in: merges are made in the
/// graph's order (the order label of the node that gives way), so that in
/// each class of duplicates the earliest node is met first, stays, and the
/// later ones move their uses to it — always along the order labels, which
/// spares the graph its cycle search and relabelling.
struct Pending {
  std::uint64_t order;
  std::size_t seq;
  std::size_t index;  // into the feature's schedule
  bool operator>(const Pending& o) const {
    return order != o.order ? order > o.order : seq > o.seq;
  }
};

}  // namespace

PassReport MergeOptimizer::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  MergeFeature* mf = fgraph.find_feature<MergeFeature>();
  if (!mf)
    throw RewriteError(fmt::format(
        "`{}` needs a MergeFeature on the graph; run it with rewrite(), or call "
        "add_requirements() first",
        name()));
  PassReport report;
  report.stop = StopReason::Completed;
  auto& sched = mf->scheduled_;
  std::vector<std::pair<Var, Var>> pairs;
  // Merges the graph refused in this run: undoing one re-schedules it, so
  // without this list a refusal would be retried forever (Aesara's blacklist).
  std::vector<std::pair<const void*, const void*>> refused;
  std::priority_queue<Pending, std::vector<Pending>, std::greater<>> queue;
  std::size_t taken = 0;
  // Orders the merges scheduled since the last call. Keys are computed here,
  // between replacements, never inside the graph's callbacks.
  auto take_new = [&] {
    for (; taken < sched.size(); ++taken) {
      const MergeFeature::Candidate& c = sched[taken];
      // Constants are roots, before every node: they are merged first.
      std::uint64_t order = 0;
      if (c.constant) {
        if (!fgraph.contains(*c.constant)) continue;
      } else {
        if (!fgraph.contains(*c.node)) continue;
        order = fgraph.order_of(*c.node);
      }
      queue.push({order, taken, taken});
    }
  };
  take_new();
  while (!queue.empty()) {
    // Taken, not copied: each entry is met once, and a copy costs eight
    // reference count changes per merge.
    const MergeFeature::Candidate c = std::move(sched[queue.top().index]);
    queue.pop();
    pairs.clear();
    Apply* node = c.node.get();
    Apply* survivor = nullptr;
    const std::pair<const void*, const void*> key =
        c.constant ? std::pair<const void*, const void*>(c.constant.get(), c.into_constant.get())
                   : std::pair<const void*, const void*>(node, c.into.get());
    if (std::find(refused.begin(), refused.end(), key) != refused.end()) continue;
    if (c.constant) {
      if (!fgraph.contains(*c.constant)) continue;
      if (!fgraph.contains(*c.into_constant)) {
        mf->process_constant(fgraph, *c.constant);
        take_new();
        continue;
      }
      pairs.emplace_back(c.constant, c.into_constant);
    } else {
      if (!fgraph.contains(*node)) continue;
      if (!fgraph.contains(*c.into) || !same_node(*node, *c.into)) {
        mf->process_node(*node);
        take_new();
        continue;
      }
      // The duplicate earlier in the graph's order stays: its uses all come
      // after it, so the other's uses can move to it along the order labels.
      // The types may allow only one direction.
      Apply* drop = node;
      Apply* keep = c.into.get();
      auto can_replace = [&](const Apply* from, const Apply* to) {
        for (std::size_t o = 0; o < from->num_outputs(); ++o)
          if (fgraph.num_clients(from->output_var(o)) > 0 &&
              !from->output_var(o).type()->is_super(*to->output_var(o).type()))
            return false;
        return true;
      };
      bool swap = fgraph.order_of(*keep) > fgraph.order_of(*drop);
      if (swap ? !can_replace(keep, drop) : !can_replace(drop, keep)) swap = !swap;
      if (swap) std::swap(drop, keep);
      survivor = keep;
      // Outputs nobody uses are left alone: once the used ones are moved the
      // node is pruned, and with it those outputs.
      for (std::size_t o = 0; o < drop->num_outputs(); ++o)
        if (fgraph.num_clients(drop->output_var(o)) > 0)
          pairs.emplace_back(drop->output(o), keep->output(o));
      if (pairs.empty()) continue;
    }
    try {
      fgraph.replace_all(pairs, name());
    } catch (const ReplacementError& err) {
      refused.push_back(key);
      if (ctx.tracing()) {
        TraceEvent e;
        e.kind = TraceKind::Refused;
        e.pass = name();
        e.rewriter = name();
        e.node = node;
        e.message = err.what();
        ctx.trace->emit(e);
      }
      take_new();
      continue;
    }
    ++report.applications;
    // When the representative gave way, the survivor takes its place.
    if (survivor && fgraph.contains(*survivor)) mf->process_node(*survivor);
    if (ctx.tracing())
      for (const auto& [old_var, new_var] : pairs) {
        TraceEvent e;
        e.kind = TraceKind::Replaced;
        e.pass = name();
        e.rewriter = name();
        e.old_var = old_var.get();
        e.new_var = new_var.get();
        ctx.trace->emit(e);
      }
    take_new();
  }
  sched.clear();
  report.changed = report.applications > 0;
  return report;
}

}  // namespace rw

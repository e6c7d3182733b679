// RewriterIndex, ChangeListener and NodeProcessor.
#include "engine/rewrite/detail/node_processor.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <typeinfo>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw::detail {

RewriterIndex::RewriterIndex(std::span<const NodeRewriterPtr> rewriters) {
  filters_.reserve(rewriters.size());
  glances_.reserve(rewriters.size());
  filtered_.reserve(rewriters.size());
  for (const auto& r : rewriters) {
    filters_.push_back(&r->filter());
    glances_.push_back(r->filter().glance());
    filtered_.push_back(!r->filter().accepts_all());
  }
  std::vector<std::vector<std::uint32_t>> by_kind;  // by OpKind::index()
  for (std::uint32_t r = 0; r < rewriters.size(); ++r) {
    const Tracks& t = rewriters[r]->tracks();
    if (t.tracks_any()) {
      any_.push_back(r);
      continue;
    }
    for (const auto& n : t.op_names()) {
      const std::uint32_t k = OpKind::of(n).index();
      if (k >= by_kind.size()) by_kind.resize(k + 1);
      if (by_kind[k].empty() || by_kind[k].back() != r) by_kind[k].push_back(r);
    }
    for (const auto& c : t.op_classes()) {
      auto it = std::find_if(by_class_.begin(), by_class_.end(),
                             [&](const ClassRanks& e) { return e.type == c; });
      if (it == by_class_.end()) {
        by_class_.push_back({Op::class_index_of(c), c, {}});
        it = by_class_.end() - 1;
      }
      if (it->ranks.empty() || it->ranks.back() != r) it->ranks.push_back(r);
    }
  }
  // Rewriters of every Op join each kind's list, keeping rank order.
  lists_.reserve(by_kind.size());
  by_kind_.assign(by_kind.size(), std::span<const std::uint32_t>(any_));
  for (std::size_t k = 0; k < by_kind.size(); ++k) {
    if (by_kind[k].empty()) continue;
    std::vector<std::uint32_t> merged;
    merged.reserve(by_kind[k].size() + any_.size());
    std::merge(by_kind[k].begin(), by_kind[k].end(), any_.begin(), any_.end(),
               std::back_inserter(merged));
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    lists_.push_back(std::move(merged));
    by_kind_[k] = lists_.back();
  }
}

std::span<const std::uint32_t> RewriterIndex::class_candidates(const Op& op) const {
  const std::uint32_t number = op.class_index();
  for (const ClassRanks& e : by_class_)
    if (e.number == number && e.type == std::type_index(typeid(op))) return e.ranks;
  return {};
}

std::optional<PassReport> untracked_report(const RewriterIndex& index,
                                           std::span<const NodeRewriterPtr> rewriters,
                                           const FunctionGraph& fgraph, RewriteContext& ctx,
                                           StopReason stop) {
  const std::vector<Apply*> all = fgraph.nodes();
  if (std::any_of(all.begin(), all.end(), [&](const Apply* n) { return index.tracks(*n); }))
    return std::nullopt;
  if (ctx.profile && ctx.profile->current())
    for (const NodeRewriterPtr& r : rewriters) ctx.profile->current()->rewriter(r->name());
  PassReport report;
  report.stop = stop;
  report.nodes_max = all.size();
  return report;
}

void ChangeListener::on_import(FunctionGraph&, Apply& node, std::string_view) {
  ++imported;
  ++changes;
  touched.emplace_back(&node);
  imported_nodes.emplace_back(&node);
}

void ChangeListener::on_prune(FunctionGraph&, Apply& node, std::string_view) {
  ++pruned;
  ++changes;
  pruned_nodes_.emplace_back(&node);
  // What the pruned node used lost a client.
  for (const Var& in : node.inputs())
    if (Apply* o = in->owner()) uses_changed.emplace_back(o);
}

void ChangeListener::on_change_input(FunctionGraph&, const Client& client, const Var& old_var,
                                     const Var& new_var, std::string_view) {
  ++changes;
  if (client.node) touched.emplace_back(client.node);
  if (Apply* o = old_var->owner()) uses_changed.emplace_back(o);
  if (Apply* o = new_var->owner()) uses_changed.emplace_back(o);
}

void ChangeListener::on_change_op(FunctionGraph&, Apply& node, const OpPtr&, std::string_view) {
  ++changes;
  // Another Op: the node is as good as new to the rewriters.
  touched.emplace_back(&node);
  imported_nodes.emplace_back(&node);
}

bool same_computation(const Variable& old_var, const Variable& new_var) {
  const Apply* a = old_var.owner();
  const Apply* b = new_var.owner();
  if (!a || !b || a == b || b->in_fgraph()) return false;
  if (old_var.index() != new_var.index() || a->num_inputs() != b->num_inputs()) return false;
  if (a->op_ptr() != b->op_ptr() && !(a->op() == b->op())) return false;
  for (std::size_t i = 0; i < a->num_inputs(); ++i)
    if (a->input(i) != b->input(i)) return false;
  return old_var.type()->equals(*new_var.type());
}

NodeProcessor::NodeProcessor(std::string_view pass, std::span<const NodeRewriterPtr> rewriters,
                             const RewriterIndex& index, FunctionGraph& fgraph, RewriteContext& ctx)
    : pass_(pass), rewriters_(rewriters), filters_(index.filters()), glances_(index.glances()),
      filtered_(index.filtered()), fgraph_(fgraph), ctx_(ctx), listener_(std::make_shared<ChangeListener>()),
      applied_(rewriters.size(), 0) {
  if (ctx_.profile && ctx_.profile->current()) {
    stats_.reserve(rewriters_.size());
    for (const auto& r : rewriters_) stats_.push_back(&ctx_.profile->current()->rewriter(r->name()));
  }
  fgraph_.attach_feature(listener_);
}

NodeProcessor::~NodeProcessor() { fgraph_.detach_feature(*listener_); }

namespace {
/// Adds the time since construction to a counter, if there is one.
class Timer {
 public:
  explicit Timer(RewriterStats* stats) : stats_(stats) {
    if (stats_) t0_ = std::chrono::steady_clock::now();
  }
  ~Timer() {
    if (stats_)
      stats_->seconds +=
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  Timer(const Timer&) = delete;
  Timer& operator=(const Timer&) = delete;

 private:
  RewriterStats* stats_;
  std::chrono::steady_clock::time_point t0_{};
};
}  // namespace

bool NodeProcessor::record_error(std::uint32_t rank, Apply& node, std::string_view message) {
  if (!stats_.empty()) ++stats_[rank]->errors;
  if (ctx_.tracing()) {
    TraceEvent e;
    e.kind = TraceKind::Error;
    e.pass = pass_;
    e.rewriter = rewriters_[rank]->name();
    e.node = &node;
    e.message = message;
    ctx_.trace->emit(e);
  }
  return false;
}

bool NodeProcessor::transform_and_replace(std::uint32_t rank, Apply& node) {
  const NodeRewriter& rw = *rewriters_[rank];
  RewriterStats* st = stats_.empty() ? nullptr : stats_[rank];
  const Timer timer(st);
  if (st) ++st->attempts;
  const bool tracing = ctx_.tracing(), explaining = ctx_.explaining();
  TraceEvent e;
  e.pass = pass_;
  e.rewriter = rw.name();
  e.node = &node;
  if (explaining) {
    e.kind = TraceKind::Tried;
    ctx_.trace->emit(e);
  }

  std::optional<RewriteResult> result;
  try {
    result.emplace(rw.transform(fgraph_, node, ctx_));
  } catch (const Error& err) {
    if (ctx_.raise_rewriter_errors) throw;
    return record_error(rank, node, err.what());
  }
  if (!result->applied()) {
    if (explaining) {
      e.kind = TraceKind::Failed;
      e.message = result->reason();
      ctx_.trace->emit(e);
    }
    return false;
  }
  if (tracing) {
    e.kind = TraceKind::Matched;
    ctx_.trace->emit(e);
  }

  pairs_.clear();
  if (result->by_outputs()) {
    const auto& outs = result->outputs();
    if (outs.size() != node.num_outputs()) {
      const std::string msg = fmt::format(
          "node rewriter `{}` returned {} replacements for `{}`, which has {} outputs", rw.name(),
          outs.size(), node.op().to_string(), node.num_outputs());
      if (ctx_.raise_rewriter_errors) throw RewriteError(msg);
      return record_error(rank, node, msg);
    }
    for (std::size_t i = 0; i < outs.size(); ++i) {
      const Variable& old_var = node.output_var(i);
      if (!outs[i] || outs[i].get() == &old_var || same_computation(old_var, *outs[i])) continue;
      // An output nobody uses goes with its node; replacing it would fail
      // once the used outputs have been moved and the node pruned.
      if (fgraph_.num_clients(old_var) == 0) continue;
      pairs_.emplace_back(node.output(i), outs[i]);
    }
  } else {
    for (const auto& [old_var, new_var] : result->pairs()) {
      if (!old_var || !new_var) {
        const std::string msg =
            fmt::format("node rewriter `{}` returned a replacement with a null variable", rw.name());
        if (ctx_.raise_rewriter_errors) throw RewriteError(msg);
        return record_error(rank, node, msg);
      }
      if (old_var == new_var || same_computation(*old_var, *new_var)) continue;
      pairs_.emplace_back(old_var, new_var);
    }
  }
  if (pairs_.empty()) {
    if (st) ++st->no_change;
    if (tracing) {
      e.kind = TraceKind::NoChange;
      ctx_.trace->emit(e);
    }
    return false;
  }

  ChangeListener& l = *listener_;
  const std::size_t imported0 = l.imported, pruned0 = l.pruned, changes0 = l.changes;
  const std::size_t touched0 = l.touched.size(), imported_nodes0 = l.imported_nodes.size(),
                    uses_changed0 = l.uses_changed.size();
  try {
    fgraph_.replace_all(pairs_, rw.name());
  } catch (const ReplacementError& err) {
    // The graph undid the change; so does the bookkeeping of what it touched.
    l.touched.resize(touched0);
    l.uses_changed.resize(uses_changed0);
    l.imported_nodes.resize(imported_nodes0);
    l.imported = imported0;
    l.pruned = pruned0;
    l.changes = changes0;
    pairs_.clear();
    if (st) ++st->refused;
    if (tracing) {
      e.kind = TraceKind::Refused;
      e.message = err.what();
      ctx_.trace->emit(e);
    }
    return false;
  }
  ++applied_[rank];
  ++applications_;
  if (st) {
    ++st->applied;
    st->nodes_created += l.imported - imported0;
    st->nodes_removed += l.pruned - pruned0;
  }
  if (tracing) {
    e.kind = TraceKind::Replaced;
    e.node = nullptr;
    for (const auto& [old_var, new_var] : pairs_) {
      e.old_var = old_var.get();
      e.new_var = new_var.get();
      ctx_.trace->emit(e);
    }
  }
  pairs_.clear();
  return true;
}

}  // namespace rw::detail

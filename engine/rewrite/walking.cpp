// WalkingRewriter.
#include "engine/rewrite/walking.hpp"

#include <algorithm>
#include <deque>

#include <fmt/format.h>

#include "engine/rewrite/detail/node_processor.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw {

WalkingRewriter::WalkingRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                 WalkOrder order, bool ignore_newtrees)
    : GraphRewriter(std::move(name)), order_(order), ignore_newtrees_(ignore_newtrees) {
  for (std::size_t i = 0; i < rewriters.size(); ++i) {
    const NodeRewriterPtr& r = rewriters[i];
    if (!r) throw RewriteError(fmt::format("`{}`: null node rewriter", this->name()));
    for (std::size_t j = 0; j < i; ++j)
      if (rewriters[j]->name() == r->name())
        throw RewriteError(
            fmt::format("`{}` already has a rewriter named `{}`", this->name(), r->name()));
  }
  rewriters_ = std::move(rewriters);
  std::stable_sort(rewriters_.begin(), rewriters_.end(),
                   [](const auto& a, const auto& b) { return a->benefit() > b->benefit(); });
  index_ = std::make_unique<detail::RewriterIndex>(rewriters_);
}

WalkingRewriter::~WalkingRewriter() = default;

void WalkingRewriter::add_requirements(FunctionGraph& fgraph) const {
  for (const auto& r : rewriters_) r->add_requirements(fgraph);
}

std::string WalkingRewriter::summary(int indent) const {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out = fmt::format("{}{} ({})\n", pad, name(),
                                order_ == WalkOrder::InToOut ? "in to out" : "out to in");
  for (const auto& r : rewriters_)
    out += fmt::format("{}  {} [{}] {}\n", pad, r->name(), r->tracks().to_string(), r->describe());
  return out;
}

PassReport WalkingRewriter::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  // A node no rewriter tracks is never attempted, so it need not be queued;
  // and a graph without any tracked node (the usual case for `useless` and
  // `uncanonicalize`) is settled by one look at each node's kind, no sort.
  if (auto settled =
          detail::untracked_report(*index_, rewriters_, fgraph, ctx, StopReason::Completed))
    return std::move(*settled);
  detail::NodeProcessor proc(name(), rewriters_, *index_, fgraph, ctx);
  // Plain pointers: a node the walk met stays alive while the processor's
  // listener is attached, in the graph or pruned.
  std::deque<Apply*> queue;
  for (Apply* n : fgraph.toposort())
    if (index_->tracks(*n)) queue.push_back(n);
  const bool in_to_out = order_ == WalkOrder::InToOut;
  std::size_t max_nodes = fgraph.num_nodes();
  while (!queue.empty()) {
    Apply* node;
    if (in_to_out) {
      node = queue.front();
      queue.pop_front();
    } else {
      node = queue.back();
      queue.pop_back();
    }
    if (!fgraph.contains(*node)) continue;
    const NodeFilter::NodeGlance glance = NodeFilter::glance_at(*node);
    detail::for_each_candidate(index_->lookup(*node), [&](std::uint32_t rank) {
      return proc.attempt(rank, *node, glance);
    });
    detail::ChangeListener& l = proc.listener();
    if (!ignore_newtrees_)
      for (Apply* n : l.imported_nodes)
        if (n != node && fgraph.contains(*n) && index_->tracks(*n)) queue.push_back(n);
    l.forget();
    max_nodes = std::max(max_nodes, fgraph.num_nodes());
  }
  PassReport report;
  report.stop = StopReason::Completed;
  report.applications = proc.applications();
  report.changed = proc.listener().changes != 0;
  report.nodes_max = max_nodes;
  return report;
}

std::shared_ptr<WalkingRewriter> in2out(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                        bool ignore_newtrees) {
  return std::make_shared<WalkingRewriter>(std::move(name), std::move(rewriters),
                                           WalkOrder::InToOut, ignore_newtrees);
}

std::shared_ptr<WalkingRewriter> out2in(std::string name, std::vector<NodeRewriterPtr> rewriters,
                                        bool ignore_newtrees) {
  return std::make_shared<WalkingRewriter>(std::move(name), std::move(rewriters),
                                           WalkOrder::OutToIn, ignore_newtrees);
}

}  // namespace rw

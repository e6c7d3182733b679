// SequenceRewriter.
#include "engine/rewrite/sequence.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "engine/rewrite/errors.hpp"

namespace rw {

SequenceRewriter::SequenceRewriter(std::string name, std::vector<GraphRewriterPtr> passes)
    : GraphRewriter(std::move(name)), passes_(std::move(passes)) {
  for (const auto& p : passes_)
    if (!p) throw RewriteError(fmt::format("`{}`: null graph rewriter", this->name()));
}

void SequenceRewriter::add_requirements(FunctionGraph& fgraph) const {
  for (const auto& p : passes_) p->add_requirements(fgraph);
}

PassReport SequenceRewriter::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport report;
  report.stop = StopReason::Completed;
  for (const auto& p : passes_) {
    PassReport r = p->run(fgraph, ctx);
    report.changed |= r.changed;
    report.nodes_max = std::max(report.nodes_max, r.nodes_max);
    report.children.push_back(std::move(r));
  }
  return report;
}

std::string SequenceRewriter::summary(int indent) const {
  std::string out = std::string(static_cast<std::size_t>(indent), ' ') + name() + " (sequence)\n";
  for (const auto& p : passes_) out += p->summary(indent + 2);
  return out;
}

}  // namespace rw

// EquilibriumRewriter: the worklist driver and its guard.
#include "engine/rewrite/equilibrium.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/graph/detail/scratch_pool.hpp"
#include "engine/rewrite/detail/flat_table.hpp"
#include "engine/rewrite/detail/node_processor.hpp"
#include "engine/rewrite/detail/worklist_mark.hpp"
#include "engine/rewrite/errors.hpp"

namespace rw {

EquilibriumRewriter::EquilibriumRewriter(std::string name, std::vector<NodeRewriterPtr> rewriters)
    : GraphRewriter(std::move(name)) {
  // All at once, so that a group of ten thousand rules is built in linear
  // time: names checked through a set, rank order by a stable sort.
  std::unordered_set<std::string_view> names;
  names.reserve(rewriters.size());
  for (const auto& r : rewriters) {
    if (!r) throw RewriteError(fmt::format("`{}`: null node rewriter", this->name()));
    if (!names.insert(r->name()).second)
      throw RewriteError(
          fmt::format("`{}` already has a rewriter named `{}`", this->name(), r->name()));
  }
  std::stable_sort(rewriters.begin(), rewriters.end(),
                   [](const NodeRewriterPtr& a, const NodeRewriterPtr& b) {
                     return a->benefit() > b->benefit();
                   });
  rewriters_ = std::move(rewriters);
  reindex();
}

EquilibriumRewriter::~EquilibriumRewriter() = default;

void EquilibriumRewriter::check_new_name(const std::string& name) const {
  auto taken = [&](const auto& list) {
    return std::any_of(list.begin(), list.end(), [&](const auto& r) { return r->name() == name; });
  };
  if (taken(rewriters_) || taken(global_) || taken(final_) || taken(cleanup_))
    throw RewriteError(
        fmt::format("`{}` already has a rewriter named `{}`", this->name(), name));
}

void EquilibriumRewriter::insert(NodeRewriterPtr rewriter) {
  if (!rewriter) throw RewriteError(fmt::format("`{}`: null node rewriter", name()));
  check_new_name(rewriter->name());
  // Keep rank order: decreasing benefit, then the order given.
  auto pos = std::find_if(rewriters_.begin(), rewriters_.end(), [&](const NodeRewriterPtr& r) {
    return r->benefit() < rewriter->benefit();
  });
  rewriters_.insert(pos, std::move(rewriter));
}

void EquilibriumRewriter::reindex() {
  index_ = std::make_unique<detail::RewriterIndex>(rewriters_);
  max_depth_ = 0;
  uses_depth_ = 0;
  for (const auto& r : rewriters_) {
    max_depth_ = std::max(max_depth_, r->depth());
    if (r->reads_uses()) uses_depth_ = std::max(uses_depth_, r->depth());
  }
}

EquilibriumRewriter& EquilibriumRewriter::add(NodeRewriterPtr rewriter) {
  insert(std::move(rewriter));
  reindex();
  return *this;
}

namespace {
void add_graph(EquilibriumRewriter& self, std::vector<GraphRewriterPtr>& list,
               GraphRewriterPtr rewriter) {
  if (!rewriter) throw RewriteError(fmt::format("`{}`: null graph rewriter", self.name()));
  list.push_back(std::move(rewriter));
}
}  // namespace

EquilibriumRewriter& EquilibriumRewriter::add_global(GraphRewriterPtr rewriter) {
  if (rewriter) check_new_name(rewriter->name());
  add_graph(*this, global_, std::move(rewriter));
  return *this;
}

EquilibriumRewriter& EquilibriumRewriter::add_final(GraphRewriterPtr rewriter) {
  if (rewriter) check_new_name(rewriter->name());
  add_graph(*this, final_, std::move(rewriter));
  return *this;
}

EquilibriumRewriter& EquilibriumRewriter::add_cleanup(GraphRewriterPtr rewriter) {
  if (rewriter) check_new_name(rewriter->name());
  add_graph(*this, cleanup_, std::move(rewriter));
  return *this;
}

EquilibriumRewriter& EquilibriumRewriter::with_max_use_ratio(double ratio) {
  if (!(ratio > 0) || !std::isfinite(ratio))
    throw RewriteError(
        fmt::format("`{}`: max_use_ratio must be a positive number, not {}", name(), ratio));
  max_use_ratio_ = ratio;
  return *this;
}

namespace detail {

std::size_t growth_bound(std::size_t initial, double factor, std::size_t allowance) {
  if (factor == 0) return 0;
  constexpr std::size_t kMax = std::numeric_limits<std::size_t>::max();
  const double scaled = factor * static_cast<double>(initial);
  const std::size_t by_factor = scaled >= static_cast<double>(kMax) ? kMax
                                                                    : static_cast<std::size_t>(scaled);
  const std::size_t by_allowance = allowance > kMax - initial ? kMax : initial + allowance;
  return std::max(by_factor, by_allowance);
}

void check_growth_factor(std::string_view owner, double factor) {
  if (factor != 0 && !(factor >= 1 && std::isfinite(factor)))
    throw RewriteError(
        fmt::format("`{}`: the growth factor must be at least 1, not {}", owner, factor));
}

}  // namespace detail

EquilibriumRewriter& EquilibriumRewriter::with_max_growth(double factor, std::size_t allowance) {
  detail::check_growth_factor(name(), factor);
  max_growth_ = factor;
  growth_allowance_ = allowance;
  return *this;
}

EquilibriumRewriter& EquilibriumRewriter::with_node_limit(std::size_t nodes) {
  node_limit_ = nodes;
  return *this;
}

EquilibriumRewriter& EquilibriumRewriter::with_time_limit(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw RewriteError(
        fmt::format("`{}`: the time limit must be zero or positive, not {}", name(), seconds));
  time_limit_ = seconds;
  return *this;
}

void EquilibriumRewriter::add_requirements(FunctionGraph& fgraph) const {
  for (const auto& r : rewriters_) r->add_requirements(fgraph);
  for (const auto* list : {&global_, &final_, &cleanup_})
    for (const auto& g : *list) g->add_requirements(fgraph);
}

std::string EquilibriumRewriter::summary(int indent) const {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  std::string out = pad + name() + " (equilibrium)\n";
  for (const auto& r : rewriters_)
    out += fmt::format("{}  {} [{}] {}\n", pad, r->name(), r->tracks().to_string(), r->describe());
  for (const auto& g : global_) out += pad + "  global:\n" + g->summary(indent + 4);
  for (const auto& g : final_) out += pad + "  final:\n" + g->summary(indent + 4);
  for (const auto& g : cleanup_) out += pad + "  cleanup:\n" + g->summary(indent + 4);
  return out;
}

namespace {
/// The worklist and scratch lists of a run, kept by its thread for the next
/// run: a pass over a graph of a hundred nodes would otherwise allocate its
/// lists anew (the pending set's table is large enough for malloc to sweep
/// its free lists first), in every equilibrium pass of every rewrite.
struct RunBuffers {
  std::vector<Apply*> stack, scratch, frontier, next;
  detail::PointerSet<Apply> pending;
  void clear() {
    stack.clear();
    scratch.clear();
    frontier.clear();
    next.clear();
    pending.clear();
  }
};
thread_local detail::ScratchPool<RunBuffers> run_buffers;

/// Equilibrium runs in progress on this thread (a run nests in another when
/// one of its graph rewriters is, or calls, an equilibrium).
thread_local int t_runs_in_progress = 0;

/// Counts a run in progress for as long as it lives.
struct RunCounter {
  const bool outermost = t_runs_in_progress++ == 0;
  RunCounter() = default;
  RunCounter(const RunCounter&) = delete;
  RunCounter& operator=(const RunCounter&) = delete;
  ~RunCounter() { --t_runs_in_progress; }
};

/// A number no other run of the process has had (never 0).
std::uint32_t new_run_id() {
  static std::atomic<std::uint32_t> next{0};
  std::uint32_t id;
  do id = next.fetch_add(1, std::memory_order_relaxed) + 1;
  while (id == 0);
  return id;
}
}  // namespace

/// The state of one EquilibriumRewriter::apply.
struct EquilibriumRun {
  enum class Role : unsigned char { Global, Final, Cleanup };
  static constexpr std::size_t kWindow = 64;

  const EquilibriumRewriter& eq;
  FunctionGraph& fg;
  RewriteContext& ctx;
  detail::NodeProcessor proc;
  const std::size_t n_node_rewriters;
  // Nodes still to try: a stack (so touched nodes are tried next) of nodes
  // that stay alive while the run lasts (the graph holds them, or the
  // processor's listener once they are pruned), and which of them are
  // pending, so that a node pushed twice is tried once. The outermost run on
  // a thread marks its pending nodes in the nodes themselves
  // (detail::WorklistMark, with its run id: no hashing, and the node is being
  // read anyway); a nested run keeps a set, so that neither run overwrites
  // the other's marks.
  RunCounter counter;
  const bool marks = counter.outermost;
  const std::uint32_t run_id = marks ? new_run_id() : 0;
  detail::ScratchPool<RunBuffers>::Lease buffers{run_buffers.lease()};
  std::vector<Apply*>& stack = buffers->stack;
  detail::PointerSet<Apply>& pending = buffers->pending;
  std::vector<Apply*>& scratch = buffers->scratch;
  std::vector<Apply*>& frontier = buffers->frontier;
  std::vector<Apply*>& next = buffers->next;
  // Graph rewriters get ids after the node rewriters: global, final, cleanup.
  std::vector<const GraphRewriter*> graph_rewriters;
  std::vector<std::size_t> graph_applied;
  std::vector<RewriterStats*> cleanup_stats;
  std::size_t cleanup_changes = 0;
  // The last applications, to name the rewriters that kept firing.
  std::array<std::uint32_t, kWindow> window{};
  std::size_t window_n = 0;
  std::size_t max_nodes;
  const std::size_t initial_nodes;
  const std::size_t growth_bound;  // the most nodes the run may make; 0: none
  std::size_t visits = 0;
  std::chrono::steady_clock::time_point start =  // read only under a time limit
      eq.time_limit_ > 0 ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
  bool stopped = false;
  PassReport report;

  EquilibriumRun(const EquilibriumRewriter& e, FunctionGraph& g, RewriteContext& c)
      : eq(e), fg(g), ctx(c), proc(e.name(), e.rewriters_, *e.index_, g, c),
        n_node_rewriters(e.rewriters_.size()), max_nodes(g.num_nodes()),
        initial_nodes(g.num_nodes()),
        growth_bound(detail::growth_bound(initial_nodes, e.max_growth_, e.growth_allowance_)) {
    for (const auto* list : {&eq.global_, &eq.final_, &eq.cleanup_})
      for (const auto& r : *list) graph_rewriters.push_back(r.get());
    graph_applied.assign(graph_rewriters.size(), 0);
    if (ctx.profile && ctx.profile->current())
      for (const auto& r : eq.cleanup_) cleanup_stats.push_back(&ctx.profile->current()->rewriter(r->name()));
    report.stop = StopReason::Saturated;
  }

  std::string_view name_of(std::uint32_t id) const {
    return id < n_node_rewriters ? std::string_view(proc.rewriter(id).name())
                                 : std::string_view(graph_rewriters[id - n_node_rewriters]->name());
  }
  std::size_t count_of(std::uint32_t id) const {
    return id < n_node_rewriters ? proc.applied(id) : graph_applied[id - n_node_rewriters];
  }

  ~EquilibriumRun() {
    // A run left by an exception leaves no mark behind (the nodes on the
    // stack are still alive: the listener releases pruned ones after this).
    if (marks) unmark_stack();
  }
  EquilibriumRun(const EquilibriumRun&) = delete;
  EquilibriumRun& operator=(const EquilibriumRun&) = delete;

  void push(Apply* node) {
    stack.push_back(node);  // first: a push that throws leaves no mark
    if (marks) detail::WorklistMark::of(*node).store(run_id, std::memory_order_relaxed);
    else pending.insert(node);
  }
  /// Takes `node` off the pending nodes; false if it was not pending.
  bool take(Apply* node) {
    if (!marks) return pending.erase(node);
    std::atomic<std::uint32_t>& m = detail::WorklistMark::of(*node);
    if (m.load(std::memory_order_relaxed) != run_id) return false;
    m.store(0, std::memory_order_relaxed);
    return true;
  }
  bool is_pending(Apply* node) const {
    return marks ? detail::WorklistMark::of(*node).load(std::memory_order_relaxed) == run_id
                 : pending.contains(node);
  }
  void unmark_stack() {
    for (Apply* n : stack) take(n);
  }

  void enqueue_all() {
    const std::vector<Apply*> order = fg.toposort();
    stack.reserve(stack.size() + order.size());
    if (!marks) pending.reserve(order.size());
    for (auto it = order.rbegin(); it != order.rend(); ++it) push(*it);
  }

  /// Adds to `scratch` the users above `scratch[first…]`, up to `depth` levels.
  void add_users(std::size_t first, int depth) {
    if (depth <= 0 || depth == kAnyDepth || first == scratch.size()) return;
    frontier.assign(scratch.begin() + static_cast<std::ptrdiff_t>(first), scratch.end());
    for (int level = 0; level < depth && !frontier.empty(); ++level) {
      next.clear();
      for (Apply* n : frontier)
        for (std::size_t o = 0; o < n->num_outputs(); ++o)
          for (const Client& c : fg.clients(n->output_var(o)))
            if (c.node) next.push_back(c.node);
      scratch.insert(scratch.end(), next.begin(), next.end());
      frontier.swap(next);
    }
  }

  /// Queues what the last change touched — new nodes and nodes whose inputs
  /// changed, with the users above them up to the rewriters' depth, and nodes
  /// whose outputs' uses changed (with their users only for rewriters that
  /// read uses) — so that the first touched node is tried first.
  void absorb() {
    detail::ChangeListener& l = proc.listener();
    scratch.clear();
    for (Apply* t : l.touched)
      if (fg.contains(*t)) scratch.push_back(t);
    add_users(0, eq.max_depth_);
    const std::size_t uses_from = scratch.size();
    for (Apply* t : l.uses_changed)
      if (fg.contains(*t)) scratch.push_back(t);
    add_users(uses_from, eq.uses_depth_);
    l.forget();
    for (auto it = scratch.rbegin(); it != scratch.rend(); ++it) push(*it);
  }

  void halt(StopReason why, std::string diagnostic) {
    stopped = true;
    report.stop = why;
    report.diagnostic = std::move(diagnostic);
    if (ctx.tracing()) {
      TraceEvent e;
      e.kind = TraceKind::Stopped;
      e.pass = eq.name();
      e.message = report.diagnostic;
      ctx.trace->emit(e);
    }
  }

  std::string kept_firing() const {
    std::vector<std::uint32_t> ids;
    const std::size_t n = std::min(window_n, kWindow);
    for (std::size_t i = 0; i < n; ++i)
      if (std::find(ids.begin(), ids.end(), window[i]) == ids.end()) ids.push_back(window[i]);
    std::sort(ids.begin(), ids.end(), [&](std::uint32_t a, std::uint32_t b) {
      if (count_of(a) != count_of(b)) return count_of(a) > count_of(b);
      return name_of(a) < name_of(b);
    });
    std::string out;
    for (std::uint32_t id : ids)
      out += fmt::format("{}`{}` ({} times)", out.empty() ? "" : ", ", name_of(id), count_of(id));
    return out;
  }

  /// Books an application of rewriter `id` and checks the limits.
  void note_application(std::uint32_t id) {
    window[window_n++ % kWindow] = id;
    const std::size_t nodes = fg.num_nodes();
    max_nodes = std::max(max_nodes, nodes);
    const std::size_t count = count_of(id);
    const double limit = eq.max_use_ratio_ * static_cast<double>(std::max<std::size_t>(max_nodes, 1));
    if (static_cast<double>(count) > limit) {
      halt(StopReason::RewriteLimit,
           fmt::format("rewriting did not settle: `{}` applied {} times, more than {:g} times the "
                       "largest node count of the graph ({}); the rewriters that kept firing: {}",
                       name_of(id), count, eq.max_use_ratio_, max_nodes, kept_firing()));
    } else if (growth_bound && nodes > growth_bound) {
      halt(StopReason::GrowthLimit,
           fmt::format("the graph grew from {} to {} nodes, beyond its growth bound of {} ({:g} "
                       "times its initial size, or {} more nodes); the rewriters that kept "
                       "firing: {}",
                       initial_nodes, nodes, growth_bound, eq.max_growth_, eq.growth_allowance_,
                       kept_firing()));
    } else if (eq.node_limit_ && nodes > eq.node_limit_) {
      halt(StopReason::NodeLimit,
           fmt::format("the graph grew to {} nodes, beyond the limit of {}; the last rewriters "
                       "applied: {}",
                       nodes, eq.node_limit_, kept_firing()));
    }
  }

  bool out_of_time() {
    if (eq.time_limit_ <= 0 || stopped) return stopped;
    const double t =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (t > eq.time_limit_)
      halt(StopReason::TimeLimit,
           fmt::format("the time limit of {:g} s ran out after {} replacements", eq.time_limit_,
                       proc.applications() + cleanup_changes));
    return stopped;
  }

  /// Runs graph rewriter `g` (index `gi` among graph rewriters); true if it changed the graph.
  bool run_graph(std::size_t gi, Role role) {
    const GraphRewriter& g = *graph_rewriters[gi];
    detail::ChangeListener& l = proc.listener();
    const std::size_t changes0 = l.changes, imported0 = l.imported, pruned0 = l.pruned;
    PassReport r;
    if (role == Role::Cleanup) {
      RewriterStats* st =
          cleanup_stats.empty() ? nullptr : cleanup_stats[gi - eq.global_.size() - eq.final_.size()];
      const auto t0 = std::chrono::steady_clock::now();
      r = g.apply(fg, ctx);
      if (st) {
        ++st->attempts;
        st->seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (l.changes != changes0) {
          ++st->applied;
          st->nodes_created += l.imported - imported0;
          st->nodes_removed += l.pruned - pruned0;
        }
      }
    } else {
      r = g.run(fg, ctx);
    }
    if (!r.ok()) report.children.push_back(std::move(r));
    if (l.changes == changes0) return false;
    ++graph_applied[gi];
    // A cleanup pass counts the replacements it made (at least one).
    if (role == Role::Cleanup) cleanup_changes += std::max<std::size_t>(r.applications, 1);
    note_application(static_cast<std::uint32_t>(n_node_rewriters + gi));
    absorb();
    return true;
  }

  void cleanup() {
    const std::size_t first = eq.global_.size() + eq.final_.size();
    for (std::size_t gi = first; gi < graph_rewriters.size() && !stopped; ++gi)
      run_graph(gi, Role::Cleanup);
  }

  bool run_role(Role role) {
    const std::size_t first = role == Role::Global ? 0 : eq.global_.size();
    const std::size_t last = role == Role::Global ? eq.global_.size()
                                                  : eq.global_.size() + eq.final_.size();
    bool changed = false;
    for (std::size_t gi = first; gi < last && !stopped; ++gi)
      if (run_graph(gi, role)) {
        changed = true;
        cleanup();
      }
    return changed;
  }

  bool drain() {
    bool changed = false;
    while (!stack.empty() && !stopped) {
      Apply* node = stack.back();
      stack.pop_back();
      if (!take(node) || !fg.contains(*node)) continue;
      if ((++visits & 63) == 0 && out_of_time()) break;
      NodeFilter::NodeGlance glance = NodeFilter::glance_at(*node);
      detail::for_each_candidate(eq.index_->lookup(*node), [&](std::uint32_t rank) {
        if (!proc.attempt(rank, *node, glance)) return false;
        changed = true;
        note_application(rank);
        absorb();
        if (!stopped) cleanup();
        if (stopped || !fg.contains(*node) || is_pending(node)) return true;
        glance = NodeFilter::glance_at(*node);  // a change elsewhere: look again
        return false;
      });
    }
    if (stopped) {
      if (marks) unmark_stack();
      stack.clear();
      pending.clear();
    }
    // Nothing queued and everything touched taken: no pointer to a pruned
    // node is left.
    proc.listener().forget();
    proc.listener().release_pruned();
    return changed;
  }

  PassReport go() {
    enqueue_all();
    while (!stopped) {
      bool changed = run_role(Role::Global);
      changed |= drain();
      changed |= run_role(Role::Final);
      if (stopped || out_of_time()) break;
      if (!changed) break;  // a round that changed nothing: the fixed point
      if (eq.max_depth_ == kAnyDepth) enqueue_all();
    }
    report.applications = proc.applications() + cleanup_changes;
    report.changed = proc.listener().changes != 0;
    report.nodes_max = max_nodes;
    return std::move(report);
  }
};

PassReport EquilibriumRewriter::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  // Only node rewriters, and no node any of them tracks (the scan groups on
  // a graph without loops): nothing to queue.
  if (global_.empty() && final_.empty() && cleanup_.empty())
    if (auto settled =
            detail::untracked_report(*index_, rewriters_, fgraph, ctx, StopReason::Saturated))
      return std::move(*settled);
  EquilibriumRun run(*this, fgraph, ctx);
  return run.go();
}

}  // namespace rw

// The rewrites of Scan nodes. Each takes a node apart into its groups
// (ScanParts), edits them, and builds a new node; the replacements it proposes
// go through the graph's validated replace like any rewrite's.
#include "engine/compile/scan_rewrites.hpp"

#include <algorithm>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/compile/scan.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "engine/rewrite/walking.hpp"
#include "ops/api.hpp"
#include "ops/detail/elemwise_of.hpp"
#include "ops/detail/util.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/linalg/linalg.hpp"
#include "ops/shape/dimshuffle.hpp"

namespace rw {

namespace {

/// A Scan node taken apart: each group's outer and inner variables, and for
/// each output the index it had in the node (or -1 for a new one), so that a
/// rebuilt node's outputs can replace the old ones.
struct ScanParts {
  struct Seq {
    Var outer, inner;
  };
  struct State {
    Var init;
    std::vector<std::int64_t> taps;
    std::vector<Var> inner;
    Var update;
    std::int64_t keep = 0;
    int old = -1;
  };
  struct Output {
    Var inner;
    std::int64_t keep = 0;
    int old = -1;
  };
  struct SharedState {
    Var outer, inner, update;
    int old = -1;
    bool by_default = false;
  };
  struct NonSeq {
    Var outer, inner;
  };

  ScanInfo info;  // name, flags; the counts are recomputed on build
  const ScanOp* op = nullptr;
  Var n;
  std::vector<Seq> seqs;
  std::vector<State> states;
  std::vector<Output> outputs;
  std::vector<SharedState> shared;
  std::vector<NonSeq> non_seqs;
  Var until;

  static ScanParts of(const Apply& node, const ScanOp& op) {
    const ScanInfo& in = op.info();
    ScanParts p;
    p.info = in;
    p.op = &op;
    p.n = node.input(0);
    const auto inner = op.inner_inputs();
    const auto outs = op.inner_outputs();
    for (std::size_t i = 0; i < in.n_seqs; ++i) p.seqs.push_back({node.input(in.outer_seq(i)), inner[i]});
    for (std::size_t j = 0; j < in.n_states(); ++j) {
      State s;
      s.init = node.input(in.outer_state(j));
      s.taps = in.state_taps[j];
      for (std::size_t t = 0; t < s.taps.size(); ++t) s.inner.push_back(inner[in.inner_state(j) + t]);
      s.update = outs[j];
      s.keep = in.store_steps[j];
      s.old = static_cast<int>(j);
      p.states.push_back(std::move(s));
    }
    for (std::size_t k = 0; k < in.n_nit_sot; ++k) {
      const std::size_t j = in.n_states() + k;
      p.outputs.push_back({outs[j], in.store_steps[j], static_cast<int>(j)});
    }
    for (std::size_t i = 0; i < in.n_shared; ++i)
      p.shared.push_back({node.input(in.outer_shared(i)), inner[in.inner_shared(i)],
                          outs[in.n_stacked() + i], static_cast<int>(in.n_stacked() + i),
                          static_cast<bool>(in.shared_default[i])});
    for (std::size_t i = 0; i < in.n_non_seqs; ++i)
      p.non_seqs.push_back({node.input(in.outer_non_seq(i)), inner[in.inner_non_seq(i)]});
    if (in.as_while) p.until = outs.back();
    return p;
  }

  /// Every inner output, in layout order.
  std::vector<Var> inner_outputs() const {
    std::vector<Var> v;
    for (const State& s : states) v.push_back(s.update);
    for (const Output& o : outputs) v.push_back(o.inner);
    for (const SharedState& s : shared) v.push_back(s.update);
    if (until) v.push_back(until);
    return v;
  }
  /// Every inner input, in layout order.
  std::vector<Var> inner_inputs() const {
    std::vector<Var> v;
    for (const Seq& s : seqs) v.push_back(s.inner);
    for (const State& s : states) v.insert(v.end(), s.inner.begin(), s.inner.end());
    for (const SharedState& s : shared) v.push_back(s.inner);
    for (const NonSeq& s : non_seqs) v.push_back(s.inner);
    return v;
  }
  /// Replaces inner variables in every inner output (a copy of what depends on them).
  void substitute(const std::unordered_map<const Variable*, Var>& map) {
    if (map.empty()) return;
    const std::vector<Var> outs = clone_replace(inner_outputs(), map);
    std::size_t k = 0;
    for (State& s : states) s.update = outs[k++];
    for (Output& o : outputs) o.inner = outs[k++];
    for (SharedState& s : shared) s.update = outs[k++];
    if (until) until = outs[k++];
  }
  /// The inner inputs the outputs read.
  std::unordered_set<const Variable*> read() const {
    std::unordered_set<const Variable*> r;
    for (const Var& v : graph_inputs(inner_outputs())) r.insert(v.get());
    return r;
  }

  /// The new node, and for each output of the old node its replacement
  /// (null where the output was dropped).
  struct Built {
    ApplyRef node;
    std::vector<std::pair<int, Var>> replaced;  // (old output index, new output)
  };
  Built build() const {
    ScanInfo in = info;
    in.n_seqs = seqs.size();
    in.state_taps.clear();
    in.store_steps.clear();
    for (const State& s : states) {
      in.state_taps.push_back(s.taps);
      in.store_steps.push_back(s.keep);
    }
    for (const Output& o : outputs) in.store_steps.push_back(o.keep);
    in.n_nit_sot = outputs.size();
    in.n_shared = shared.size();
    in.shared_default.clear();
    for (const SharedState& sh : shared) in.shared_default.push_back(sh.by_default);
    in.n_non_seqs = non_seqs.size();
    std::vector<Var> inner, outer{n};
    for (const Seq& s : seqs) {
      inner.push_back(s.inner);
      outer.push_back(s.outer);
    }
    for (const State& s : states) {
      inner.insert(inner.end(), s.inner.begin(), s.inner.end());
      outer.push_back(s.init);
    }
    for (const SharedState& s : shared) {
      inner.push_back(s.inner);
      outer.push_back(s.outer);
    }
    for (const NonSeq& s : non_seqs) {
      inner.push_back(s.inner);
      outer.push_back(s.outer);
    }
    // A private copy, so that the new Op shares no variable with the old one.
    ClonedGraph c = clone_graph(inner, inner_outputs());
    Built b;
    b.node = detail::rebuild_scan(std::move(in), std::move(c.inputs), std::move(c.outputs),
                                  op->rewrite(), outer);
    std::size_t j = 0;
    for (const State& s : states) {
      if (s.old >= 0) b.replaced.emplace_back(s.old, b.node->output(j));
      ++j;
    }
    for (const Output& o : outputs) {
      if (o.old >= 0) b.replaced.emplace_back(o.old, b.node->output(j));
      ++j;
    }
    for (const SharedState& s : shared) {
      if (s.old >= 0) b.replaced.emplace_back(s.old, b.node->output(j));
      ++j;
    }
    return b;
  }
};

const ScanOp* as_scan(const Apply& node) { return dynamic_cast<const ScanOp*>(&node.op()); }

/// The result replacing each kept output of `node` by the built node's.
RewriteResult replace_with(const Apply& node, const ScanParts::Built& b) {
  std::vector<std::pair<Var, Var>> pairs;
  for (const auto& [old, v] : b.replaced) pairs.emplace_back(node.output(static_cast<std::size_t>(old)), v);
  return RewriteResult::replace(std::move(pairs));
}

NodeRewriterPtr scan_rewriter(std::string name, std::string description, NodeRewriteFn fn) {
  return make_node_rewriter(std::move(name), Tracks::op_class<ScanOp>(), std::move(fn), kAnyDepth,
                            1, std::move(description));
}

// ---------------------------------------------------------------------------
// remove_constants_and_unused_inputs_scan

RewriteResult remove_unused(FunctionGraph& fg, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  ScanParts p = ScanParts::of(node, *op);
  bool changed = false;
  // Constant non-sequences go inside.
  std::unordered_map<const Variable*, Var> into;
  for (auto it = p.non_seqs.begin(); it != p.non_seqs.end();) {
    if (it->outer->is_constant()) {
      into.emplace(it->inner.get(), it->outer);
      it = p.non_seqs.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  p.substitute(into);
  // Outputs not fed back that nobody reads, or that only copy a sequence's
  // elements (the sequence's first rows are the output).
  std::vector<std::pair<Var, Var>> copies;
  for (auto it = p.outputs.begin(); it != p.outputs.end();) {
    const Var& was = node.output(static_cast<std::size_t>(it->old));
    const auto seq = std::find_if(p.seqs.begin(), p.seqs.end(),
                                  [&](const ScanParts::Seq& s) { return s.inner == it->inner; });
    if (seq != p.seqs.end() && it->keep == 0 && !p.info.as_while &&
        was->type()->is_super(*seq->outer->type())) {
      copies.emplace_back(was, p.info.steps_from_sequences
                                   ? seq->outer
                                   : subtensor(seq->outer, {slice(Bound(), Bound(p.n))}));
    }
    if (fg.num_clients(*was) == 0 || (!copies.empty() && copies.back().first == was)) {
      it = p.outputs.erase(it);
      changed = true;
    } else {
      ++it;
    }
  }
  // Inputs the body does not read.
  const auto read = p.read();
  const bool from_seqs = p.info.steps_from_sequences;
  const Var first_seq = p.seqs.empty() ? Var() : p.seqs[0].outer;
  const std::size_t n_seqs = p.seqs.size();
  std::erase_if(p.seqs, [&](const ScanParts::Seq& s) { return !read.contains(s.inner.get()); });
  const std::size_t n_non_seqs = p.non_seqs.size();
  std::erase_if(p.non_seqs, [&](const ScanParts::NonSeq& s) { return !read.contains(s.inner.get()); });
  changed |= p.non_seqs.size() != n_non_seqs;
  if (p.seqs.size() != n_seqs) {
    changed = true;
    if (from_seqs && (p.seqs.empty() || p.seqs[0].outer != first_seq)) {
      // The number of steps was the first sequence's: say it.
      p.n = shape_i(first_seq, 0);
      p.info.steps_from_sequences = false;
    }
  }
  if (!changed)
    return RewriteResult::fail("every input is read, every output used, and no non-sequence is "
                               "a constant");
  if (p.outputs.empty() && p.states.empty() && p.shared.empty()) {
    if (copies.empty()) return RewriteResult::fail("nothing of the scan is used");
    return RewriteResult::replace(std::move(copies));
  }
  RewriteResult r = replace_with(node, p.build());
  if (copies.empty()) return r;
  std::vector<std::pair<Var, Var>> pairs = r.pairs();
  pairs.insert(pairs.end(), copies.begin(), copies.end());
  return RewriteResult::replace(std::move(pairs));
}

// ---------------------------------------------------------------------------
// scan_merge_inouts

RewriteResult merge_inouts(FunctionGraph&, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  ScanParts p = ScanParts::of(node, *op);
  std::unordered_map<const Variable*, Var> same;
  auto dedupe = [&](auto& group) {
    std::unordered_map<const Variable*, Var> first;
    for (auto it = group.begin(); it != group.end();) {
      auto [at, fresh] = first.emplace(it->outer.get(), it->inner);
      if (!fresh) {
        same.emplace(it->inner.get(), at->second);
        it = group.erase(it);
      } else {
        ++it;
      }
    }
  };
  const std::size_t before = p.seqs.size() + p.non_seqs.size();
  dedupe(p.seqs);
  dedupe(p.non_seqs);
  p.substitute(same);
  // Outputs not fed back that are the same inner variable: one row buffer.
  std::vector<std::pair<int, int>> alias;  // (dropped old output, the kept old output)
  std::unordered_map<const Variable*, std::pair<int, std::int64_t>> first_out;
  for (auto it = p.outputs.begin(); it != p.outputs.end();) {
    auto [at, fresh] = first_out.emplace(it->inner.get(), std::pair{it->old, it->keep});
    if (!fresh && at->second.second == it->keep) {
      alias.emplace_back(it->old, at->second.first);
      it = p.outputs.erase(it);
    } else {
      ++it;
    }
  }
  if (p.seqs.size() + p.non_seqs.size() == before && alias.empty())
    return RewriteResult::fail("no input is given twice and no output is computed twice");
  const ScanParts::Built b = p.build();
  std::unordered_map<int, Var> now;
  for (const auto& [old, v] : b.replaced) now.emplace(old, v);
  std::vector<std::pair<Var, Var>> pairs;
  for (const auto& [old, v] : b.replaced) pairs.emplace_back(node.output(static_cast<std::size_t>(old)), v);
  for (const auto& [dropped, kept] : alias)
    pairs.emplace_back(node.output(static_cast<std::size_t>(dropped)), now.at(kept));
  return RewriteResult::replace(std::move(pairs));
}

// ---------------------------------------------------------------------------
// The push-outs: nodes of the body computed outside, before the loop.

/// For the `hoisted` nodes of the body (each output's outer value in
/// `outer_of`), the values the rest of the body or an output reads: each
/// gets a new inner input, added to the loop by `add(outer, inner)`, and the
/// body reads that instead. Returns false when there is none.
template <class Add>
bool read_hoisted(ScanParts& p, const std::unordered_set<const Apply*>& hoisted,
                  const std::unordered_map<const Variable*, Var>& outer_of, Add add) {
  const std::vector<Var> outs = p.inner_outputs();
  std::unordered_map<const Variable*, Var> boundary;
  auto note = [&](const Var& v) {
    if (!v->owner() || !hoisted.contains(v->owner()) || boundary.contains(v.get())) return;
    Var inner = Variable::make(v->type(), v->name());
    boundary.emplace(v.get(), inner);
    add(outer_of.at(v.get()), inner);
  };
  for (Apply* a : io_toposort(p.inner_inputs(), outs)) {
    if (hoisted.contains(a)) continue;
    for (const Var& in : a->inputs()) note(in);
  }
  for (const Var& o : outs) note(o);
  if (boundary.empty()) return false;
  p.substitute(boundary);
  return true;
}

// ---------------------------------------------------------------------------
// scan_push_out_non_seq

RewriteResult push_out_non_seq(FunctionGraph&, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  ScanParts p = ScanParts::of(node, *op);
  // Invariant variables: non-sequences, constants, and what nodes compute
  // from them alone (not draws: an Op that may not be folded stays inside).
  std::unordered_map<const Variable*, Var> outer_of;  // inner invariant → its outer value
  for (const ScanParts::NonSeq& s : p.non_seqs) outer_of.emplace(s.inner.get(), s.outer);
  std::unordered_set<const Apply*> hoisted;
  for (Apply* a : io_toposort(p.inner_inputs(), p.inner_outputs())) {
    bool invariant = a->op().do_constant_folding(*a);
    for (const Var& in : a->inputs())
      invariant = invariant && (in->is_constant() || outer_of.contains(in.get()));
    if (!invariant) continue;
    bool all_constant = true;
    std::vector<Var> outer_in;
    for (const Var& in : a->inputs()) {
      all_constant = all_constant && in->is_constant();
      outer_in.push_back(in->is_constant() ? in : outer_of.at(in.get()));
    }
    if (all_constant) continue;  // constant folding's work
    const ApplyRef copy = a->op().make_node(outer_in);
    for (std::size_t j = 0; j < a->num_outputs(); ++j) outer_of.emplace(&a->output_var(j), copy->output(j));
    hoisted.insert(a);
  }
  const bool any = read_hoisted(p, hoisted, outer_of, [&](const Var& outer, const Var& inner) {
    p.non_seqs.push_back({outer, inner});
  });
  if (!any) return RewriteResult::fail("the body computes nothing from non-sequences alone");
  return replace_with(node, p.build());
}

// ---------------------------------------------------------------------------
// scan_push_out_seq

/// `v` given a leading axis of extent 1 (for a non-sequence beside a sequence).
Var with_step_axis(const Var& v) { return expand_dims(v, 0); }

RewriteResult push_out_seq(FunctionGraph&, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  ScanParts p = ScanParts::of(node, *op);
  // Per step, a variable that is a sequence's element: its outer sequence;
  // a non-sequence: its outer value.
  std::unordered_map<const Variable*, Var> seq_of, non_seq_of;
  for (const ScanParts::Seq& s : p.seqs) seq_of.emplace(s.inner.get(), s.outer);
  for (const ScanParts::NonSeq& s : p.non_seqs) non_seq_of.emplace(s.inner.get(), s.outer);
  // Nodes whose outputs become sequences: elementwise ones over sequence
  // elements, non-sequences and constants (the non-sequences given a step
  // axis to broadcast along), and `x_t @ W` with a sequence on the left.
  std::unordered_set<const Apply*> hoisted;
  for (Apply* a : io_toposort(p.inner_inputs(), p.inner_outputs())) {
    if (!a->op().do_constant_folding(*a) || a->num_outputs() != 1) continue;
    bool any_seq = false, ok = true;
    for (const Var& in : a->inputs()) {
      const bool s = seq_of.contains(in.get());
      any_seq |= s;
      ok = ok && (s || in->is_constant() || non_seq_of.contains(in.get()));
    }
    if (!ok || !any_seq) continue;
    Var outer;
    if (ops_detail::is_elementwise(a->op())) {
      std::vector<Var> outer_in;
      for (const Var& in : a->inputs()) {
        if (const auto it = seq_of.find(in.get()); it != seq_of.end()) outer_in.push_back(it->second);
        else if (in->is_constant()) outer_in.push_back(with_step_axis(in));
        else outer_in.push_back(with_step_axis(non_seq_of.at(in.get())));
      }
      outer = a->op().make_node(outer_in)->output(0);
    } else if ((ops_detail::op_as<MatMul>(a->op()) || ops_detail::op_as<Dot>(a->op())) &&
               seq_of.contains(a->input(0).get()) && !seq_of.contains(a->input(1).get())) {
      const Var rhs = a->input(1)->is_constant() ? a->input(1) : non_seq_of.at(a->input(1).get());
      outer = matmul(seq_of.at(a->input(0).get()), rhs);
    } else {
      continue;
    }
    const TensorType& want = *a->output_var(0).tensor_type();
    const TensorType& got = *outer->tensor_type();
    if (got.ndim() != want.ndim() + 1 || got.dtype() != want.dtype()) continue;
    seq_of.emplace(&a->output_var(0), outer);
    hoisted.insert(a);
  }
  const bool any = read_hoisted(p, hoisted, seq_of, [&](const Var& outer, const Var& inner) {
    p.seqs.push_back({outer, inner});
  });
  if (!any)
    return RewriteResult::fail("the body computes nothing elementwise from sequence elements alone");
  return replace_with(node, p.build());
}

// ---------------------------------------------------------------------------
// scan_push_out_scan_output

RewriteResult push_out_output(FunctionGraph& fg, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  if (op->info().as_while) return RewriteResult::fail("a while-loop's rows are not known before");
  ScanParts p = ScanParts::of(node, *op);
  // Per step, a state's new value: its stacked outer output (every row kept).
  std::unordered_map<const Variable*, Var> stacked_of;
  for (const ScanParts::State& st : p.states)
    if (st.keep == 0) stacked_of.emplace(st.update.get(), node.output(static_cast<std::size_t>(st.old)));
  std::unordered_map<const Variable*, Var> non_seq_of;
  for (const ScanParts::NonSeq& s : p.non_seqs) non_seq_of.emplace(s.inner.get(), s.outer);
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const ScanParts::Output& out = p.outputs[k];
    const Apply* a = out.inner->owner();
    if (out.keep != 0 || !a || a->num_outputs() != 1 || !a->op().do_constant_folding(*a)) continue;
    // y_t = f(h_t, non-sequences…), f elementwise or `h_t @ W`: f over every
    // row of h, after the loop.
    bool any_state = false, ok = true;
    for (const Var& in : a->inputs()) {
      const bool st = stacked_of.contains(in.get());
      any_state |= st;
      ok = ok && (st || in->is_constant() || non_seq_of.contains(in.get()));
    }
    if (!ok || !any_state) continue;
    Var outer;
    if (ops_detail::is_elementwise(a->op())) {
      std::vector<Var> outer_in;
      for (const Var& in : a->inputs()) {
        if (const auto it = stacked_of.find(in.get()); it != stacked_of.end()) outer_in.push_back(it->second);
        else if (in->is_constant()) outer_in.push_back(with_step_axis(in));
        else outer_in.push_back(with_step_axis(non_seq_of.at(in.get())));
      }
      outer = a->op().make_node(outer_in)->output(0);
    } else if ((ops_detail::op_as<MatMul>(a->op()) || ops_detail::op_as<Dot>(a->op())) &&
               stacked_of.contains(a->input(0).get()) && !stacked_of.contains(a->input(1).get())) {
      const Var rhs = a->input(1)->is_constant() ? a->input(1) : non_seq_of.at(a->input(1).get());
      outer = matmul(stacked_of.at(a->input(0).get()), rhs);
    } else {
      continue;
    }
    const Var& was = node.output(static_cast<std::size_t>(out.old));
    if (!was->type()->is_super(*outer->type()) ||
        outer->tensor_type()->ndim() != was->tensor_type()->ndim())
      continue;
    // The output leaves the loop; the loop keeps the rest.
    p.outputs.erase(p.outputs.begin() + static_cast<std::ptrdiff_t>(k));
    // The loop keeps a state (whose rows `outer` reads), so it stays.
    const ScanParts::Built b = p.build();
    std::unordered_map<const Variable*, Var> now;
    std::vector<std::pair<Var, Var>> pairs;
    for (const auto& [old, v] : b.replaced) {
      const Var& o = node.output(static_cast<std::size_t>(old));
      now.emplace(o.get(), v);
      if (fg.num_clients(*o) > 0) pairs.emplace_back(o, v);
    }
    // `outer` reads the old node's state output: it reads the new node's.
    pairs.emplace_back(was, clone_replace(std::vector<Var>{outer}, now)[0]);
    return RewriteResult::replace(std::move(pairs));
  }
  return RewriteResult::fail("no output not fed back is an elementwise function or a product of a "
                             "state's new value");
}

// ---------------------------------------------------------------------------
// scan_push_out_dot1

/// `m` when it is a matrix product of two matrices: its operands.
std::optional<std::pair<Var, Var>> matrix_product(const Var& m) {
  const Apply* a = m->owner();
  if (!a || !(ops_detail::op_as<MatMul>(a->op()) || ops_detail::op_as<Dot>(a->op()))) return std::nullopt;
  if (a->input(0)->tensor_type()->ndim() != 2 || a->input(1)->tensor_type()->ndim() != 2) return std::nullopt;
  return std::pair{a->input(0), a->input(1)};
}

/// `v` when it is the transpose of a matrix: that matrix.
Var transposed_of(const Var& v) {
  const Apply* a = v->owner();
  if (!a) return nullptr;
  const auto* ds = ops_detail::op_as<DimShuffle>(a->op());
  if (!ds || ds->order() != std::vector<std::int64_t>{1, 0}) return nullptr;
  return a->input(0);
}

/// Rows (T, r, c) of matrices as one (r, T*c) matrix: side by side.
Var side_by_side(const Var& rows) {
  const Var t = dimshuffle(rows, {1, 0, 2});
  return reshape(t, std::vector<Operand>{shape_i(rows, 1), mul(shape_i(rows, 0), shape_i(rows, 2))});
}

/// Rows (T, r, c) of matrices as one (T*r, c) matrix: stacked.
Var stacked(const Var& rows) {
  return reshape(rows, std::vector<Operand>{mul(shape_i(rows, 0), shape_i(rows, 1)), shape_i(rows, 2)});
}

RewriteResult push_out_dot1(FunctionGraph&, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  if (op->info().as_while) return RewriteResult::fail("a while-loop's steps are not known before");
  ScanParts p = ScanParts::of(node, *op);
  const std::vector<Var> outs = p.inner_outputs();
  for (std::size_t j = 0; j < p.states.size(); ++j) {
    const ScanParts::State& st = p.states[j];
    if (st.keep != 1 || st.taps != std::vector<std::int64_t>{-1}) continue;
    const Apply* add = st.update->owner();
    const auto* e = add ? ops_detail::op_as<Elemwise>(add->op()) : nullptr;
    if (!e || e->scalar_op() != ScalarOp::Add || add->num_inputs() != 2) continue;
    const Var& acc = st.inner[0];
    const int k = add->input(0) == acc ? 1 : add->input(1) == acc ? 0 : -1;
    if (k < 0) continue;
    const auto prod = matrix_product(add->input(static_cast<std::size_t>(k)));
    if (!prod) continue;
    // The accumulator feeds nothing but its own sum.
    std::vector<Var> others;
    for (const Var& o : outs)
      if (o != st.update) others.push_back(o);
    others.push_back(prod->first);
    others.push_back(prod->second);
    bool used = false;
    for (const Var& r : graph_inputs(others)) used |= r == acc;
    if (used) continue;

    // The products' operands become outputs of every step; their sum over
    // the steps is one product after the loop.
    const Var lhs_t = transposed_of(prod->first);
    ScanParts q = p;
    const ScanParts::State gone = q.states[j];
    q.states.erase(q.states.begin() + static_cast<std::ptrdiff_t>(j));
    const std::size_t first_new = q.outputs.size();
    q.outputs.push_back({lhs_t ? lhs_t : prod->first, 0, -1});
    q.outputs.push_back({prod->second, 0, -1});
    const ScanParts::Built b = q.build();
    const Var lhs_rows = b.node->output(q.states.size() + first_new);
    const Var rhs_rows = b.node->output(q.states.size() + first_new + 1);
    const Var lhs = lhs_t ? transpose(stacked(lhs_rows)) : side_by_side(lhs_rows);
    const Var total = rw::add(subtensor(gone.init, {-1}), matmul(lhs, stacked(rhs_rows)));
    std::vector<std::pair<Var, Var>> pairs;
    for (const auto& [old, v] : b.replaced) pairs.emplace_back(node.output(static_cast<std::size_t>(old)), v);
    const Var& was = node.output(static_cast<std::size_t>(gone.old));
    Var now = expand_dims(total, 0);
    if (!was->type()->is_super(*now->type())) now = specify_shape(now, was->tensor_type()->shape());
    pairs.emplace_back(was, now);
    return RewriteResult::replace(std::move(pairs));
  }
  return RewriteResult::fail("no accumulator `acc + a_t @ b_t` of which only the last value is read");
}

// ---------------------------------------------------------------------------
// scan_save_mem

/// How many last rows `client` reads of the stacked output it uses, or
/// nullopt when it reads others (or the whole).
std::optional<std::int64_t> last_rows_read(const Client& client) {
  if (client.is_output() || client.slot != 0) return std::nullopt;
  const auto* st = ops_detail::op_as<Subtensor>(client.node->op());
  if (!st || st->index().entries().empty()) return std::nullopt;
  const IndexEntry& e = st->index().entries()[0];
  if (!e.is_slice) {
    const auto i = ops_detail::constant_int(client.node->input(1));
    if (i && *i < 0) return -*i;
    return std::nullopt;
  }
  // x[-k:] (no stop, no step).
  if (!e.has_start || e.has_stop || e.has_step) return std::nullopt;
  const auto k = ops_detail::constant_int(client.node->input(1));
  if (k && *k < 0) return -*k;
  return std::nullopt;
}

RewriteResult save_mem(FunctionGraph& fg, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  ScanParts p = ScanParts::of(node, *op);
  std::unordered_set<int> shortened;
  auto rows_needed = [&](int old) -> std::optional<std::int64_t> {
    std::int64_t k = 0;
    for (const Client& c : fg.clients(*node.output(static_cast<std::size_t>(old)))) {
      const auto r = last_rows_read(c);
      if (!r) return std::nullopt;
      k = std::max(k, *r);
    }
    return k;
  };
  for (ScanParts::State& s : p.states) {
    if (s.keep != 0) continue;
    const auto k = rows_needed(s.old);
    if (!k) continue;
    s.keep = std::max<std::int64_t>(*k, 1);
    shortened.insert(s.old);
  }
  for (ScanParts::Output& o : p.outputs) {
    if (o.keep != 0) continue;
    const auto k = rows_needed(o.old);
    if (!k || *k == 0) continue;  // unused: dropped by remove_unused
    o.keep = *k;
    shortened.insert(o.old);
  }
  if (shortened.empty()) return RewriteResult::fail("every stacked output is read beyond its last rows");
  // Clients index from the end: they read the same rows of the shorter output.
  const ScanParts::Built b = p.build();
  std::vector<std::pair<Var, Var>> pairs;
  for (const auto& [old, v] : b.replaced) {
    const Var& was = node.output(static_cast<std::size_t>(old));
    if (!shortened.contains(old)) {
      if (fg.num_clients(*was) > 0) pairs.emplace_back(was, v);
      continue;
    }
    for (const Client& c : fg.clients(*was)) {
      std::vector<Var> in(c.node->inputs().begin(), c.node->inputs().end());
      in[0] = v;
      pairs.emplace_back(c.node->output(0), c.node->op().make_node(in)->output(0));
    }
  }
  return RewriteResult::replace(std::move(pairs));
}

// ---------------------------------------------------------------------------
// scan_merge

/// Whether two scans run the same steps: the same number (the same variable,
/// or the length of the same sequence), both counted loops.
bool same_steps(const Apply& a, const Apply& b, const ScanInfo& ia, const ScanInfo& ib) {
  if (ia.as_while || ib.as_while || ia.steps_from_sequences != ib.steps_from_sequences) return false;
  if (ia.steps_from_sequences) return a.input(ia.outer_seq(0)) == b.input(ib.outer_seq(0));
  return a.input(0) == b.input(0);
}

/// Whether any input of `node` is computed from an output of `other`.
bool reads_from(const Apply& node, const Apply& other) {
  for (const Var& in : node.inputs())
    for (std::size_t j = 0; j < other.num_outputs(); ++j)
      if (in == other.output(j) || depends_on(in, other.output(j))) return true;
  return false;
}

RewriteResult merge_scans(FunctionGraph& fg, Apply& node, const RewriteContext&) {
  const ScanOp* op = as_scan(node);
  if (!op) return RewriteResult::fail("not a scan");
  if (op->info().n_shared) return RewriteResult::fail("the scan updates shared variables");
  for (Apply* other : fg.toposort()) {
    const ScanOp* o = other == &node ? nullptr : as_scan(*other);
    if (!o || o->info().n_shared || o->info().go_backwards != op->info().go_backwards) continue;
    if (!same_steps(node, *other, op->info(), o->info())) continue;
    if (reads_from(node, *other) || reads_from(*other, node)) continue;
    // One loop: this scan's groups, then the other's.
    constexpr int kOther = 1 << 20;  // marks the other node's outputs
    ScanParts p = ScanParts::of(node, *op);
    ScanParts q = ScanParts::of(*other, *o);
    for (ScanParts::State& st : q.states) st.old += kOther;
    for (ScanParts::Output& out : q.outputs) out.old += kOther;
    p.seqs.insert(p.seqs.end(), q.seqs.begin(), q.seqs.end());
    p.states.insert(p.states.end(), q.states.begin(), q.states.end());
    p.outputs.insert(p.outputs.end(), q.outputs.begin(), q.outputs.end());
    p.non_seqs.insert(p.non_seqs.end(), q.non_seqs.begin(), q.non_seqs.end());
    p.info.name = op->info().name == o->info().name ? op->info().name
                                                     : op->info().name + "&" + o->info().name;
    const ScanParts::Built b = p.build();
    std::vector<std::pair<Var, Var>> pairs;
    for (const auto& [old, v] : b.replaced) {
      const Apply& from = old >= kOther ? *other : node;
      const std::size_t j = static_cast<std::size_t>(old >= kOther ? old - kOther : old);
      if (fg.num_clients(*from.output(j)) > 0) pairs.emplace_back(from.output(j), v);
    }
    return RewriteResult::replace(std::move(pairs));
  }
  return RewriteResult::fail("no other scan runs the same steps without reading this one");
}

}  // namespace

NodeRewriterPtr scan_merge_rewriter() {
  return scan_rewriter("scan_merge", "two scans over the same steps, neither reading the other, become one",
                       merge_scans);
}

NodeRewriterPtr scan_remove_unused_rewriter() {
  return scan_rewriter("remove_constants_and_unused_inputs_scan",
                       "constant non-sequences go inside; unread inputs and unused outputs go",
                       remove_unused);
}

NodeRewriterPtr scan_merge_inouts_rewriter() {
  return scan_rewriter("scan_merge_inouts", "inputs given twice, and outputs computed twice, become one",
                       merge_inouts);
}

NodeRewriterPtr scan_push_out_non_seq_rewriter() {
  return scan_rewriter("scan_push_out_non_seq",
                       "what depends on non-sequences alone is computed before the loop",
                       push_out_non_seq);
}

NodeRewriterPtr scan_push_out_seq_rewriter() {
  return scan_rewriter("scan_push_out_seq",
                       "elementwise work and x_t @ W on sequence elements run over whole sequences",
                       push_out_seq);
}

NodeRewriterPtr scan_push_out_scan_output_rewriter() {
  return scan_rewriter("scan_push_out_scan_output",
                       "an output computed from a state's new value alone is computed after the loop",
                       push_out_output);
}

NodeRewriterPtr scan_push_out_dot1_rewriter() {
  return scan_rewriter("scan_push_out_dot1",
                       "an accumulator acc + a_t @ b_t read at its end is one product after the loop",
                       push_out_dot1);
}

NodeRewriterPtr scan_save_mem_rewriter() {
  return scan_rewriter("scan_save_mem", "outputs read only at their last rows keep only those",
                       save_mem);
}

void register_scan_rewrites(RewriteDB& optdb) {
  auto eq1 = std::make_shared<EquilibriumDB>("scan_eqopt1");
  eq1->add(scan_remove_unused_rewriter(), {"fast_run", "scan"});
  eq1->add(scan_push_out_non_seq_rewriter(), {"fast_run", "scan"});
  eq1->add(scan_push_out_seq_rewriter(), {"fast_run", "scan"});
  eq1->add(scan_push_out_scan_output_rewriter(), {"fast_run", "scan"});
  optdb.add(eq1, {"fast_run", "scan"}, EntryOptions{.position = 0.05});
  auto eq2 = std::make_shared<EquilibriumDB>("scan_eqopt2");
  eq2->add(scan_remove_unused_rewriter(), {"fast_run", "scan"});
  eq2->add(scan_merge_rewriter(), {"fast_run", "scan"});
  eq2->add(scan_merge_inouts_rewriter(), {"fast_run", "scan"});
  eq2->add(scan_push_out_dot1_rewriter(), {"fast_run", "scan"});
  optdb.add(eq2, {"fast_run", "scan"}, EntryOptions{.position = 1.6});
  auto mem = std::make_shared<EquilibriumDB>("scan_save_mem_db");
  mem->add(scan_save_mem_rewriter(), {"fast_run", "scan"});
  optdb.add(mem, {"fast_run", "scan"}, EntryOptions{.position = 1.61});
}

}  // namespace rw

// Scan's derivatives: back-propagation through time (L_op) as a Scan over the
// reversed steps, and forward mode (R_op) as a Scan carrying the tangents.
#include <unordered_map>

#include <fmt/format.h>

#include "engine/compile/scan.hpp"
#include "engine/grad/grad.hpp"
#include "engine/grad/rop.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"

namespace rw {

namespace {

Var disconnected() { return Variable::make(DisconnectedType::make()); }

bool connected(const Var& g) { return g && !is_disconnected_grad(g) && !is_null_grad(g); }

/// The number of steps the node runs, as a variable.
Var step_count(const ScanInfo& in, const Apply& node) {
  return in.steps_from_sequences ? shape_i(node.input(in.outer_seq(0)), 0) : node.input(0);
}

Var reversed(const Var& x) { return subtensor(x, {slice(std::nullopt, std::nullopt, -1)}); }

/// A fresh root variable of `v`'s type, named after it.
Var fresh(const Var& v, const std::string& suffix = {}) {
  return Variable::make(v->type(), v->name() + suffix);
}

/// The inner graph's stacked outputs (and condition, when `with_until`) with
/// `replace` in place of its inputs: a copy.
std::vector<Var> body_copy(const ScanOp& op, const std::vector<Var>& replace, bool with_until) {
  const ScanInfo& in = op.info();
  std::unordered_map<const Variable*, Var> map;
  for (std::size_t i = 0; i < replace.size(); ++i)
    if (replace[i]) map.emplace(op.inner_inputs()[i].get(), replace[i]);
  std::vector<Var> outs(op.inner_outputs().begin(), op.inner_outputs().begin() + static_cast<std::ptrdiff_t>(in.n_stacked()));
  if (with_until) outs.push_back(op.inner_outputs().back());
  return clone_replace(outs, map);
}

/// Whether the stacked outputs read the shared variables the body updates.
bool stacked_read_shared(const ScanOp& op) {
  const ScanInfo& in = op.info();
  if (in.n_shared == 0) return false;
  std::vector<Var> outs(op.inner_outputs().begin(), op.inner_outputs().begin() + static_cast<std::ptrdiff_t>(in.n_stacked()));
  if (in.as_while) outs.push_back(op.inner_outputs().back());
  std::vector<Var> roots = graph_inputs(outs);
  for (std::size_t i = 0; i < in.n_shared; ++i)
    for (const Var& r : roots)
      if (r.get() == op.inner_inputs()[in.inner_shared(i)].get()) return true;
  return false;
}

}  // namespace

std::vector<Var> ScanOp::L_op(const Apply& node, std::span<const Var> output_grads) const {
  const ScanInfo& in = info_;
  const std::string& nm = in.name;
  std::vector<Var> result(node.num_inputs());
  auto all_null = [&](const std::string& why) {
    for (Var& r : result) r = Variable::make(NullType::make(why));
    result[0] = disconnected();
    return result;
  };
  if (in.as_while)
    return all_null(fmt::format("`{}` is a while-loop; its gradient is not implemented", nm));
  for (std::int64_t k : in.store_steps)
    if (k != 0)
      return all_null(fmt::format("`{}` keeps only its last steps (ScanSaveMem ran); "
                                  "differentiate the graph before rewriting it",
                                  nm));
  for (std::size_t i = 0; i < in.n_shared; ++i)
    if (connected(output_grads[in.n_stacked() + i]))
      throw NotImplementedError(fmt::format(
          "`{}`: the gradient of a shared variable's final value is not implemented", nm));
  if (stacked_read_shared(*this))
    return all_null(fmt::format("`{}`: its outputs read a shared variable it updates; the "
                                "gradient through it is not implemented",
                                nm));

  const Var T = step_count(in, node);
  const bool truncated = in.truncate_gradient > 0;
  const Var Tb = truncated ? minimum(T, integer_constant(in.truncate_gradient, DType::Int64)) : T;

  // Fresh variables standing for the forward step's inner inputs, in their layout.
  std::vector<Var> fwd(inner_inputs_.size());
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i) fwd[i] = fresh(inner_inputs_[i]);
  const std::vector<Var> outs = body_copy(*this, fwd, false);

  // The backward step's sequences (reversed): the forward sequences, each
  // state tap's value, and the output gradients that exist.
  std::vector<Var> b_seq_outer, b_seq_inner;
  auto add_seq = [&](const Var& outer_rows, const Var& inner) {
    b_seq_outer.push_back(reversed(outer_rows));
    b_seq_inner.push_back(inner);
  };
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    const Var s = node.input(in.outer_seq(i));
    add_seq(in.steps_from_sequences ? s : subtensor(s, {slice(0, T)}), fwd[i]);
  }
  for (std::size_t j = 0; j < in.n_states(); ++j) {
    const auto L = static_cast<std::int64_t>(in.lag(j));
    const Var full = concatenate({subtensor(node.input(in.outer_state(j)), {slice(Bound(-L))}),
                                  node.output(j)});
    for (std::size_t t = 0; t < in.state_taps[j].size(); ++t) {
      const std::int64_t k = in.state_taps[j][t];
      // Step t reads the value of step t + k: row L + t + k of `full`.
      add_seq(subtensor(full, {slice(Bound(L + k), Bound(add(T, L + k)))}), fwd[in.inner_state(j) + t]);
    }
  }
  std::vector<Var> out_grad_inner(in.n_stacked());
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    if (!connected(output_grads[j])) continue;
    out_grad_inner[j] = Variable::make(inner_outputs_[j]->type(), fmt::format("g{}[t]", j));
    Var g = output_grads[j];
    add_seq(g, out_grad_inner[j]);
  }

  // The backward step's states: per float state, one carry per tap depth
  // (the gradient flowing into its value m steps back); per non-sequence,
  // an accumulated gradient.
  std::vector<std::vector<Var>> carry(in.n_states());
  std::vector<Var> b_state_outer, b_state_inner, b_state_new;
  for (std::size_t j = 0; j < in.n_states(); ++j) {
    if (!is_float(inner_outputs_[j]->tensor_type()->dtype())) continue;
    const Var row0 = subtensor(node.input(in.outer_state(j)), {0});
    for (std::size_t m = 1; m <= in.lag(j); ++m) {
      Var c = Variable::make(inner_inputs_[in.inner_state(j)]->type(), fmt::format("carry{}_{}", j, m));
      carry[j].push_back(c);
      b_state_inner.push_back(c);
      b_state_outer.push_back(expand_dims(zeros_like(row0), 0));
    }
  }
  // The gradients the step gives its inputs.
  std::vector<Var> f, wrt, eval;
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    Var g = out_grad_inner[j];
    if (j < in.n_states() && !carry[j].empty()) g = g ? add(g, carry[j][0]) : carry[j][0];
    if (!g) continue;
    f.push_back(outs[j]);
    eval.push_back(g);
  }
  std::vector<std::size_t> wrt_inner;  // forward inner input index of each wrt
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i) {
    if (i >= in.inner_shared() && i < in.inner_non_seq()) continue;
    if (!inner_inputs_[i]->tensor_type()) continue;  // a generator: no gradient
    wrt.push_back(fwd[i]);
    wrt_inner.push_back(i);
  }
  std::vector<Var> d(wrt.size());
  if (!f.empty()) {
    GradOptions go;
    go.disconnected_inputs = DisconnectedInputs::Ignore;
    go.return_disconnected = ReturnDisconnected::Disconnected;
    go.null_gradients = NullGradients::Return;
    d = Lop(f, wrt, eval, go);
  }
  std::vector<Var> d_of(inner_inputs_.size());
  for (std::size_t w = 0; w < wrt.size(); ++w) d_of[wrt_inner[w]] = d[w];

  // New carries: c_m' = c_{m+1} + d(tap -m).
  for (std::size_t j = 0; j < in.n_states(); ++j) {
    if (carry[j].empty()) continue;
    const std::size_t L = in.lag(j);
    for (std::size_t m = 1; m <= L; ++m) {
      Var next = m < L ? carry[j][m] : Var();
      const auto& taps = in.state_taps[j];
      for (std::size_t t = 0; t < taps.size(); ++t) {
        if (taps[t] != -static_cast<std::int64_t>(m)) continue;
        const Var& dt = d_of[in.inner_state(j) + t];
        if (is_null_grad(dt)) return all_null(dt->type()->to_string());
        if (connected(dt)) next = next ? add(next, dt) : dt;
      }
      b_state_new.push_back(next ? next : zeros_like(carry[j][m - 1]));
    }
  }
  // Accumulators for the non-sequences whose step gradient exists.
  std::vector<int> acc_of(in.n_non_seqs, -1);
  for (std::size_t k = 0; k < in.n_non_seqs; ++k) {
    const Var& dk = d_of[in.inner_non_seq(k)];
    if (!connected(dk)) continue;
    const TensorType* kt = inner_inputs_[in.inner_non_seq(k)]->tensor_type();
    if (!kt || !is_float(kt->dtype())) continue;
    // Of the non-sequence's type: the step's gradient may know more of its shape.
    Var a = Variable::make(inner_inputs_[in.inner_non_seq(k)]->type(), fmt::format("acc{}", k));
    acc_of[k] = static_cast<int>(b_state_inner.size());
    b_state_inner.push_back(a);
    b_state_new.push_back(add(a, dk));
    b_state_outer.push_back(expand_dims(zeros_like(node.input(in.outer_non_seq(k))), 0));
  }
  // Per-step gradients of the sequences.
  std::vector<int> seq_out(in.n_seqs, -1);
  std::vector<Var> b_nit;
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    const Var& di = d_of[i];
    if (!connected(di)) continue;
    seq_out[i] = static_cast<int>(b_nit.size());
    b_nit.push_back(di);
  }
  for (const Var& v : d_of)
    if (v && is_null_grad(v)) return all_null(v->type()->to_string());

  // The backward scan: sequences, states (carries, accumulators), the
  // forward non-sequences.
  if (!b_state_new.empty() || !b_nit.empty()) {
    ScanInfo bi;
    bi.name = "grad_of_" + nm;
    bi.n_seqs = b_seq_inner.size();
    bi.state_taps.assign(b_state_inner.size(), {-1});
    bi.n_nit_sot = b_nit.size();
    bi.n_non_seqs = in.n_non_seqs;
    bi.store_steps.assign(bi.n_stacked(), 0);
    for (std::size_t j = 0; j < b_state_inner.size(); ++j) bi.store_steps[j] = 1;
    std::vector<Var> inner = b_seq_inner;
    inner.insert(inner.end(), b_state_inner.begin(), b_state_inner.end());
    for (std::size_t k = 0; k < in.n_non_seqs; ++k) inner.push_back(fwd[in.inner_non_seq(k)]);
    std::vector<Var> inner_out = b_state_new;
    inner_out.insert(inner_out.end(), b_nit.begin(), b_nit.end());
    // A copy, so that the variables this body reads are its own.
    ClonedGraph c = clone_graph(inner, inner_out);
    // Each new state must fit its state's type: a broadcast may have made
    // it more general; say which shape it has.
    for (std::size_t j = 0; j < b_state_inner.size(); ++j) {
      const TensorType& want = *b_state_inner[j]->tensor_type();
      Var& o = c.outputs[j];
      if (o->tensor_type()->dtype() != want.dtype()) o = cast(o, want.dtype());
      if (!want.is_super(*o->type())) o = specify_shape(o, want.shape());
    }
    std::vector<Var> outer{Tb};
    outer.insert(outer.end(), b_seq_outer.begin(), b_seq_outer.end());
    outer.insert(outer.end(), b_state_outer.begin(), b_state_outer.end());
    for (std::size_t k = 0; k < in.n_non_seqs; ++k) outer.push_back(node.input(in.outer_non_seq(k)));
    const ApplyRef back = detail::rebuild_scan(std::move(bi), std::move(c.inputs),
                                               std::move(c.outputs), rewrite_, outer);

    // Sequences: row t of the gradient is backward row T-1-t; the steps
    // the truncation left out get zeros, as do rows past the last step.
    for (std::size_t i = 0; i < in.n_seqs; ++i) {
      if (seq_out[i] < 0) continue;
      const Var rows =
          reversed(back->output(b_state_inner.size() + static_cast<std::size_t>(seq_out[i])));
      const Var s = node.input(in.outer_seq(i));
      result[in.outer_seq(i)] = !truncated && in.steps_from_sequences
                                    ? rows
                                    : set_subtensor(zeros_like(s, rows->tensor_type()->dtype()),
                                                    {slice(sub(T, Tb), T)}, rows);
    }
    // Initial values: row r (step r - L) gets carry L - r.
    std::size_t next_carry = 0;
    for (std::size_t j = 0; j < in.n_states(); ++j) {
      if (carry[j].empty()) continue;
      const std::size_t L = in.lag(j);
      std::vector<Var> rows(L);
      for (std::size_t m = 1; m <= L; ++m) {
        Var last = subtensor(back->output(next_carry + m - 1), {-1});
        if (truncated)
          last = where(le(T, in.truncate_gradient), last, zeros_like(last));
        rows[L - m] = last;
      }
      next_carry += L;
      result[in.outer_state(j)] = stack(rows, 0);
    }
    for (std::size_t k = 0; k < in.n_non_seqs; ++k)
      if (acc_of[k] >= 0)
        result[in.outer_non_seq(k)] = subtensor(back->output(static_cast<std::size_t>(acc_of[k])), {-1});
  }
  for (std::size_t i = 0; i < result.size(); ++i) {
    if (result[i]) continue;
    if (i >= in.outer_shared() && i < in.outer_non_seq())
      result[i] = Variable::make(NullType::make(fmt::format(
          "`{}` updates this shared variable; the gradient through its updates is not implemented",
          nm)));
    else
      result[i] = disconnected();
  }
  return result;
}

std::vector<Var> ScanOp::R_op(const Apply& node, std::span<const Var> eval_points) const {
  const ScanInfo& in = info_;
  const std::string& nm = in.name;
  for (std::int64_t k : in.store_steps)
    if (k != 0)
      throw NotImplementedError(fmt::format("`{}` keeps only its last steps; its R_op is not "
                                            "implemented",
                                            nm));
  if (stacked_read_shared(*this))
    throw NotImplementedError(fmt::format(
        "`{}`: its outputs read a shared variable it updates; R_op through it is not "
        "implemented",
        nm));
  auto ev = [&](std::size_t i) { return i < eval_points.size() ? eval_points[i] : Var(); };

  // The new loop: each sequence then its tangent; each state then its
  // tangent (same taps); the non-sequences then their tangents. Outputs:
  // states, their tangents, the other outputs, their tangents.
  std::vector<Var> fwd(inner_inputs_.size()), tan(inner_inputs_.size());
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i) {
    fwd[i] = fresh(inner_inputs_[i]);
    tan[i] = fresh(inner_inputs_[i], "'");
  }
  const std::vector<Var> outs = body_copy(*this, fwd, in.as_while);
  std::vector<Var> wrt, evs;
  for (std::size_t i = 0; i < inner_inputs_.size(); ++i) {
    if (i >= in.inner_shared() && i < in.inner_non_seq()) continue;
    const TensorType* it = inner_inputs_[i]->tensor_type();
    if (!it || !is_float(it->dtype())) continue;
    wrt.push_back(fwd[i]);
    evs.push_back(tan[i]);
  }
  std::vector<Var> stacked(outs.begin(), outs.begin() + static_cast<std::ptrdiff_t>(in.n_stacked()));
  std::vector<Var> d = Rop(stacked, wrt, evs, DisconnectedInputs::Ignore);

  ScanInfo ri;
  ri.name = "rop_of_" + nm;
  ri.n_seqs = 2 * in.n_seqs;
  for (const auto& taps : in.state_taps) {
    ri.state_taps.push_back(taps);
    ri.state_taps.push_back(taps);
  }
  ri.n_nit_sot = 2 * in.n_nit_sot;
  ri.n_non_seqs = 2 * in.n_non_seqs;
  ri.as_while = in.as_while;
  ri.steps_from_sequences = in.steps_from_sequences;
  ri.go_backwards = in.go_backwards;
  std::vector<Var> inner, inner_out, outer{node.input(0)};
  auto zeros_or = [](const Var& e, const Var& like) { return e ? e : zeros_like(like); };
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    inner.push_back(fwd[i]);
    inner.push_back(tan[i]);
    outer.push_back(node.input(in.outer_seq(i)));
    outer.push_back(zeros_or(ev(in.outer_seq(i)), node.input(in.outer_seq(i))));
  }
  for (std::size_t j = 0; j < in.n_states(); ++j) {
    const std::size_t base = in.inner_state(j), n = in.state_taps[j].size();
    for (std::size_t t = 0; t < n; ++t) inner.push_back(fwd[base + t]);
    for (std::size_t t = 0; t < n; ++t) inner.push_back(tan[base + t]);
    outer.push_back(node.input(in.outer_state(j)));
    outer.push_back(zeros_or(ev(in.outer_state(j)), node.input(in.outer_state(j))));
  }
  for (std::size_t k = 0; k < in.n_non_seqs; ++k) {
    inner.push_back(fwd[in.inner_non_seq(k)]);
    inner.push_back(tan[in.inner_non_seq(k)]);
    outer.push_back(node.input(in.outer_non_seq(k)));
    outer.push_back(zeros_or(ev(in.outer_non_seq(k)), node.input(in.outer_non_seq(k))));
  }
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    inner_out.push_back(outs[j]);
    Var dj = d[j] ? d[j] : zeros_like(outs[j]);
    const TensorType& want = *outs[j]->tensor_type();
    if (dj->tensor_type()->dtype() != want.dtype()) dj = cast(dj, want.dtype());
    if (!want.is_super(*dj->type())) dj = specify_shape(dj, want.shape());
    inner_out.push_back(dj);
  }
  if (in.as_while) inner_out.push_back(outs.back());
  ClonedGraph c = clone_graph(inner, inner_out);
  const ApplyRef r = detail::rebuild_scan(std::move(ri), std::move(c.inputs), std::move(c.outputs),
                                          rewrite_, outer);

  std::vector<Var> result;
  for (std::size_t j = 0; j < in.n_stacked(); ++j) result.push_back(r->output(2 * j + 1));
  // The shared variables' final values: no tangent (as their gradient).
  for (std::size_t i = 0; i < in.n_shared; ++i) result.push_back(Var());
  return result;
}

}  // namespace rw

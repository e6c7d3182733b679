// Scan: a loop as an Op (Aesara's scan). Each step runs an inner graph on the
// step's slice of the sequences, the recurrent states' earlier values and the
// non-sequences; the outputs are stacked along a new leading axis.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/compile/function.hpp"
#include "engine/compile/function_options.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

namespace detail {
struct ScanScalarLoop;
}

/// A sequence the loop walks along its first axis, read at offsets `taps` of
/// the step (Aesara's `dict(input=x, taps=[-1, 0])`): with taps k, the step t
/// reads `x[t + k - min(0, min(taps))]`, so that the first step reads the
/// first element at the lowest tap. A Var converts to one with tap 0.
struct ScanSequence {
  ScanSequence(Var v) : input(std::move(v)) {}  // NOLINT: implicit by design
  ScanSequence(Var v, std::vector<std::int64_t> t) : input(std::move(v)), taps(std::move(t)) {}
  Var input;
  std::vector<std::int64_t> taps{0};
};

/// What an output of the body starts from (Aesara's `outputs_info` entry).
/// With an initial value the output is a recurrent state fed back to the body
/// at the (negative) `taps`: tap -1 (the default) reads the last step's value
/// and `initial` is one value of the output's type; with taps down to -L,
/// `initial` holds L values along a new leading axis, the oldest first.
/// `none()`: the output is not fed back.
struct ScanOutput {
  ScanOutput(Var v) : initial(std::move(v)) {}  // NOLINT: implicit by design
  ScanOutput(Var v, std::vector<std::int64_t> t) : initial(std::move(v)), taps(std::move(t)) {}
  static ScanOutput none() { return ScanOutput(Var(), {}); }
  Var initial;
  std::vector<std::int64_t> taps{-1};
};

/// What the body returns for one step: its outputs (one per `outputs_info`
/// entry, in order), updates of shared variables (the value each has at the
/// next step; the last step's becomes the update the scan returns; a
/// generator a draw in the body uses is updated so without being named), and the
/// stopping condition of a while-loop (a boolean 0-d tensor: the loop ends
/// after the step that makes it true; Aesara's `until`).
struct ScanStep {
  ScanStep(Var v) : outputs{std::move(v)} {}  // NOLINT: implicit by design
  ScanStep(std::vector<Var> v) : outputs(std::move(v)) {}  // NOLINT
  ScanStep(std::initializer_list<Var> v) : outputs(v) {}  // NOLINT
  ScanStep(std::vector<Var> v, std::vector<std::pair<Var, Var>> u, Var cond = {})
      : outputs(std::move(v)), updates(std::move(u)), until(std::move(cond)) {}
  std::vector<Var> outputs;
  std::vector<std::pair<Var, Var>> updates;
  Var until;
};

/// The body: given the step's inputs — each sequence's taps in order, then
/// each recurrent state's taps, then the non-sequences — it returns the
/// step's outputs. It is called once, on fresh variables standing for one
/// step's inputs, when the scan is built.
using ScanFn = std::function<ScanStep(std::span<const Var>)>;

/// How `scan` builds the loop (Aesara's keyword arguments).
struct ScanOptions {
  /// The number of steps (an integer 0-d variable or a number); null: the
  /// sequences' length. With sequences as well, each must hold at least this
  /// many steps and the first ones are used. In a while-loop, the most steps.
  Var n_steps;
  /// Walk the sequences from their end (Aesara's go_backwards); the outputs
  /// are still stacked in the order the steps ran.
  bool go_backwards = false;
  /// Back-propagate through at most this many of the last steps; -1: all.
  std::int64_t truncate_gradient = -1;
  /// Every variable the body reads must be a step input or a constant: a
  /// shared or outer variable it reaches is an error instead of becoming an
  /// implicit non-sequence.
  bool strict = false;
  /// Names the Op (`scan`, `rnn`, …) in printing and error messages.
  std::string name = "scan";
  /// The rewrite pipeline the body is compiled with (once per Op). Empty:
  /// none; rw::scan gives the default mode's.
  GraphRewrite rewrite;
};

/// What `scan` returns: one variable per body output (the steps stacked
/// along a new first axis), and the updates of the shared variables the body
/// updated (give them to the function: `{.updates = r.updates}`).
struct ScanResult {
  std::vector<Var> outputs;
  std::vector<std::pair<Var, Var>> updates;
  /// The only output; throws Error when there are several.
  const Var& output() const;
};

/// The loop as laid out in a Scan node. Outer inputs: the number of steps
/// (i64[]); one sequence per (sequence, tap) pair, already cut to start at
/// the step's element; the initial buffer of each recurrent state (its L
/// earlier values along a first axis); the current value of each shared
/// variable the body updates; the non-sequences. Outer outputs: each state,
/// each output that is not fed back, then each updated shared variable's
/// final value. The inner graph's inputs and outputs follow the same order
/// (the states' inputs one per tap; the condition last, in a while-loop).
struct ScanInfo {
  std::size_t n_seqs = 0;
  /// Per recurrent state: its taps, ascending and negative.
  std::vector<std::vector<std::int64_t>> state_taps;
  std::size_t n_nit_sot = 0;
  std::size_t n_shared = 0;
  /// Per shared variable: its update is the default one of a draw in the
  /// body (a random generator's next state), which a compiled function makes
  /// by itself (ScanOp::default_updates); else the user's, given to the
  /// function through ScanResult::updates.
  std::vector<bool> shared_default;
  std::size_t n_non_seqs = 0;
  bool as_while = false;
  /// The number of steps is the sequences' (input 0 is then ignored).
  bool steps_from_sequences = false;
  bool go_backwards = false;  // for printing: the sequences are already reversed
  std::int64_t truncate_gradient = -1;
  /// Per stacked output (states, then the others): 0 keeps every step; k
  /// keeps only the last k rows (ScanSaveMem) — for a state, of its initial
  /// values followed by the steps, so that a loop of no step still has its
  /// last value.
  std::vector<std::int64_t> store_steps;
  std::string name = "scan";

  std::size_t n_states() const { return state_taps.size(); }
  std::size_t n_stacked() const { return n_states() + n_nit_sot; }
  std::size_t lag(std::size_t state) const { return static_cast<std::size_t>(-state_taps[state].front()); }
  /// Number of inner inputs for the states (one per tap).
  std::size_t n_state_taps() const;
  /// Index of the first outer input of each group.
  std::size_t outer_seq(std::size_t i = 0) const { return 1 + i; }
  std::size_t outer_state(std::size_t j = 0) const { return 1 + n_seqs + j; }
  std::size_t outer_shared(std::size_t i = 0) const { return 1 + n_seqs + n_states() + i; }
  std::size_t outer_non_seq(std::size_t i = 0) const { return outer_shared(n_shared) + i; }
  std::size_t n_outer_inputs() const { return outer_non_seq(n_non_seqs); }
  /// Index of the first inner input of each group.
  std::size_t inner_state(std::size_t j = 0) const;
  std::size_t inner_shared(std::size_t i = 0) const { return n_seqs + n_state_taps() + i; }
  std::size_t inner_non_seq(std::size_t i = 0) const { return inner_shared(n_shared) + i; }
  std::size_t n_inner_inputs() const { return inner_non_seq(n_non_seqs); }
  std::size_t n_inner_outputs() const { return n_stacked() + n_shared + (as_while ? 1 : 0); }
};

/// The Scan Op. Equality is identity. The inner graph is compiled on first
/// use with the options' rewrite and linked once; a call runs it once per
/// step on views of the outer buffers, with the output buffers allocated
/// before the first step (growing geometrically in a while-loop).
class ScanOp final : public Op {
 public:
  /// Checks that the inner graph fits `info` (Error naming the scan).
  ScanOp(ScanInfo info, std::vector<Var> inner_inputs, std::vector<Var> inner_outputs,
         GraphRewrite rewrite);

  std::string_view name() const override { return info_.name; }
  std::string to_string() const override;
  bool equals(const Op& other) const override { return this == &other; }

  const ScanInfo& info() const { return info_; }
  std::span<const Var> inner_inputs() const { return inner_inputs_; }
  std::span<const Var> inner_outputs() const { return inner_outputs_; }
  const GraphRewrite& rewrite() const { return rewrite_; }

  /// Checks each outer input against what the inner graph takes (TypeError
  /// naming the scan and input) and types the outputs.
  ApplyRef make_node(std::span<const Var> inputs) const override;
  /// Runs the loop. Throws ValueError naming the scan: a negative number of
  /// steps, sequences too short or of different lengths, an initial buffer
  /// with too few values, a step whose output changes shape.
  void perform(const Apply& node, std::span<const Tensor> inputs,
               std::span<Tensor> outputs) const override;
  /// Leading extent: the number of steps (or the rows kept); the rest from
  /// the initial values and the inner graph, without running the loop.
  /// NotImplementedError for a while-loop, whose length is known only by
  /// running it.
  std::vector<ShapeVars> infer_shape(const Apply& node,
                                     std::span<const ShapeVars> input_shapes) const override;
  /// Back-propagation through time: another Scan, over the reversed steps.
  std::vector<Var> L_op(const Apply& node, std::span<const Var> output_grads) const override;
  /// Forward mode: a Scan carrying each state's tangent beside it.
  std::vector<Var> R_op(const Apply& node, std::span<const Var> eval_points) const override;
  std::vector<std::vector<bool>> connection_pattern(const Apply& node) const override;
  bool do_constant_folding(const Apply&) const override { return false; }
  /// False when the body draws random numbers: two such loops are two draws.
  bool mergeable() const override { return mergeable_; }
  /// The final value of each generator the body draws from (shared_default):
  /// a function that uses the scan advances it, as it does for a draw.
  IoMap default_updates() const override;

  /// The shape of one row of stacked output j that is not fed back, from the
  /// body's shapes in terms of the outer inputs' (`input_shapes`). Throws
  /// NotImplementedError when that needs a value the body computes.
  ShapeVars inner_shape(std::size_t j, std::span<const ShapeVars> input_shapes) const;
  /// The compiled body (compiled on the first call).
  const FunctionBase& body() const;
  /// Whether the loop runs as one scalar program on registers: every input
  /// and output of the compiled body is 0-d and every node elementwise
  /// (compiles the body).
  bool runs_on_scalars() const;

 private:
  ScanInfo info_;
  std::vector<Var> inner_inputs_, inner_outputs_;
  GraphRewrite rewrite_;
  std::vector<std::vector<bool>> inner_pattern_;  // inner input i → inner output j
  bool mergeable_ = true;
  mutable std::once_flag compiled_once_;
  mutable std::unique_ptr<FunctionBase> fn_;
  mutable std::shared_ptr<const detail::ScanScalarLoop> scalar_;  // null: the general loop
  mutable std::mutex call_mutex_;
};

/// The Scan node a variable is an output of, or nullptr.
const ScanOp* scan_op_of(const Var& v);

/// Builds a loop (Aesara's scan): `fn` is called once on fresh variables
/// standing for the step's inputs. Throws Error naming the scan
/// (options.name) and the argument at fault: a null sequence or initial value; a sequence that is 0-d;
/// taps that are empty, repeated, or (for a state) not negative; an initial
/// value whose shape cannot hold the taps' values; a body returning another
/// number of outputs than `outputs_info` has entries (when it has any); an
/// output whose dtype, rank or broadcast pattern is not its initial value's; a
/// condition that is not a boolean 0-d tensor; an update of something that is
/// not a shared variable; no sequence and no n_steps outside a while-loop;
/// with `strict`, a body that reads a variable it was not given.
ScanResult make_scan(const ScanFn& fn, std::vector<ScanSequence> sequences,
                     std::vector<ScanOutput> outputs_info, std::vector<Var> non_sequences,
                     ScanOptions options);

namespace detail {
/// A node like `scan_node` with another info and inner graph (for the
/// rewrites): outer inputs `inputs`, laid out as `info` says.
ApplyRef rebuild_scan(ScanInfo info, std::vector<Var> inner_inputs,
                      std::vector<Var> inner_outputs, const GraphRewrite& rewrite,
                      std::span<const Var> inputs);
}  // namespace detail

}  // namespace rw

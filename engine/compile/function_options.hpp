// How a function is compiled: input specifications (In) and FunctionOptions
// (updates, givens, the rewrite hook, storage and profiling choices).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/graph/function_graph.hpp"
#include "engine/graph/impl_registry.hpp"
#include "engine/graph/variable.hpp"
#include "engine/rewrite/profile.hpp"
#include "engine/rewrite/trace.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// An explicit input of a compiled function and how its argument is accepted
/// (Aesara's In). A Var converts to an In with the defaults.
struct In {
  // Implicit, so that a braced list `{x, y}` gives the inputs.
  In(Var v) : variable(std::move(v)) {}

  Var variable;
  /// Accept only arguments of exactly the input's dtype (no conversion).
  bool strict = false;
  /// Accept conversions that may lose precision (float64 → float32).
  bool allow_downcast = false;
  /// The function may overwrite the argument in place (in-place rewrites
  /// may then destroy it). Off by default: arguments are left untouched.
  bool mutable_input = false;
  /// Value used when a call omits this argument; only trailing inputs may
  /// have one. Null for none.
  Tensor default_value;

  /// This input with one setting changed: `In(x).with_default(t).with_strict()`.
  In with_strict(bool on = true) const {
    In out = *this;
    out.strict = on;
    return out;
  }
  In with_allow_downcast(bool on = true) const {
    In out = *this;
    out.allow_downcast = on;
    return out;
  }
  In with_mutable(bool on = true) const {
    In out = *this;
    out.mutable_input = on;
    return out;
  }
  In with_default(Tensor value) const {
    In out = *this;
    out.default_value = std::move(value);
    return out;
  }
};

/// What runs on the FunctionGraph between building it and linking it: a
/// rewrite pipeline. It may change the graph only through the graph's
/// replacement methods (the outputs keep their number and types). An empty
/// one runs nothing.
using GraphRewrite = std::function<void(FunctionGraph&)>;

/// What to do with an explicit input that no output depends on.
enum class UnusedInput : std::uint8_t {
  Raise,  ///< refuse to compile (Aesara's default), naming the input
  Ignore,  ///< accept it; its argument is checked and then not used
};

/// How `compile_function` builds a function. An aggregate, so that calls read
/// `compile_function({x}, {y}, {.updates = {{w, w_new}}, .name = "step"})`.
/// What NanGuard checks (PyTensor's NanGuardMode): after each node of a
/// call, every element of its float outputs (integer and bool outputs hold
/// no NaN; they are not read), and, unless told not to, the arguments before
/// the first node. The first value found throws NanGuardError.
struct NanGuard {
  /// A NaN is an error.
  bool nan = true;
  /// +inf or -inf is an error.
  bool inf = true;
  /// A finite value whose magnitude is above `big_bound` is an error.
  bool big = true;
  /// PyTensor's bound for "big".
  double big_bound = 1e10;
  /// The arguments (explicit and shared) are checked too.
  bool check_inputs = true;
};

/// What DebugMode checks (Aesara's DebugMode): a slow mode for finding the
/// Op or the rewrite that computes something wrong. Each check is on by
/// default and can be switched off. Every node of every call runs through
/// its Op's `debug_perform`; a finding throws DebugModeError naming the node,
/// its Op, the input or output at fault and, for a difference from the
/// unrewritten graph, the rewrite that made it.
struct DebugMode {
  /// Each output's shape is the one the Op's `infer_shape` gives for the
  /// inputs (an Op without infer_shape is not checked).
  bool check_shapes = true;
  /// The Op overwrites only the inputs its `destroy_map` names, and an
  /// output shares memory with an input only where its `view_map` or
  /// `destroy_map` says so.
  bool check_io_maps = true;
  /// Running the node again, on copies of the same inputs, gives the same
  /// outputs.
  bool check_repeat = true;
  /// Running it on non-contiguous copies of its tensor inputs (every other
  /// element of a buffer twice as long on the last axis) gives the same
  /// outputs.
  bool check_strides = true;
  /// Each call also runs the graph without rewrites and compares the
  /// returned outputs and updates.
  bool compare_unrewritten = true;
  /// How close two results must be for the comparisons above.
  Tolerance tolerance;
  /// With `compare_unrewritten`: names the rewrite that made the outputs
  /// differ, given the call's arguments. rw::function sets it to a
  /// bisection over its mode's pipeline (rw::bisect_rewrites); empty, the
  /// error says only how the outputs differ.
  std::function<std::string(std::span<const Tensor>)> name_rewrite;
};

/// Whether a function runs native code (docs/native.md).
enum class Native : std::uint8_t {
  Off,    ///< The interpreter runs every node (the default).
  Async,  ///< A background thread compiles the module; calls run the
          ///< interpreter until it is loaded, then native code. No call waits.
  Sync,   ///< Compiling the function waits for the module (or its failure).
};

/// The native backend's choices.
struct NativeOptions {
  Native mode = Native::Off;
  /// The compiler command. Empty: $CXX, else `c++`.
  std::string compiler;
  /// The compile directory. Empty: $RW_COMPILEDIR, else
  /// $XDG_CACHE_HOME/rwgraph, else ~/.cache/rwgraph.
  std::filesystem::path compile_dir;
  /// Hears the one warning a failed build gives (no compiler, a compiler
  /// that fails, a compile directory that cannot be written); the function
  /// keeps running on the interpreter. Empty: written to std::cerr. A
  /// warning is given once per process for the same cause.
  std::function<void(const std::string&)> on_warning;
};

struct FunctionOptions {
  /// (shared variable, new value) pairs: after each successful call, each
  /// shared variable is assigned its new value, computed in the same run
  /// from the values every variable had before the call.
  std::vector<std::pair<Var, Var>> updates;
  /// Leave out every default update (Aesara's `no_default_updates=True`):
  /// a shared variable is then updated only by `updates`. By default, a
  /// shared variable that is the input of a node whose Op names its next
  /// value (Op::default_updates: a random variable's generator) and that
  /// `updates` does not mention is assigned that value after each call, so
  /// that calling a function twice gives new draws.
  bool no_default_updates = false;
  /// Leave out the default updates of these shared variables only.
  std::vector<Var> no_default_updates_for;
  /// (variable, replacement) pairs substituted in the outputs and updates
  /// before compiling (Aesara's givens). A replacement has the variable's
  /// type or a more specific one.
  std::vector<std::pair<Var, Var>> givens;
  /// The rewrite pipeline run on the graph before linking.
  GraphRewrite rewrite;
  /// Hears that the rewrite pipeline stopped early — a pass hit a limit (a
  /// rewriter kept firing, the graph outgrew its growth bound, a node or time
  /// limit) — with the diagnostics of the passes that did, one per line
  /// (PassReport::problems). The function still computes what it was asked
  /// to; it is only less rewritten. A hook that throws refuses to compile.
  /// Empty: the diagnostics are written to std::cerr as a warning. Heard by
  /// the hooks rw::function builds from a mode; a hand-written `rewrite`
  /// reports as it likes.
  std::function<void(const std::string&)> on_rewrite_stop;
  /// Hears every event of the rewrite pipeline (PyTensor's
  /// `optimizer_verbose`): each replacement with its rule, refusals, passes
  /// starting and ending; attempts too when the listener asks for them
  /// (TraceListener::wants_attempts). Null: no trace. Heard by the hooks
  /// rw::function builds from a mode; with a hand-written `rewrite` it is an
  /// error.
  std::shared_ptr<TraceListener> rewrite_trace;
  /// Filled with what each pass and rewriter of the pipeline cost and did
  /// (PyTensor's `profile_optimizer`; RewriteProfile::table()). Null: none.
  /// Like `rewrite_trace`, for the hooks rw::function builds.
  std::shared_ptr<RewriteProfile> rewrite_profile;
  /// Names the function in error messages and profiles.
  std::string name;
  /// true: each intermediate buffer is released, or handed to a later node
  /// to reuse, once its last reader has run, and nothing but returned values
  /// outlives a call (Aesara's allow_gc). false: every node keeps its output
  /// buffers between calls and reuses them when the caller no longer holds
  /// them, trading memory for fewer allocations.
  bool allow_gc = true;
  /// Collect a FunctionProfile: time per node and peak intermediate memory.
  bool profile = false;
  UnusedInput on_unused_input = UnusedInput::Raise;
  /// Check every intermediate value for NaN, infinities and big values
  /// (NanGuard; docs/debugging.md). Off when empty; checking reads every
  /// float element each node writes.
  std::optional<NanGuard> nan_guard;
  /// Check every node of every call, and the whole against the unrewritten
  /// graph (DebugMode; docs/debugging.md). Off when empty; several times
  /// slower than a plain call.
  std::optional<DebugMode> debug_mode;
  /// Native code (docs/native.md): Native::Async or Native::Sync compile
  /// the nodes that have native code into one module run in place of their
  /// perform; the others run their perform inside the native function.
  /// Ignored under DebugMode, which checks each perform.
  NativeOptions native;
  /// Implementations that replace Ops' own, by backend (docs/native.md).
  /// Null: every Op's own perform and native_code.
  std::shared_ptr<const ImplRegistry> impls;
};

/// What the environment variable RW_FLAGS asks for (docs/debugging.md), a
/// comma-separated list of these names: for a program that cannot be
/// rebuilt. compile_function applies `nan_guard` (a default NanGuard unless
/// the options give one), `debug_mode` (likewise) and `profile`; rw::function applies the rewriting
/// ones, `trace_rewrites` (each replacement to std::cerr) and
/// `profile_rewrites` (the pipeline's profile table to std::cerr).
/// `native` (or `native=async`, `native=sync`) gives the native backend that
/// mode wherever the options leave it off; `native=off` turns it off even
/// where the options ask for it (docs/native.md).
struct EnvironmentFlags {
  bool nan_guard = false;
  bool debug_mode = false;
  bool profile = false;
  bool trace_rewrites = false;
  bool profile_rewrites = false;
  std::optional<Native> native;
};
/// RW_FLAGS as it is now; throws rw::Error naming an unknown flag and the
/// known ones.
EnvironmentFlags environment_flags();

}  // namespace rw

// Compiled functions: compile_function turns input and output variables into a
// callable Function that runs the rewritten, linked graph on tensors.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "engine/compile/function_options.hpp"
#include "engine/compile/profile.hpp"
#include "engine/graph/function_graph.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/tensor.hpp"

namespace rw {

namespace detail {
class FunctionCore;
}

/// What the native backend is doing for a function (docs/native.md).
struct NativeStatus {
  enum class State : std::uint8_t {
    Off,       ///< Native::Off, DebugMode, or no node has native code.
    Building,  ///< The module is being compiled; calls run the interpreter.
    Ready,     ///< Calls run the module's code.
    Failed,    ///< The build failed (`error` says why); calls run the interpreter.
  };
  State state = State::Off;
  /// Nodes with native code (the others run their perform).
  std::size_t native_nodes = 0;
  /// Loaded from the compile directory without compiling.
  bool cached = false;
  std::string error;
};

/// What every compiled function is, whatever its call returns: the linked
/// graph, its storage, and the untyped call. See `Function`.
class FunctionBase {
 public:
  /// An empty function; calling it throws.
  FunctionBase();
  /// Compiles `outputs` as functions of `inputs` (see compile_function).
  FunctionBase(std::vector<In> inputs, std::vector<Var> outputs, FunctionOptions options = {});
  /// A copy runs the same compiled graph with storage (and profile) of its own.
  FunctionBase(const FunctionBase& other);
  FunctionBase& operator=(const FunctionBase& other);
  /// Moving leaves `other` empty.
  FunctionBase(FunctionBase&& other) noexcept;
  FunctionBase& operator=(FunctionBase&& other) noexcept;
  ~FunctionBase();

  /// False for an empty function.
  explicit operator bool() const { return core_ != nullptr; }
  /// The name given in FunctionOptions (may be empty).
  const std::string& name() const;
  /// Explicit inputs, and how many of them a call must give (the others
  /// have default values).
  std::size_t num_inputs() const;
  std::size_t num_required_inputs() const;
  /// Outputs a call returns.
  std::size_t num_outputs() const;
  /// The shared variables the function reads or updates, in the order they
  /// follow the explicit inputs among the graph's inputs.
  std::span<const Var> shared_variables() const;
  /// The compiled graph: explicit inputs then shared variables; returned
  /// outputs then update values; rewritten, with its deep copies.
  const FunctionGraph& fgraph() const;
  /// Its nodes in the order they run.
  std::span<Apply* const> schedule() const;
  /// The profile, when compiled with `FunctionOptions::profile`; else null.
  const FunctionProfile* profile() const;
  /// Zeroes the profile's counters.
  void reset_profile();

  /// The native backend's state.
  NativeStatus native_status() const;
  /// Waits until a background build of the native module has ended (at once
  /// when there is none).
  void wait_native() const;
  /// The native module's C++ source ("" when there is none).
  std::string native_source() const;

  /// Runs the function: checks the arguments against the inputs' types
  /// (converting where the inputs allow), computes the outputs and updates,
  /// then assigns the updates. Writes num_outputs() tensors to `out`.
  /// Throws TypeError naming the argument and what was expected, or
  /// ExecutionError naming the node that failed; a call that throws changes
  /// no shared variable. Not for concurrent use of one object: copy the
  /// function for another thread (shared variables are not synchronised).
  void call_into(std::span<const Tensor> args, Tensor* out) const;
  void call_into(std::span<const Tensor* const> args, Tensor* out) const;

  /// For an Op that runs this function once per step of a loop (Scan): runs
  /// it on `args`, one per explicit input, which must already be valid for
  /// the inputs' types (nothing is checked or converted; no default values)
  /// and leaves the returned outputs in the function's storage, where
  /// `result(r)` reads them until the next run or `end_steps()`. A run
  /// reuses the buffers of the one before, so a step allocates only what its
  /// Ops do. No update is assigned. Throws ExecutionError as call_into does.
  /// The caller serialises the runs (the loop Op holds a lock).
  void run_step(std::span<const Tensor* const> args) const;
  const Tensor& result(std::size_t r) const;
  /// Lets go of the last step's inputs and outputs.
  void end_steps() const;

 private:
  std::unique_ptr<detail::FunctionCore> core_;
};

/// A compiled function whose call returns `Result`: a `Tensor` (one output),
/// `std::array<Tensor, N>` (N outputs: `auto [a, b] = f(x)`), or
/// `std::vector<Tensor>` (any number, the default). `compile_function` picks
/// it from the way the outputs are given.
template <class Result = std::vector<Tensor>> class Function : public FunctionBase {
  template <class T> struct ArraySize : std::integral_constant<std::size_t, 0> {};
  template <std::size_t N> struct ArraySize<std::array<Tensor, N>>
      : std::integral_constant<std::size_t, N> {};
  static constexpr bool kOne = std::is_same_v<Result, Tensor>;
  static constexpr bool kMany = std::is_same_v<Result, std::vector<Tensor>>;
  static_assert(kOne || kMany || ArraySize<Result>::value > 0,
                "a Function returns a Tensor, a std::array<Tensor, N> or a std::vector<Tensor>");

 public:
  /// An empty function; calling it throws.
  Function() = default;
  /// Compiles; throws Error when the outputs do not match `Result`.
  Function(std::vector<In> inputs, std::vector<Var> outputs, FunctionOptions options = {})
      : FunctionBase(std::move(inputs), std::move(outputs), std::move(options)) {
    check_arity();
  }
  /// Gives a compiled function this call type; throws Error when the number
  /// of outputs does not match `Result`.
  explicit Function(FunctionBase base) : FunctionBase(std::move(base)) { check_arity(); }
  /// Any function converts to one returning a vector.
  template <class Other>
    requires(kMany && !std::is_same_v<Other, Result>)
  Function(Function<Other> other) : FunctionBase(std::move(other)) {}

  /// `f(x, y)`: one Tensor per explicit input, in order (trailing ones with
  /// default values may be left out).
  template <class... Args>
    requires(std::is_same_v<Args, Tensor> && ...)
  Result operator()(const Args&... args) const {
    const Tensor* ptrs[sizeof...(Args) + 1] = {&args..., nullptr};
    return collect(std::span<const Tensor* const>(ptrs, sizeof...(Args)));
  }
  /// The same with the arguments in a sequence.
  Result call(std::span<const Tensor> args) const { return collect(args); }

 private:
  template <class Args> Result collect(Args args) const {
    if constexpr (kOne) {
      Tensor r;
      call_into(args, &r);
      return r;
    } else if constexpr (kMany) {
      std::vector<Tensor> r(num_outputs());
      call_into(args, r.data());
      return r;
    } else {
      Result r;
      call_into(args, r.data());
      return r;
    }
  }
  void check_arity() const;
};

namespace detail {
/// Throws Error: a Function returning `what` cannot hold `got` outputs.
[[noreturn]] void throw_arity_mismatch(const char* what, std::size_t want, std::size_t got);
}  // namespace detail

template <class Result> void Function<Result>::check_arity() const {
  if (!*this || kMany) return;
  const std::size_t want = kOne ? 1 : ArraySize<Result>::value;
  if (num_outputs() != want)
    detail::throw_arity_mismatch(kOne ? "a Tensor" : "a std::array", want, num_outputs());
}

namespace detail {
/// The default updates of the graph of `outputs`, not looking past
/// `blockers`: for each shared variable (other than those in `skip`) that a
/// node takes at an input its Op gives the next value of
/// (Op::default_updates), the pair (the variable, its next value) — followed
/// along a chain of such nodes to the last. Throws Error when a state feeds
/// several such nodes (ambiguous), TypeError when the next value does not
/// fit the variable; `label` names the graph in messages.
std::vector<std::pair<Var, Var>> default_updates_of(std::span<const Var> outputs,
                                                    std::span<const Var> blockers,
                                                    std::span<const Var> skip,
                                                    const std::string& label);
}  // namespace detail

/// Compiles `outputs` as a function of `inputs` (Aesara's `function`):
///  1. builds a FunctionGraph from the explicit inputs and the shared
///     variables the outputs and updates use (implicit inputs), after
///     substituting `options.givens`;
///  2. runs `options.rewrite` on it;
///  3. puts deep_copy on each output that would alias an input, a constant,
///     a shared variable or another output;
///  4. links it into a VM program (run order, storage plan).
/// Throws, naming what is wrong: an input that is null, a constant, a shared
/// variable, or given twice; an output that needs a variable that is not an
/// input; an input nothing uses (unless `on_unused_input` is Ignore); an
/// update of something not shared, or of another type; a rewrite that
/// changed the graph's interface.
///
/// The outputs as a braced list `{a, b}` make the call return
/// `std::array<Tensor, 2>`; a std::vector<Var> makes it return a
/// std::vector<Tensor>; a single Var, a Tensor.
inline Function<std::vector<Tensor>> compile_function(std::vector<In> inputs,
                                                      std::vector<Var> outputs,
                                                      FunctionOptions options = {}) {
  return {std::move(inputs), std::move(outputs), std::move(options)};
}
template <std::size_t N>
Function<std::array<Tensor, N>> compile_function(std::vector<In> inputs, const Var (&outputs)[N],
                                                 FunctionOptions options = {}) {
  return {std::move(inputs), std::vector<Var>(std::begin(outputs), std::end(outputs)),
          std::move(options)};
}
template <class V>
  requires std::convertible_to<const V&, const Var&>
Function<Tensor> compile_function(std::vector<In> inputs, const V& output,
                                  FunctionOptions options = {}) {
  return {std::move(inputs), std::vector<Var>{output}, std::move(options)};
}

}  // namespace rw

// FunctionCore: one Function's storage and the VM loop that runs a Program.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/compile/detail/program.hpp"
#include "engine/compile/function_options.hpp"
#include "engine/compile/profile.hpp"
#include "runtime/tensor.hpp"

namespace rw {
class FunctionBase;
}

namespace rw::detail {

class DebugChecker;
class NativeLink;

/// How steps run besides their Op's own perform: implementations from an
/// ImplRegistry, and the native module. Shared by a function's copies.
struct StepBackends {
  std::shared_ptr<const ImplRegistry> impls;  // keeps `perform` alive
  std::vector<const PerformImpl*> perform;    // per step; null: the Op's own
  std::shared_ptr<NativeLink> native;         // null: no native code
};

/// "node 3 of 7 (`add` computing x + y)": how messages name step k.
std::string node_label(const Program& p, std::size_t k);

/// The state of one Function: a slot per variable, a cell per node input, the
/// profile. Calls follow the Program's plan; nothing is allocated per call
/// but what the Ops allocate.
class FunctionCore {
 public:
  FunctionCore(std::shared_ptr<const Program> program, bool profile,
               std::optional<NanGuard> nan_guard = std::nullopt,
               std::optional<DebugMode> debug_mode = std::nullopt,
               std::unique_ptr<FunctionBase> unrewritten = nullptr,
               std::shared_ptr<const StepBackends> backends = nullptr);
  /// Same program, storage and profile of its own.
  FunctionCore(const FunctionCore& other);
  ~FunctionCore();

  const Program& program() const { return *program_; }
  FunctionProfile* profile() { return profile_.get(); }
  const StepBackends* backends() const { return backends_.get(); }

  void call(std::span<const Tensor* const> args, Tensor* out);
  void call(std::span<const Tensor> args, Tensor* out);
  /// FunctionBase::run_step, result and end_steps.
  void run_step(std::span<const Tensor* const> args);
  const Tensor& result(std::size_t r) const { return slots_[program_->output_slots[r]]; }
  void end_steps() noexcept;

 private:
  template <class Args> void call_impl(const Args& args, Tensor* out);
  /// With the input slots filled: checks them when the guard asks, runs
  /// the steps (the instantiation the profile and guard call for), and on
  /// failure lets go of what the run held.
  void run_bound();
  template <bool kProfile, bool kGuard, bool kDebug> void run();
  template <bool kDebug> void run_with();
  template <class Args> std::vector<Tensor> run_unrewritten(const Args& args);
  template <class Args>
  void compare_unrewritten(const Args& args, const std::vector<Tensor>& want);
  void count_flops(std::size_t k, const Tensor* in, const Tensor* out);
  void guard_inputs(std::size_t n_args) const;
  void guard_outputs(std::size_t k, const Tensor* in, const Tensor* out) const;
  Tensor convert_input(std::size_t i, const Tensor& value) const;
  [[noreturn]] void throw_arg_count(std::size_t got) const;
  [[noreturn]] void fail_node(std::size_t k) const;
  [[noreturn]] void bad_output(std::size_t k, std::uint32_t j) const;
  void abandon() noexcept;
  void init_profile();
  void load_fixed_cells();

  std::shared_ptr<const Program> program_;
  std::vector<Tensor> slots_;
  std::vector<Tensor> cells_;
  std::unique_ptr<FunctionProfile> profile_;
  std::optional<NanGuard> guard_;
  std::unique_ptr<DebugChecker> debug_;
  // DebugMode's compare_unrewritten: the same graph without rewrites, whose
  // outputs are the returned ones and the explicit updates' values.
  std::unique_ptr<FunctionBase> unrewritten_;
  std::vector<const void*> prior_;  // profiling: the buffer each output slot held before perform
  // Set for the whole of a call, by whichever thread makes it: a second call
  // at the same time, nested or from another thread, is refused before it
  // touches any storage.
  std::atomic<bool> running_{false};
  std::shared_ptr<const StepBackends> backends_;
};

}  // namespace rw::detail

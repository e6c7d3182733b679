// The native linker: a compiled function's nodes with native code turned
// into one C++ module, built (in the background when asked), loaded and
// published for the VM with one atomic pointer.
#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/compile/detail/program.hpp"
#include "engine/compile/function_options.hpp"
#include "runtime/native_abi.hpp"
#include "runtime/native_module.hpp"

namespace rw::detail {

/// A loaded module's entry points, per step (null: the step has none).
struct NativeKernels {
  std::shared_ptr<const NativeModule> module;
  std::vector<rw_node_fn> entries;
};

/// The native side of one compiled program, shared by the copies of its
/// function. The VM reads `kernels()` once per call: null until the module
/// is loaded (or forever, when the build failed).
class NativeLink {
 public:
  /// The link of `program`, its build started (Async) or done (Sync); null
  /// when no node has native code. `impls` may be null.
  static std::shared_ptr<NativeLink> start(const Program& program, const NativeOptions& options,
                                           const ImplRegistry* impls);
  NativeLink(const NativeLink&) = delete;
  NativeLink& operator=(const NativeLink&) = delete;
  /// Waits for a build still running.
  ~NativeLink();

  const NativeKernels* kernels() const { return ready_.load(std::memory_order_acquire); }
  /// The host functions step k's code calls.
  const void* const* functions(std::size_t k) const { return fns_[k].data(); }
  /// Blocks until the build has ended, loaded or failed.
  void wait() const;
  /// The module's source.
  const std::string& source() const { return source_; }
  /// Steps with native code.
  std::size_t native_steps() const { return native_steps_; }
  /// Why the module is not used ("" when it is, or is still building).
  std::string error() const;
  /// Whether the module came from the compile directory without compiling.
  bool cached() const { return cached_.load(); }

 private:
  NativeLink() = default;
  void build();

  std::string label_;
  std::string source_;
  NativeBuildOptions build_options_;
  std::function<void(const std::string&)> on_warning_;
  std::vector<int> step_entry_;  // per step: its entry's number, or -1
  std::vector<std::vector<const void*>> fns_;
  std::size_t native_steps_ = 0;

  std::unique_ptr<NativeKernels> kernels_;
  std::atomic<const NativeKernels*> ready_{nullptr};
  std::atomic<bool> cached_{false};
  mutable std::mutex mutex_;
  mutable std::condition_variable done_cv_;
  bool done_ = false;
  std::string error_;
  std::thread thread_;
};

/// Runs step k's native entry over its cells and output slots; false when
/// the code declines (RW_FALLBACK), so the interpreter must run the node.
/// Throws ExecutionError with the code's message when it fails.
bool run_native_step(const NativeLink& link, rw_node_fn entry, std::size_t k, const Step& step,
                     Tensor* in, Tensor* out);

}  // namespace rw::detail

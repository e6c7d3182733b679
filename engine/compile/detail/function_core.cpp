// The VM: runs a Program's steps over a Function's slots and cells.
#include "engine/compile/detail/function_core.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <typeinfo>

#include <fmt/format.h>

#include "engine/compile/detail/debug_check.hpp"
#include "engine/compile/detail/nan_guard.hpp"
#include "engine/compile/detail/native_link.hpp"
#include "engine/compile/errors.hpp"
#include "engine/compile/function.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/op.hpp"
#include "engine/graph/printing.hpp"

namespace rw::detail {

namespace {

using Clock = std::chrono::steady_clock;

/// True when nothing but this handle refers to the tensor's buffer, so that
/// writing into it cannot change a value anyone else sees.
bool sole_owner(const Tensor& t) { return t.storage().use_count() == 1; }

}  // namespace

FunctionCore::FunctionCore(std::shared_ptr<const Program> program, bool profile,
                           std::optional<NanGuard> nan_guard,
                           std::optional<DebugMode> debug_mode,
                           std::unique_ptr<FunctionBase> unrewritten,
                           std::shared_ptr<const StepBackends> backends)
    : program_(std::move(program)),
      slots_(program_->n_slots),
      cells_(program_->cells.size()),
      guard_(nan_guard),
      unrewritten_(std::move(unrewritten)),
      backends_(std::move(backends)) {
  for (const auto& [slot, value] : program_->constants) slots_[slot] = value;
  load_fixed_cells();
  if (profile) init_profile();
  if (debug_mode) debug_ = std::make_unique<DebugChecker>(*program_, std::move(*debug_mode));
}

FunctionCore::~FunctionCore() = default;

void FunctionCore::load_fixed_cells() {
  const std::vector<CellSource>& cells = program_->cells;
  for (std::size_t c = 0; c < cells.size(); ++c)
    if (cells[c].fixed) cells_[c] = slots_[cells[c].slot];
}

FunctionCore::FunctionCore(const FunctionCore& other)
    : FunctionCore(other.program_, other.profile_ != nullptr, other.guard_, std::nullopt, nullptr,
                   other.backends_) {
  if (other.debug_) debug_ = std::make_unique<DebugChecker>(*other.debug_);
  if (other.unrewritten_) unrewritten_ = std::make_unique<FunctionBase>(*other.unrewritten_);
}

namespace {
/// The Op's C++ class, demangled, without its namespace.
std::string class_name(const Op& op) {
  const char* mangled = typeid(op).name();
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled, nullptr, nullptr, &status), std::free);
  std::string name = status == 0 && demangled ? demangled.get() : mangled;
  if (const auto colons = name.rfind("::"); colons != std::string::npos)
    name = name.substr(colons + 2);
  return name;
}
}  // namespace

void FunctionCore::init_profile() {
  profile_ = std::make_unique<FunctionProfile>();
  std::size_t max_out = 0;
  for (const Step& s : program_->steps) max_out = std::max<std::size_t>(max_out, s.n_out);
  prior_.assign(max_out, nullptr);
  for (const Step& s : program_->steps) {
    NodeProfile np;
    np.op = s.op->to_string();
    np.op_class = class_name(*s.op);
    np.node = s.n_out ? describe(s.node->output_var(0)) : np.op;
    profile_->nodes.push_back(std::move(np));
  }
}

void FunctionCore::call(std::span<const Tensor* const> args, Tensor* out) {
  struct Access {
    std::span<const Tensor* const> a;
    std::size_t size() const { return a.size(); }
    const Tensor& operator[](std::size_t i) const { return *a[i]; }
  };
  call_impl(Access{args}, out);
}

void FunctionCore::call(std::span<const Tensor> args, Tensor* out) { call_impl(args, out); }

template <class Args> void FunctionCore::call_impl(const Args& args, Tensor* out) {
  const Program& p = *program_;
  const std::size_t n_inputs = p.inputs.size();
  const std::size_t n_args = args.size();
  if (n_args != n_inputs && (n_args < p.n_required || n_args > n_inputs)) throw_arg_count(n_args);
  if (running_.exchange(true, std::memory_order_acquire))
    throw Error(fmt::format("{} was called while it was running (a Function runs one call at "
                            "a time: a call from inside its own run, or from another thread "
                            "at once, is refused)",
                            p.label));
  struct Release {
    std::atomic<bool>& flag;
    ~Release() { flag.store(false, std::memory_order_release); }
  } release{running_};
  const Clock::time_point start = profile_ ? Clock::now() : Clock::time_point();
  // First, as the rewritten graph may overwrite arguments declared mutable.
  const std::vector<Tensor> want = unrewritten_ ? run_unrewritten(args) : std::vector<Tensor>();

  Tensor* slots = slots_.data();
  std::size_t i = 0;
  try {
    for (; i < n_args; ++i) {
      const Tensor& a = args[i];
      const TypeCheck& check = p.inputs[i].check;
      if (check.tensor && p.passes(check, a)) slots[i] = a;
      else slots[i] = convert_input(i, a);
    }
  } catch (...) {
    for (std::size_t j = 0; j < i; ++j) slots[j] = Tensor();
    throw;
  }
  for (; i < n_inputs; ++i) slots[i] = p.inputs[i].default_value;
  for (std::size_t j = 0; j < p.shared_vars.size(); ++j)
    slots[n_inputs + j] = p.shared_vars[j]->value_;

  run_bound();
  if (unrewritten_) compare_unrewritten(args, want);

  // Everything is computed: nothing below can fail, so the updates are
  // assigned all together or, when anything above threw, not at all.
  for (std::size_t r = 0; r < p.n_returned; ++r) {
    Tensor& s = slots[p.output_slots[r]];
    if (p.keep_output[r]) out[r] = s;
    else out[r] = std::move(s);
  }
  for (const auto& [target, index] : p.update_targets)
    target->value_ = std::move(slots[p.output_slots[index]]);
  const std::size_t n_graph_inputs = n_inputs + p.shared_vars.size();
  for (std::size_t j = 0; j < n_graph_inputs; ++j) slots[j] = Tensor();

  if (profile_) {
    ++profile_->calls;
    profile_->seconds += std::chrono::duration<double>(Clock::now() - start).count();
  }
}

void FunctionCore::run_bound() {
  try {
    if (debug_) run_with<true>();
    else run_with<false>();
  } catch (...) {
    abandon();
    throw;
  }
}

template <bool kDebug> void FunctionCore::run_with() {
  const Program& p = *program_;
  if (guard_) {
    if (guard_->check_inputs) guard_inputs(p.inputs.size() + p.shared_vars.size());
    if (profile_) run<true, true, kDebug>();
    else run<false, true, kDebug>();
  } else if (profile_) {
    run<true, false, kDebug>();
  } else {
    run<false, false, kDebug>();
  }
}

namespace {

/// How `got` differs from `want` where `want` is finite: a NaN or an
/// infinity of the unrewritten graph is what stabilization removes, so any
/// value of the rewritten one is accepted there.
std::optional<std::string> finite_difference(const Tensor& got, const Tensor& want,
                                             Tolerance tolerance) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape() || !is_float(want.dtype()))
    return describe_difference(got, want, tolerance);
  Tensor masked = got.astype(DType::Float64);  // a copy of its own
  const Tensor w = want.astype(DType::Float64);
  double* m = masked.data<double>();
  const double* pw = w.data<double>();
  for (std::int64_t i = 0; i < masked.size(); ++i)
    if (!std::isfinite(pw[i])) m[i] = pw[i];
  return describe_difference(masked, w, tolerance);
}

}  // namespace

template <class Args> std::vector<Tensor> FunctionCore::run_unrewritten(const Args& args) {
  std::vector<const Tensor*> given(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) given[i] = &args[i];
  std::vector<Tensor> want(unrewritten_->num_outputs());
  unrewritten_->call_into(std::span<const Tensor* const>(given), want.data());
  return want;
}

template <class Args>
void FunctionCore::compare_unrewritten(const Args& args, const std::vector<Tensor>& want) {
  const Program& p = *program_;
  for (std::size_t r = 0; r < want.size(); ++r) {
    const auto why =
        finite_difference(slots_[p.output_slots[r]], want[r], debug_->mode().tolerance);
    if (!why) continue;
    const std::string what =
        r < p.n_returned ? fmt::format("output {}", r)
                         : fmt::format("the update of shared variable {}",
                                       describe(*p.update_targets[r - p.n_returned].first));
    std::string culprit;
    if (debug_->mode().name_rewrite) {
      std::vector<Tensor> given;
      for (std::size_t i = 0; i < args.size(); ++i) given.push_back(args[i]);
      try {
        culprit = "; " + debug_->mode().name_rewrite(given);
      } catch (const std::exception& e) {
        culprit = fmt::format("; naming the rewrite failed: {}", e.what());
      }
    }
    abandon();
    throw DebugModeError(fmt::format(
        "DebugMode: {} of {} is not what the unrewritten graph computes: {} (unrewritten){}", what,
        p.label, *why, culprit));
  }
}

void FunctionCore::run_step(std::span<const Tensor* const> args) {
  const Program& p = *program_;
  Tensor* slots = slots_.data();
  const std::size_t n_inputs = p.inputs.size();
  for (std::size_t i = 0; i < n_inputs; ++i) slots[i] = *args[i];
  for (std::size_t j = 0; j < p.shared_vars.size(); ++j)
    slots[n_inputs + j] = p.shared_vars[j]->value_;
  run_bound();
  if (profile_) ++profile_->calls;
}

void FunctionCore::end_steps() noexcept {
  const Program& p = *program_;
  const std::size_t n_graph_inputs = p.inputs.size() + p.shared_vars.size();
  for (std::size_t j = 0; j < n_graph_inputs; ++j) slots_[j] = Tensor();
  for (std::uint32_t s : p.output_slots)
    if (s >= p.first_node_slot) slots_[s] = Tensor();
}

template <bool kProfile, bool kGuard, bool kDebug> void FunctionCore::run() {
  const Program& p = *program_;
  Tensor* slots = slots_.data();
  Tensor* cells = cells_.data();
  const std::uint8_t* counted = p.counted.data();

  std::size_t held_bytes = 0, held_buffers = 0, peak_bytes = 0, peak_buffers = 0;
  if constexpr (kProfile) {
    for (std::uint32_t s = p.first_node_slot; s < p.n_slots; ++s)
      if (counted[s] && slots[s].valid()) {
        held_bytes += slots[s].nbytes();
        ++held_buffers;
      }
    peak_bytes = held_bytes;
    peak_buffers = held_buffers;
  }
  auto drop = [&](std::size_t bytes) {
    held_bytes -= bytes;
    --held_buffers;
  };
  // Read once per call: a module loaded during the call is used by the next.
  const StepBackends* backends = backends_.get();
  const NativeKernels* native =
      !kDebug && backends && backends->native ? backends->native->kernels() : nullptr;
  const PerformImpl* const* impls =
      backends && !backends->perform.empty() ? backends->perform.data() : nullptr;

  const std::size_t n_steps = p.steps.size();
  for (std::size_t k = 0; k < n_steps; ++k) {
    const Step& step = p.steps[k];
    const CellSource* src = p.cells.data() + step.cell_begin;
    Tensor* in = cells + step.cell_begin;
    for (std::uint32_t c = 0; c < step.n_cells; ++c) {
      if (src[c].move) in[c] = std::move(slots[src[c].slot]);
      else if (!src[c].fixed) in[c] = slots[src[c].slot];
    }

    // A buffer left in an output slot (from an earlier call, or handed on by
    // an earlier node) is offered to the Op only if nobody else holds it.
    Tensor* out = slots + step.out_begin;
    for (std::uint32_t j = 0; j < step.n_out; ++j) {
      if constexpr (kProfile) prior_[j] = nullptr;
      if (!out[j].valid()) continue;
      if constexpr (kProfile) {
        if (counted[step.out_begin + j]) drop(out[j].nbytes());
      }
      if (!sole_owner(out[j])) out[j] = Tensor();
      else if constexpr (kProfile) prior_[j] = out[j].storage().get();
    }

    Clock::time_point t0;
    if constexpr (kProfile) t0 = Clock::now();
    try {
      if constexpr (kDebug)
        debug_->run_node(k, std::span<const Tensor>(in, step.n_cells),
                         std::span<Tensor>(out, step.n_out));
      else if (!(native && native->entries[k] &&
                 run_native_step(*backends->native, native->entries[k], k, step, in, out))) {
        if (impls && impls[k])
          (*impls[k])(*step.node, std::span<const Tensor>(in, step.n_cells),
                      std::span<Tensor>(out, step.n_out));
        else
          step.op->perform(*step.node, std::span<const Tensor>(in, step.n_cells),
                           std::span<Tensor>(out, step.n_out));
      }
    } catch (const DebugModeError&) {
      throw;
    } catch (...) {
      fail_node(k);
    }
    if constexpr (kProfile) {
      NodeProfile& np = profile_->nodes[k];
      np.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      np.output_bytes = 0;
      for (std::uint32_t j = 0; j < step.n_out; ++j)
        if (out[j].valid()) np.output_bytes += out[j].nbytes();
      count_flops(k, in, out);
    }

    for (std::uint32_t j = 0; j < step.n_out; ++j) {
      const std::uint32_t s = step.out_begin + j;
      if (!p.passes(p.out_checks[s - p.first_node_slot], out[j])) bad_output(k, j);
      if constexpr (kProfile) {
        if (p.owning[s]) {
          if (prior_[j] && prior_[j] == out[j].storage().get()) ++profile_->reused_buffers;
          else ++profile_->new_buffers;
        }
        if (counted[s]) {
          held_bytes += out[j].nbytes();
          ++held_buffers;
        }
      }
    }
    if constexpr (kProfile) {
      peak_bytes = std::max(peak_bytes, held_bytes);
      peak_buffers = std::max(peak_buffers, held_buffers);
    }
    // Before the inputs are released: the message summarizes them.
    if constexpr (kGuard) guard_outputs(k, in, out);

    for (std::uint32_t c = 0; c < step.n_cells; ++c) {
      if (src[c].handed_on || src[c].fixed) continue;
      if constexpr (kProfile) {
        if (src[c].move && counted[src[c].slot] && in[c].valid()) drop(in[c].nbytes());
      }
      in[c] = Tensor();
    }
    for (std::uint32_t r = step.release_begin; r < step.release_begin + step.n_release; ++r) {
      const Release& rel = p.releases[r];
      Tensor& t = rel.from_cell ? cells[rel.from] : slots[rel.from];
      if (!t.valid()) continue;
      const bool give = rel.to_slot != kNoSlot && sole_owner(t);
      if constexpr (kProfile) {
        if (rel.counted && !(give && counted[rel.to_slot])) drop(t.nbytes());
      }
      if (give) slots[rel.to_slot] = std::move(t);
      else t = Tensor();
    }
  }

  if constexpr (kProfile) {
    profile_->last_peak_bytes = peak_bytes;
    profile_->last_peak_buffers = peak_buffers;
    profile_->peak_bytes = std::max(profile_->peak_bytes, peak_bytes);
    profile_->peak_buffers = std::max(profile_->peak_buffers, peak_buffers);
  }
}

void FunctionCore::count_flops(std::size_t k, const Tensor* in, const Tensor* out) {
  const Step& step = program_->steps[k];
  std::vector<Shape> in_shapes, out_shapes;
  for (std::uint32_t c = 0; c < step.n_cells; ++c)
    in_shapes.push_back(in[c].valid() ? in[c].shape() : Shape());
  for (std::uint32_t j = 0; j < step.n_out; ++j)
    out_shapes.push_back(out[j].valid() ? out[j].shape() : Shape());
  const std::optional<double> f = step.op->flops(*step.node, in_shapes, out_shapes);
  if (!f) return;
  NodeProfile& np = profile_->nodes[k];
  np.has_flops = true;
  np.flops += *f;
}

Tensor FunctionCore::convert_input(std::size_t i, const Tensor& value) const {
  const InputSpec& in = program_->inputs[i];
  try {
    return in.type->filter(value, in.strict, in.allow_downcast);
  } catch (const TypeError& e) {
    throw TypeError(fmt::format("argument {} ({}) of {}: {}", i, describe(*in.variable),
                                program_->label, e.what()));
  }
}

void FunctionCore::throw_arg_count(std::size_t got) const {
  const Program& p = *program_;
  std::string names;
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    names += (i ? ", " : "") + describe(*p.inputs[i].variable);
  const std::string count =
      p.n_required == p.inputs.size()
          ? fmt::format("{} argument{}", p.inputs.size(), p.inputs.size() == 1 ? "" : "s")
          : fmt::format("{} to {} arguments", p.n_required, p.inputs.size());
  throw TypeError(fmt::format("{} takes {}{}, got {}", p.label, count,
                              names.empty() ? "" : " (" + names + ")", got));
}

std::string node_label(const Program& p, std::size_t k) {
  const Step& s = p.steps[k];
  return fmt::format("node {} of {} (`{}` computing {})", k + 1, p.steps.size(), s.op->to_string(),
                     s.n_out ? describe(s.node->output_var(0)) : std::string("nothing"));
}

void FunctionCore::fail_node(std::size_t k) const {
  std::string what = "an exception that is not a std::exception";
  try {
    throw;
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::throw_with_nested(ExecutionError(
      fmt::format("{} failed in {}: {}", node_label(*program_, k), program_->label, what)));
}

void FunctionCore::bad_output(std::size_t k, std::uint32_t j) const {
  const Program& p = *program_;
  const Step& step = p.steps[k];
  const Tensor& t = slots_[step.out_begin + j];
  const std::string type = step.node->output_var(j).type()->to_string();
  if (!t.valid())
    throw ExecutionError(fmt::format("{} in {} left output {} (of type {}) empty",
                                     node_label(p, k), p.label, j, type));
  throw ExecutionError(fmt::format(
      "{} in {} returned output {} of dtype {} and shape {}, which does not fit its type {}",
      node_label(p, k), p.label, j, dtype_name(t.dtype()), shape_to_string(t.shape()), type));
}

void FunctionCore::guard_inputs(std::size_t n_args) const {
  const Program& p = *program_;
  for (std::size_t i = 0; i < n_args; ++i) {
    const Tensor& t = slots_[i];
    const GuardFinding f = guard_scan(t, *guard_);
    if (!f.any()) continue;
    const Var& v = i < p.inputs.size() ? p.inputs[i].variable : p.shared[i - p.inputs.size()];
    throw NanGuardError(fmt::format("NanGuard: {} {} of {} holds {}: {}",
                                    i < p.inputs.size() ? "argument" : "shared variable", i,
                                    p.label, f.describe(*guard_, t.size()),
                                    describe(*v) + " " + guard_summary(t)));
  }
}

void FunctionCore::guard_outputs(std::size_t k, const Tensor* in, const Tensor* out) const {
  const Program& p = *program_;
  const Step& step = p.steps[k];
  for (std::uint32_t j = 0; j < step.n_out; ++j) {
    const GuardFinding f = guard_scan(out[j], *guard_);
    if (!f.any()) continue;
    std::string inputs;
    for (std::uint32_t c = 0; c < step.n_cells; ++c)
      inputs += fmt::format("\n  input {} ({}): {}", c, describe(*step.node->input(c)),
                            in[c].valid() ? guard_summary(in[c]) : std::string("(not held)"));
    throw NanGuardError(fmt::format("NanGuard: {} of {}: output {} holds {}{}", node_label(p, k),
                                    p.label, j, f.describe(*guard_, out[j].size()), inputs));
  }
}

void FunctionCore::abandon() noexcept {
  const std::vector<CellSource>& sources = program_->cells;
  for (std::size_t c = 0; c < cells_.size(); ++c)
    if (!sources[c].fixed) cells_[c] = Tensor();
  const Program& p = *program_;
  const std::size_t n_graph_inputs = p.inputs.size() + p.shared_vars.size();
  for (std::size_t s = 0; s < slots_.size(); ++s)
    if (s < n_graph_inputs || s >= p.first_node_slot) slots_[s] = Tensor();
}

}  // namespace rw::detail

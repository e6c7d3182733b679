// The native linker: module source from the nodes' native code, the build
// thread, the one warning, and the host side of the C interface.
#include "engine/compile/detail/native_link.hpp"

#include <algorithm>
#include <exception>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "engine/compile/errors.hpp"
#include "engine/graph/op.hpp"
#include "runtime/program_codegen.hpp"

namespace rw::detail {

namespace {

/// Gives `message` to `hook` (std::cerr when empty), once per process for
/// each `cause` (the message itself when empty).
void warn_once(const std::function<void(const std::string&)>& hook, const std::string& message,
               const std::string& cause = "") {
  static std::mutex mutex;
  static std::set<std::string> given;
  {
    std::lock_guard lock(mutex);
    if (!given.insert(cause.empty() ? message : cause).second) return;
  }
  if (hook) hook(message);
  else std::cerr << message << '\n';
}

template <class T> void add_once(std::vector<T>& v, const T& x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

std::shared_ptr<NativeLink> NativeLink::start(const Program& program, const NativeOptions& options,
                                              const ImplRegistry* impls) {
  std::shared_ptr<NativeLink> link(new NativeLink());
  link->label_ = program.label;
  link->on_warning_ = options.on_warning;
  link->build_options_.compiler = options.compiler;
  link->build_options_.directory = options.compile_dir;
  link->step_entry_.assign(program.steps.size(), -1);
  link->fns_.resize(program.steps.size());

  std::vector<std::string> headers, supports, versions;
  std::string entries;
  std::string failures;
  for (std::size_t k = 0; k < program.steps.size(); ++k) {
    const Step& step = program.steps[k];
    NativeNames names;
    names.prefix = fmt::format("rw_n{}", k);
    for (std::uint32_t i = 0; i < step.n_cells; ++i) names.inputs.push_back(fmt::format("in[{}]", i));
    for (std::uint32_t j = 0; j < step.n_out; ++j) names.outputs.push_back(fmt::format("out[{}]", j));
    std::optional<NativeCode> code;
    try {
      const NativeImpl* impl = impls ? impls->native_for(*step.op) : nullptr;
      code = impl ? (*impl)(*step.node, names) : step.op->native_code(*step.node, names);
    } catch (const std::exception& e) {
      failures += fmt::format("\n  `{}`: {}", step.op->to_string(), e.what());
      continue;
    }
    if (!code) continue;
    for (const std::string& h : code->c_headers) add_once(headers, h);
    if (!code->c_support_code.empty()) add_once(supports, code->c_support_code);
    for (const std::string& a : code->c_compile_args) add_once(link->build_options_.flags, a);
    if (!code->c_code_cache_version.empty())
      add_once(versions, fmt::format("{}={}", step.op->name(), code->c_code_cache_version));
    entries += fmt::format("RW_EXPORT int rw_node_{}(rw_ctx* ctx, const rw_tensor* in, "
                           "rw_tensor* out) {{\n  (void)ctx; (void)in; (void)out;\n{}\n}}\n",
                           k, code->c_code);
    link->step_entry_[k] = static_cast<int>(k);
    link->fns_[k] = std::move(code->host_functions);
    ++link->native_steps_;
  }
  if (!failures.empty())
    warn_once(options.on_warning,
              fmt::format("rwgraph: warning: {}: the interpreter runs the nodes whose native code "
                          "could not be written:{}",
                          program.label, failures));
  if (link->native_steps_ == 0) return nullptr;

  std::string& src = link->source_;
  src = kNativePrelude;
  for (const std::string& v : versions) src += "// cache version: " + v + "\n";
  for (const std::string& h : headers) src += fmt::format("#include <{}>\n", h);
  for (const std::string& s : supports) src += s + "\n";
  src += entries;

  if (options.mode == Native::Sync) {
    link->build();
  } else {
    // The thread only touches the link, which waits for it when destroyed.
    link->thread_ = std::thread([raw = link.get()] { raw->build(); });
  }
  return link;
}

NativeLink::~NativeLink() {
  if (thread_.joinable()) thread_.join();
}

void NativeLink::build() {
  std::string error;
  try {
    NativeBuild b = build_native_module(source_, build_options_);
    if (b.module) {
      auto k = std::make_unique<NativeKernels>();
      k->entries.assign(step_entry_.size(), nullptr);
      for (std::size_t s = 0; s < step_entry_.size(); ++s) {
        if (step_entry_[s] < 0) continue;
        const std::string name = fmt::format("rw_node_{}", step_entry_[s]);
        k->entries[s] = reinterpret_cast<rw_node_fn>(b.module->symbol(name.c_str()));
        if (!k->entries[s]) error = fmt::format("`{}` does not export `{}`", b.module->path().string(), name);
      }
      k->module = std::move(b.module);
      if (error.empty()) {
        cached_ = b.cached;
        kernels_ = std::move(k);
        ready_.store(kernels_.get(), std::memory_order_release);
      }
    } else {
      error = std::move(b.error);
      // A compiler that cannot run is reported once, whatever the function.
      if (!b.repeated)
        warn_once(on_warning_,
                  fmt::format("rwgraph: warning: {}: native code is not used, the interpreter "
                              "runs it: {}",
                              label_, error),
                  b.key);  // one module that does not compile: one warning
    }
  } catch (const std::exception& e) {
    error = e.what();
    warn_once(on_warning_,
              fmt::format("rwgraph: warning: {}: native code is not used, the interpreter runs "
                          "it: {}",
                          label_, error));
  }
  std::lock_guard lock(mutex_);
  error_ = std::move(error);
  done_ = true;
  done_cv_.notify_all();
}

void NativeLink::wait() const {
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [&] { return done_; });
}

std::string NativeLink::error() const {
  std::lock_guard lock(mutex_);
  return error_;
}

namespace {

struct Host {
  const Step* step;
  Tensor* in;
  Tensor* out;
};

rw_tensor view_of(const Tensor& t) {
  return rw_tensor{const_cast<void*>(t.raw_data()), t.shape().data(), t.strides().data(),
                   t.size(), static_cast<std::int32_t>(t.ndim()), t.is_contiguous() ? 1 : 0};
}

int host_alloc(rw_ctx* ctx, std::int32_t k, std::int32_t ndim, const std::int64_t* shape,
               rw_tensor* view) {
  Host& h = *static_cast<Host*>(ctx->host);
  const Step& step = *h.step;
  if (k < 0 || static_cast<std::uint32_t>(k) >= step.n_out) {
    ctx->message = "alloc: no such output";
    return 1;
  }
  const TensorType* type = step.node->output_var(static_cast<std::size_t>(k)).tensor_type();
  if (!type) {
    ctx->message = "alloc: the output is not a tensor";
    return 1;
  }
  try {
    const Shape s(shape, shape + ndim);
    const DType dt = type->dtype();
    auto fits = [&](const Tensor& t) {
      return t.valid() && t.dtype() == dt && t.shape() == s && t.is_contiguous();
    };
    Tensor& o = h.out[k];
    bool placed = false;
    for (const auto& [out_index, in_index] : step.op->cached_destroy_map())
      if (out_index == static_cast<std::size_t>(k) && fits(h.in[in_index])) {
        o = h.in[in_index];
        placed = true;
      }
    if (!placed && !fits(o)) o = Tensor::empty(dt, s);
    *view = view_of(o);
    return 0;
  } catch (const std::exception&) {
    ctx->message = "alloc: cannot allocate the output";
    return 1;
  }
}

}  // namespace

bool run_native_step(const NativeLink& link, rw_node_fn entry, std::size_t k, const Step& step,
                     Tensor* in, Tensor* out) {
  SmallVec<rw_tensor, 8> ins, outs(step.n_out, rw_tensor{});
  for (std::uint32_t c = 0; c < step.n_cells; ++c) ins.push_back(view_of(in[c]));
  Host host{&step, in, out};
  rw_ctx ctx{&host, &host_alloc, &native_parallel, link.functions(k), nullptr};
  const int rc = entry(&ctx, ins.data(), outs.data());
  if (rc == kNativeOk) return true;
  if (rc == kNativeFallback) return false;
  throw ExecutionError(fmt::format("native code failed: {}",
                                   ctx.message ? ctx.message : "(no message)"));
}

}  // namespace rw::detail

// compile_function: checks the request, builds the FunctionGraph with shared
// variables as implicit inputs, runs the rewrite hook, breaks output aliasing
// with deep copies, and links; and the FunctionBase handle.
#include "engine/compile/function.hpp"

#include <algorithm>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/compile/aliasing.hpp"
#include "engine/compile/compile_ops.hpp"
#include "engine/compile/detail/debug_check.hpp"
#include "engine/compile/detail/function_core.hpp"
#include "engine/compile/detail/native_link.hpp"
#include "engine/compile/protect_inputs.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/rewrite/destroy_handler.hpp"

namespace rw {

namespace {

using detail::Program;

struct Update {
  SharedVariable* target;
  Var value;
};

void check_inputs(const std::vector<In>& inputs, const std::string& label) {
  std::unordered_set<const Variable*> seen;
  bool defaults_started = false;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const In& in = inputs[i];
    if (!in.variable) throw Error(fmt::format("input {} of {} is null", i, label));
    const Variable& v = *in.variable;
    if (v.is_constant())
      throw Error(fmt::format("input {} of {} is {}; a constant cannot be an input", i, label,
                              describe(v)));
    if (as_shared(v))
      throw Error(fmt::format(
          "input {} of {} is the shared variable {}; shared variables are implicit inputs "
          "(substitute it with givens to make it an argument)",
          i, label, describe(v)));
    if (!seen.insert(&v).second)
      throw Error(fmt::format("{} is given twice as an input of {}", describe(v), label));
    if (in.default_value.valid()) defaults_started = true;
    else if (defaults_started)
      throw Error(fmt::format(
          "input {} ({}) of {} has no default value but follows an input that has one", i,
          describe(v), label));
  }
}

std::vector<Update> check_updates(const FunctionOptions& options, const std::string& label) {
  std::vector<Update> out;
  std::unordered_set<const SharedVariable*> seen;
  for (std::size_t i = 0; i < options.updates.size(); ++i) {
    const auto& [target, value] = options.updates[i];
    if (!target || !value) throw Error(fmt::format("update {} of {} is null", i, label));
    SharedVariable* sv = as_shared(target);
    if (!sv)
      throw Error(fmt::format("update {} of {} targets {}, which is not a shared variable", i,
                              label, describe(*target)));
    if (!seen.insert(sv).second)
      throw Error(fmt::format("shared variable {} is updated twice in {}", describe(*sv), label));
    if (!sv->type()->is_super(*value->type()))
      throw TypeError(fmt::format(
          "the update of shared variable {} in {} has type {}, but the variable has type {}",
          describe(*sv), label, value->type()->to_string(), sv->type()->to_string()));
    out.push_back({sv, value});
  }
  return out;
}

/// Adds to `updates` the default update of each shared variable of the
/// graph of `graph_outputs` (see default_updates_of), unless `updates` has
/// one or the options leave it out; each is appended to `graph_outputs` too.
void add_default_updates(std::vector<Update>& updates, std::vector<Var>& graph_outputs,
                         std::span<const Var> explicit_vars, const FunctionOptions& options,
                         const std::string& label) {
  if (options.no_default_updates) return;
  std::vector<Var> skip;
  for (const Update& u : updates) skip.emplace_back(u.target);
  for (std::size_t i = 0; i < options.no_default_updates_for.size(); ++i) {
    const Var& v = options.no_default_updates_for[i];
    if (!v || !as_shared(v))
      throw Error(fmt::format(
          "no_default_updates_for[{}] of {} is {}, which is not a shared variable", i, label,
          v ? describe(*v) : std::string("null")));
    skip.push_back(v);
  }
  for (auto& [target, next] :
       detail::default_updates_of(graph_outputs, explicit_vars, skip, label)) {
    graph_outputs.push_back(next);
    updates.push_back({as_shared(target), std::move(next)});
  }
}

}  // namespace

std::vector<std::pair<Var, Var>> detail::default_updates_of(std::span<const Var> outputs,
                                                            std::span<const Var> blockers,
                                                            std::span<const Var> skip,
                                                            const std::string& label) {
  std::unordered_set<const Variable*> skipped;
  for (const Var& v : skip) skipped.insert(v.get());
  const std::vector<Apply*> nodes = io_toposort(blockers, outputs);
  // The variables taken where a next value is given, by the nodes taking them.
  std::unordered_map<const Variable*, std::vector<Var>> next_of;
  for (Apply* node : nodes)
    for (const auto& [o, i] : node->op().cached_default_updates())
      next_of[node->input(i).get()].push_back(node->output(o));
  std::vector<std::pair<Var, Var>> found;
  for (Apply* node : nodes)
    for (const auto& [o, i] : node->op().cached_default_updates()) {
      SharedVariable* sv = as_shared(node->input(i));
      if (!sv || skipped.contains(sv)) continue;
      if (next_of[sv].size() > 1)
        throw Error(fmt::format(
            "shared variable {} is the state of {} nodes in {}, so its default update is "
            "ambiguous: give it an update, or leave it out with no_default_updates_for",
            describe(*sv), next_of[sv].size(), label));
      Var next = node->output(o);
      for (;;) {
        auto it = next_of.find(next.get());
        if (it == next_of.end() || it->second.empty()) break;
        if (it->second.size() > 1)
          throw Error(fmt::format(
              "the next value of shared variable {} is the state of {} nodes in {}, so its "
              "default update is ambiguous: give it an update, or leave it out with "
              "no_default_updates_for",
              describe(*sv), it->second.size(), label));
        next = it->second.front();
      }
      if (!sv->type()->is_super(*next->type()))
        throw TypeError(fmt::format(
            "the default update of shared variable {} in {} has type {}, but the variable has "
            "type {}",
            describe(*sv), label, next->type()->to_string(), sv->type()->to_string()));
      skipped.insert(sv);
      found.emplace_back(node->input(i), std::move(next));
    }
  return found;
}

namespace {

/// Substitutes `options.givens` in `vars`.
std::vector<Var> apply_givens(std::vector<Var> vars, const FunctionOptions& options,
                              const std::string& label) {
  if (options.givens.empty()) return vars;
  std::unordered_map<const Variable*, Var> map;
  for (std::size_t i = 0; i < options.givens.size(); ++i) {
    const auto& [from, to] = options.givens[i];
    if (!from || !to) throw Error(fmt::format("given {} of {} is null", i, label));
    if (!from->type()->is_super(*to->type()))
      throw TypeError(fmt::format("the given for {} in {} has type {}, but the variable has type {}",
                                  describe(*from), label, to->type()->to_string(),
                                  from->type()->to_string()));
    if (!map.emplace(from.get(), to).second)
      throw Error(fmt::format("{} is given twice in {}", describe(*from), label));
  }
  return clone_replace(vars, map);
}

/// Puts deep_copy on each graph output that would otherwise alias what the
/// caller or the function keeps: an input, a constant, a shared variable's
/// value that stays (a shared variable updated to something else gives its
/// old value away), or an earlier output. Cheap: outputs computed into
/// buffers of their own are left alone.
void insert_deep_copies(FunctionGraph& fg, std::size_t n_explicit, std::size_t n_returned,
                        const std::vector<std::size_t>& update_shared_index) {
  const std::span<const Var> inputs = fg.inputs();
  std::unordered_map<const Variable*, std::size_t> input_index;
  for (std::size_t i = 0; i < inputs.size(); ++i) input_index.emplace(inputs[i].get(), i);

  // Shared variables whose value after the call is another buffer.
  std::unordered_set<const Variable*> given_away;
  for (std::size_t u = 0; u < update_shared_index.size(); ++u) {
    const Variable* own = inputs[n_explicit + update_shared_index[u]].get();
    bool keeps = false;
    for (const Variable* r : alias_roots(*fg.outputs()[n_returned + u])) keeps |= r == own;
    if (!keeps) given_away.insert(own);
  }

  std::unordered_set<const Variable*> claimed;
  const std::size_t n_outputs = fg.outputs().size();
  for (std::size_t o = 0; o < n_outputs; ++o) {
    const Var v = fg.outputs()[o];
    const Variable* own =
        o >= n_returned ? inputs[n_explicit + update_shared_index[o - n_returned]].get() : nullptr;
    const std::vector<const Variable*> roots = alias_roots(*v);
    bool copy = false;
    for (const Variable* r : roots) {
      if (claimed.contains(r) || r->is_constant()) copy = true;
      auto it = input_index.find(r);
      if (it == input_index.end() || r == own) continue;
      if (it->second < n_explicit || !given_away.contains(r)) copy = true;
    }
    if (copy) fg.change_input(Client{nullptr, static_cast<std::uint32_t>(o)}, deep_copy(v),
                              "insert_deep_copy");
    else claimed.insert(roots.begin(), roots.end());
  }
}

std::shared_ptr<const Program> make_program(std::vector<In> inputs, std::vector<Var> outputs,
                                            FunctionOptions options) {
  auto p = std::make_shared<Program>();
  p->name = options.name;
  p->label = options.name.empty() ? "the function" : fmt::format("function `{}`", options.name);
  const std::string& label = p->label;
  check_inputs(inputs, label);
  for (std::size_t i = 0; i < outputs.size(); ++i)
    if (!outputs[i]) throw Error(fmt::format("output {} of {} is null", i, label));
  std::vector<Update> updates = check_updates(options, label);

  // Default values are checked once, here.
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    In& in = inputs[i];
    if (!in.default_value.valid()) continue;
    try {
      in.default_value = in.variable->type()->filter(in.default_value, in.strict, in.allow_downcast);
    } catch (const TypeError& e) {
      throw TypeError(fmt::format("the default value of input {} ({}) of {}: {}", i,
                                  describe(*in.variable), label, e.what()));
    }
  }

  std::vector<Var> graph_outputs = outputs;
  for (const Update& u : updates) graph_outputs.push_back(u.value);
  graph_outputs = apply_givens(std::move(graph_outputs), options, label);
  std::vector<Var> explicit_vars;
  for (const In& in : inputs) explicit_vars.push_back(in.variable);
  add_default_updates(updates, graph_outputs, explicit_vars, options, label);

  // Implicit inputs: the shared variables met, then the updated ones not met.
  std::unordered_set<const Variable*> explicit_set, used;
  for (const Var& v : explicit_vars) explicit_set.insert(v.get());
  std::vector<Var> shared_vars;
  std::unordered_set<const Variable*> shared_set;
  for (const Var& r : graph_inputs(graph_outputs, explicit_vars)) {
    if (explicit_set.contains(r.get())) used.insert(r.get());
    else if (r->is_constant()) continue;
    else if (as_shared(r)) {
      if (shared_set.insert(r.get()).second) shared_vars.push_back(r);
    } else {
      throw MissingInputError(fmt::format(
          "{} needs {}, which is neither one of its inputs, a shared variable nor a constant",
          label, describe(*r)));
    }
  }
  for (const Update& u : updates)
    if (shared_set.insert(u.target).second) shared_vars.push_back(u.target->ref());
  if (options.on_unused_input == UnusedInput::Raise)
    for (std::size_t i = 0; i < explicit_vars.size(); ++i)
      if (!used.contains(explicit_vars[i].get()))
        throw Error(fmt::format(
            "input {} ({}) of {} is not used by any output or update (compile with "
            "on_unused_input = UnusedInput::Ignore to accept it)",
            i, describe(*explicit_vars[i]), label));

  std::vector<std::size_t> update_shared_index;
  for (const Update& u : updates)
    for (std::size_t j = 0; j < shared_vars.size(); ++j)
      if (shared_vars[j].get() == u.target) update_shared_index.push_back(j);

  std::vector<Var> graph_inputs_list = explicit_vars;
  graph_inputs_list.insert(graph_inputs_list.end(), shared_vars.begin(), shared_vars.end());
  FunctionGraph fg(graph_inputs_list, graph_outputs, /*clone=*/true);
  std::vector<Var> protect;
  for (std::size_t i = 0; i < fg.inputs().size(); ++i)
    if (i >= inputs.size() || !inputs[i].mutable_input) protect.push_back(fg.inputs()[i]);
  fg.attach_feature(std::make_shared<ProtectInputs>(protect));
  // In-place rewrites attach a DestroyHandler that protects every input; one
  // attached here first lets them overwrite the inputs declared mutable.
  std::vector<Var> mutable_inputs;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].mutable_input) mutable_inputs.push_back(fg.inputs()[i]);
  if (!mutable_inputs.empty())
    fg.attach_feature(std::make_shared<DestroyHandler>(std::move(mutable_inputs)));

  if (options.rewrite) {
    options.rewrite(fg);
    if (fg.inputs().size() != graph_inputs_list.size() ||
        fg.outputs().size() != graph_outputs.size())
      throw Error(fmt::format(
          "the rewrite pipeline of {} changed the graph's inputs or outputs ({} inputs and {} "
          "outputs, expected {} and {})",
          label, fg.inputs().size(), fg.outputs().size(), graph_inputs_list.size(),
          graph_outputs.size()));
  }
  // Also catches in-place nodes the caller's own graph brought in.
  fg.validate();
  insert_deep_copies(fg, inputs.size(), outputs.size(), update_shared_index);

  for (const In& in : inputs) {
    detail::InputSpec spec;
    spec.variable = in.variable;
    spec.type = in.variable->type();
    spec.check = p->make_check(*spec.type);
    spec.strict = in.strict;
    spec.allow_downcast = in.allow_downcast;
    spec.default_value = in.default_value;
    if (!spec.default_value.valid()) ++p->n_required;
    p->inputs.push_back(std::move(spec));
  }
  p->shared = shared_vars;
  for (const Var& s : shared_vars) p->shared_vars.push_back(as_shared(s));
  p->n_returned = outputs.size();
  for (std::size_t u = 0; u < updates.size(); ++u)
    p->update_targets.emplace_back(updates[u].target,
                                   static_cast<std::uint32_t>(outputs.size() + u));
  p->allow_gc = options.allow_gc;
  p->fgraph = std::move(fg);
  detail::link(*p);
  return p;
}

/// `options` with what RW_FLAGS turns on here (nan_guard, profile; the
/// rewriting flags are rw::function's).
FunctionOptions with_environment_flags(FunctionOptions options) {
  if (detail::IgnoreEnvironmentFlags::active()) return options;
  const EnvironmentFlags flags = environment_flags();
  if (flags.nan_guard && !options.nan_guard) options.nan_guard = NanGuard{};
  if (flags.debug_mode && !options.debug_mode) options.debug_mode = DebugMode{};
  if (flags.profile) options.profile = true;
  if (flags.native && (*flags.native == Native::Off || options.native.mode == Native::Off))
    options.native.mode = *flags.native;
  return options;
}

}  // namespace

EnvironmentFlags environment_flags() {
  EnvironmentFlags out;
  const char* env = std::getenv("RW_FLAGS");
  if (!env) return out;
  const std::string_view flags = env;
  for (std::size_t at = 0; at <= flags.size();) {
    const std::size_t comma = std::min(flags.find(',', at), flags.size());
    std::string_view flag = flags.substr(at, comma - at);
    while (!flag.empty() && flag.front() == ' ') flag.remove_prefix(1);
    while (!flag.empty() && flag.back() == ' ') flag.remove_suffix(1);
    at = comma + 1;
    if (flag.empty()) continue;
    if (flag == "nan_guard") {
      out.nan_guard = true;
    } else if (flag == "debug_mode") {
      out.debug_mode = true;
    } else if (flag == "profile") {
      out.profile = true;
    } else if (flag == "trace_rewrites") {
      out.trace_rewrites = true;
    } else if (flag == "profile_rewrites") {
      out.profile_rewrites = true;
    } else if (flag == "native" || flag.starts_with("native=")) {
      const std::string_view mode = flag == "native" ? "async" : flag.substr(7);
      if (mode == "off")
        out.native = Native::Off;
      else if (mode == "async")
        out.native = Native::Async;
      else if (mode == "sync")
        out.native = Native::Sync;
      else
        throw Error(
            fmt::format("RW_FLAGS: `{}` names no native mode (the modes are `off`, "
                        "`async` and `sync`)",
                        flag));
    } else {
      throw Error(
          fmt::format("RW_FLAGS: unknown flag `{}` (the flags are `nan_guard`, "
                      "`debug_mode`, `profile`, `trace_rewrites`, `profile_rewrites` "
                      "and `native[=off|async|sync]`, separated by commas)",
                      flag));
    }
  }
  return out;
}

FunctionBase::FunctionBase() = default;

namespace {

/// DebugMode's reference: the outputs and the explicit updates' values of
/// the same inputs, without rewrites, updates or default updates, never
/// overwriting an argument, each node run through its debug_perform. Compiled after the function, so that a request
/// the function refuses is refused with the function's own message.
std::unique_ptr<FunctionBase> unrewritten_of(const std::vector<In>& inputs,
                                             const std::vector<Var>& outputs,
                                             const FunctionOptions& options) {
  std::vector<In> ins = inputs;
  for (In& in : ins) in.mutable_input = false;
  std::vector<Var> outs = outputs;
  for (const auto& [target, value] : options.updates) outs.push_back(value);
  const detail::IgnoreEnvironmentFlags plain;
  return std::make_unique<FunctionBase>(
      std::move(ins), std::move(outs),
      FunctionOptions{.no_default_updates = true,
                      .givens = options.givens,
                      .name = options.name.empty() ? "unrewritten" : options.name + " (unrewritten)",
                      .allow_gc = true,
                      .on_unused_input = UnusedInput::Ignore,
                      // No checks, but each node runs its debug_perform:
                      // alloc_empty's NaN on both sides.
                      .debug_mode = DebugMode{.check_shapes = false,
                                              .check_io_maps = false,
                                              .check_repeat = false,
                                              .check_strides = false,
                                              .compare_unrewritten = false}});
}

}  // namespace

FunctionBase::FunctionBase(std::vector<In> inputs, std::vector<Var> outputs,
                           FunctionOptions options) {
  options = with_environment_flags(std::move(options));
  std::unique_ptr<FunctionBase> unrewritten;
  std::shared_ptr<const detail::Program> program;
  if (options.debug_mode && options.debug_mode->compare_unrewritten) {
    program = make_program(inputs, outputs, options);
    unrewritten = unrewritten_of(inputs, outputs, options);
  } else {
    program = make_program(std::move(inputs), std::move(outputs), options);
  }
  std::shared_ptr<detail::StepBackends> backends;
  // DebugMode checks each node's perform, so it keeps the interpreter.
  const bool native = options.native.mode != Native::Off && !options.debug_mode;
  if (native || (options.impls && !options.impls->empty())) {
    backends = std::make_shared<detail::StepBackends>();
    backends->impls = options.impls;
    if (options.impls && !options.impls->empty()) {
      bool any = false;
      for (const detail::Step& step : program->steps) {
        backends->perform.push_back(options.impls->perform_for(*step.op));
        any = any || backends->perform.back();
      }
      if (!any) backends->perform.clear();
    }
    if (native)
      backends->native = detail::NativeLink::start(*program, options.native, options.impls.get());
  }
  core_ = std::make_unique<detail::FunctionCore>(std::move(program), options.profile,
                                                 options.nan_guard, options.debug_mode,
                                                 std::move(unrewritten), std::move(backends));
}

FunctionBase::FunctionBase(const FunctionBase& other)
    : core_(other.core_ ? std::make_unique<detail::FunctionCore>(*other.core_) : nullptr) {}

FunctionBase& FunctionBase::operator=(const FunctionBase& other) {
  if (this != &other) *this = FunctionBase(other);
  return *this;
}

FunctionBase::FunctionBase(FunctionBase&& other) noexcept = default;
FunctionBase& FunctionBase::operator=(FunctionBase&& other) noexcept = default;
FunctionBase::~FunctionBase() = default;

namespace {
const detail::FunctionCore& need(const std::unique_ptr<detail::FunctionCore>& core) {
  if (!core) throw Error("this function is empty (default-constructed or moved from)");
  return *core;
}
}  // namespace

const std::string& FunctionBase::name() const {
  static const std::string kUnnamed;
  return core_ ? core_->program().name : kUnnamed;
}

std::size_t FunctionBase::num_inputs() const { return need(core_).program().inputs.size(); }
std::size_t FunctionBase::num_required_inputs() const { return need(core_).program().n_required; }
std::size_t FunctionBase::num_outputs() const { return need(core_).program().n_returned; }
std::span<const Var> FunctionBase::shared_variables() const {
  return need(core_).program().shared;
}
const FunctionGraph& FunctionBase::fgraph() const { return need(core_).program().fgraph; }
std::span<Apply* const> FunctionBase::schedule() const { return need(core_).program().order; }
const FunctionProfile* FunctionBase::profile() const {
  return core_ ? core_->profile() : nullptr;
}

void FunctionBase::reset_profile() {
  if (!core_ || !core_->profile()) return;
  FunctionProfile& p = *core_->profile();
  FunctionProfile fresh;
  for (const NodeProfile& n : p.nodes)
    fresh.nodes.push_back({.op = n.op, .op_class = n.op_class, .node = n.node});
  p = std::move(fresh);
}

NativeStatus FunctionBase::native_status() const {
  NativeStatus st;
  const detail::StepBackends* b = core_ ? core_->backends() : nullptr;
  if (!b || !b->native) return st;
  const detail::NativeLink& link = *b->native;
  st.native_nodes = link.native_steps();
  if (link.kernels()) {
    st.state = NativeStatus::State::Ready;
    st.cached = link.cached();
    return st;
  }
  st.error = link.error();
  st.state = st.error.empty() ? NativeStatus::State::Building : NativeStatus::State::Failed;
  return st;
}

void FunctionBase::wait_native() const {
  const detail::StepBackends* b = core_ ? core_->backends() : nullptr;
  if (b && b->native) b->native->wait();
}

std::string FunctionBase::native_source() const {
  const detail::StepBackends* b = core_ ? core_->backends() : nullptr;
  return b && b->native ? b->native->source() : std::string();
}

void FunctionBase::call_into(std::span<const Tensor> args, Tensor* out) const {
  need(core_);
  core_->call(args, out);
}

void FunctionBase::call_into(std::span<const Tensor* const> args, Tensor* out) const {
  need(core_);
  core_->call(args, out);
}

void FunctionBase::run_step(std::span<const Tensor* const> args) const {
  need(core_);
  core_->run_step(args);
}

const Tensor& FunctionBase::result(std::size_t r) const {
  need(core_);
  return core_->result(r);
}

void FunctionBase::end_steps() const {
  if (core_) core_->end_steps();
}

namespace detail {
void throw_arity_mismatch(const char* what, std::size_t want, std::size_t got) {
  throw Error(fmt::format("a function returning {} needs {} output{}, not {}", what, want,
                          want == 1 ? "" : "s", got));
}
}  // namespace detail

}  // namespace rw

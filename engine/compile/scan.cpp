// Scan: building a loop from a body function, the Op's checks and types, and
// the loop that runs the compiled body once per step.
#include "engine/compile/scan.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "engine/compile/compile_ops.hpp"
#include "engine/compile/shared.hpp"
#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"
#include "engine/graph/traversal.hpp"
#include "engine/graph/type.hpp"
#include "ops/api.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/errors.hpp"
#include "runtime/scalar_program.hpp"

namespace rw {

// ---------------------------------------------------------------------------
// ScanInfo and ScanResult.

std::size_t ScanInfo::n_state_taps() const {
  std::size_t n = 0;
  for (const auto& taps : state_taps) n += taps.size();
  return n;
}

std::size_t ScanInfo::inner_state(std::size_t j) const {
  std::size_t i = n_seqs;
  for (std::size_t k = 0; k < j; ++k) i += state_taps[k].size();
  return i;
}

const Var& ScanResult::output() const {
  if (outputs.size() != 1)
    throw Error(fmt::format("the scan has {} outputs; output() is for a scan with one",
                            outputs.size()));
  return outputs[0];
}

namespace {

bool is_step_count_type(const Type& t) {
  const TensorType* tt = t.as_tensor();
  return tt && tt->ndim() == 0 && is_integer(tt->dtype());
}

/// The type of one element of `seq` along its first axis.
TypePtr row_type(const TensorType& seq) {
  return TensorType::make(seq.dtype(), StaticShape(seq.shape().begin() + 1, seq.shape().end()));
}

/// `row` with a leading axis of extent `lead`.
TypePtr stacked_type(const TensorType& row, std::int64_t lead) {
  StaticShape shape{lead};
  shape.insert(shape.end(), row.shape().begin(), row.shape().end());
  return TensorType::make(row.dtype(), std::move(shape));
}

std::string tap_name(const std::string& base, std::int64_t tap) {
  const std::string b = base.empty() ? std::string("_") : base;
  if (tap == 0) return b + "[t]";
  return fmt::format("{}[t{:+d}]", b, tap);
}

/// The dtype, rank and broadcast pattern of `a` and `b` agree.
bool same_kind(const TensorType& a, const TensorType& b) {
  return a.dtype() == b.dtype() && a.ndim() == b.ndim() && a.broadcastable() == b.broadcastable();
}

std::string kind_string(const TensorType& t) {
  std::string b;
  for (bool x : t.broadcastable()) b += x ? "1" : "?";
  return fmt::format("{} of rank {} (broadcastable: [{}])", dtype_name(t.dtype()), t.ndim(), b);
}

}  // namespace

// ---------------------------------------------------------------------------
// The Op.

ScanOp::ScanOp(ScanInfo info, std::vector<Var> inner_inputs, std::vector<Var> inner_outputs,
               GraphRewrite rewrite)
    : info_(std::move(info)),
      inner_inputs_(std::move(inner_inputs)),
      inner_outputs_(std::move(inner_outputs)),
      rewrite_(std::move(rewrite)) {
  const std::string& nm = info_.name;
  if (inner_inputs_.size() != info_.n_inner_inputs())
    throw Error(fmt::format("`{}`: the inner graph has {} inputs; the layout needs {}", nm,
                            inner_inputs_.size(), info_.n_inner_inputs()));
  if (inner_outputs_.size() != info_.n_inner_outputs())
    throw Error(fmt::format("`{}`: the inner graph has {} outputs; the layout needs {}", nm,
                            inner_outputs_.size(), info_.n_inner_outputs()));
  if (info_.store_steps.empty()) info_.store_steps.assign(info_.n_stacked(), 0);
  if (info_.shared_default.empty()) info_.shared_default.assign(info_.n_shared, false);
  if (info_.shared_default.size() != info_.n_shared)
    throw Error(fmt::format("`{}`: shared_default has {} entries for {} shared variables", nm,
                            info_.shared_default.size(), info_.n_shared));
  if (info_.store_steps.size() != info_.n_stacked())
    throw Error(fmt::format("`{}`: store_steps has {} entries for {} stacked outputs", nm,
                            info_.store_steps.size(), info_.n_stacked()));
  for (std::size_t j = 0; j < info_.n_states(); ++j) {
    const auto& taps = info_.state_taps[j];
    if (taps.empty() || !std::is_sorted(taps.begin(), taps.end()) || taps.back() >= 0)
      throw Error(fmt::format("`{}`: the taps of state {} must be negative and ascending", nm, j));
  }
  for (const Var& v : inner_inputs_)
    if (!v || v->owner() || v->is_constant())
      throw Error(fmt::format("`{}`: an inner input is not a root variable", nm));
  for (std::size_t j = 0; j < inner_outputs_.size(); ++j) {
    const Var& v = inner_outputs_[j];
    // Shared variables may be of any type; what is stacked is a tensor.
    const bool shared = j >= info_.n_stacked() && j < info_.n_stacked() + info_.n_shared;
    if (!v || (!shared && !v->tensor_type()))
      throw Error(fmt::format("`{}`: inner output {} is null or not a tensor", nm, j));
  }
  {
    std::unordered_set<const Variable*> given;
    for (const Var& v : inner_inputs_) given.insert(v.get());
    for (const Var& root : graph_inputs(inner_outputs_))
      if (!given.contains(root.get()) && !root->is_constant() && !as_shared(root))
        throw Error(fmt::format("`{}`: the inner graph reads {}, which is not one of its inputs",
                                nm, describe(*root)));
  }
  for (const Apply* a : io_toposort(inner_inputs_, inner_outputs_)) mergeable_ = mergeable_ && a->op().mergeable();
  inner_pattern_.assign(inner_inputs_.size(), std::vector<bool>(inner_outputs_.size(), false));
  for (std::size_t j = 0; j < inner_outputs_.size(); ++j) {
    const std::vector<Var> roots = graph_inputs(std::span<const Var>(&inner_outputs_[j], 1));
    std::unordered_set<const Variable*> reached;
    for (const Var& r : roots) reached.insert(r.get());
    for (std::size_t i = 0; i < inner_inputs_.size(); ++i)
      inner_pattern_[i][j] = reached.contains(inner_inputs_[i].get());
  }
}

std::string ScanOp::to_string() const {
  std::string s = info_.name;
  std::vector<std::string> props;
  if (info_.as_while) props.push_back("while");
  if (info_.go_backwards) props.push_back("backwards");
  bool saved = false;
  for (std::int64_t k : info_.store_steps) saved |= k != 0;
  if (saved) {
    std::string keep;
    for (std::size_t j = 0; j < info_.store_steps.size(); ++j)
      keep += (j ? "," : "") + (info_.store_steps[j] ? std::to_string(info_.store_steps[j])
                                                       : std::string("all"));
    props.push_back("keep=" + keep);
  }
  if (props.empty()) return s;
  s += "{";
  for (std::size_t i = 0; i < props.size(); ++i) s += (i ? "," : "") + props[i];
  return s + "}";
}

IoMap ScanOp::default_updates() const {
  IoMap m;
  for (std::size_t i = 0; i < info_.n_shared; ++i)
    if (info_.shared_default[i]) m.emplace_back(info_.n_stacked() + i, info_.outer_shared(i));
  return m;
}

const ScanOp* scan_op_of(const Var& v) {
  if (!v || !v->owner()) return nullptr;
  return dynamic_cast<const ScanOp*>(&v->owner()->op());
}

ApplyRef ScanOp::make_node(std::span<const Var> inputs) const {
  const ScanInfo& in = info_;
  const std::string& nm = in.name;
  if (inputs.size() != in.n_outer_inputs())
    throw TypeError(fmt::format("`{}` takes {} inputs, got {}", nm, in.n_outer_inputs(),
                                inputs.size()));
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!inputs[i]) throw TypeError(fmt::format("`{}`: input {} is null", nm, i));
  if (!is_step_count_type(*inputs[0]->type()) ||
      inputs[0]->tensor_type()->dtype() != DType::Int64)
    throw TypeError(fmt::format("`{}`: the number of steps {} has type `{}`; it must be i64[]", nm,
                                describe(*inputs[0]), inputs[0]->type()->to_string()));
  auto need = [&](std::size_t outer, const Type& want, const char* what) {
    if (!want.is_super(*inputs[outer]->type()))
      throw TypeError(fmt::format("`{}`: {} {} has type `{}`, but the body takes `{}`", nm, what,
                                  describe(*inputs[outer]), inputs[outer]->type()->to_string(),
                                  want.to_string()));
  };
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    const TensorType* t = inputs[in.outer_seq(i)]->tensor_type();
    if (!t || t->ndim() == 0)
      throw TypeError(fmt::format("`{}`: sequence {} ({}) must have at least one axis", nm, i,
                                  describe(*inputs[in.outer_seq(i)])));
    if (!inner_inputs_[i]->type()->is_super(*row_type(*t)))
      throw TypeError(fmt::format("`{}`: the elements of sequence {} ({}) have type `{}`, but "
                                  "the body takes `{}`",
                                  nm, i, describe(*inputs[in.outer_seq(i)]),
                                  row_type(*t)->to_string(),
                                  inner_inputs_[i]->type()->to_string()));
  }
  for (std::size_t j = 0; j < in.n_states(); ++j) {
    const Var& init = inputs[in.outer_state(j)];
    const TensorType* t = init->tensor_type();
    const TensorType& row = *inner_inputs_[in.inner_state(j)]->tensor_type();
    if (!t || t->ndim() != row.ndim() + 1 || t->dtype() != row.dtype() ||
        !row.is_super(*row_type(*t)))
      throw TypeError(fmt::format(
          "`{}`: the initial values of state {} ({}) have type `{}`; the body's state needs "
          "`{}`",
          nm, j, describe(*init), init->type()->to_string(),
          stacked_type(row, kUnknownDim)->to_string()));
    const std::int64_t have = t->shape()[0];
    if (have != kUnknownDim && have < static_cast<std::int64_t>(in.lag(j)))
      throw TypeError(fmt::format("`{}`: state {} reads {} steps back (tap {}), but its initial "
                                  "values ({}) hold {}",
                                  nm, j, in.lag(j), in.state_taps[j].front(), describe(*init),
                                  have));
  }
  for (std::size_t i = 0; i < in.n_shared; ++i)
    need(in.outer_shared(i), *inner_inputs_[in.inner_shared(i)]->type(), "the shared variable");
  for (std::size_t i = 0; i < in.n_non_seqs; ++i)
    need(in.outer_non_seq(i), *inner_inputs_[in.inner_non_seq(i)]->type(), "the non-sequence");

  // The number of steps, when the graph knows it.
  std::int64_t steps = kUnknownDim;
  if (!in.as_while) {
    if (in.steps_from_sequences) {
      steps = inputs[in.outer_seq(0)]->tensor_type()->shape()[0];
    } else if (const Constant* c = inputs[0]->as_constant()) {
      steps = c->value().item<std::int64_t>();
    }
  }
  std::vector<TypePtr> types;
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    const TensorType& out = *inner_outputs_[j]->tensor_type();
    StaticShape row = out.shape();
    if (j < in.n_states()) {
      const TensorType& init_row = *inner_inputs_[in.inner_state(j)]->tensor_type();
      for (std::size_t d = 0; d < row.size(); ++d)
        if (row[d] == kUnknownDim) row[d] = init_row.shape()[d];
    }
    std::int64_t lead = steps;
    const std::int64_t keep = in.store_steps[j];
    const std::int64_t lag = j < in.n_states() ? static_cast<std::int64_t>(in.lag(j)) : 0;
    if (keep != 0) lead = steps == kUnknownDim ? kUnknownDim : std::min(steps + lag, keep);
    types.push_back(stacked_type(*TensorType::make(out.dtype(), std::move(row)), lead));
  }
  for (std::size_t i = 0; i < in.n_shared; ++i) types.push_back(inputs[in.outer_shared(i)]->type());
  return Apply::create(ptr(), inputs, types);
}

// ---------------------------------------------------------------------------
// The scalar loop: a body of 0-d elementwise work, run on registers.

namespace detail {

/// The compiled body as one ScalarProgram (its inputs and outputs those of
/// the body), with each instruction's operands resolved to register slots.
struct ScanScalarLoop {
  ScalarProgram program;
  std::vector<std::uint64_t> init;  // every register: constants set, the rest 0
  struct Op {
    KernelFn kernel;
    std::uint32_t out;
    std::uint32_t n_args;
    std::uint32_t args[3];
  };
  std::vector<Op> ops;
  std::vector<std::uint32_t> inputs, outputs;  // register per body input / output
  std::vector<std::size_t> input_size, output_size;  // bytes of one element
  std::vector<DType> output_dtype;
};

}  // namespace detail

namespace {

/// The body as a scalar loop, or null when it is not one.
std::shared_ptr<const detail::ScanScalarLoop> scalar_loop_of(const FunctionBase& fn) {
  const FunctionGraph& fg = fn.fgraph();
  if (fg.inputs().size() != fn.num_inputs()) return nullptr;  // shared variables inside
  auto zero_d = [](const Var& v) {
    const TensorType* t = v->tensor_type();
    return t && t->ndim() == 0;
  };
  auto loop = std::make_shared<detail::ScanScalarLoop>();
  ScalarProgram& p = loop->program;
  std::unordered_map<const Variable*, Reg> reg;
  for (const Var& in : fg.inputs()) {
    if (!zero_d(in)) return nullptr;
    reg.emplace(in.get(), p.input(in->tensor_type()->dtype()));
  }
  auto constant_reg = [&](const Tensor& value) {
    return visit_dtype(value.dtype(), [&]<class T>() { return p.constant_of(value.item<T>()); });
  };
  auto reg_of = [&](const Var& v) -> std::optional<Reg> {
    if (auto it = reg.find(v.get()); it != reg.end()) return it->second;
    if (const Constant* c = v->as_constant(); c && zero_d(v)) {
      const Reg r = constant_reg(c->value());
      reg.emplace(v.get(), r);
      return r;
    }
    return std::nullopt;
  };
  for (const Apply* node : fn.schedule()) {
    for (std::size_t j = 0; j < node->num_outputs(); ++j)
      if (!zero_d(node->output(j))) return nullptr;
    std::vector<Reg> args;
    for (const Var& in : node->inputs()) {
      const auto r = reg_of(in);
      if (!r) return nullptr;
      args.push_back(*r);
    }
    if (dynamic_cast<const DeepCopyOp*>(&node->op())) {
      reg.emplace(&node->output_var(0), args[0]);
      continue;
    }
    const auto* e = dynamic_cast<const ElemwiseBase*>(&node->op());
    if (!e) return nullptr;
    std::vector<DType> dtypes;
    for (const Var& in : node->inputs()) dtypes.push_back(in->tensor_type()->dtype());
    const ScalarProgram& sub = e->program(dtypes);
    std::unordered_map<std::uint32_t, Reg> in_sub;
    for (std::size_t i = 0; i < sub.num_inputs(); ++i) in_sub.emplace(sub.inputs()[i].id, args[i]);
    auto sub_reg = [&](Reg r) {
      if (auto it = in_sub.find(r.id); it != in_sub.end()) return it->second;
      // A constant of the sub-program.
      const std::uint64_t bits = sub.constant_bits(r);
      const Reg c = visit_dtype(sub.dtype(r), [&]<class T>() {
        T v;
        std::memcpy(&v, &bits, sizeof(T));
        return p.constant_of(v);
      });
      in_sub.emplace(r.id, c);
      return c;
    };
    for (const ScalarInstr& instr : sub.instructions()) {
      std::vector<Reg> a;
      for (Reg r : instr.args) a.push_back(sub_reg(r));
      in_sub.emplace(instr.out.id, p.append_from(sub, instr, a));
    }
    for (std::size_t j = 0; j < node->num_outputs(); ++j)
      reg.emplace(&node->output_var(j), sub_reg(sub.outputs()[j]));
  }
  for (const Var& out : fg.outputs()) {
    const auto r = reg_of(out);
    if (!r) return nullptr;
    loop->outputs.push_back(r->id);
    loop->output_size.push_back(itemsize(out->tensor_type()->dtype()));
    loop->output_dtype.push_back(out->tensor_type()->dtype());
  }
  for (std::size_t i = 0; i < p.num_inputs(); ++i) {
    loop->inputs.push_back(p.inputs()[i].id);
    loop->input_size.push_back(itemsize(p.input_dtype(i)));
  }
  loop->init.assign(p.num_registers(), 0);
  for (std::uint32_t r = 0; r < p.num_registers(); ++r)
    if (p.kind(Reg{r}) == RegKind::Constant) loop->init[r] = p.constant_bits(Reg{r});
  for (const ScalarInstr& instr : p.instructions()) {
    detail::ScanScalarLoop::Op op{instr.kernel, instr.out.id, static_cast<std::uint32_t>(instr.args.size()), {}};
    if (op.n_args > 3) return nullptr;
    for (std::size_t a = 0; a < instr.args.size(); ++a) op.args[a] = instr.args[a].id;
    loop->ops.push_back(op);
  }
  return loop;
}

}  // namespace

const FunctionBase& ScanOp::body() const {
  std::call_once(compiled_once_, [&] {
    std::vector<In> ins(inner_inputs_.begin(), inner_inputs_.end());
    FunctionOptions o;
    o.rewrite = rewrite_;
    o.name = info_.name + " step";
    o.allow_gc = false;  // each step reuses the buffers of the one before
    o.on_unused_input = UnusedInput::Ignore;
    fn_ = std::make_unique<FunctionBase>(std::move(ins), inner_outputs_, std::move(o));
    scalar_ = scalar_loop_of(*fn_);
  });
  return *fn_;
}

bool ScanOp::runs_on_scalars() const {
  (void)body();
  return scalar_ != nullptr;
}

namespace {

/// A buffer of rows: `rows` along the first axis, chronological step i (from
/// -lag) at row (i + lag) mod rows.
struct RowBuffer {
  Tensor data;
  std::int64_t lag = 0;
  std::int64_t rows = 0;
  bool ring = false;  // keeps only the last rows; else grows
  std::int64_t pos(std::int64_t i) const {
    const std::int64_t p = i + lag;
    return ring ? p % rows : p;
  }
};

Shape with_rows(std::int64_t rows, const Shape& row) {
  Shape s{rows};
  for (std::int64_t e : row) s.push_back(e);
  return s;
}

/// Makes room for chronological step i in a growing buffer (doubling).
void reserve_step(RowBuffer& b, std::int64_t i, const Shape& row) {
  if (b.ring || b.pos(i) < b.rows) return;
  const std::int64_t rows = std::max<std::int64_t>(b.pos(i) + 1, 2 * b.rows);
  Tensor grown = Tensor::empty(b.data.dtype(), with_rows(rows, row));
  if (b.rows > 0) grown.slice(0, 0, b.rows).assign(b.data);
  b.data = std::move(grown);
  b.rows = rows;
}

/// After `steps` steps, every step's row in order (keep 0), or the last
/// `keep` rows of the initial values followed by the steps.
Tensor stacked_rows(const RowBuffer& b, std::int64_t steps, std::int64_t keep, const Shape& row) {
  if (!b.ring) return b.data.slice(0, b.lag, b.lag + steps);
  const std::int64_t m = std::min(keep, steps + b.lag);
  Tensor out = Tensor::empty(b.data.dtype(), with_rows(m, row));
  for (std::int64_t r = 0; r < m; ++r)
    out.select(0, r).assign(b.data.select(0, b.pos(steps - m + r)));
  return out;
}


/// Writes `row` as step t's row of `b` (a plain copy when both are dense).
void store_row(RowBuffer& b, std::int64_t t, const Tensor& row) {
  if (row.is_contiguous() && row.dtype() == b.data.dtype()) {
    const std::size_t bytes = row.nbytes();
    std::memcpy(static_cast<std::byte*>(b.data.raw_data()) + static_cast<std::size_t>(b.pos(t)) * bytes,
                row.raw_data(), bytes);
    return;
  }
  b.data.select(0, b.pos(t)).assign(row);
}

/// The general loop: the compiled body run once per step on views of the
/// rows it reads. Returns the number of steps run.
std::int64_t run_loop(const FunctionBase& fn, const ScanInfo& in, std::span<const Tensor> inputs,
                      std::int64_t steps, std::vector<RowBuffer>& bufs,
                      std::vector<Shape>& row_shape, std::vector<Tensor>& shared_now) {
  const std::string& nm = in.name;
  const std::size_t n_states = in.n_states();
  // The step's arguments: views of the rows it reads, refreshed each step.
  const std::size_t n_views = in.n_seqs + in.n_state_taps();
  std::vector<Tensor> views(n_views);
  std::vector<const Tensor*> args(in.n_inner_inputs());
  for (std::size_t v = 0; v < n_views; ++v) args[v] = &views[v];
  for (std::size_t i = 0; i < in.n_shared; ++i) args[in.inner_shared(i)] = &shared_now[i];
  for (std::size_t i = 0; i < in.n_non_seqs; ++i)
    args[in.inner_non_seq(i)] = &inputs[in.outer_non_seq(i)];

  struct EndSteps {
    const FunctionBase& f;
    ~EndSteps() { f.end_steps(); }
  } end{fn};

  std::int64_t t = 0;
  for (; t < steps; ++t) {
    for (std::size_t i = 0; i < in.n_seqs; ++i) views[i] = inputs[in.outer_seq(i)].select(0, t);
    std::size_t v = in.n_seqs;
    for (std::size_t j = 0; j < n_states; ++j)
      for (std::int64_t tap : in.state_taps[j])
        views[v++] = bufs[j].data.select(0, bufs[j].pos(t + tap));
    fn.run_step(args);

    for (std::size_t j = 0; j < in.n_stacked(); ++j) {
      const Tensor& r = fn.result(j);
      RowBuffer& b = bufs[j];
      if (j >= n_states && t == 0) {
        row_shape[j] = r.shape();
        b.rows = std::max<std::int64_t>(b.rows, 1);
        b.data = Tensor::empty(r.dtype(), with_rows(b.rows, r.shape()));
      }
      if (!(r.shape() == row_shape[j]))
        throw ValueError(fmt::format(
            "`{}`: step {} computed {} {} of shape {}, but {} {}", nm, t,
            j < n_states ? "state" : "output", j, shape_to_string(r.shape()),
            j < n_states ? "its initial values have rows of shape" : "the first step's has shape",
            shape_to_string(row_shape[j])));
      reserve_step(b, t, row_shape[j]);
      store_row(b, t, r);
    }
    for (std::size_t i = 0; i < in.n_shared; ++i) shared_now[i] = fn.result(in.n_stacked() + i);
    if (in.as_while && fn.result(in.n_inner_outputs() - 1).item<bool>()) {
      ++t;
      break;
    }
  }
  return t;
}

/// The scalar loop: every row is one element, every step the body's scalar
/// program on registers, loaded from and stored to the buffers directly.
void run_scalar_loop(const detail::ScanScalarLoop& L, const ScanInfo& in,
                     std::span<const Tensor> inputs, std::int64_t& steps,
                     std::vector<RowBuffer>& bufs, std::vector<Shape>& row_shape,
                     std::vector<Tensor>& shared_now) {
  std::vector<std::uint64_t> regs = L.init;
  std::uint64_t* R = regs.data();
  auto load = [&](std::size_t inner, const void* from) {
    std::memcpy(&R[L.inputs[inner]], from, L.input_size[inner]);
  };
  for (std::size_t i = 0; i < in.n_non_seqs; ++i)
    load(in.inner_non_seq(i), inputs[in.outer_non_seq(i)].raw_data());
  for (std::size_t i = 0; i < in.n_shared; ++i) load(in.inner_shared(i), shared_now[i].raw_data());
  for (std::size_t j = in.n_states(); j < in.n_stacked(); ++j) {
    RowBuffer& b = bufs[j];
    b.rows = std::max<std::int64_t>(b.rows, 1);
    b.data = Tensor::empty(L.output_dtype[j], {b.rows});
    row_shape[j] = Shape();
  }
  struct Seq {
    const std::byte* base;
    std::int64_t stride;  // bytes
  };
  std::vector<Seq> seqs;
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    const Tensor& x = inputs[in.outer_seq(i)];
    seqs.push_back({static_cast<const std::byte*>(x.raw_data()),
                    x.strides()[0] * static_cast<std::int64_t>(itemsize(x.dtype()))});
  }
  struct Step {
    detail::KernelFn kernel;
    const void* args[3];
    void* out;
  };
  std::vector<Step> ops;
  for (const auto& op : L.ops) {
    Step st{op.kernel, {}, &R[op.out]};
    for (std::uint32_t a = 0; a < op.n_args; ++a) st.args[a] = &R[op.args[a]];
    ops.push_back(st);
  }
  const std::size_t n_states = in.n_states();
  std::int64_t t = 0;
  for (; t < steps; ++t) {
    for (std::size_t i = 0; i < in.n_seqs; ++i) load(i, seqs[i].base + t * seqs[i].stride);
    std::size_t v = in.n_seqs;
    for (std::size_t j = 0; j < n_states; ++j) {
      const RowBuffer& b = bufs[j];
      const auto* data = static_cast<const std::byte*>(b.data.raw_data());
      const std::size_t size = itemsize(b.data.dtype());
      for (std::int64_t tap : in.state_taps[j])
        load(v++, data + static_cast<std::size_t>(b.pos(t + tap)) * size);
    }
    for (const Step& st : ops) st.kernel(1, st.args, st.out);
    for (std::size_t j = 0; j < in.n_stacked(); ++j) {
      RowBuffer& b = bufs[j];
      reserve_step(b, t, row_shape[j]);
      auto* data = static_cast<std::byte*>(b.data.raw_data());
      std::memcpy(data + static_cast<std::size_t>(b.pos(t)) * L.output_size[j], &R[L.outputs[j]],
                  L.output_size[j]);
    }
    for (std::size_t i = 0; i < in.n_shared; ++i)
      R[L.inputs[in.inner_shared(i)]] = R[L.outputs[in.n_stacked() + i]];
    if (in.as_while && *reinterpret_cast<const std::uint8_t*>(&R[L.outputs.back()]) != 0) {
      ++t;
      break;
    }
  }
  steps = t;
  for (std::size_t i = 0; i < in.n_shared && t > 0; ++i) {
    Tensor v = Tensor::empty(shared_now[i].dtype(), {});
    std::memcpy(v.raw_data(), &R[L.inputs[in.inner_shared(i)]], itemsize(v.dtype()));
    shared_now[i] = std::move(v);
  }
}

/// The outer outputs from the row buffers after `steps` steps.
void finish_outputs(const ScanInfo& in, const Apply& node, std::int64_t steps,
                    const std::vector<RowBuffer>& bufs, const std::vector<Shape>& row_shape,
                    std::vector<Tensor>& shared_now, std::span<Tensor> outputs) {
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    const RowBuffer& b = bufs[j];
    if (!b.data.valid()) {
      // No step ran: the rows' shape is what the types know.
      const TensorType& ot = *node.output_var(j).tensor_type();
      Shape row(ot.shape().begin() + 1, ot.shape().end());
      for (std::int64_t& e : row) e = e == kUnknownDim ? 0 : e;
      outputs[j] = Tensor::empty(ot.dtype(), with_rows(0, row));
      continue;
    }
    outputs[j] = stacked_rows(b, steps, in.store_steps[j], row_shape[j]);
  }
  for (std::size_t i = 0; i < in.n_shared; ++i)
    outputs[in.n_stacked() + i] = steps == 0 ? shared_now[i].copy() : std::move(shared_now[i]);
}

}  // namespace

void ScanOp::perform(const Apply& node, std::span<const Tensor> inputs,
                     std::span<Tensor> outputs) const {
  const ScanInfo& in = info_;
  const std::string& nm = in.name;
  const FunctionBase& fn = body();
  std::lock_guard lock(call_mutex_);

  // The number of steps.
  std::int64_t steps = 0;
  if (in.steps_from_sequences) {
    steps = inputs[in.outer_seq(0)].dim(0);
    for (std::size_t i = 1; i < in.n_seqs; ++i)
      if (inputs[in.outer_seq(i)].dim(0) != steps)
        throw ValueError(fmt::format(
            "`{}`: the sequences have different lengths: sequence {} ({}) gives {} steps, "
            "sequence 0 ({}) gives {}; cut them to one length or give n_steps",
            nm, i, describe(*node.input(in.outer_seq(i))), inputs[in.outer_seq(i)].dim(0),
            describe(*node.input(in.outer_seq(0))), steps));
  } else {
    steps = inputs[0].item<std::int64_t>();
    if (steps < 0)
      throw ValueError(fmt::format("`{}`: the number of steps is {}; it must be at least 0", nm,
                                   steps));
    for (std::size_t i = 0; i < in.n_seqs; ++i)
      if (inputs[in.outer_seq(i)].dim(0) < steps && !in.as_while)
        throw ValueError(fmt::format("`{}`: sequence {} ({}) gives {} steps; n_steps is {}", nm, i,
                                     describe(*node.input(in.outer_seq(i))),
                                     inputs[in.outer_seq(i)].dim(0), steps));
    if (in.as_while)
      for (std::size_t i = 0; i < in.n_seqs; ++i)
        steps = std::min(steps, inputs[in.outer_seq(i)].dim(0));
  }
  // A while-loop starts small and grows; a counted loop knows its length.
  const std::int64_t capacity = in.as_while ? std::min<std::int64_t>(steps, 16) : steps;

  const std::size_t n_states = in.n_states();
  std::vector<RowBuffer> bufs(in.n_stacked());
  std::vector<Shape> row_shape(in.n_stacked());
  for (std::size_t j = 0; j < n_states; ++j) {
    const Tensor& init = inputs[in.outer_state(j)];
    const auto lag = static_cast<std::int64_t>(in.lag(j));
    if (init.dim(0) < lag)
      throw ValueError(fmt::format("`{}`: state {} reads {} steps back, but its initial values "
                                   "({}) hold {}",
                                   nm, j, lag, describe(*node.input(in.outer_state(j))),
                                   init.dim(0)));
    RowBuffer& b = bufs[j];
    b.lag = lag;
    const std::int64_t keep = in.store_steps[j];
    b.ring = keep != 0;
    b.rows = b.ring ? std::max(keep, lag + 1) : lag + capacity;
    row_shape[j] = Shape(init.shape().begin() + 1, init.shape().end());
    b.data = Tensor::empty(init.dtype(), with_rows(b.rows, row_shape[j]));
    for (std::int64_t i = -lag; i < 0; ++i)
      b.data.select(0, b.pos(i)).assign(init.select(0, init.dim(0) + i));
  }
  for (std::size_t j = n_states; j < in.n_stacked(); ++j) {
    const std::int64_t keep = in.store_steps[j];
    bufs[j].ring = keep != 0;
    bufs[j].rows = bufs[j].ring ? keep : capacity;  // allocated after the first step
  }
  std::vector<Tensor> shared_now(in.n_shared);
  for (std::size_t i = 0; i < in.n_shared; ++i) shared_now[i] = inputs[in.outer_shared(i)];

  if (scalar_) {
    run_scalar_loop(*scalar_, in, inputs, steps, bufs, row_shape, shared_now);
  } else {
    steps = run_loop(fn, in, inputs, steps, bufs, row_shape, shared_now);
  }
  finish_outputs(in, node, steps, bufs, row_shape, shared_now, outputs);
}

ShapeVars ScanOp::inner_shape(std::size_t j, std::span<const ShapeVars> input_shapes) const {
  const ScanInfo& in = info_;
  const TensorType& rt = *inner_outputs_[j]->tensor_type();
  ShapeVars row;
  if (rt.shape_known()) {
    for (std::int64_t e : rt.shape()) row.push_back(integer_constant(e, DType::Int64));
    return row;
  }
  // The body's own shapes, from its inputs' in terms of the outer inputs':
  // a sequence's element has the sequence's shape less its first axis, a
  // state's tap that of its initial values' rows.
  auto fail = [&] {
    return NotImplementedError(
        fmt::format("`{}`: the shape of output {} is known only by running the body", in.name, j));
  };
  std::unordered_map<const Variable*, ShapeVars> shape_of;
  for (std::size_t i = 0; i < in.n_seqs; ++i) {
    const ShapeVars& s = input_shapes[in.outer_seq(i)];
    shape_of.emplace(inner_inputs_[i].get(), ShapeVars(s.begin() + 1, s.end()));
  }
  for (std::size_t k = 0; k < in.n_states(); ++k) {
    const ShapeVars& s = input_shapes[in.outer_state(k)];
    for (std::size_t t = 0; t < in.state_taps[k].size(); ++t)
      shape_of.emplace(inner_inputs_[in.inner_state(k) + t].get(), ShapeVars(s.begin() + 1, s.end()));
  }
  for (std::size_t i = 0; i < in.n_shared; ++i)
    shape_of.emplace(inner_inputs_[in.inner_shared(i)].get(), input_shapes[in.outer_shared(i)]);
  for (std::size_t i = 0; i < in.n_non_seqs; ++i)
    shape_of.emplace(inner_inputs_[in.inner_non_seq(i)].get(), input_shapes[in.outer_non_seq(i)]);
  auto shape_var = [&](const Var& v) -> const ShapeVars& {
    if (auto it = shape_of.find(v.get()); it != shape_of.end()) return it->second;
    const TensorType* t = v->tensor_type();
    if (!v->is_constant() || !t) throw fail();
    ShapeVars c;
    for (std::int64_t e : t->shape()) c.push_back(integer_constant(e, DType::Int64));
    return shape_of.emplace(v.get(), std::move(c)).first->second;
  };
  const Var target = inner_outputs_[j];
  for (const Apply* a : io_toposort(inner_inputs_, std::span<const Var>(&target, 1))) {
    std::vector<ShapeVars> ins;
    for (const Var& v : a->inputs()) ins.push_back(shape_var(v));
    const std::vector<ShapeVars> outs = a->op().infer_shape(*a, ins);
    for (std::size_t k = 0; k < a->num_outputs() && k < outs.size(); ++k)
      shape_of.emplace(&a->output_var(k), outs[k]);
  }
  row = shape_var(target);
  // Usable outside only when it reads nothing of the body.
  std::unordered_set<const Variable*> inner;
  for (const Var& v : vars_between(inner_inputs_, std::span<const Var>(&target, 1))) inner.insert(v.get());
  for (const Var& v : ancestors(row))
    if (inner.contains(v.get())) throw fail();
  return row;
}

std::vector<ShapeVars> ScanOp::infer_shape(const Apply& node,
                                           std::span<const ShapeVars> input_shapes) const {
  const ScanInfo& in = info_;
  if (in.as_while)
    throw NotImplementedError(fmt::format(
        "`{}` is a while-loop: its number of steps is known only by running it", in.name));
  const Var steps = in.steps_from_sequences ? input_shapes[in.outer_seq(0)][0] : node.input(0);
  std::vector<ShapeVars> out;
  for (std::size_t j = 0; j < in.n_stacked(); ++j) {
    ShapeVars s;
    const std::int64_t keep = in.store_steps[j];
    const std::int64_t lag = j < in.n_states() ? static_cast<std::int64_t>(in.lag(j)) : 0;
    s.push_back(keep ? minimum(lag ? add(steps, lag) : steps, integer_constant(keep, DType::Int64))
                     : steps);
    if (j < in.n_states()) {
      const ShapeVars& init = input_shapes[in.outer_state(j)];
      s.insert(s.end(), init.begin() + 1, init.end());
    } else {
      const ShapeVars row = inner_shape(j, input_shapes);
      s.insert(s.end(), row.begin(), row.end());
    }
    out.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < in.n_shared; ++i) out.push_back(input_shapes[in.outer_shared(i)]);
  return out;
}

std::vector<std::vector<bool>> ScanOp::connection_pattern(const Apply& node) const {
  // An outer output depends on an outer input when its inner output does on
  // the input's inner variables, directly or through the states carried
  // from step to step (a fixed point over the states).
  const ScanInfo& in = info_;
  const std::size_t n_out = node.num_outputs();
  // deps[k][j]: inner output j depends on "outer input" k, where k indexes the
  // outer inputs; the states' outer inputs stand for their taps.
  std::vector<std::vector<bool>> deps(in.n_outer_inputs(), std::vector<bool>(n_out, false));
  auto inner_of_outer = [&](std::size_t k) -> std::vector<std::size_t> {
    if (k == 0) return {};
    if (k < in.outer_state()) return {k - 1};
    if (k < in.outer_shared()) {
      const std::size_t j = k - in.outer_state();
      std::vector<std::size_t> v;
      for (std::size_t t = 0; t < in.state_taps[j].size(); ++t) v.push_back(in.inner_state(j) + t);
      return v;
    }
    if (k < in.outer_non_seq()) return {in.inner_shared(k - in.outer_shared())};
    return {in.inner_non_seq(k - in.outer_non_seq())};
  };
  for (std::size_t k = 0; k < in.n_outer_inputs(); ++k)
    for (std::size_t i : inner_of_outer(k))
      for (std::size_t j = 0; j < n_out; ++j) deps[k][j] = deps[k][j] || inner_pattern_[i][j];
  // Outputs that are carried (states, shared) feed their own inputs.
  auto carried_outer = [&](std::size_t j) -> std::optional<std::size_t> {
    if (j < in.n_states()) return in.outer_state(j);
    if (j >= in.n_stacked()) return in.outer_shared(j - in.n_stacked());
    return std::nullopt;
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (std::size_t k = 0; k < in.n_outer_inputs(); ++k)
      for (std::size_t c = 0; c < n_out; ++c) {
        const auto fed = carried_outer(c);
        if (!fed || !deps[k][c]) continue;
        for (std::size_t j = 0; j < n_out; ++j)
          if (deps[*fed][j] && !deps[k][j]) {
            deps[k][j] = true;
            changed = true;
          }
      }
  }
  // A state's initial values are its first rows' inputs.
  for (std::size_t j = 0; j < in.n_states(); ++j) deps[in.outer_state(j)][j] = true;
  for (std::size_t i = 0; i < in.n_shared; ++i)
    deps[in.outer_shared(i)][in.n_stacked() + i] = true;
  // The number of steps decides every output's extent, not its values.
  return deps;
}

ApplyRef detail::rebuild_scan(ScanInfo info, std::vector<Var> inner_inputs,
                              std::vector<Var> inner_outputs, const GraphRewrite& rewrite,
                              std::span<const Var> inputs) {
  auto op = std::make_shared<ScanOp>(std::move(info), std::move(inner_inputs),
                                     std::move(inner_outputs), rewrite);
  return op->make_node(inputs);
}

// ---------------------------------------------------------------------------
// Building a scan from a body.

namespace {

Var as_step_count(const Var& n, const std::string& nm) {
  if (!is_step_count_type(*n->type()))
    throw TypeError(fmt::format("`{}`: n_steps {} has type `{}`; it must be a 0-d integer", nm,
                                describe(*n), n->type()->to_string()));
  return n->tensor_type()->dtype() == DType::Int64 ? n : cast(n, DType::Int64);
}

void check_taps(const std::vector<std::int64_t>& taps, const std::string& what,
                const std::string& nm, bool state) {
  if (taps.empty()) throw Error(fmt::format("`{}`: {} has no taps", nm, what));
  std::vector<std::int64_t> sorted = taps;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw Error(fmt::format("`{}`: {} has a repeated tap", nm, what));
  if (state && sorted.back() >= 0)
    throw Error(fmt::format("`{}`: {} has tap {}; a recurrent state can only read earlier steps "
                            "(taps below 0)",
                            nm, what, sorted.back()));
}

}  // namespace

ScanResult make_scan(const ScanFn& fn, std::vector<ScanSequence> sequences,
                     std::vector<ScanOutput> outputs_info, std::vector<Var> non_sequences,
                     ScanOptions options) {
  const std::string nm = options.name.empty() ? std::string("scan") : options.name;
  if (!fn) throw Error(fmt::format("`{}`: the body is empty", nm));
  ScanInfo info;
  info.name = nm;
  info.go_backwards = options.go_backwards;
  info.truncate_gradient = options.truncate_gradient;
  if (options.truncate_gradient == 0 || options.truncate_gradient < -1)
    throw Error(fmt::format("`{}`: truncate_gradient is {}; it must be -1 (all steps) or positive",
                            nm, options.truncate_gradient));

  // Sequences: one outer sequence per tap, cut so that step t reads element t.
  std::vector<Var> step_args;          // what fn receives
  std::vector<Var> seq_inner, seq_outer;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    const ScanSequence& seq = sequences[s];
    const std::string what = fmt::format("sequence {}", s);
    if (!seq.input) throw Error(fmt::format("`{}`: {} is null", nm, what));
    const TensorType* t = seq.input->tensor_type();
    if (!t || t->ndim() == 0)
      throw Error(fmt::format("`{}`: {} ({}) has no axis to walk along", nm, what,
                              describe(*seq.input)));
    check_taps(seq.taps, what, nm, false);
    const Var x = options.go_backwards
                      ? subtensor(seq.input, {slice(std::nullopt, std::nullopt, -1)})
                      : seq.input;
    const std::int64_t lo = std::min<std::int64_t>(0, *std::min_element(seq.taps.begin(), seq.taps.end()));
    const std::int64_t hi = std::max<std::int64_t>(0, *std::max_element(seq.taps.begin(), seq.taps.end()));
    for (std::int64_t k : seq.taps) {
      const std::int64_t start = k - lo;
      Var cut = x;
      if (k == hi && start != 0) cut = subtensor(x, {slice(start)});
      else if (k != hi) cut = subtensor(x, {slice(start, -(hi - k))});
      seq_outer.push_back(cut);
      Var p = Variable::make(row_type(*cut->tensor_type()), tap_name(seq.input->name(), k));
      seq_inner.push_back(p);
      step_args.push_back(p);
    }
  }
  info.n_seqs = seq_outer.size();

  // Recurrent states.
  struct StateIn {
    std::size_t output;  // which body output it is
    std::vector<std::int64_t> taps;  // sorted
    Var buffer;
    std::vector<Var> inner;  // one per sorted tap
    TypePtr row;
  };
  std::vector<StateIn> states;
  std::vector<std::size_t> nit_sot_outputs;
  for (std::size_t o = 0; o < outputs_info.size(); ++o) {
    const ScanOutput& info_o = outputs_info[o];
    if (!info_o.initial) {
      if (!info_o.taps.empty())
        throw Error(fmt::format("`{}`: outputs_info {} has taps but no initial value", nm, o));
      nit_sot_outputs.push_back(o);
      continue;
    }
    const std::string what = fmt::format("outputs_info {}", o);
    check_taps(info_o.taps, what, nm, true);
    StateIn st;
    st.output = o;
    st.taps = info_o.taps;
    std::sort(st.taps.begin(), st.taps.end());
    const auto lag = -st.taps.front();
    const TensorType* it = info_o.initial->tensor_type();
    if (!it) throw Error(fmt::format("`{}`: {} ({}) is not a tensor", nm, what, describe(*info_o.initial)));
    if (st.taps == std::vector<std::int64_t>{-1}) {
      st.row = info_o.initial->type();
      st.buffer = expand_dims(info_o.initial, 0);
    } else {
      if (it->ndim() == 0)
        throw Error(fmt::format("`{}`: {} reads {} steps back, so its initial value ({}) needs "
                                "them along a first axis",
                                nm, what, lag, describe(*info_o.initial)));
      const std::int64_t have = it->shape()[0];
      if (have != kUnknownDim && have < lag)
        throw Error(fmt::format("`{}`: {} reads {} steps back (tap {}), but its initial value "
                                "({}) holds {}: the tap reaches before the first element",
                                nm, what, lag, st.taps.front(), describe(*info_o.initial), have));
      st.row = row_type(*it);
      st.buffer = have == lag ? info_o.initial : subtensor(info_o.initial, {slice(-lag)});
    }
    for (std::int64_t k : st.taps)
      st.inner.push_back(Variable::make(st.row, tap_name(info_o.initial->name(), k)));
    states.push_back(std::move(st));
  }
  // fn's arguments: the states' taps in the order given.
  for (std::size_t j = 0; j < states.size(); ++j) {
    const ScanOutput& oi = outputs_info[states[j].output];
    for (std::int64_t k : oi.taps) {
      const auto at = std::find(states[j].taps.begin(), states[j].taps.end(), k) -
                      states[j].taps.begin();
      step_args.push_back(states[j].inner[static_cast<std::size_t>(at)]);
    }
  }
  for (std::size_t i = 0; i < non_sequences.size(); ++i) {
    if (!non_sequences[i])
      throw Error(fmt::format("`{}`: non-sequence {} is null", nm, i));
    step_args.push_back(non_sequences[i]);
  }

  ScanStep step = fn(step_args);
  const bool all_nit_sot = outputs_info.empty();
  if (!all_nit_sot && step.outputs.size() != outputs_info.size())
    throw Error(fmt::format("`{}`: the body returned {} output{}, but outputs_info has {} "
                            "entr{}",
                            nm, step.outputs.size(), step.outputs.size() == 1 ? "" : "s",
                            outputs_info.size(), outputs_info.size() == 1 ? "y" : "ies"));
  if (all_nit_sot)
    for (std::size_t o = 0; o < step.outputs.size(); ++o) nit_sot_outputs.push_back(o);
  if (step.outputs.empty() && step.updates.empty())
    throw Error(fmt::format("`{}`: the body returned no output and no update", nm));
  for (std::size_t o = 0; o < step.outputs.size(); ++o)
    if (!step.outputs[o] || !step.outputs[o]->tensor_type())
      throw Error(fmt::format("`{}`: output {} of the body is {}", nm, o,
                              step.outputs[o] ? "not a tensor" : "null"));
  for (const StateIn& st : states) {
    const TensorType& want = *st.row->as_tensor();
    const TensorType& got = *step.outputs[st.output]->tensor_type();
    if (!same_kind(want, got))
      throw TypeError(fmt::format(
          "`{}`: output {} of the body ({}) is {}, but its initial value in outputs_info is {}; "
          "a recurrent state keeps its type from step to step",
          nm, st.output, describe(*step.outputs[st.output]), kind_string(got), kind_string(want)));
  }
  info.as_while = static_cast<bool>(step.until);
  if (step.until) {
    const TensorType* ct = step.until->tensor_type();
    if (!ct || ct->ndim() != 0 || ct->dtype() != DType::Bool)
      throw TypeError(fmt::format("`{}`: the stopping condition {} has type `{}`; it must be a "
                                  "boolean 0-d tensor (bool[])",
                                  nm, describe(*step.until), step.until->type()->to_string()));
  }

  // Shared variables the body updates: carried from step to step.
  std::vector<Var> shared_outer, shared_inner, shared_new;
  std::unordered_set<const Variable*> updated;
  for (std::size_t u = 0; u < step.updates.size(); ++u) {
    const auto& [target, value] = step.updates[u];
    if (!target || !value) throw Error(fmt::format("`{}`: update {} is null", nm, u));
    if (!as_shared(target))
      throw Error(fmt::format("`{}`: update {} targets {}, which is not a shared variable", nm, u,
                              describe(*target)));
    if (!updated.insert(target.get()).second)
      throw Error(fmt::format("`{}`: shared variable {} is updated twice", nm, describe(*target)));
    if (!target->type()->is_super(*value->type()))
      throw TypeError(fmt::format("`{}`: the update of {} has type `{}`, but the variable has "
                                  "type `{}`",
                                  nm, describe(*target), value->type()->to_string(),
                                  target->type()->to_string()));
    shared_outer.push_back(target);
    shared_new.push_back(value);
  }

  // The generators the body's draws use, unless the body updates them: each
  // step draws from the state the step before left (a default update).
  {
    std::vector<Var> reads = step.outputs;
    reads.insert(reads.end(), shared_new.begin(), shared_new.end());
    if (step.until) reads.push_back(step.until);
    for (auto& [target, next] :
         detail::default_updates_of(reads, step_args, shared_outer, "`" + nm + "`")) {
      shared_outer.push_back(target);
      shared_new.push_back(next);
      info.shared_default.push_back(true);
    }
  }
  info.shared_default.insert(info.shared_default.begin(), step.updates.size(), false);

  // What the body reads besides its arguments: implicit non-sequences.
  std::vector<Var> body_outputs;
  for (const StateIn& st : states) body_outputs.push_back(step.outputs[st.output]);
  for (std::size_t o : nit_sot_outputs) body_outputs.push_back(step.outputs[o]);
  body_outputs.insert(body_outputs.end(), shared_new.begin(), shared_new.end());
  if (step.until) body_outputs.push_back(step.until);

  std::vector<Var> blockers = step_args;
  blockers.insert(blockers.end(), shared_outer.begin(), shared_outer.end());
  std::unordered_set<const Variable*> known;
  for (const Var& b : blockers) known.insert(b.get());
  std::vector<Var> non_seq_outer;
  std::unordered_set<const Variable*> explicit_non_seq;
  for (const Var& v : non_sequences)
    if (!v->is_constant() && explicit_non_seq.insert(v.get()).second) non_seq_outer.push_back(v);
  for (const Var& root : graph_inputs(body_outputs, blockers)) {
    if (known.contains(root.get()) || root->is_constant()) continue;
    if (options.strict)
      throw Error(fmt::format("`{}` is strict, but its body reads {}, which is neither a step "
                              "input nor a non-sequence",
                              nm, describe(*root)));
    known.insert(root.get());
    non_seq_outer.push_back(root);
  }
  info.n_non_seqs = non_seq_outer.size();
  info.n_shared = shared_outer.size();
  info.n_nit_sot = nit_sot_outputs.size();
  for (const StateIn& st : states) info.state_taps.push_back(st.taps);

  // The inner graph: a private copy, its inputs in the layout's order.
  std::vector<Var> inner_roots = seq_inner;
  for (const StateIn& st : states) inner_roots.insert(inner_roots.end(), st.inner.begin(), st.inner.end());
  inner_roots.insert(inner_roots.end(), shared_outer.begin(), shared_outer.end());
  inner_roots.insert(inner_roots.end(), non_seq_outer.begin(), non_seq_outer.end());
  ClonedGraph c = clone_graph(inner_roots, body_outputs);

  // The number of steps.
  Var n;
  if (options.n_steps) {
    n = as_step_count(options.n_steps, nm);
  } else if (!seq_outer.empty()) {
    info.steps_from_sequences = true;
    n = shape_i(seq_outer[0], 0);
  } else if (info.as_while) {
    n = integer_constant(std::numeric_limits<std::int64_t>::max(), DType::Int64);
  } else {
    throw Error(fmt::format("`{}` has no sequence and no n_steps: the number of steps is unknown",
                            nm));
  }

  std::vector<Var> outer{n};
  outer.insert(outer.end(), seq_outer.begin(), seq_outer.end());
  for (const StateIn& st : states) outer.push_back(st.buffer);
  outer.insert(outer.end(), shared_outer.begin(), shared_outer.end());
  outer.insert(outer.end(), non_seq_outer.begin(), non_seq_outer.end());

  auto op = std::make_shared<ScanOp>(std::move(info), std::move(c.inputs), std::move(c.outputs),
                                     std::move(options.rewrite));
  const ApplyRef node = op->make_node(outer);

  ScanResult result;
  result.outputs.resize(step.outputs.size());
  for (std::size_t j = 0; j < states.size(); ++j) result.outputs[states[j].output] = node->output(j);
  for (std::size_t k = 0; k < nit_sot_outputs.size(); ++k)
    result.outputs[nit_sot_outputs[k]] = node->output(states.size() + k);
  for (std::size_t i = 0; i < shared_outer.size(); ++i)
    result.updates.emplace_back(shared_outer[i], node->output(op->info().n_stacked() + i));
  return result;
}

}  // namespace rw

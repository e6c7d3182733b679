// ElemwiseBase, Elemwise, Fill and their registration.
#include "ops/elemwise/elemwise.hpp"

#include <algorithm>
#include <array>

#include <boost/container/small_vector.hpp>
#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/api.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/program_codegen.hpp"

namespace rw {

using ops_detail::input_label;
using ops_detail::shape_str;

// ---------------------------------------------------------------------------
// ElemwiseBase

struct ElemwiseBase::CacheEntry {
  DTypes key;
  ScalarProgram program;
  CacheEntry* next;
};

ElemwiseBase::ElemwiseBase(IoMap inplace) : inplace_(std::move(inplace)) {}

ElemwiseBase::~ElemwiseBase() {
  CacheEntry* e = cache_.load(std::memory_order_acquire);
  while (e) delete std::exchange(e, e->next);
}

const ScalarProgram& ElemwiseBase::program(std::span<const DType> input_dtypes) const {
  auto find = [&](CacheEntry* e) -> CacheEntry* {
    for (; e; e = e->next)
      if (std::equal(e->key.begin(), e->key.end(), input_dtypes.begin(), input_dtypes.end()))
        return e;
    return nullptr;
  };
  // Entries are immutable once published, so readers need no lock.
  if (CacheEntry* e = find(cache_.load(std::memory_order_acquire))) return e->program;
  std::lock_guard lock(cache_mutex_);
  CacheEntry* head = cache_.load(std::memory_order_relaxed);
  if (CacheEntry* e = find(head)) return e->program;
  auto* entry = new CacheEntry{DTypes(input_dtypes), build_program(input_dtypes), head};
  cache_.store(entry, std::memory_order_release);
  return entry->program;
}

ApplyRef ElemwiseBase::make_broadcast_node(std::span<const Var> inputs) const {
  std::size_t rank = 0;
  DTypes dtypes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, i);
    rank = std::max(rank, t.ndim());
    dtypes.push_back(t.dtype());
  }
  SmallVec<std::int64_t, 6> shape(rank, 1);  // no allocation for the usual ranks
  for (std::size_t a = 0; a < rank; ++a) {
    std::optional<std::size_t> known;  // the input that fixed a known extent
    bool unknown = false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const StaticShape& s = inputs[i]->tensor_type()->shape();
      const std::size_t lead = rank - s.size();
      if (a < lead) continue;
      const std::int64_t e = s[a - lead];
      if (e == 1) continue;
      if (e == kUnknownDim) {
        unknown = true;
        continue;
      }
      if (known && shape[a] != e) {
        const Var& k = inputs[*known];
        throw TypeError(fmt::format(
            "`{}`: {} of shape {} and {} of shape {} do not broadcast: axis {} has extents {} "
            "and {}",
            to_string(), input_label(*known, k), shape_str(k->tensor_type()->shape()),
            input_label(i, inputs[i]), shape_str(s), a, shape[a], e));
      }
      known = i;
      shape[a] = e;
    }
    if (!known) shape[a] = unknown ? kUnknownDim : 1;
  }
  const auto out_dtypes = output_dtypes(dtypes);
  // Types are immutable: an output typed like one of the inputs (the usual
  // case) shares that input's type instead of allocating its own.
  const auto input_typed = [&](DType d) -> TypePtr {
    for (const Var& in : inputs) {
      const TensorType& t = *in->tensor_type();
      if (t.dtype() == d && std::equal(t.shape().begin(), t.shape().end(), shape.begin(), shape.end()))
        return in->type();
    }
    return nullptr;
  };
  boost::container::small_vector<TypePtr, 2> types;
  for (DType d : out_dtypes) {
    TypePtr t = input_typed(d);
    types.push_back(t ? std::move(t) : TensorType::make(d, StaticShape(shape.begin(), shape.end())));
  }
  for (const auto& [o, i] : inplace_) {
    if (i >= inputs.size() || o >= types.size())
      throw TypeError(fmt::format("`{}` writes output {} into input {}, but the node has {} "
                                  "inputs and {} outputs",
                                  to_string(), o, i, inputs.size(), types.size()));
    const TensorType& in = *inputs[i]->tensor_type();
    bool fits = in.dtype() == out_dtypes[o] && in.ndim() == rank;
    for (std::size_t a = 0; fits && a < rank; ++a)
      fits = !(in.shape()[a] == 1 && shape[a] != 1);
    if (!fits)
      throw TypeError(fmt::format(
          "`{}`: {} of type {} cannot hold output {} of type {} (an in-place output needs an "
          "input of its dtype and shape)",
          to_string(), input_label(i, inputs[i]), in.to_string(), o, types[o]->to_string()));
  }
  return Apply::create(ptr(), inputs, std::span<const TypePtr>(types.data(), types.size()));
}

std::vector<ShapeVars> ElemwiseBase::infer_shape(const Apply& node,
                                                 std::span<const ShapeVars> input_shapes) const {
  const std::size_t rank = node.output_var(0).tensor_type()->ndim();
  ShapeVars out(rank);
  for (std::size_t a = 0; a < rank; ++a) {
    Var pick;
    for (std::size_t i = 0; i < node.num_inputs(); ++i) {
      const StaticShape& s = node.input(i)->tensor_type()->shape();
      const std::size_t lead = rank - s.size();
      if (a < lead || s[a - lead] == 1) continue;
      const Var& d = input_shapes[i][a - lead];
      // A known extent is the most useful answer.
      if (!pick || (d->is_constant() && !pick->is_constant())) pick = d;
    }
    out[a] = pick ? pick : ops_detail::int64_constant(1);
  }
  return std::vector<ShapeVars>(node.num_outputs(), out);
}

void ElemwiseBase::perform(const Apply& node, std::span<const Tensor> inputs,
                           std::span<Tensor> outputs) const {
  const std::size_t rank = node.output_var(0).tensor_type()->ndim();
  Shape shape(rank, 1);
  SmallVec<std::uint32_t, 6> who(rank, 0);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape();
    const std::size_t lead = rank - s.size();
    for (std::size_t j = 0; j < s.size(); ++j) {
      const std::int64_t e = s[j];
      if (e == 1) continue;
      std::int64_t& o = shape[lead + j];
      if (o == 1) {
        o = e;
        who[lead + j] = static_cast<std::uint32_t>(i);
      } else if (o != e) {
        throw ValueError(fmt::format("`{}`: {} has extent {} on axis {} where {} has {}",
                                     to_string(), input_label(i, node.input(i)), e, lead + j,
                                     input_label(who[lead + j], node.input(who[lead + j])), o));
      }
    }
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i].shape();
    const StaticShape& st = node.input(i)->tensor_type()->shape();
    const std::size_t lead = rank - s.size();
    for (std::size_t j = 0; j < s.size(); ++j)
      if (s[j] == 1 && shape[lead + j] != 1 && st[j] != 1)
        throw ValueError(fmt::format(
            "`{}`: {} has extent 1 on axis {} where {} has {}, but its type {} does not say "
            "the axis broadcasts (only axes of static extent 1 do; see specify_shape)",
            to_string(), input_label(i, node.input(i)), lead + j,
            input_label(who[lead + j], node.input(who[lead + j])), shape[lead + j],
            node.input(i)->type()->to_string()));
  }
  DTypes dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  const ScalarProgram& prog = program(dtypes);
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    Tensor& out = outputs[o];
    const auto in_place = std::find_if(inplace_.begin(), inplace_.end(),
                                       [&](const auto& p) { return p.first == o; });
    auto writable = [&](const Tensor& t) {
      if (!t.valid() || t.dtype() != prog.output_dtype(o) || t.shape() != shape) return false;
      for (std::size_t a = 0; a < rank; ++a)
        if (t.strides()[a] == 0 && shape[a] > 1) return false;
      return true;
    };
    if (in_place != inplace_.end() && writable(inputs[in_place->second])) {
      out = inputs[in_place->second];
    } else if (!writable(out)) {
      out = Tensor();
    }
  }
  ops_detail::run_kernel(*this, [&] { run_elemwise(prog, inputs, outputs); });
}

std::optional<ElemwiseLayout> native_layout(const Apply& node) {
  const StaticShape& out = node.output_var(0).tensor_type()->shape();
  ElemwiseLayout layout;
  layout.rank = out.size();
  std::int64_t size = 1;
  for (const std::int64_t e : out) size = e == kUnknownDim || size < 0 ? -1 : size * e;
  if (size >= 0) layout.static_size = size;
  layout.broadcast.resize(node.num_inputs());
  for (std::size_t i = 0; i < node.num_inputs(); ++i) {
    const auto* t = node.input(i)->tensor_type();
    if (!t) return std::nullopt;
    const StaticShape& st = t->shape();
    if (std::all_of(st.begin(), st.end(), [](std::int64_t e) { return e == 1; })) {
      layout.inputs.push_back(NativeOperand::Scalar);
      continue;
    }
    // Output axis d is the input's axis d - lead, or one it lacks.
    const std::size_t lead = out.size() - st.size();
    BroadcastAxes& b = layout.broadcast[i];
    b.rank = st.size();
    bool dense = lead == 0;
    for (std::size_t d = 0; d < out.size(); ++d) {
      b.along.push_back(d < lead || (st[d - lead] == 1 && out[d] != 1));
      dense = dense && !b.along.back();
    }
    layout.inputs.push_back(dense ? NativeOperand::Dense : NativeOperand::Broadcast);
  }
  return layout;
}

std::optional<NativeCode> native_code_of(std::optional<ProgramSource> src) {
  if (!src) return std::nullopt;
  NativeCode code;
  code.c_code = std::move(src->code);
  code.c_support_code = std::move(src->support_code);
  code.host_functions = std::move(src->host_functions);
  return code;
}

std::optional<NativeCode> ElemwiseBase::native_code(const Apply& node,
                                                    const NativeNames& names) const {
  const std::optional<ElemwiseLayout> layout = native_layout(node);
  if (!layout) return std::nullopt;
  DTypes dtypes;
  for (const Var& in : node.inputs()) dtypes.push_back(in->tensor_type()->dtype());
  return native_code_of(program_native_source(program(dtypes), *layout, names.prefix));
}

// ---------------------------------------------------------------------------
// Elemwise

namespace {

bool is_variadic(ScalarOp op) { return op == ScalarOp::Add || op == ScalarOp::Mul; }

IoMap inplace_map(std::optional<std::size_t> input) {
  if (!input) return {};
  return {{0, *input}};
}

}  // namespace

Elemwise::Elemwise(ScalarOp op, std::optional<DType> cast_to, std::optional<std::size_t> inplace)
    : ElemwiseBase(inplace_map(inplace)), op_(op), cast_to_(cast_to) {
  if ((op == ScalarOp::Cast) != cast_to.has_value())
    throw ValueError(op == ScalarOp::Cast ? "Elemwise: a cast needs a target dtype"
                                          : "Elemwise: only a cast takes a dtype");
}

std::optional<std::size_t> Elemwise::inplace_input() const {
  if (inplace_pattern().empty()) return std::nullopt;
  return inplace_pattern().front().second;
}

std::shared_ptr<const Elemwise> Elemwise::with_inplace(std::optional<std::size_t> input) const {
  if (!input && !inplace_input()) {
    if (op_ == ScalarOp::Cast) return cast_op(*cast_to_);
    return elemwise_op(op_);
  }
  return std::make_shared<Elemwise>(op_, cast_to_, input);
}

bool Elemwise::variadic() const { return is_variadic(op_); }

std::string_view Elemwise::name() const { return scalar_op_name(op_); }

Props Elemwise::props() const {
  Props p;
  if (cast_to_) p.push_back({"dtype", *cast_to_});
  if (auto k = inplace_input()) p.push_back({"inplace", static_cast<std::int64_t>(*k)});
  return p;
}

PrintStyle Elemwise::print_style() const {
  using K = PrintStyle::Kind;
  if (inplace_input()) return {};
  switch (op_) {
    case ScalarOp::Add: return {K::Infix, "+", 10};
    case ScalarOp::Sub: return {K::Infix, "-", 10};
    case ScalarOp::Mul: return {K::Infix, "*", 20};
    case ScalarOp::TrueDiv: return {K::Infix, "/", 20};
    case ScalarOp::Pow: return {K::Infix, "**", 40, true};
    case ScalarOp::Neg: return {K::Prefix, "-", 30};
    case ScalarOp::Lt: return {K::Infix, "<", 5};
    case ScalarOp::Gt: return {K::Infix, ">", 5};
    case ScalarOp::Le: return {K::Infix, "<=", 5};
    case ScalarOp::Ge: return {K::Infix, ">=", 5};
    case ScalarOp::Eq: return {K::Infix, "==", 5};
    case ScalarOp::Neq: return {K::Infix, "!=", 5};
    default: return {};
  }
}

ApplyRef Elemwise::make_node(std::span<const Var> inputs) const {
  const auto arity = static_cast<std::size_t>(scalar_op_arity(op_));
  ops_detail::check_arity(*this, inputs, arity, variadic() ? -1 : static_cast<long>(arity));
  return make_broadcast_node(inputs);
}

SmallVec<DType, 2> Elemwise::output_dtypes(std::span<const DType> in) const {
  try {
    if (variadic()) {
      DType d = in[0];
      for (std::size_t k = 1; k < in.size(); ++k) {
        const DType pair[] = {d, in[k]};
        d = scalar_signature(op_, pair).result;
      }
      return {d};
    }
    return {scalar_signature(op_, in, cast_to_).result};
  } catch (const ValueError& e) {
    throw TypeError(fmt::format("`{}`: {}", to_string(), e.what()));
  }
}

ScalarProgram Elemwise::build_program(std::span<const DType> in) const {
  ScalarProgram p;
  SmallVec<Reg, 4> regs;
  for (DType d : in) regs.push_back(p.input(d));
  Reg r;
  if (variadic()) {
    r = regs[0];
    for (std::size_t k = 1; k < regs.size(); ++k) r = p.apply(op_, {r, regs[k]});
  } else {
    r = p.apply(op_, std::span<const Reg>(regs), cast_to_);
  }
  p.output(r);
  return p;
}

// ---------------------------------------------------------------------------
// Fill

Fill::Fill(std::optional<std::size_t> inplace) : ElemwiseBase(inplace_map(inplace)) {}

Props Fill::props() const {
  if (inplace_pattern().empty()) return {};
  return {{"inplace", static_cast<std::int64_t>(inplace_pattern().front().second)}};
}

ApplyRef Fill::make_node(std::span<const Var> inputs) const {
  ops_detail::check_arity(*this, inputs, 2, 2);
  return make_broadcast_node(inputs);
}

SmallVec<DType, 2> Fill::output_dtypes(std::span<const DType> in) const { return {in[1]}; }

ScalarProgram Fill::build_program(std::span<const DType> in) const {
  ScalarProgram p;
  p.input(in[0]);
  const Reg b = p.input(in[1]);
  p.output(p.apply(ScalarOp::Identity, {b}));
  return p;
}

std::vector<std::vector<bool>> Fill::connection_pattern(const Apply&) const {
  return {{false}, {true}};
}

// ---------------------------------------------------------------------------
// Shared instances and registration

const std::shared_ptr<const Elemwise>& elemwise_op(ScalarOp op) {
  static const auto ops = [] {
    std::array<std::shared_ptr<const Elemwise>, std::size(kAllScalarOps)> a;
    for (ScalarOp s : kAllScalarOps)
      if (s != ScalarOp::Cast) a[static_cast<std::size_t>(s)] = std::make_shared<Elemwise>(s);
    return a;
  }();
  const auto& p = ops[static_cast<std::size_t>(op)];
  if (!p) throw ValueError("elemwise_op: a cast needs cast_op(dtype)");
  return p;
}

std::shared_ptr<const Elemwise> cast_op(DType dtype) {
  static const auto ops = [] {
    std::array<std::shared_ptr<const Elemwise>, std::size(kAllDTypes)> a;
    for (DType d : kAllDTypes)
      a[static_cast<std::size_t>(d)] = std::make_shared<Elemwise>(ScalarOp::Cast, d);
    return a;
  }();
  return ops[static_cast<std::size_t>(dtype)];
}

const OpPtr& fill_op() {
  static const OpPtr op = std::make_shared<Fill>();
  return op;
}

namespace {

std::string_view scalar_doc(ScalarOp op) {
  switch (op) {
    case ScalarOp::Add: return "sum of the inputs (two or more)";
    case ScalarOp::Sub: return "x - y";
    case ScalarOp::Mul: return "product of the inputs (two or more)";
    case ScalarOp::TrueDiv: return "x / y, with a float result";
    case ScalarOp::IntDiv: return "x // y, rounded toward minus infinity";
    case ScalarOp::Mod: return "x % y, with the sign of y";
    case ScalarOp::Pow: return "x ** y";
    case ScalarOp::Neg: return "-x";
    case ScalarOp::Abs: return "|x|";
    case ScalarOp::Sign: return "-1, 0 or 1 by the sign of x";
    case ScalarOp::Sqr: return "x * x";
    case ScalarOp::Reciprocal: return "1 / x, with a float result";
    case ScalarOp::Maximum: return "the larger of x and y (NaN wins)";
    case ScalarOp::Minimum: return "the smaller of x and y (NaN wins)";
    case ScalarOp::Exp: return "e ** x";
    case ScalarOp::Exp2: return "2 ** x";
    case ScalarOp::Expm1: return "e ** x - 1, exact near 0";
    case ScalarOp::Log: return "natural logarithm";
    case ScalarOp::Log2: return "base-2 logarithm";
    case ScalarOp::Log10: return "base-10 logarithm";
    case ScalarOp::Log1p: return "log(1 + x), exact near 0";
    case ScalarOp::Sqrt: return "square root";
    case ScalarOp::Sigmoid: return "1 / (1 + e ** -x)";
    case ScalarOp::Softplus: return "log(1 + e ** x)";
    case ScalarOp::Sin: return "sine";
    case ScalarOp::Cos: return "cosine";
    case ScalarOp::Tan: return "tangent";
    case ScalarOp::Sinh: return "hyperbolic sine";
    case ScalarOp::Cosh: return "hyperbolic cosine";
    case ScalarOp::Tanh: return "hyperbolic tangent";
    case ScalarOp::ArcSin: return "inverse sine";
    case ScalarOp::ArcCos: return "inverse cosine";
    case ScalarOp::ArcTan: return "inverse tangent";
    case ScalarOp::Erf: return "error function";
    case ScalarOp::Erfc: return "complementary error function, 1 - erf(x)";
    case ScalarOp::Erfinv: return "inverse error function";
    case ScalarOp::Erfcinv: return "inverse complementary error function, erfc(erfcinv(y)) = y";
    case ScalarOp::Erfcx: return "scaled complementary error function, e ** (x * x) * erfc(x)";
    case ScalarOp::Gammaln: return "log |gamma(x)|";
    case ScalarOp::Digamma: return "digamma (psi), the derivative of gammaln";
    case ScalarOp::Trigamma: return "trigamma, the derivative of digamma";
    case ScalarOp::Betaln: return "log |beta(x, y)| = gammaln(x) + gammaln(y) - gammaln(x + y)";
    case ScalarOp::Log1mexp: return "log(1 - e ** x), accurate for all x <= 0";
    case ScalarOp::Logit: return "log(x / (1 - x)), the inverse of sigmoid";
    case ScalarOp::Xlogy: return "x * log(y), 0 where x == 0";
    case ScalarOp::Xlog1py: return "x * log(1 + y), 0 where x == 0";
    case ScalarOp::Softsign: return "x / (1 + |x|)";
    case ScalarOp::I0: return "the modified Bessel function of the first kind, order 0";
    case ScalarOp::I1: return "the modified Bessel function of the first kind, order 1";
    case ScalarOp::Gelu: return "x * Phi(x), Phi the standard normal CDF (exact, via erfc)";
    case ScalarOp::Relu: return "max(x, 0), NaN kept";
    case ScalarOp::Floor: return "largest integer not above x";
    case ScalarOp::Ceil: return "smallest integer not below x";
    case ScalarOp::Round: return "nearest integer, halves to even";
    case ScalarOp::Lt: return "x < y";
    case ScalarOp::Gt: return "x > y";
    case ScalarOp::Le: return "x <= y";
    case ScalarOp::Ge: return "x >= y";
    case ScalarOp::Eq: return "x == y";
    case ScalarOp::Neq: return "x != y";
    case ScalarOp::And: return "logical and of bools, bitwise and of integers";
    case ScalarOp::Or: return "logical or of bools, bitwise or of integers";
    case ScalarOp::Xor: return "logical xor of bools, bitwise xor of integers";
    case ScalarOp::Not: return "logical not of bools, bitwise not of integers";
    case ScalarOp::Switch: return "cond ? x : y";
    case ScalarOp::Clip: return "min(max(x, lo), hi)";
    case ScalarOp::Cast: return "x converted to `dtype`";
    case ScalarOp::Identity: return "x";
  }
  return "";
}

ParamSpec inplace_param() {
  return {"inplace", ParamKind::Int, PropValue{std::monostate{}}, true,
          "the input the output overwrites (none: a new buffer)"};
}

std::optional<std::size_t> inplace_of(const PropValue& v) {
  if (const auto* k = std::get_if<std::int64_t>(&v)) {
    if (*k < 0) throw Error(fmt::format("parameter `inplace` must be an input index, not {}", *k));
    return static_cast<std::size_t>(*k);
  }
  return std::nullopt;
}

}  // namespace

void register_elemwise(OpRegistry& registry) {
  for (ScalarOp s : kAllScalarOps) {
    OpInfo info;
    info.name = std::string(scalar_op_name(s));
    info.doc = std::string(scalar_doc(s));
    const int arity = scalar_op_arity(s);
    info.min_inputs = arity;
    info.max_inputs = is_variadic(s) ? -1 : arity;
    if (s == ScalarOp::Cast) {
      info.params = {{"dtype", ParamKind::DType, std::nullopt, false, "the target dtype"},
                     inplace_param()};
      info.factory = [](const Props& p) -> OpPtr {
        const DType d = std::get<DType>(p[0].value);
        const auto k = inplace_of(p[1].value);
        if (!k) return cast_op(d);
        return std::make_shared<Elemwise>(ScalarOp::Cast, d, k);
      };
    } else {
      info.params = {inplace_param()};
      info.factory = [s](const Props& p) -> OpPtr {
        const auto k = inplace_of(p[0].value);
        if (!k) return elemwise_op(s);
        return std::make_shared<Elemwise>(s, std::nullopt, k);
      };
    }
    registry.add(std::move(info));
  }
  registry.add_alias("where", "switch");
  registry.add_alias("div", "true_div");
  registry.add_alias("psi", "digamma");
  // `and`, `or` and `not` are words of the languages: these names (PyTensor's)
  // are how graph and rule files call them.
  registry.add_alias("and_", "and");
  registry.add_alias("or_", "or");
  registry.add_alias("invert", "not");
  registry.add({.name = "fill",
                .doc = "the second input broadcast to the shape of both, with its dtype",
                .params = {inplace_param()},
                .min_inputs = 2,
                .max_inputs = 2,
                .factory = [](const Props& p) -> OpPtr {
                  const auto k = inplace_of(p[0].value);
                  if (!k) return fill_op();
                  return std::make_shared<Fill>(k);
                }});
  registry.add_alias("second", "fill");
}

}  // namespace rw

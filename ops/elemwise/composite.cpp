// Composite and CompositeReduce, and the program helpers they print and fuse with.
#include "ops/elemwise/composite.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/errors.hpp"
#include "runtime/kernels/elemwise.hpp"

namespace rw {

using ops_detail::input_label;

// ---------------------------------------------------------------------------
// Program helpers

namespace {

/// Infix spelling and precedence of the operations printed as operators.
struct Infix {
  std::string_view symbol;
  int precedence = 0;  // 0: a call
  bool prefix = false;
};

Infix infix_of(ScalarOp op) {
  switch (op) {
    case ScalarOp::Add: return {"+", 10};
    case ScalarOp::Sub: return {"-", 10};
    case ScalarOp::Mul: return {"*", 20};
    case ScalarOp::TrueDiv: return {"/", 20};
    case ScalarOp::IntDiv: return {"//", 20};
    case ScalarOp::Mod: return {"%", 20};
    case ScalarOp::Neg: return {"-", 30, true};
    case ScalarOp::Pow: return {"**", 40};
    case ScalarOp::Lt: return {"<", 5};
    case ScalarOp::Gt: return {">", 5};
    case ScalarOp::Le: return {"<=", 5};
    case ScalarOp::Ge: return {">=", 5};
    case ScalarOp::Eq: return {"==", 5};
    case ScalarOp::Neq: return {"!=", 5};
    default: return {};
  }
}

std::string constant_text(const ScalarProgram& p, Reg r) {
  const std::uint64_t bits = p.constant_bits(r);
  return visit_dtype(p.dtype(r), [&]<class T>() -> std::string {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_floating_point_v<T>) {
      std::string s = fmt::format("{}", v);
      if (std::isfinite(v) && s.find_first_of(".e") == std::string::npos) s += ".0";
      return s;
    } else {
      return fmt::format("{}", v);
    }
  });
}

}  // namespace

std::string program_expression(const ScalarProgram& p) {
  // Text and precedence of every register, built in program order.
  std::vector<std::pair<std::string, int>> text(p.num_registers());
  constexpr int kAtom = 100;
  constexpr std::size_t kMaxText = 400;
  for (std::size_t k = 0; k < p.num_inputs(); ++k)
    text[p.inputs()[k].id] = {fmt::format("i{}", k), kAtom};
  for (std::uint32_t r = 0; r < p.num_registers(); ++r)
    if (p.kind(Reg{r}) == RegKind::Constant) {
      std::string c = constant_text(p, Reg{r});
      const int prec = c.starts_with('-') ? 30 : kAtom;
      text[r] = {std::move(c), prec};
    }
  for (const ScalarInstr& in : p.instructions()) {
    const Infix fx = infix_of(in.op);
    auto operand = [&](std::size_t k, int min_prec) {
      const auto& [s, prec] = text[in.args[k].id];
      return prec < min_prec ? "(" + s + ")" : s;
    };
    std::string s;
    int prec = kAtom;
    if (fx.precedence && fx.prefix) {
      s = std::string(fx.symbol) + operand(0, fx.precedence + 1);
      prec = fx.precedence;
    } else if (fx.precedence) {
      // Left-associative operators keep an equal-precedence left operand bare;
      // `**` is right-associative.
      const bool right = in.op == ScalarOp::Pow;
      s = operand(0, right ? fx.precedence + 1 : fx.precedence) + " " +
          std::string(fx.symbol) + " " + operand(1, right ? fx.precedence : fx.precedence + 1);
      prec = fx.precedence;
    } else if (in.op == ScalarOp::Cast) {
      s = fmt::format("{}({})", dtype_name(p.dtype(in.out)), text[in.args[0].id].first);
    } else {
      s = std::string(scalar_op_name(in.op)) + "(";
      for (std::size_t k = 0; k < in.args.size(); ++k) {
        if (k) s += ", ";
        s += text[in.args[k].id].first;
      }
      s += ")";
    }
    // A value used twice is written out twice, so texts could double with
    // each step of a chain: each is cut at a fixed length.
    if (s.size() > kMaxText) s = s.substr(0, kMaxText - 3) + "...";
    text[in.out.id] = {std::move(s), prec};
  }
  std::string out;
  for (std::size_t k = 0; k < p.num_outputs(); ++k) {
    if (k) out += ", ";
    out += text[p.outputs()[k].id].first;
  }
  return out;
}

std::span<const Reg> ProgramInliner::inline_into(ScalarProgram& target,
                                                 const ScalarProgram& source,
                                                 std::span<const Reg> args) {
  if (args.size() != source.num_inputs())
    throw ValueError(fmt::format("inline_program: the program takes {} inputs, got {}",
                                 source.num_inputs(), args.size()));
  map_.assign(source.num_registers(), Reg{});
  for (std::size_t k = 0; k < args.size(); ++k)
    map_[source.inputs()[k].id] = target.cast(args[k], source.input_dtype(k));
  for (std::uint32_t r = 0; r < source.num_registers(); ++r)
    if (source.kind(Reg{r}) == RegKind::Constant) {
      const std::uint64_t bits = source.constant_bits(Reg{r});
      map_[r] = visit_dtype(source.dtype(Reg{r}), [&]<class T>() {
        T v;
        std::memcpy(&v, &bits, sizeof(T));
        return target.constant_of<T>(v);
      });
    }
  SmallVec<Reg, 3> operands;
  for (const ScalarInstr& in : source.instructions()) {
    operands.clear();
    for (Reg a : in.args) operands.push_back(map_[a.id]);
    map_[in.out.id] =
        target.append_from(source, in, std::span<const Reg>(operands.begin(), operands.size()));
  }
  outs_.clear();
  for (Reg o : source.outputs()) outs_.push_back(map_[o.id]);
  return outs_;
}

std::vector<Reg> inline_program(ScalarProgram& target, const ScalarProgram& source,
                                std::span<const Reg> args) {
  ProgramInliner inliner;
  const std::span<const Reg> outs = inliner.inline_into(target, source, args);
  return {outs.begin(), outs.end()};
}

// ---------------------------------------------------------------------------
// Composite

struct Composite::Shared {
  ScalarProgram program;
  // Both written out on first use — the listing when the Op is compared
  // (props), the expression when it is printed: for a fused chain of
  // thousands of nodes they cost as much as the rest of the rewrite.
  std::once_flag listing_once;
  std::string listing;
  std::once_flag expression_once;
  std::string expression;
};

namespace {
template <class Shared> std::shared_ptr<Shared> share(ScalarProgram program) {
  auto shared = std::make_shared<Shared>();
  shared->program = std::move(program);
  return shared;
}
}  // namespace

Composite::Composite(ScalarProgram program, IoMap inplace)
    : Composite(share<Shared>(std::move(program)), std::move(inplace)) {}

Composite::Composite(std::shared_ptr<Shared> shared, IoMap inplace)
    : ElemwiseBase(std::move(inplace)), shared_(std::move(shared)), program_(shared_->program) {
  if (program_.num_inputs() == 0 || program_.num_outputs() == 0)
    throw ValueError(fmt::format("`composite` needs a program with inputs and outputs, got {} "
                                 "inputs and {} outputs",
                                 program_.num_inputs(), program_.num_outputs()));
  for (const auto& [o, i] : inplace_pattern())
    if (o >= program_.num_outputs() || i >= program_.num_inputs())
      throw ValueError(fmt::format("`composite`: the in-place pair ({}, {}) names an output or "
                                   "input the program does not have ({} outputs, {} inputs)",
                                   o, i, program_.num_outputs(), program_.num_inputs()));
  for (std::size_t a = 0; a < inplace_pattern().size(); ++a)
    for (std::size_t b = 0; b < a; ++b)
      if (inplace_pattern()[a].second == inplace_pattern()[b].second)
        throw ValueError(fmt::format(
            "`composite`: outputs {} and {} are both written into input {}",
            inplace_pattern()[b].first, inplace_pattern()[a].first, inplace_pattern()[a].second));
}

std::shared_ptr<const Composite> Composite::with_inplace(IoMap inplace) const {
  return std::shared_ptr<const Composite>(new Composite(shared_, std::move(inplace)));
}

Props Composite::props() const {
  std::call_once(shared_->listing_once, [&] { shared_->listing = program_.to_string(); });
  Props p{{"program", shared_->listing}};
  if (!inplace_pattern().empty()) {
    std::vector<std::int64_t> flat;
    for (const auto& [o, i] : inplace_pattern()) {
      flat.push_back(static_cast<std::int64_t>(o));
      flat.push_back(static_cast<std::int64_t>(i));
    }
    p.push_back({"inplace", std::move(flat)});
  }
  return p;
}

bool Composite::equals(const Op& other) const {
  const auto* c = ops_detail::op_as<Composite>(other);
  if (!c || inplace_pattern() != c->inplace_pattern()) return false;
  return c->shared_ == shared_ || Op::equals(other);
}

std::string Composite::to_string() const {
  std::call_once(shared_->expression_once,
                 [&] { shared_->expression = program_expression(program_); });
  std::string s = "Composite{" + shared_->expression + "}";
  if (!inplace_pattern().empty()) {
    s += "{inplace=(";
    bool first = true;
    for (const auto& [o, i] : inplace_pattern()) {
      s += fmt::format("{}{}, {}", first ? "" : ", ", o, i);
      first = false;
    }
    s += ")}";
  }
  return s;
}

ApplyRef Composite::make_node(std::span<const Var> inputs) const {
  const std::size_t n = program_.num_inputs();
  ops_detail::check_arity(*this, inputs, n, static_cast<long>(n));
  for (std::size_t k = 0; k < n; ++k) {
    const TensorType& t = ops_detail::tensor_input(*this, inputs, k);
    if (t.dtype() != program_.input_dtype(k))
      throw TypeError(fmt::format("`composite`: {} is {}, the program reads {}",
                                  input_label(k, inputs[k]), t.to_string(),
                                  dtype_name(program_.input_dtype(k))));
  }
  return make_broadcast_node(inputs);
}

SmallVec<DType, 2> Composite::output_dtypes(std::span<const DType>) const {
  SmallVec<DType, 2> out;
  for (std::size_t k = 0; k < program_.num_outputs(); ++k) out.push_back(program_.output_dtype(k));
  return out;
}

ScalarProgram Composite::build_program(std::span<const DType> input_dtypes) const {
  if (std::equal(input_dtypes.begin(), input_dtypes.end(), program_.inputs().begin(),
                 program_.inputs().end(),
                 [&](DType d, Reg r) { return d == program_.dtype(r); }))
    return program_;
  // Arguments of other dtypes (a caller running perform by hand) are
  // converted as the program's inputs expect.
  ScalarProgram p;
  std::vector<Reg> args;
  for (DType d : input_dtypes) args.push_back(p.input(d));
  for (Reg r : inline_program(p, program_, args)) p.output(r);
  return p;
}

// ---------------------------------------------------------------------------
// CompositeReduce

CompositeReduce::CompositeReduce(ReduceOp op, std::optional<std::vector<std::int64_t>> axis,
                                 ScalarProgram program)
    : op_(op), axis_(std::move(axis)) {
  if (program.num_outputs() != 1)
    throw ValueError(fmt::format("`composite_reduce` needs a program with one output, got {}",
                                 program.num_outputs()));
  composite_ = std::make_shared<Composite>(std::move(program));
}

Props CompositeReduce::props() const {
  Props p = composite_->props();
  p.insert(p.begin(), {"op", std::string(reduce_op_name(op_))});
  if (axis_)
    p.insert(p.begin() + 1, {"axis", *axis_});
  else
    p.insert(p.begin() + 1, {"axis", std::monostate{}});
  return p;
}

std::string CompositeReduce::to_string() const {
  std::string s = fmt::format("{}[{}]", reduce_op_name(op_), composite_->to_string());
  if (axis_) s += "{axis=" + format_prop_value(*axis_) + "}";
  return s;
}

std::vector<bool> CompositeReduce::reduced(std::size_t rank) const {
  std::vector<bool> r(rank, !axis_);
  if (axis_)
    for (std::int64_t a : *axis_)
      r[static_cast<std::size_t>(a < 0 ? a + static_cast<std::int64_t>(rank) : a)] = true;
  return r;
}

ApplyRef CompositeReduce::make_node(std::span<const Var> inputs) const {
  const ApplyRef elem = composite_->make_node(inputs);
  const TensorType& t = *elem->output_var(0).tensor_type();
  const auto rank = static_cast<std::int64_t>(t.ndim());
  if (axis_) {
    std::vector<bool> seen(t.ndim(), false);
    for (std::int64_t a : *axis_) {
      if (a < -rank || a >= rank)
        throw TypeError(fmt::format("`{}`: axis {} is out of range for the broadcast rank {}",
                                    name(), a, rank));
      const auto k = static_cast<std::size_t>(a < 0 ? a + rank : a);
      if (seen[k])
        throw TypeError(fmt::format("`{}`: axis {} is given twice", name(), a));
      seen[k] = true;
    }
  }
  const std::vector<bool> r = reduced(t.ndim());
  StaticShape shape;
  for (std::size_t a = 0; a < t.ndim(); ++a)
    if (!r[a]) shape.push_back(t.shape()[a]);
  return ops_detail::make_apply(*this, inputs,
                                reduce_result_dtype(op_, scalar_program().output_dtype(0)),
                                std::move(shape));
}

void CompositeReduce::perform(const Apply& node, std::span<const Tensor> inputs,
                              std::span<Tensor> outputs) const {
  // Only axes of static extent 1 broadcast (as for every elementwise Op).
  std::size_t rank = 0;
  for (const Tensor& t : inputs) rank = std::max(rank, t.shape().size());
  Shape shape(rank, 1);
  for (const Tensor& t : inputs) {
    const std::size_t lead = rank - t.shape().size();
    for (std::size_t j = 0; j < t.shape().size(); ++j)
      if (t.shape()[j] != 1) shape[lead + j] = t.shape()[j];
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const StaticShape& st = node.input(i)->tensor_type()->shape();
    const Shape& s = inputs[i].shape();
    const std::size_t lead = rank - s.size();
    for (std::size_t j = 0; j < s.size(); ++j)
      if (s[j] == 1 && st[j] != 1 && shape[lead + j] != 1)
        throw ValueError(fmt::format(
            "`{}`: {} has extent 1 on axis {} where the other inputs have {}, but its type {} "
            "does not say the axis broadcasts",
            name(), input_label(i, node.input(i)), lead + j, shape[lead + j],
            node.input(i)->type()->to_string()));
  }
  const std::vector<bool> r = reduced(rank);
  std::vector<std::int64_t> list;
  for (std::size_t a = 0; a < rank; ++a)
    if (r[a]) list.push_back(static_cast<std::int64_t>(a));
  DTypes dtypes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype());
  const ScalarProgram& prog = composite_->program(dtypes);
  outputs[0] = ops_detail::run_kernel(*this, [&] {
    return reduce_program(op_, prog, inputs, Axes(std::span<const std::int64_t>(list)));
  });
}

std::vector<ShapeVars> CompositeReduce::infer_shape(const Apply& node,
                                                    std::span<const ShapeVars> input_shapes) const {
  // The elementwise node this reduction stands for gives the broadcast extents.
  std::vector<Var> ins(node.inputs().begin(), node.inputs().end());
  const ApplyRef elem = composite_->make_node(ins);
  const ShapeVars full = composite_->infer_shape(*elem, input_shapes)[0];
  const std::vector<bool> r = reduced(full.size());
  ShapeVars out;
  for (std::size_t a = 0; a < full.size(); ++a)
    if (!r[a]) out.push_back(full[a]);
  return {out};
}

std::optional<NativeCode> CompositeReduce::native_code(const Apply& node,
                                                       const NativeNames& names) const {
  std::vector<Var> ins(node.inputs().begin(), node.inputs().end());
  const ApplyRef elem = composite_->make_node(ins);
  const std::optional<ElemwiseLayout> layout = native_layout(*elem);
  if (!layout) return std::nullopt;
  DTypes dtypes;
  for (const Var& in : ins) dtypes.push_back(in->tensor_type()->dtype());
  return native_code_of(reduce_native_source(op_, composite_->program(dtypes), *layout,
                                             reduced(layout->rank), names.prefix));
}

}  // namespace rw

// ScalarProgram: building, checking and printing scalar programs.
#include "runtime/scalar_program.hpp"

#include <iterator>

#include <fmt/format.h>

#include "runtime/detail/scalar_math.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

std::uint64_t convert_bits(double value, DType dtype) {
  std::uint64_t bits = 0;
  visit_dtype(dtype, [&]<class T>() {
    const T v = detail::scalar::convert<T>(value);
    std::memcpy(&bits, &v, sizeof(T));
  });
  return bits;
}

std::uint64_t convert_bits(std::uint64_t bits, DType from, DType to) {
  std::uint64_t out = 0;
  visit_dtype(from, [&]<class S>() {
    S s;
    std::memcpy(&s, &bits, sizeof(S));
    visit_dtype(to, [&]<class D>() {
      const D d = detail::scalar::convert<D>(s);
      std::memcpy(&out, &d, sizeof(D));
    });
  });
  return out;
}

std::string format_bits(std::uint64_t bits, DType dtype) {
  return visit_dtype(dtype, [&]<class T>() -> std::string {
    T v;
    std::memcpy(&v, &bits, sizeof(T));
    if constexpr (std::is_same_v<T, bool>) return v ? "true" : "false";
    else if constexpr (std::is_floating_point_v<T>) return fmt::format("{}", v);
    else return std::to_string(static_cast<long long>(v));
  });
}

}  // namespace

Reg ScalarProgram::input(DType dtype) {
  const Reg r{static_cast<std::uint32_t>(regs_.size())};
  regs_.push_back({RegKind::Input, dtype, static_cast<std::uint32_t>(inputs_.size())});
  inputs_.push_back(r);
  return r;
}

Reg ScalarProgram::add_constant(DType dtype, std::uint64_t bits) {
  const Reg r{static_cast<std::uint32_t>(regs_.size())};
  regs_.push_back({RegKind::Constant, dtype, static_cast<std::uint32_t>(constants_.size())});
  constants_.push_back(bits);
  return r;
}

Reg ScalarProgram::constant(double value, DType dtype) {
  return add_constant(dtype, convert_bits(value, dtype));
}

void ScalarProgram::check(Reg r, ScalarOp op) const {
  if (r.id >= regs_.size())
    throw ValueError(
        fmt::format("`{}`: register %{} does not belong to this program (it has {} registers)",
                    scalar_op_name(op), r.id, regs_.size()));
}

DType ScalarProgram::dtype(Reg r) const {
  return regs_.at(r.id).dtype;
}

RegKind ScalarProgram::kind(Reg r) const {
  return regs_.at(r.id).kind;
}

std::uint64_t ScalarProgram::constant_bits(Reg r) const {
  const RegInfo& info = regs_.at(r.id);
  if (info.kind != RegKind::Constant)
    throw ValueError(fmt::format("register %{} is not a constant", r.id));
  return constants_[info.index];
}

Reg ScalarProgram::cast(Reg r, DType dtype) {
  check(r, ScalarOp::Cast);
  if (regs_[r.id].dtype == dtype) return r;
  return apply(ScalarOp::Cast, std::span<const Reg>(&r, 1), dtype);
}

Reg ScalarProgram::apply(ScalarOp op, std::span<const Reg> args, std::optional<DType> cast_to) {
  for (Reg a : args) check(a, op);
  SmallVec<DType, 3> in;
  for (Reg a : args) in.push_back(regs_[a.id].dtype);
  const ScalarSignature sig = scalar_signature(op, in, cast_to);

  if (op == ScalarOp::Cast) {
    const Reg src = args[0];
    if (in[0] == sig.result) return src;
    if (regs_[src.id].kind == RegKind::Constant)
      return add_constant(sig.result,
                          convert_bits(constants_[regs_[src.id].index], in[0], sig.result));
    for (const auto& [key, done] : cast_cache_)
      if (key.first == src.id && key.second == sig.result) return done;
  }

  // Bring every operand to the dtype the op computes in.
  SmallVec<Reg, 3> operands;
  for (std::size_t i = 0; i < args.size(); ++i)
    operands.push_back(op == ScalarOp::Cast ? args[i] : cast(args[i], sig.operands[i]));

  detail::KernelFn kernel =
      op == ScalarOp::Cast
          ? detail::find_cast_kernel(in[0], sig.result)
          : detail::find_kernel(op, op == ScalarOp::Switch ? sig.operands[1] : sig.operands[0]);
  RW_ASSERT(kernel, fmt::format("no kernel for `{}` on {}, which its signature allows",
                                scalar_op_name(op), dtype_name(sig.operands[0])));

  const Reg out{static_cast<std::uint32_t>(regs_.size())};
  regs_.push_back({RegKind::Temp, sig.result, static_cast<std::uint32_t>(instrs_.size())});
  instrs_.push_back({op, operands, out, kernel});
  if (op == ScalarOp::Cast) cast_cache_.push_back({{args[0].id, sig.result}, out});
  return out;
}

Reg ScalarProgram::append_from(const ScalarProgram& source, const ScalarInstr& instr,
                               std::span<const Reg> args) {
  // A cast may fold into a constant or reuse an earlier cast here, where it
  // did not in `source`: those go through apply.
  bool same = instr.op != ScalarOp::Cast && args.size() == instr.args.size();
  for (std::size_t i = 0; same && i < args.size(); ++i)
    same = args[i].id < regs_.size() && regs_[args[i].id].dtype == source.regs_[instr.args[i].id].dtype;
  if (!same) {
    std::optional<DType> cast_to;
    if (instr.op == ScalarOp::Cast) cast_to = source.regs_[instr.out.id].dtype;
    return apply(instr.op, args, cast_to);
  }
  const Reg out{static_cast<std::uint32_t>(regs_.size())};
  regs_.push_back({RegKind::Temp, source.regs_[instr.out.id].dtype,
                   static_cast<std::uint32_t>(instrs_.size())});
  instrs_.push_back({instr.op, SmallVec<Reg, 3>(args), out, instr.kernel});
  return out;
}

void ScalarProgram::output(Reg r) {
  if (r.id >= regs_.size())
    throw ValueError(
        fmt::format("output: register %{} does not belong to this program (it has {} registers)",
                    r.id, regs_.size()));
  outputs_.push_back(r);
}

void ScalarProgram::reserve(std::size_t registers, std::size_t instructions, std::size_t inputs) {
  regs_.reserve(registers);
  instrs_.reserve(instructions);
  inputs_.reserve(inputs);
}

int ScalarProgram::cost() const {
  int c = 0;
  for (const ScalarInstr& i : instrs_) c += scalar_op_info(i.op).cost;
  return c;
}

std::string ScalarProgram::to_string() const {
  // Formatted in place: a fused program has thousands of registers, and a
  // temporary string per line made this the cost of building a Composite.
  std::string out;
  auto it = std::back_inserter(out);
  for (std::size_t id = 0; id < regs_.size(); ++id) {
    const RegInfo& info = regs_[id];
    const auto t = dtype_short_name(info.dtype);
    switch (info.kind) {
      case RegKind::Input: fmt::format_to(it, "%{} = input {} {}\n", id, info.index, t); break;
      case RegKind::Constant:
        fmt::format_to(it, "%{} = {} {}\n", id, format_bits(constants_[info.index], info.dtype), t);
        break;
      case RegKind::Temp: {
        const ScalarInstr& ins = instrs_[info.index];
        fmt::format_to(it, "%{} = {}(", id, scalar_op_name(ins.op));
        for (std::size_t k = 0; k < ins.args.size(); ++k)
          fmt::format_to(it, "{}%{}", k ? ", " : "", ins.args[k].id);
        fmt::format_to(it, ") {}\n", t);
        break;
      }
    }
  }
  out += "outputs ";
  for (std::size_t k = 0; k < outputs_.size(); ++k)
    fmt::format_to(it, "{}%{}", k ? ", " : "", outputs_[k].id);
  out += "\n";
  return out;
}

}  // namespace rw

// ScalarProgram: a straight-line program of scalar operations over registers,
// which the elementwise engine runs over whole tensors block by block.
#pragma once

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/detail/kernel_table.hpp"
#include "runtime/detail/pool_alloc.hpp"
#include "runtime/dtype.hpp"
#include "runtime/scalar_op.hpp"
#include "runtime/small_vec.hpp"

namespace rw {

/// A register of a ScalarProgram: an input, a constant or an instruction's
/// result. Registers are numbered in the order they are created.
struct Reg {
  std::uint32_t id = 0;
  friend bool operator==(Reg, Reg) = default;
};

/// What a register holds.
enum class RegKind : std::uint8_t { Input, Constant, Temp };

/// One instruction: `out = op(args…)`. Its operands already have the dtypes of
/// the op's signature (the program inserts casts where they did not).
struct ScalarInstr {
  ScalarOp op;
  SmallVec<Reg, 3> args;
  Reg out;
  detail::KernelFn kernel;  ///< The loop that runs it over a block.
};

/// A fused elementwise computation (Aesara's Composite): inputs, constants and
/// a sequence of scalar operations, with one or more registers marked as
/// outputs. Build it once, run it many times with run_elemwise or
/// reduce_program:
///
///     ScalarProgram p;
///     Reg x = p.input(f64), y = p.input(f64);
///     p.output(p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Exp, {x}), y}));   // exp(x) * y
///
/// Operand dtypes follow scalar_signature: `apply` converts operands to the
/// dtypes the op computes in (a constant is converted at build time, another
/// register through a Cast instruction) and the result register has the
/// signature's result dtype. A program is immutable while it runs and may be
/// run by several threads at once.
class ScalarProgram {
 public:
  /// Declares the next input, holding elements of `dtype`.
  Reg input(DType dtype);
  /// A constant register: `value` converted to `dtype` (with the conversion
  /// rules of Cast).
  Reg constant(double value, DType dtype);
  /// A constant of a C++ element type, exact (an int64 beyond 2^53 included).
  template <class T> Reg constant_of(T value) {
    std::uint64_t bits = 0;
    static_assert(sizeof(T) <= sizeof(bits));
    std::memcpy(&bits, &value, sizeof(T));
    return add_constant(dtype_of<T>(), bits);
  }
  /// Appends `op(args…)` and returns its result register. `cast_to` is the
  /// target of a Cast. Throws ValueError naming the op for a wrong
  /// operand count, a foreign register or dtypes the op does not define.
  Reg apply(ScalarOp op, std::span<const Reg> args, std::optional<DType> cast_to = std::nullopt);
  Reg apply(ScalarOp op, std::initializer_list<Reg> args) {
    return apply(op, std::span<const Reg>(args.begin(), args.size()));
  }
  /// `r` converted to `dtype` (r itself when it already has that dtype).
  Reg cast(Reg r, DType dtype);
  /// Appends instruction `instr` of program `source` with its operands at
  /// `args` in this program (what inlining `source` does): the same as
  /// `apply(instr.op, args, …)`, without looking the signature and kernel up
  /// again when the operands have the dtypes they have in `source`, which is
  /// what an inliner maps them to. Throws as `apply` does.
  Reg append_from(const ScalarProgram& source, const ScalarInstr& instr, std::span<const Reg> args);
  /// Marks `r` as the next output. A register may be output more than once.
  void output(Reg r);
  /// Room for this many registers, instructions and inputs without
  /// reallocating (for a builder that knows the size beforehand, such as
  /// fusion).
  void reserve(std::size_t registers, std::size_t instructions, std::size_t inputs = 0);

  /// Number of inputs, outputs, registers.
  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_outputs() const { return outputs_.size(); }
  std::size_t num_registers() const { return regs_.size(); }
  /// The instructions, in execution order.
  std::span<const ScalarInstr> instructions() const { return instrs_; }
  /// The input registers, in declaration order.
  std::span<const Reg> inputs() const { return inputs_; }
  /// The output registers, in order.
  std::span<const Reg> outputs() const { return outputs_; }
  /// Element type and kind of a register.
  DType dtype(Reg r) const;
  RegKind kind(Reg r) const;
  /// The value of a constant register, as 8 raw bytes holding one element of
  /// its dtype (little end first).
  std::uint64_t constant_bits(Reg r) const;
  /// Dtype of input i / output i.
  DType input_dtype(std::size_t i) const { return dtype(inputs_.at(i)); }
  DType output_dtype(std::size_t i) const { return dtype(outputs_.at(i)); }
  /// Relative cost of one element (sum of the ops' costs), for threading.
  int cost() const;
  /// A listing, one register per line: `%2 = mul(%0, %1) f64`.
  std::string to_string() const;

 private:
  struct RegInfo {
    RegKind kind;
    DType dtype;
    std::uint32_t index;  // input number, constant number or instruction number
  };
  Reg add_constant(DType dtype, std::uint64_t bits);
  void check(Reg r, ScalarOp op) const;

  // From the pool: fusion builds (and drops) a program per group it tries.
  detail::PoolVector<RegInfo> regs_;
  detail::PoolVector<Reg> inputs_;
  detail::PoolVector<std::uint64_t> constants_;
  detail::PoolVector<ScalarInstr> instrs_;
  detail::PoolVector<Reg> outputs_;
  // Casts already emitted: (source register, target dtype) -> result.
  detail::PoolVector<std::pair<std::pair<std::uint32_t, DType>, Reg>> cast_cache_;
};

}  // namespace rw

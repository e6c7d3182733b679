// C++ source for a ScalarProgram: inline loops for the exact operations,
// calls of the interpreter's own kernels for the others.
#include "runtime/program_codegen.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "runtime/detail/loop.hpp"
#include "runtime/thread_pool.hpp"

namespace rw {

namespace {

constexpr int kBlock = 512;
/// The most block arrays a body may keep (a long chain of calls needs one
/// per value): beyond, no native code, as worker stacks are not unbounded.
constexpr std::size_t kMaxStackBytes = 256 * 1024;

const char* ctype(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "std::int8_t";
    case DType::Int16: return "std::int16_t";
    case DType::Int32: return "std::int32_t";
    case DType::Int64: return "std::int64_t";
    case DType::UInt8: return "std::uint8_t";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
  }
  return "double";
}

/// The unsigned type integer arithmetic on `t` wraps in (scalar::Wide).
const char* wide(DType t) { return t == DType::Int64 ? "std::uint64_t" : "std::uint32_t"; }

std::string constant_literal(DType t, std::uint64_t bits) {
  switch (t) {
    case DType::Float64: return fmt::format("__builtin_bit_cast(double, (std::uint64_t)0x{:x}ULL)", bits);
    case DType::Float32:
      return fmt::format("__builtin_bit_cast(float, (std::uint32_t)0x{:x}U)", bits & 0xffffffffULL);
    case DType::Bool: return (bits & 0xff) ? "true" : "false";
    default: {
      const std::size_t size = itemsize(t);
      const std::uint64_t mask = size >= 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
      return fmt::format("(({})(std::uint64_t)0x{:x}ULL)", ctype(t), bits & mask);
    }
  }
}

/// Whether `ins` is written inline: the operations whose C++ form is exactly
/// the interpreter's scalar::Fn (detail/scalar_math.hpp); IEEE arithmetic,
/// floor and ceil are exact, so any loop computes the same bits.
bool inlinable(const ScalarProgram& p, const ScalarInstr& ins) {
  const DType t = p.dtype(ins.args[ins.op == ScalarOp::Switch ? 1 : 0]);
  switch (ins.op) {
    case ScalarOp::Add:
    case ScalarOp::Sub:
    case ScalarOp::Mul:
    case ScalarOp::TrueDiv:
    case ScalarOp::Neg:
    case ScalarOp::Abs:
    case ScalarOp::Sign:
    case ScalarOp::Sqr:
    case ScalarOp::Reciprocal:
    case ScalarOp::Maximum:
    case ScalarOp::Minimum:
    case ScalarOp::Relu:
    case ScalarOp::Floor:
    case ScalarOp::Ceil:
    case ScalarOp::Lt:
    case ScalarOp::Gt:
    case ScalarOp::Le:
    case ScalarOp::Ge:
    case ScalarOp::Eq:
    case ScalarOp::Neq:
    case ScalarOp::And:
    case ScalarOp::Or:
    case ScalarOp::Xor:
    case ScalarOp::Not:
    case ScalarOp::Switch:
    case ScalarOp::Clip:
    case ScalarOp::Identity: return true;
    // Float to integer saturates (a call); the others are C++ conversions.
    case ScalarOp::Cast: return !(is_float(t) && !is_float(p.dtype(ins.out)) && !is_bool(p.dtype(ins.out)));
    default: return false;
  }
}

std::string wrap(DType t, const char* op, const std::string& a, const std::string& b) {
  return fmt::format("(({})(({})({}) {} ({})({})))", ctype(t), wide(t), a, op, wide(t), b);
}

std::string max_expr(DType t, const std::string& a, const std::string& b) {
  if (is_bool(t)) return fmt::format("((bool)(({}) | ({})))", a, b);
  if (!is_float(t)) return fmt::format("(({0}) > ({1}) ? ({0}) : ({1}))", a, b);
  return fmt::format("((({0}) > ({1}) || ({0}) != ({0})) ? ({0}) : ({1}))", a, b);
}

std::string min_expr(DType t, const std::string& a, const std::string& b) {
  if (is_bool(t)) return fmt::format("((bool)(({}) & ({})))", a, b);
  if (!is_float(t)) return fmt::format("(({0}) < ({1}) ? ({0}) : ({1}))", a, b);
  return fmt::format("((({0}) < ({1}) || ({0}) != ({0})) ? ({0}) : ({1}))", a, b);
}

/// The expression of an inlinable instruction over operand expressions `a`.
std::string expression(const ScalarProgram& p, const ScalarInstr& ins,
                       const std::vector<std::string>& a) {
  const DType t = p.dtype(ins.args[ins.op == ScalarOp::Switch ? 1 : 0]);
  const char* T = ctype(t);
  const bool flt = is_float(t), bl = is_bool(t), integer = !flt && !bl;
  const char* f = t == DType::Float32 ? "f" : "";
  switch (ins.op) {
    case ScalarOp::Add:
      if (bl) return fmt::format("((bool)(({}) | ({})))", a[0], a[1]);
      if (integer) return wrap(t, "+", a[0], a[1]);
      return fmt::format("(({}) + ({}))", a[0], a[1]);
    case ScalarOp::Sub:
      if (integer) return wrap(t, "-", a[0], a[1]);
      return fmt::format("(({}) - ({}))", a[0], a[1]);
    case ScalarOp::Sqr:
    case ScalarOp::Mul: {
      const std::string& b = ins.op == ScalarOp::Sqr ? a[0] : a[1];
      if (bl) return fmt::format("((bool)(({}) & ({})))", a[0], b);
      if (integer) return wrap(t, "*", a[0], b);
      return fmt::format("(({}) * ({}))", a[0], b);
    }
    case ScalarOp::TrueDiv: return fmt::format("(({}) / ({}))", a[0], a[1]);
    case ScalarOp::Reciprocal: return fmt::format("(({})1 / ({}))", T, a[0]);
    case ScalarOp::Neg:
      if (integer) return wrap(t, "-", "0", a[0]);
      return fmt::format("(-({}))", a[0]);
    case ScalarOp::Abs:
      if (bl || t == DType::UInt8) return a[0];
      if (integer) return fmt::format("(({0}) < 0 ? {1} : ({0}))", a[0], wrap(t, "-", "0", a[0]));
      return fmt::format("__builtin_fabs{}({})", f, a[0]);
    case ScalarOp::Sign:
      if (integer) return fmt::format("(({0})((({1}) > 0) - (({1}) < 0)))", T, a[0]);
      return fmt::format("(({1}) > 0 ? ({0})1 : ({1}) < 0 ? ({0})-1 : ({1}) == 0 ? ({0})0 : ({1}))",
                         T, a[0]);
    case ScalarOp::Maximum: return max_expr(t, a[0], a[1]);
    case ScalarOp::Minimum: return min_expr(t, a[0], a[1]);
    case ScalarOp::Clip: return min_expr(t, max_expr(t, a[0], a[1]), a[2]);
    case ScalarOp::Relu:
      if (bl) return a[0];
      if (flt) return fmt::format("((({1}) > 0 || ({1}) != ({1})) ? ({1}) : ({0})0)", T, a[0]);
      return fmt::format("(({1}) > 0 ? ({1}) : ({0})0)", T, a[0]);
    case ScalarOp::Floor: return fmt::format("__builtin_floor{}({})", f, a[0]);
    case ScalarOp::Ceil: return fmt::format("__builtin_ceil{}({})", f, a[0]);
    case ScalarOp::Lt: return fmt::format("(({}) < ({}))", a[0], a[1]);
    case ScalarOp::Gt: return fmt::format("(({}) > ({}))", a[0], a[1]);
    case ScalarOp::Le: return fmt::format("(({}) <= ({}))", a[0], a[1]);
    case ScalarOp::Ge: return fmt::format("(({}) >= ({}))", a[0], a[1]);
    case ScalarOp::Eq: return fmt::format("(({}) == ({}))", a[0], a[1]);
    case ScalarOp::Neq: return fmt::format("(({}) != ({}))", a[0], a[1]);
    case ScalarOp::And: return fmt::format("(({})(({}) & ({})))", T, a[0], a[1]);
    case ScalarOp::Or: return fmt::format("(({})(({}) | ({})))", T, a[0], a[1]);
    case ScalarOp::Xor: return fmt::format("(({})(({}) ^ ({})))", T, a[0], a[1]);
    case ScalarOp::Not:
      if (bl) return fmt::format("(!({}))", a[0]);
      return fmt::format("(({})~({}))", T, a[0]);
    case ScalarOp::Switch: return fmt::format("(({}) ? ({}) : ({}))", a[0], a[1], a[2]);
    case ScalarOp::Identity: return a[0];
    case ScalarOp::Cast: {
      const DType to = p.dtype(ins.out);
      if (to == t) return a[0];
      if (is_bool(to)) return fmt::format("(({}) != ({})0)", a[0], T);
      return fmt::format("(({})({}))", ctype(to), a[0]);
    }
    default: return a[0];  // not reached: inlinable() said yes
  }
}

/// Appends to src.support_code the struct `<pre>_args` (the inputs' and
/// outputs' data, ctx->fns, the size) and `<pre>_run(A, lo, hi, outs)`, which
/// runs `p` over flat positions [lo, hi) in blocks of kBlock, storing output
/// o's value at position f into outs[o][f - lo]. False when the blocks'
/// values would take more than kMaxStackBytes.
bool append_run(const ScalarProgram& p, const ElemwiseLayout& layout, const std::string& pre,
                ProgramSource& src) {
  const auto instrs = p.instructions();
  const auto inputs = p.inputs();
  const auto outputs = p.outputs();
  const std::size_t nin = inputs.size(), nout = outputs.size(), nregs = p.num_registers();

  // Which input a register is, and each instruction's segment (a run of
  // inline instructions between calls; -1 for a call).
  std::vector<int> input_of(nregs, -1), def(nregs, -1), seg(instrs.size(), -1);
  for (std::size_t i = 0; i < nin; ++i) input_of[inputs[i].id] = static_cast<int>(i);
  int segments = 0;
  bool in_segment = false;
  for (std::size_t k = 0; k < instrs.size(); ++k) {
    def[instrs[k].out.id] = static_cast<int>(k);
    if (inlinable(p, instrs[k])) {
      if (!in_segment) ++segments;
      in_segment = true;
      seg[k] = segments - 1;
    } else {
      in_segment = false;
    }
  }
  // The stores go into the last segment when the program ends with one;
  // otherwise into a loop of their own (segment `segments`).
  const bool stores_in_last = !instrs.empty() && seg.back() >= 0;
  const int store_seg = stores_in_last ? segments - 1 : segments;
  auto seg_of_reg = [&](std::uint32_t r) { return def[r] < 0 ? -2 : seg[def[r]]; };

  // A temporary lives in a block array when it is read outside the segment
  // that computes it, or computed by a call.
  std::vector<bool> array(nregs, false), filled(nregs, false);
  for (std::size_t k = 0; k < instrs.size(); ++k)
    for (Reg a : instrs[k].args) {
      const int s = seg_of_reg(a.id);
      if (def[a.id] >= 0 && (s < 0 || s != seg[k])) array[a.id] = true;
      if (def[a.id] < 0 && seg[k] < 0 && !(input_of[a.id] >= 0 &&
                                           layout.inputs[input_of[a.id]] != NativeOperand::Scalar))
        filled[a.id] = true;  // a scalar input or constant a call reads
    }
  for (Reg r : outputs)
    if (def[r.id] >= 0 && seg_of_reg(r.id) != store_seg) array[r.id] = true;
  for (std::size_t k = 0; k < instrs.size(); ++k)
    if (seg[k] < 0) array[instrs[k].out.id] = true;
  // The block arrays live on the stack of whichever thread runs the body.
  std::size_t stack_bytes = 0;
  for (std::size_t r = 0; r < nregs; ++r)
    if (array[r] || filled[r]) stack_bytes += kBlock * 8;
  for (NativeOperand o : layout.inputs)
    if (o == NativeOperand::Broadcast) stack_bytes += kBlock * 8;
  if (stack_bytes > kMaxStackBytes) return false;

  auto value = [&](Reg r, int in_seg) -> std::string {
    if (const int i = input_of[r.id]; i >= 0)
      return layout.inputs[i] != NativeOperand::Scalar ? fmt::format("i{}[j]", i)
                                                       : fmt::format("s{}", i);
    if (def[r.id] < 0) return fmt::format("c{}", r.id);
    if (seg_of_reg(r.id) == in_seg && !(array[r.id] && in_seg < 0)) return fmt::format("r{}", r.id);
    return fmt::format("t{}[j]", r.id);
  };
  auto pointer = [&](Reg r) -> std::string {
    if (const int i = input_of[r.id]; i >= 0 && layout.inputs[i] != NativeOperand::Scalar)
      return fmt::format("i{}", i);
    if (def[r.id] < 0) return fmt::format("f{}", r.id);
    return fmt::format("t{}", r.id);
  };

  std::string& s = src.support_code;
  const std::size_t rank = layout.rank;
  const bool gathers = std::find(layout.inputs.begin(), layout.inputs.end(),
                                 NativeOperand::Broadcast) != layout.inputs.end();
  s += fmt::format("namespace {{\nstruct {}_args {{\n  const void* in[{}];\n  void* out[{}];\n"
                   "  const void* const* fns;\n  std::int64_t n;\n",
                   pre, std::max<std::size_t>(nin, 1), std::max<std::size_t>(nout, 1));
  // The broadcast shape and each input's strides over it, for the gathers.
  if (gathers)
    s += fmt::format("  std::int64_t shape[{0}];\n  std::int64_t st[{1}][{0}];\n", rank, nin);
  s += "};\n";
  s += fmt::format("void {0}_run(const {0}_args& A, std::int64_t lo, std::int64_t hi, "
                   "void* const* outs) {{\n",
                   pre);
  for (std::size_t r = 0; r < nregs; ++r) {
    const Reg reg{static_cast<std::uint32_t>(r)};
    if (p.kind(reg) != RegKind::Constant) continue;
    s += fmt::format("  const {} c{} = {};\n", ctype(p.dtype(reg)), r,
                     constant_literal(p.dtype(reg), p.constant_bits(reg)));
  }
  for (std::size_t i = 0; i < nin; ++i)
    if (layout.inputs[i] == NativeOperand::Scalar)
      s += fmt::format("  const {0} s{1} = *static_cast<const {0}*>(A.in[{1}]);\n",
                       ctype(p.input_dtype(i)), i);
  for (std::size_t r = 0; r < nregs; ++r) {
    const Reg reg{static_cast<std::uint32_t>(r)};
    if (filled[r]) {
      const std::string v = input_of[r] >= 0 ? fmt::format("s{}", input_of[r]) : fmt::format("c{}", r);
      s += fmt::format("  alignas(64) {} f{}[{}];\n  for (int j = 0; j < {}; ++j) f{}[j] = {};\n",
                       ctype(p.dtype(reg)), r, kBlock, kBlock, r, v);
    }
    if (array[r]) s += fmt::format("  alignas(64) {} t{}[{}];\n", ctype(p.dtype(reg)), r, kBlock);
  }
  for (std::size_t i = 0; i < nin; ++i)
    if (layout.inputs[i] == NativeOperand::Broadcast)
      s += fmt::format("  alignas(64) {} g{}[{}];\n", ctype(p.input_dtype(i)), i, kBlock);
  s += "  const void* a[3];\n  (void)a;\n";
  s += fmt::format("  for (std::int64_t first = lo; first < hi; first += {0}) {{\n"
                   "    const std::int64_t cnt = hi - first < {0} ? hi - first : {0};\n",
                   kBlock);
  for (std::size_t i = 0; i < nin; ++i) {
    if (layout.inputs[i] == NativeOperand::Dense)
      s += fmt::format("    const {0}* i{1} = static_cast<const {0}*>(A.in[{1}]) + first;\n",
                       ctype(p.input_dtype(i)), i);
    if (layout.inputs[i] != NativeOperand::Broadcast) continue;
    // The block's elements of input i, row piece by row piece: the index of
    // `first` over the broadcast shape, then runs along the last axis.
    s += fmt::format(R"(    {{
      const {0}* base = static_cast<const {0}*>(A.in[{1}]);
      const std::int64_t* st = A.st[{1}];
      std::int64_t idx[{2}], off = 0, rest = first;
      for (int d = {2} - 1; d >= 0; --d) {{
        idx[d] = rest % A.shape[d];
        rest /= A.shape[d];
        off += idx[d] * st[d];
      }}
      for (std::int64_t j = 0; j < cnt;) {{
        const std::int64_t left = A.shape[{2} - 1] - idx[{2} - 1];
        const std::int64_t run = left < cnt - j ? left : cnt - j, step = st[{2} - 1];
        for (std::int64_t q = 0; q < run; ++q) g{1}[j + q] = base[off + q * step];
        j += run;
        off += run * step;
        idx[{2} - 1] += run;
        for (int d = {2} - 1; d > 0 && idx[d] == A.shape[d]; --d) {{
          off += st[d - 1] - idx[d] * st[d];
          idx[d] = 0;
          ++idx[d - 1];
        }}
      }}
    }}
    const {0}* i{1} = g{1};
)",
                     ctype(p.input_dtype(i)), i, rank);
  }
  for (std::size_t o = 0; o < nout; ++o)
    s += fmt::format("    {0}* o{1} = static_cast<{0}*>(outs[{1}]) + (first - lo);\n",
                     ctype(p.output_dtype(o)), o);

  auto stores = [&](int in_seg) {
    std::string out;
    for (std::size_t o = 0; o < nout; ++o)
      out += fmt::format("      o{}[j] = {};\n", o, value(outputs[o], in_seg));
    return out;
  };
  auto fn_index = [&](const void* fn) {
    const auto it = std::find(src.host_functions.begin(), src.host_functions.end(), fn);
    if (it != src.host_functions.end()) return static_cast<std::size_t>(it - src.host_functions.begin());
    src.host_functions.push_back(fn);
    return src.host_functions.size() - 1;
  };

  std::size_t k = 0;
  while (k < instrs.size()) {
    if (seg[k] < 0) {
      const ScalarInstr& ins = instrs[k];
      for (std::size_t x = 0; x < ins.args.size(); ++x)
        s += fmt::format("    a[{}] = {};\n", x, pointer(ins.args[x]));
      s += fmt::format("    reinterpret_cast<rw_kernel_fn>(A.fns[{}])(cnt, a, t{});  // {}\n",
                       fn_index(reinterpret_cast<const void*>(ins.kernel)), ins.out.id,
                       scalar_op_name(ins.op));
      ++k;
      continue;
    }
    const int sg = seg[k];
    s += "    for (std::int64_t j = 0; j < cnt; ++j) {\n";
    for (; k < instrs.size() && seg[k] == sg; ++k) {
      const ScalarInstr& ins = instrs[k];
      std::vector<std::string> args;
      for (Reg a : ins.args) args.push_back(value(a, sg));
      s += fmt::format("      const {} r{} = {};\n", ctype(p.dtype(ins.out)), ins.out.id,
                       expression(p, ins, args));
      if (array[ins.out.id]) s += fmt::format("      t{0}[j] = r{0};\n", ins.out.id);
    }
    if (stores_in_last && sg == store_seg) s += stores(sg);
    s += "    }\n";
  }
  if (!stores_in_last) s += "    for (std::int64_t j = 0; j < cnt; ++j) {\n" + stores(store_seg) + "    }\n";
  s += "  }\n}\n}  // namespace\n";
  return true;
}

/// The start of an entry point over inputs laid out as `layout`: RW_FALLBACK
/// when a dense input is not contiguous or an extent of an input that does
/// not broadcast there differs from another's; else `shape` (the inputs'
/// broadcast shape), `n` (its size) and `A`'s inputs (with the strides of
/// Broadcast inputs, 0 along the axes they broadcast).
std::string entry_checks(const ElemwiseLayout& layout, const std::string& pre) {
  const std::size_t nin = layout.inputs.size(), rank = layout.rank;
  std::string c;
  c += fmt::format("  {}_args A;\n", pre);
  c += fmt::format("  std::int64_t shape[{}];\n", std::max<std::size_t>(rank, 1));
  // Input i's axis for output axis d, or -1 where it broadcasts (for dense
  // inputs, every axis is its own).
  auto axis_of = [&](std::size_t i, std::size_t d) -> std::int64_t {
    if (layout.inputs[i] == NativeOperand::Scalar) return -1;
    if (layout.inputs[i] == NativeOperand::Dense) return static_cast<std::int64_t>(d);
    const BroadcastAxes& b = layout.broadcast[i];
    return b.along[d] ? -1 : static_cast<std::int64_t>(d + b.rank - rank);
  };
  for (std::size_t i = 0; i < nin; ++i) {
    switch (layout.inputs[i]) {
      case NativeOperand::Scalar:
        c += fmt::format("  if (in[{}].size != 1) return RW_FALLBACK;\n", i);
        break;
      case NativeOperand::Dense:
        c += fmt::format("  if (!in[{0}].contiguous || in[{0}].ndim != {1}) return RW_FALLBACK;\n",
                         i, rank);
        break;
      case NativeOperand::Broadcast: {
        const BroadcastAxes& b = layout.broadcast[i];
        c += fmt::format("  if (in[{}].ndim != {}) return RW_FALLBACK;\n", i, b.rank);
        for (std::size_t d = rank - b.rank; d < rank; ++d)
          if (b.along[d])
            c += fmt::format("  if (in[{}].shape[{}] != 1) return RW_FALLBACK;\n", i,
                             d + b.rank - rank);
        break;
      }
    }
  }
  for (std::size_t d = 0; d < rank; ++d) {
    int first = -1;  // the input whose extent gives the axis's
    for (std::size_t i = 0; i < nin; ++i) {
      const std::int64_t a = axis_of(i, d);
      if (a < 0) continue;
      if (first < 0) {
        first = static_cast<int>(i);
        c += fmt::format("  shape[{}] = in[{}].shape[{}];\n", d, i, a);
      } else {
        c += fmt::format("  if (in[{}].shape[{}] != shape[{}]) return RW_FALLBACK;\n", i, a, d);
      }
    }
    if (first < 0) c += fmt::format("  shape[{}] = 1;\n", d);
  }
  c += "  std::int64_t n = 1;\n";
  for (std::size_t d = 0; d < rank; ++d) c += fmt::format("  n *= shape[{}];\n", d);
  if (layout.static_size)
    c += fmt::format("  if (n != {}) return RW_FALLBACK;\n", *layout.static_size);
  for (std::size_t i = 0; i < nin; ++i) c += fmt::format("  A.in[{0}] = in[{0}].data;\n", i);
  for (std::size_t i = 0; i < nin; ++i) {
    if (layout.inputs[i] != NativeOperand::Broadcast) continue;
    for (std::size_t d = 0; d < rank; ++d) {
      const std::int64_t a = axis_of(i, d);
      c += a < 0 ? fmt::format("  A.st[{}][{}] = 0;\n", i, d)
                 : fmt::format("  A.st[{}][{}] = in[{}].strides[{}];\n", i, d, i, a);
    }
  }
  if (std::find(layout.inputs.begin(), layout.inputs.end(), NativeOperand::Broadcast) !=
      layout.inputs.end())
    for (std::size_t d = 0; d < rank; ++d) c += fmt::format("  A.shape[{0}] = shape[{0}];\n", d);
  c += "  A.fns = ctx->fns;\n  A.n = n;\n";
  return c;
}

}  // namespace

std::optional<ProgramSource> program_native_source(const ScalarProgram& p,
                                                   const ElemwiseLayout& layout,
                                                   std::string_view prefix) {
  const std::string pre(prefix);
  const std::size_t nout = p.num_outputs(), rank = layout.rank;
  ProgramSource src;
  if (!append_run(p, layout, pre, src)) return std::nullopt;
  std::string& s = src.support_code;
  s += fmt::format("namespace {{\nvoid {}_body(void* data, std::int64_t b0, std::int64_t b1) {{\n",
                   pre);
  s += fmt::format("  const {0}_args& A = *static_cast<const {0}_args*>(data);\n", pre);
  if (layout.static_size) s += fmt::format("  constexpr std::int64_t n = {};\n", *layout.static_size);
  else s += "  const std::int64_t n = A.n;\n";
  s += fmt::format("  void* outs[{}];\n", std::max<std::size_t>(nout, 1));
  for (std::size_t o = 0; o < nout; ++o)
    s += fmt::format("  outs[{0}] = static_cast<{1}*>(A.out[{0}]) + b0 * {2};\n", o,
                     ctype(p.output_dtype(o)), kBlock);
  s += fmt::format("  {0}_run(A, b0 * {1}, b1 * {1} < n ? b1 * {1} : n, outs);\n}}\n"
                   "}}  // namespace\n",
                   pre, kBlock);

  std::string& c = src.code;
  c += entry_checks(layout, pre);
  for (std::size_t o = 0; o < nout; ++o)
    c += fmt::format("  if (ctx->alloc(ctx, {0}, {1}, shape, &out[{0}])) return RW_FAIL;\n"
                     "  A.out[{0}] = out[{0}].data;\n",
                     o, rank);
  c += fmt::format("  if (n > 0) ctx->parallel((n + {0}) / {1}, n * {2}, &{3}_body, &A);\n",
                   kBlock - 1, kBlock, p.cost() + 1, pre);
  c += "  return RW_OK;\n";
  return src;
}

std::optional<ProgramSource> reduce_native_source(ReduceOp op, const ScalarProgram& p,
                                                  const ElemwiseLayout& layout,
                                                  const std::vector<bool>& reduced,
                                                  std::string_view prefix) {
  const std::size_t rank = layout.rank;
  if (p.num_outputs() != 1 || reduced.size() != rank) return std::nullopt;
  // A broadcast input cuts the interpreter's loop into other blocks.
  if (std::find(layout.inputs.begin(), layout.inputs.end(), NativeOperand::Broadcast) !=
      layout.inputs.end())
    return std::nullopt;
  // The reduced axes trail (a full reduction too) or lead: the layouts whose
  // interpreter order native_reduce reproduces.
  std::size_t nred = 0;
  for (const bool r : reduced) nred += r ? 1 : 0;
  const auto is_run = [&](std::size_t from) {
    return std::all_of(reduced.begin() + static_cast<std::ptrdiff_t>(from),
                       reduced.begin() + static_cast<std::ptrdiff_t>(from + nred),
                       [](bool r) { return r; });
  };
  const bool trailing = is_run(rank - nred), leading = !trailing && is_run(0);
  if (!trailing && !leading) return std::nullopt;

  const std::string pre(prefix);
  ProgramSource src;
  if (!append_run(p, layout, pre, src)) return std::nullopt;
  // A program without instructions whose output is a dense input (a plain
  // `sum`) is reduced from the input's memory.
  int direct = -1;
  const auto inputs = p.inputs();
  if (p.instructions().empty())
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i] == p.outputs()[0] && layout.inputs[i] == NativeOperand::Dense)
        direct = static_cast<int>(i);
  auto add_eval = [&](const std::string& name) {
    src.support_code += fmt::format(
        "namespace {{\nvoid {0}_eval(const void* data, std::int64_t first, std::int64_t count, "
        "void* values) {{\n  void* outs[1] = {{values}};\n"
        "  {0}_run(*static_cast<const {0}_args*>(data), first, first + count, outs);\n}}\n"
        "}}  // namespace\n",
        name);
  };
  if (direct < 0) add_eval(pre);
  // Leading axes in the interpreter's inner mode (fewer than 16 kept
  // columns): the values in the order (k, r), at k + r K in memory, so each
  // dense input is read through the strides (1, K) over the shape (K, R).
  ElemwiseLayout kr;
  kr.rank = 2;
  kr.broadcast.resize(layout.inputs.size(), BroadcastAxes{2, {false, false}});
  for (NativeOperand o : layout.inputs)
    kr.inputs.push_back(o == NativeOperand::Dense ? NativeOperand::Broadcast : o);
  const bool any_dense = std::find(layout.inputs.begin(), layout.inputs.end(),
                                   NativeOperand::Dense) != layout.inputs.end();
  const bool by_rows = leading && any_dense;
  if (by_rows) {
    if (!append_run(p, kr, pre + "t", src)) return std::nullopt;
    add_eval(pre + "t");
  }

  const detail::ProgramPlan plan(p);
  std::string& c = src.code;
  c += entry_checks(layout, pre);
  c += fmt::format("  std::int64_t K = 1, R = 1, inner = 1, kept[{}];\n",
                   std::max<std::size_t>(rank - nred, 1));
  std::size_t nkept = 0;
  for (std::size_t d = 0; d < rank; ++d) {
    if (reduced[d]) c += fmt::format("  R *= shape[{}];\n", d);
    else c += fmt::format("  K *= shape[{0}];\n  inner = kept[{1}] = shape[{0}];\n", d, nkept++);
  }
  c += fmt::format("  if (ctx->alloc(ctx, 0, {}, kept, &out[0])) return RW_FAIL;\n", nkept);
  c += "  rw_reduce_job J;\n";
  if (by_rows) {
    c += fmt::format("  {}t_args T;\n", pre);
    for (std::size_t i = 0; i < layout.inputs.size(); ++i) {
      c += fmt::format("  T.in[{0}] = in[{0}].data;\n", i);
      if (layout.inputs[i] == NativeOperand::Dense)
        c += fmt::format("  T.st[{0}][0] = 1;\n  T.st[{0}][1] = K;\n", i);
    }
    c += fmt::format("  T.fns = ctx->fns;\n  T.n = K * R;\n  T.shape[0] = K;\n  T.shape[1] = R;\n"
                     "  J.eval_kr = &{0}t_eval;\n  J.data_kr = &T;\n",
                     pre);
  } else {
    c += "  J.eval_kr = nullptr;\n  J.data_kr = nullptr;\n";
  }
  c += direct < 0 ? fmt::format("  J.eval = &{}_eval;\n  J.values_in = nullptr;\n", pre)
                  : fmt::format("  J.eval = nullptr;\n  J.values_in = in[{}].data;\n", direct);
  c += fmt::format(
      "  J.data = &A;\n  J.out = out[0].data;\n  J.kept = K;\n  J.reduced = R;\n"
      "  J.inner = inner;\n  J.block = {};\n  J.cost = {};\n  J.op = {};  // {}\n"
      "  J.dtype = {};  // {}\n  J.leading = {};\n  J.lead_dense = {};\n",
      detail::block_size(p, plan), p.cost(), static_cast<int>(op), reduce_op_name(op),
      static_cast<int>(p.output_dtype(0)), dtype_name(p.output_dtype(0)), leading ? 1 : 0,
      !layout.inputs.empty() && layout.inputs[0] == NativeOperand::Dense ? 1 : 0);
  src.host_functions.push_back(reinterpret_cast<const void*>(&native_reduce));
  c += fmt::format("  return reinterpret_cast<rw_reduce_fn>(ctx->fns[{}])(ctx, &J);\n",
                   src.host_functions.size() - 1);
  return src;
}

void native_parallel(std::int64_t n, std::int64_t work,
                     void (*body)(void*, std::int64_t, std::int64_t), void* data) {
  const int threads = num_threads();
  if (work < detail::kParallelWork || threads == 1 || n == 1) {
    body(data, 0, n);
    return;
  }
  // As run_elemwise: 16 chunks per thread, so a late worker holds little.
  const std::int64_t grain = std::max<std::int64_t>(1, n / (16 * threads));
  parallel_for(n, grain, [&](std::int64_t b, std::int64_t e) { body(data, b, e); });
}

}  // namespace rw

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

}  // namespace

std::optional<ProgramSource> program_native_source(const ScalarProgram& p,
                                                   const ElemwiseLayout& layout,
                                                   std::string_view prefix) {
  const auto instrs = p.instructions();
  const auto inputs = p.inputs();
  const auto outputs = p.outputs();
  const std::size_t nin = inputs.size(), nout = outputs.size(), nregs = p.num_registers();
  const std::size_t rank = layout.rank;
  ProgramSource src;

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
                                           layout.inputs[input_of[a.id]] == NativeOperand::Dense))
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
  if (stack_bytes > kMaxStackBytes) return std::nullopt;

  auto value = [&](Reg r, int in_seg) -> std::string {
    if (const int i = input_of[r.id]; i >= 0)
      return layout.inputs[i] == NativeOperand::Dense ? fmt::format("i{}[j]", i)
                                                      : fmt::format("s{}", i);
    if (def[r.id] < 0) return fmt::format("c{}", r.id);
    if (seg_of_reg(r.id) == in_seg && !(array[r.id] && in_seg < 0)) return fmt::format("r{}", r.id);
    return fmt::format("t{}[j]", r.id);
  };
  auto pointer = [&](Reg r) -> std::string {
    if (const int i = input_of[r.id]; i >= 0 && layout.inputs[i] == NativeOperand::Dense)
      return fmt::format("i{}", i);
    if (def[r.id] < 0) return fmt::format("f{}", r.id);
    return fmt::format("t{}", r.id);
  };

  const std::string pre(prefix);
  std::string& s = src.support_code;
  s += fmt::format("namespace {{\nstruct {}_args {{\n  const void* in[{}];\n  void* out[{}];\n"
                   "  const void* const* fns;\n  std::int64_t n;\n}};\n",
                   pre, std::max<std::size_t>(nin, 1), std::max<std::size_t>(nout, 1));
  s += fmt::format("void {}_body(void* data, std::int64_t b0, std::int64_t b1) {{\n", pre);
  s += fmt::format("  const {}_args& A = *static_cast<const {}_args*>(data);\n", pre, pre);
  if (layout.static_size) s += fmt::format("  constexpr std::int64_t n = {};\n", *layout.static_size);
  else s += "  const std::int64_t n = A.n;\n";
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
  s += "  const void* a[3];\n  (void)a;\n";
  s += "  for (std::int64_t b = b0; b < b1; ++b) {\n";
  s += fmt::format("    const std::int64_t first = b * {0};\n"
                   "    const std::int64_t cnt = n - first < {0} ? n - first : {0};\n",
                   kBlock);
  for (std::size_t i = 0; i < nin; ++i)
    if (layout.inputs[i] == NativeOperand::Dense)
      s += fmt::format("    const {0}* i{1} = static_cast<const {0}*>(A.in[{1}]) + first;\n",
                       ctype(p.input_dtype(i)), i);
  for (std::size_t o = 0; o < nout; ++o)
    s += fmt::format("    {0}* o{1} = static_cast<{0}*>(A.out[{1}]) + first;\n",
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

  // The entry point's body.
  std::string& c = src.code;
  c += fmt::format("  {}_args A;\n", pre);
  c += fmt::format("  std::int64_t shape[{}];\n", std::max<std::size_t>(rank, 1));
  int first_dense = -1;
  for (std::size_t i = 0; i < nin; ++i) {
    if (layout.inputs[i] == NativeOperand::Scalar) {
      c += fmt::format("  if (in[{}].size != 1) return RW_FALLBACK;\n", i);
      continue;
    }
    c += fmt::format("  if (!in[{0}].contiguous || in[{0}].ndim != {1}) return RW_FALLBACK;\n", i,
                     rank);
    if (first_dense < 0) first_dense = static_cast<int>(i);
  }
  for (std::size_t d = 0; d < rank; ++d) {
    c += first_dense < 0 ? fmt::format("  shape[{}] = 1;\n", d)
                         : fmt::format("  shape[{}] = in[{}].shape[{}];\n", d, first_dense, d);
    for (std::size_t i = 0; i < nin; ++i)
      if (layout.inputs[i] == NativeOperand::Dense && static_cast<int>(i) != first_dense)
        c += fmt::format("  if (in[{}].shape[{}] != shape[{}]) return RW_FALLBACK;\n", i, d, d);
  }
  c += "  std::int64_t n = 1;\n";
  for (std::size_t d = 0; d < rank; ++d) c += fmt::format("  n *= shape[{}];\n", d);
  if (layout.static_size)
    c += fmt::format("  if (n != {}) return RW_FALLBACK;\n", *layout.static_size);
  for (std::size_t i = 0; i < nin; ++i) c += fmt::format("  A.in[{0}] = in[{0}].data;\n", i);
  for (std::size_t o = 0; o < nout; ++o)
    c += fmt::format("  if (ctx->alloc(ctx, {0}, {1}, shape, &out[{0}])) return RW_FAIL;\n"
                     "  A.out[{0}] = out[{0}].data;\n",
                     o, rank);
  c += "  A.fns = ctx->fns;\n  A.n = n;\n";
  c += fmt::format("  if (n > 0) ctx->parallel((n + {0}) / {1}, n * {2}, &{3}_body, &A);\n",
                   kBlock - 1, kBlock, p.cost() + 1, pre);
  c += "  return RW_OK;\n";
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

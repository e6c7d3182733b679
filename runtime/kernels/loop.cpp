// The blocked loop: coalescing, block ranges, gather/scatter, and the block
// evaluator of scalar programs.
#include "runtime/detail/loop.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <new>

namespace rw::detail {

namespace {

template <class U> void copy_in(U* dst, const U* src, std::int64_t n, std::int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(U));
  } else if (stride == 0) {
    std::fill_n(dst, n, *src);
  } else {
    for (std::int64_t i = 0; i < n; ++i) dst[i] = src[i * stride];
  }
}

template <class U> void copy_out(U* dst, const U* src, std::int64_t n, std::int64_t stride) {
  if (stride == 1) {
    std::memcpy(dst, src, static_cast<std::size_t>(n) * sizeof(U));
  } else {
    for (std::int64_t i = 0; i < n; ++i) dst[i * stride] = src[i];
  }
}

// Calls f.template operator()<U>() with U an unsigned type of `itemsize` bytes.
template <class F> void with_word(std::int64_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: f.template operator()<std::uint8_t>(); break;
    case 2: f.template operator()<std::uint16_t>(); break;
    case 4: f.template operator()<std::uint32_t>(); break;
    default: f.template operator()<std::uint64_t>(); break;
  }
}

// Per-thread scratch, reused across kernel calls so that a block's registers
// do not cost a fresh allocation (and fresh page faults) every call.
struct ThreadScratch {
  std::byte* data = nullptr;
  std::size_t capacity = 0;
  bool busy = false;
  ~ThreadScratch() { std::free(data); }
};
thread_local ThreadScratch t_scratch;

std::byte* aligned_bytes(std::size_t n) {
  auto* p = static_cast<std::byte*>(std::aligned_alloc(64, std::max<std::size_t>(64, n)));
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

LoopOperand loop_operand(const Tensor& t, std::span<const std::int64_t> shape) {
  LoopOperand op;
  op.base = static_cast<std::byte*>(const_cast<void*>(t.raw_data()));
  op.itemsize = static_cast<std::int64_t>(itemsize(t.dtype()));
  const std::size_t lead = shape.size() - t.shape().size();
  op.strides.assign(shape.size(), 0);
  for (std::size_t i = 0; i < t.shape().size(); ++i)
    if (t.shape()[i] != 1) op.strides[lead + i] = t.strides()[i];
  return op;
}

Loop::Loop(std::span<const std::int64_t> shape, std::vector<LoopOperand> operands,
           std::int64_t block)
    : ops_(std::move(operands)), size_(shape_size(shape)) {
  if (size_ == 0) return;
  // Drop extent-1 dims, then merge a dim into the one before it when, for
  // every operand, stepping the outer dim once equals stepping the inner one
  // through its whole extent.
  // In place: dim d lands at position k <= d, so unread strides survive.
  std::size_t k = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    bool merge = k > 0;
    for (std::size_t i = 0; merge && i < ops_.size(); ++i)
      merge = ops_[i].strides[k - 1] == ops_[i].strides[d] * shape[d];
    if (merge) {
      shape_.back() *= shape[d];
      for (auto& op : ops_) op.strides[k - 1] = op.strides[d];
    } else {
      shape_.push_back(shape[d]);
      for (auto& op : ops_) op.strides[k] = op.strides[d];
      ++k;
    }
  }
  if (k == 0) {
    shape_.push_back(1);
    for (auto& op : ops_) op.strides.assign(1, 0);
    k = 1;
  }
  const Strides dense = contiguous_strides(shape_);
  for (auto& op : ops_) {
    op.strides.resize(k);
    op.flat = op.strides == dense;
    op.uniform = std::all_of(op.strides.begin(), op.strides.end(),
                             [](std::int64_t st) { return st == 0; });
  }
  inner_ = shape_.back();
  rows_ = size_ / inner_;
  block = std::max<std::int64_t>(block, 1);
  capacity_ = std::min(block, size_);
  if (inner_ >= block) {
    pieces_ = (inner_ + block - 1) / block;
    piece_len_ = (inner_ + pieces_ - 1) / pieces_;
    block_ = piece_len_;
    num_blocks_ = rows_ * pieces_;
  } else {
    rows_per_block_ = std::min(rows_, block / inner_);
    block_ = rows_per_block_ * inner_;
    num_blocks_ = (rows_ + rows_per_block_ - 1) / rows_per_block_;
  }
}

void Loop::block_range(std::int64_t b, std::int64_t& first, std::int64_t& count) const {
  if (pieces_ > 0) {
    const std::int64_t row = b / pieces_, start = (b % pieces_) * piece_len_;
    first = row * inner_ + start;
    count = std::min(piece_len_, inner_ - start);
  } else {
    const std::int64_t row = b * rows_per_block_;
    first = row * inner_;
    count = std::min(rows_per_block_, rows_ - row) * inner_;
  }
}

std::int64_t Loop::row_offset(const LoopOperand& op, std::int64_t row) const {
  std::int64_t off = 0;
  for (std::size_t d = shape_.size() - 1; d-- > 0;) {
    off += (row % shape_[d]) * op.strides[d];
    row /= shape_[d];
  }
  return off;
}

std::byte* Loop::dense_at(std::size_t i, std::int64_t first, std::int64_t count) const {
  const LoopOperand& op = ops_[i];
  if (op.flat) return op.base + first * op.itemsize;
  const std::int64_t j = first % inner_;
  if (j + count <= inner_ && (op.strides.back() == 1 || count == 1))
    return op.base + (row_offset(op, first / inner_) + j * op.strides.back()) * op.itemsize;
  return nullptr;
}

template <class Copy>
void Loop::for_rows(const LoopOperand& op, std::int64_t first, std::int64_t count,
                    Copy&& copy) const {
  std::int64_t j = first % inner_;
  if (j + count <= inner_) {
    copy(row_offset(op, first / inner_) + j * op.strides.back(), count, std::int64_t{0});
    return;
  }
  // Across rows: walk the outer index incrementally rather than dividing per row.
  const std::size_t outer = shape_.size() - 1;
  SmallVec<std::int64_t, 8> idx(outer, 0);
  std::int64_t row = first / inner_;
  for (std::size_t d = outer; d-- > 0;) {
    idx[d] = row % shape_[d];
    row /= shape_[d];
  }
  std::int64_t off = 0;
  for (std::size_t d = 0; d < outer; ++d) off += idx[d] * op.strides[d];
  for (std::int64_t done = 0; done < count;) {
    const std::int64_t n = std::min(inner_ - j, count - done);
    copy(off + j * op.strides.back(), n, done);
    done += n;
    j = 0;
    for (std::size_t d = outer; d-- > 0;) {
      if (++idx[d] < shape_[d]) {
        off += op.strides[d];
        break;
      }
      off -= (shape_[d] - 1) * op.strides[d];
      idx[d] = 0;
    }
  }
}

void Loop::gather(std::size_t i, std::int64_t first, std::int64_t count, std::byte* dst) const {
  const LoopOperand& op = ops_[i];
  const std::int64_t stride = op.strides.back();
  with_word(op.itemsize, [&]<class U>() {
    for_rows(op, first, count, [&](std::int64_t off, std::int64_t n, std::int64_t at) {
      copy_in(reinterpret_cast<U*>(dst) + at, reinterpret_cast<const U*>(op.base) + off, n, stride);
    });
  });
}

void Loop::scatter(std::size_t i, std::int64_t first, std::int64_t count,
                   const std::byte* src) const {
  const LoopOperand& op = ops_[i];
  const std::int64_t stride = op.strides.back();
  with_word(op.itemsize, [&]<class U>() {
    for_rows(op, first, count, [&](std::int64_t off, std::int64_t n, std::int64_t at) {
      copy_out(reinterpret_cast<U*>(op.base) + off, reinterpret_cast<const U*>(src) + at, n,
               stride);
    });
  });
}

ProgramPlan::ProgramPlan(const ScalarProgram& program) {
  const std::size_t nregs = program.num_registers();
  slot.assign(nregs, -1);
  SmallVec<int, 16> last_use(nregs, -1);
  const auto instrs = program.instructions();
  for (std::size_t k = 0; k < instrs.size(); ++k)
    for (Reg a : instrs[k].args) last_use[a.id] = static_cast<int>(k);
  for (Reg r : program.outputs()) last_use[r.id] = INT_MAX;
  for (std::size_t r = 0; r < nregs; ++r)
    if (program.kind(Reg{static_cast<std::uint32_t>(r)}) != RegKind::Temp) {
      slot[r] = num_slots++;
      last_use[r] = INT_MAX;
    }
  SmallVec<int, 16> free;
  for (std::size_t k = 0; k < instrs.size(); ++k) {
    const std::uint32_t out = instrs[k].out.id;
    if (free.empty()) {
      slot[out] = num_slots++;
    } else {
      slot[out] = free.back();
      free.pop_back();
    }
    // Operands are released only after the result has its slot: a kernel
    // whose operand and result differ in width must not write over the
    // operand it is reading.
    for (Reg a : instrs[k].args)
      if (last_use[a.id] == static_cast<int>(k) &&
          std::find(free.begin(), free.end(), slot[a.id]) == free.end())
        free.push_back(slot[a.id]);
    if (last_use[out] < static_cast<int>(k)) free.push_back(slot[out]);
  }
}

std::int64_t block_size(const ScalarProgram& program, const ProgramPlan& plan) {
  if (program.instructions().size() <= 1) return kSingleBlock;
  constexpr std::int64_t kBudget = 24 * 1024;
  const std::int64_t touched =
      std::max<std::int64_t>(1, plan.num_slots - static_cast<std::int64_t>(program.num_inputs()));
  const std::int64_t b = kBudget / (8 * touched) / 64 * 64;
  return std::clamp<std::int64_t>(b, 256, 4096);
}

BlockEvaluator::BlockEvaluator(const ScalarProgram& program, const ProgramPlan& plan,
                               const Loop& loop, bool write_outputs, std::span<const bool> direct)
    : program_(program),
      plan_(plan),
      loop_(loop),
      write_outputs_(write_outputs),
      ptr_(program.num_registers(), nullptr) {
  const auto instrs = program.instructions();
  const auto outputs = program.outputs();
  instr_output_.assign(instrs.size(), -1);
  if (write_outputs)
    for (std::size_t k = 0; k < instrs.size(); ++k)
      for (std::size_t o = 0; o < outputs.size(); ++o)
        if (outputs[o] == instrs[k].out && (direct.empty() || direct[o])) {
          instr_output_[k] = static_cast<int>(o);
          break;
        }

  slot_bytes_ = (loop.max_block() * 8 + 63) / 64 * 64;
  const auto bytes =
      static_cast<std::size_t>(slot_bytes_) * static_cast<std::size_t>(plan.num_slots);
  if (!t_scratch.busy) {
    if (t_scratch.capacity < bytes) {
      std::free(t_scratch.data);
      t_scratch.data = nullptr;
      t_scratch.capacity = 0;
      t_scratch.data = aligned_bytes((bytes + 63) / 64 * 64);
      t_scratch.capacity = bytes;
    }
    t_scratch.busy = true;
    scratch_ = t_scratch.data;
  } else {
    scratch_ = aligned_bytes((bytes + 63) / 64 * 64);
    owns_scratch_ = true;
  }

  // Constants and uniform inputs are the same for every block: fill once.
  const std::int64_t n = loop.max_block();
  for (std::size_t r = 0; r < program.num_registers(); ++r) {
    const Reg reg{static_cast<std::uint32_t>(r)};
    if (program.kind(reg) != RegKind::Constant) continue;
    const std::uint64_t bits = program.constant_bits(reg);
    with_word(static_cast<std::int64_t>(itemsize(program.dtype(reg))), [&]<class U>() {
      U v;
      std::memcpy(&v, &bits, sizeof(U));
      std::fill_n(reinterpret_cast<U*>(slot(reg)), n, v);
    });
    ptr_[r] = slot(reg);
  }
  const auto inputs = program.inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const LoopOperand& op = loop.operand(i);
    if (!op.uniform) continue;
    with_word(op.itemsize, [&]<class U>() {
      std::fill_n(reinterpret_cast<U*>(slot(inputs[i])), n, *reinterpret_cast<const U*>(op.base));
    });
    ptr_[inputs[i].id] = slot(inputs[i]);
  }
}

BlockEvaluator::~BlockEvaluator() {
  if (owns_scratch_) std::free(scratch_);
  else t_scratch.busy = false;
}

std::byte* BlockEvaluator::slot(Reg r) const {
  return scratch_ + static_cast<std::int64_t>(plan_.slot[r.id]) * slot_bytes_;
}

void BlockEvaluator::prefetch_part(std::int64_t first, std::int64_t count, std::size_t part,
                                   std::size_t parts) const {
  const std::int64_t next = first + count;
  const std::int64_t n = std::min(count, loop_.size() - next);
  if (n <= 0) return;
  for (std::size_t i = 0; i < loop_.num_operands(); ++i) {
    const LoopOperand& op = loop_.operand(i);
    if (!op.flat) continue;
    const std::int64_t lines = (n * op.itemsize + 63) / 64;
    const auto lo = static_cast<std::int64_t>(part) * lines / static_cast<std::int64_t>(parts);
    const auto hi = static_cast<std::int64_t>(part + 1) * lines / static_cast<std::int64_t>(parts);
    const std::byte* p = op.base + next * op.itemsize;
    const bool write = i >= program_.num_inputs();
    for (std::int64_t l = lo; l < hi; ++l) {
      if (write) __builtin_prefetch(p + 64 * l, 1);
      else __builtin_prefetch(p + 64 * l, 0);
    }
  }
}

void BlockEvaluator::eval(std::int64_t first, std::int64_t count) {
  const auto inputs = program_.inputs();
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (loop_.operand(i).uniform) continue;
    if (std::byte* p = loop_.dense_at(i, first, count)) {
      ptr_[inputs[i].id] = p;
    } else {
      loop_.gather(i, first, count, slot(inputs[i]));
      ptr_[inputs[i].id] = slot(inputs[i]);
    }
  }
  const auto instrs = program_.instructions();
  const std::size_t nin = inputs.size();
  for (std::size_t k = 0; k < instrs.size(); ++k) {
    prefetch_part(first, count, k, instrs.size());
    const ScalarInstr& ins = instrs[k];
    std::byte* out = nullptr;
    if (instr_output_[k] >= 0)
      out = loop_.dense_at(nin + static_cast<std::size_t>(instr_output_[k]), first, count);
    if (!out) out = slot(ins.out);
    for (std::size_t a = 0; a < ins.args.size(); ++a) args_[a] = ptr_[ins.args[a].id];
    ins.kernel(count, args_, out);
    ptr_[ins.out.id] = out;
  }
  if (!write_outputs_) return;
  const auto outputs = program_.outputs();
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const std::byte* src = ptr_[outputs[o].id];
    const std::size_t operand = nin + o;
    if (std::byte* dst = loop_.dense_at(operand, first, count)) {
      if (dst != src)
        std::memcpy(dst, src, static_cast<std::size_t>(count * loop_.operand(operand).itemsize));
    } else {
      loop_.scatter(operand, first, count, src);
    }
  }
}

}  // namespace rw::detail

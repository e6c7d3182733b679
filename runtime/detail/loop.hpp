// The blocked loop under every elementwise kernel and reduction: operands
// iterated together over a common shape, cut into cache-sized blocks, and the
// evaluator that runs a ScalarProgram over one block at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "runtime/scalar_program.hpp"
#include "runtime/tensor.hpp"

namespace rw::detail {

/// One tensor taking part in a loop.
struct LoopOperand {
  std::byte* base = nullptr;  ///< Address of the element at index (0, …, 0).
  std::int64_t itemsize = 0;
  Strides strides;       ///< Per loop dimension, in elements.
  bool flat = false;     ///< Laid out densely in the loop's row-major order.
  bool uniform = false;  ///< Every stride 0: one value for the whole loop.
};

/// `t` seen over `shape` (which it broadcasts to, as checked by the caller):
/// its base address and strides.
LoopOperand loop_operand(const Tensor& t, std::span<const std::int64_t> shape);

/// Operands iterated together over a common shape. Dims of extent 1 are
/// dropped and neighbouring dims merged where every operand allows, without
/// changing the row-major (flat) order. The loop is cut into blocks of at most
/// `block` elements: pieces of one row when rows are long, whole rows
/// otherwise.
class Loop {
 public:
  Loop(std::span<const std::int64_t> shape, std::vector<LoopOperand> operands, std::int64_t block);

  std::int64_t size() const { return size_; }
  std::int64_t num_blocks() const { return num_blocks_; }
  /// The most elements one evaluation may cover: the requested block size
  /// (at most the loop's size). Every block_range is within it.
  std::int64_t max_block() const { return capacity_; }
  const Shape& shape() const { return shape_; }
  const LoopOperand& operand(std::size_t i) const { return ops_[i]; }
  std::size_t num_operands() const { return ops_.size(); }

  /// The flat range [first, first + count) of block b.
  void block_range(std::int64_t b, std::int64_t& first, std::int64_t& count) const;
  /// Address of operand i's elements [first, first + count) when they are
  /// dense in memory there; null otherwise. Ranges may be any flat range.
  std::byte* dense_at(std::size_t i, std::int64_t first, std::int64_t count) const;
  /// Copies operand i's elements [first, first + count) into `dst`, densely.
  void gather(std::size_t i, std::int64_t first, std::int64_t count, std::byte* dst) const;
  /// Copies `count` dense elements from `src` into operand i at [first, first + count).
  void scatter(std::size_t i, std::int64_t first, std::int64_t count, const std::byte* src) const;

 private:
  std::int64_t row_offset(const LoopOperand& op, std::int64_t row) const;
  template <class Copy>
  void for_rows(const LoopOperand& op, std::int64_t first, std::int64_t count, Copy&& copy) const;

  Shape shape_;
  std::vector<LoopOperand> ops_;
  std::int64_t size_ = 0;
  std::int64_t inner_ = 1;  // extent of the last dim
  std::int64_t rows_ = 0;
  std::int64_t block_ = 1;
  std::int64_t capacity_ = 1;
  std::int64_t pieces_ = 0;  // pieces per row when rows are long, else 0
  std::int64_t piece_len_ = 0;
  std::int64_t rows_per_block_ = 0;
  std::int64_t num_blocks_ = 0;
};

/// Elements per block of a program with at most one instruction: it keeps
/// nothing between instructions, so long blocks only save overhead.
inline constexpr std::int64_t kSingleBlock = 8192;
/// Below this many element-operations (elements × program cost) a loop runs on
/// the calling thread: waking the workers would cost more than it saves.
inline constexpr std::int64_t kParallelWork = 1 << 16;

/// Scratch slots for a program's registers: inputs and constants keep theirs
/// for the whole run (they are loaded once per block or once per run),
/// instruction results share slots once dead.
struct ProgramPlan {
  explicit ProgramPlan(const ScalarProgram& program);
  SmallVec<int, 16> slot;  ///< Per register.
  int num_slots = 0;
};

/// Elements per block for `program`: with one instruction or none,
/// kSingleBlock; otherwise as many as keep a block of every scratch slot the
/// instructions touch (constants and results; inputs are assumed read in
/// place) within 24 KiB of L1, between 256 and 4096, a multiple of 64.
std::int64_t block_size(const ScalarProgram& program, const ProgramPlan& plan);

/// Runs a program over blocks of a loop whose first operands are the
/// program's inputs (operand i = input i), followed, when `write_outputs`, by
/// its outputs (operand num_inputs + k = output k). One per thread: it owns
/// scratch memory for a block of every register.
class BlockEvaluator {
 public:
  /// `direct[k]`: output k may be written directly by the instruction that
  /// computes it (false when an in-place input is still read afterwards).
  BlockEvaluator(const ScalarProgram& program, const ProgramPlan& plan, const Loop& loop,
                 bool write_outputs, std::span<const bool> direct = {});
  ~BlockEvaluator();
  BlockEvaluator(const BlockEvaluator&) = delete;
  BlockEvaluator& operator=(const BlockEvaluator&) = delete;

  /// Evaluates the flat range [first, first + count) (count at most the
  /// loop's max_block), and stores the outputs when the evaluator writes them.
  void eval(std::int64_t first, std::int64_t count);
  /// After eval: the `count` values of register r, densely.
  const std::byte* values(Reg r) const { return ptr_[r.id]; }

 private:
  std::byte* slot(Reg r) const;
  /// Asks the cache for part `part` of `parts` of the flat operands'
  /// elements in the block after [first, first + count), which the calling
  /// thread usually runs next. Spread over a block's instructions: the
  /// hardware prefetcher sees a block's lines read in one burst per pass,
  /// and does not run far enough ahead, so the first pass over each input
  /// waited on memory (a third of elemwise13's time at 10^6); all of them at
  /// once fill the queue of outstanding misses instead.
  void prefetch_part(std::int64_t first, std::int64_t count, std::size_t part,
                     std::size_t parts) const;

  const ScalarProgram& program_;
  const ProgramPlan& plan_;
  const Loop& loop_;
  bool write_outputs_;
  SmallVec<int, 16> instr_output_;  // output an instruction may write directly, or -1
  std::byte* scratch_ = nullptr;
  bool owns_scratch_ = false;
  std::int64_t slot_bytes_ = 0;
  SmallVec<std::byte*, 16> ptr_;
  const void* args_[3] = {};  // the operands of one instruction (arity <= 3)
};

}  // namespace rw::detail

// Elementwise kernels: checking, aliasing, threading; the blocks run in
// detail::BlockEvaluator.
#include "runtime/kernels/elemwise.hpp"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "runtime/detail/loop.hpp"
#include "runtime/detail/program_cache.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

std::string plural(std::size_t n, const char* what) {
  return fmt::format("{} {}{}", n, what, n == 1 ? "" : "s");
}

// True when `in`, broadcast to `shape`, reads exactly the elements `out`
// holds, position for position.
bool same_elements(const Tensor& in, const Tensor& out) {
  return in.dtype() == out.dtype() && in.offset() == out.offset() && in.shape() == out.shape() &&
         in.strides() == out.strides();
}

// Index of the instruction that computes register r, or -1 for an input or
// constant.
int producer(const ScalarProgram& p, Reg r) {
  const auto instrs = p.instructions();
  for (std::size_t k = 0; k < instrs.size(); ++k)
    if (instrs[k].out == r) return static_cast<int>(k);
  return -1;
}

// True when some instruction after instruction k reads register r.
bool read_after(const ScalarProgram& p, int k, Reg r) {
  const auto instrs = p.instructions();
  for (std::size_t j = static_cast<std::size_t>(k) + 1; j < instrs.size(); ++j)
    for (Reg a : instrs[j].args)
      if (a == r) return true;
  return false;
}

}  // namespace

void run_elemwise(const ScalarProgram& program, std::span<const Tensor> inputs,
                  std::span<Tensor> outputs) {
  const std::size_t nin = program.num_inputs(), nout = program.num_outputs();
  if (inputs.size() != nin)
    throw ValueError(
        fmt::format("the program takes {}, got {}", plural(nin, "input"), inputs.size()));
  if (outputs.size() != nout)
    throw ValueError(fmt::format("the program has {}, got {} output tensors",
                                 plural(nout, "output"), outputs.size()));
  Shape shape;
  bool clash = false;
  for (std::size_t i = 0; i < nin; ++i) {
    if (!inputs[i].valid()) throw ValueError(fmt::format("input {} is null", i));
    if (inputs[i].dtype() != program.input_dtype(i))
      throw ValueError(fmt::format("input {} is {}, the program expects {}", i,
                                   dtype_name(inputs[i].dtype()),
                                   dtype_name(program.input_dtype(i))));
    clash = clash || !detail::broadcast_into(shape, inputs[i].shape());
  }
  for (const Tensor& out : outputs)
    if (out.valid()) clash = clash || !detail::broadcast_into(shape, out.shape());
  if (clash) {
    // Name the two shapes that clash.
    std::vector<Shape> shapes;
    for (const Tensor& t : inputs) shapes.push_back(t.shape());
    for (const Tensor& t : outputs)
      if (t.valid()) shapes.push_back(t.shape());
    broadcast_shapes(shapes);
  }
  for (std::size_t o = 0; o < nout; ++o) {
    const Tensor& out = outputs[o];
    if (!out.valid()) continue;
    if (out.dtype() != program.output_dtype(o))
      throw ValueError(fmt::format("output {} is {}, the program computes {}", o,
                                   dtype_name(out.dtype()), dtype_name(program.output_dtype(o))));
    if (out.shape() != shape)
      throw ValueError(fmt::format("output {} has shape {}, the operands broadcast to {}", o,
                                   shape_to_string(out.shape()), shape_to_string(shape)));
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (out.strides()[d] == 0 && shape[d] > 1)
        throw ValueError(fmt::format(
            "output {} is broadcast along axis {} (stride 0) and cannot be written", o, d));
    for (std::size_t p = 0; p < o; ++p)
      if (outputs[p].valid() && outputs[p].shares_storage(out))
        throw ValueError(fmt::format("outputs {} and {} share memory", p, o));
  }

  // Everything is checked; from here on the call succeeds.
  SmallVec<const Tensor*, 8> ins;
  for (const Tensor& t : inputs) ins.push_back(&t);
  std::vector<Tensor> copies;  // inputs overlapping an output, copied first
  SmallVec<bool, 8> direct(nout, true);
  for (std::size_t i = 0; i < nin; ++i) {
    for (std::size_t o = 0; o < nout; ++o) {
      if (!outputs[o].valid() || !ins[i]->shares_storage(outputs[o])) continue;
      if (!same_elements(*ins[i], outputs[o])) {
        if (copies.empty()) copies.reserve(nin);  // pointers into it must stay valid
        copies.push_back(ins[i]->copy());
        ins[i] = &copies.back();
        break;
      }
      // In place: the instruction computing output o may write straight into
      // it only if no later instruction still reads the input.
      const int k = producer(program, program.outputs()[o]);
      if (k >= 0 && read_after(program, k, program.inputs()[i])) direct[o] = false;
    }
  }
  for (std::size_t o = 0; o < nout; ++o)
    if (!outputs[o].valid()) outputs[o] = Tensor::empty(program.output_dtype(o), shape);
  const std::int64_t size = shape_size(shape);
  if (size == 0) return;

  std::vector<detail::LoopOperand> operands;
  operands.reserve(nin + nout);
  for (const Tensor* t : ins) operands.push_back(detail::loop_operand(*t, shape));
  for (const Tensor& t : outputs) operands.push_back(detail::loop_operand(t, shape));
  const detail::ProgramPlan plan(program);
  const detail::Loop loop(shape, std::move(operands), detail::block_size(program, plan));
  auto run_blocks = [&](std::int64_t b0, std::int64_t b1) {
    detail::BlockEvaluator ev(program, plan, loop, true, direct);
    for (std::int64_t b = b0; b < b1; ++b) {
      std::int64_t first, count;
      loop.block_range(b, first, count);
      ev.eval(first, count);
    }
  };
  const std::int64_t blocks = loop.num_blocks();
  const std::int64_t work = size * (program.cost() + 1);
  const int threads = num_threads();
  if (work < detail::kParallelWork || threads == 1 || blocks == 1) {
    run_blocks(0, blocks);
  } else {
    // 16 chunks per thread (about 60 blocks, 0.2 ms, for elemwise13 at
    // 10^6): the call ends when its last chunk does, so a worker that wakes
    // late or is preempted (on a shared machine) should hold little.
    const std::int64_t grain = std::max<std::int64_t>(1, blocks / (16 * threads));
    parallel_for(blocks, grain, run_blocks);
  }
}

std::vector<Tensor> run_elemwise(const ScalarProgram& program, std::span<const Tensor> inputs) {
  std::vector<Tensor> outputs(program.num_outputs());
  run_elemwise(program, inputs, outputs);
  return outputs;
}

namespace detail {

const ScalarProgram& single_op_program(ScalarOp op, std::span<const DType> dtypes,
                                       std::optional<DType> cast_to) {
  struct Entry {
    ScalarOp op;
    SmallVec<DType, 3> dtypes;
    std::optional<DType> cast_to;
    ScalarProgram program;
  };
  // Per thread, so no lock. Never evicted, so a returned reference stays
  // valid for the thread's life even when a kernel it runs needs another
  // program; the (op, dtypes) pairs a process meets are few (at most
  // 52 ops × 8^3 dtype triples).
  thread_local std::vector<std::unique_ptr<Entry>> cache;
  for (const auto& e : cache)
    if (e->op == op && e->cast_to == cast_to &&
        std::equal(e->dtypes.begin(), e->dtypes.end(), dtypes.begin(), dtypes.end()))
      return e->program;
  auto e = std::make_unique<Entry>(Entry{op, SmallVec<DType, 3>(dtypes), cast_to, {}});
  SmallVec<Reg, 3> regs;
  for (DType t : dtypes) regs.push_back(e->program.input(t));
  e->program.output(e->program.apply(op, regs, cast_to));
  cache.push_back(std::move(e));
  return cache.back()->program;
}

}  // namespace detail

namespace {
const ScalarProgram& program_for(ScalarOp op, std::span<const Tensor> inputs) {
  SmallVec<DType, 3> dtypes;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].valid())
      throw ValueError(fmt::format("`{}`: operand {} is null", scalar_op_name(op), i));
    dtypes.push_back(inputs[i].dtype());
  }
  return detail::single_op_program(op, dtypes);
}
}  // namespace

Tensor elemwise(ScalarOp op, std::span<const Tensor> inputs) {
  const ScalarProgram& p = program_for(op, inputs);
  Tensor out;
  run_elemwise(p, inputs, std::span<Tensor>(&out, 1));
  return out;
}

Tensor elemwise(ScalarOp op, const Tensor& a) {
  return elemwise(op, std::span<const Tensor>(&a, 1));
}

Tensor elemwise(ScalarOp op, const Tensor& a, const Tensor& b) {
  const Tensor in[] = {a, b};
  return elemwise(op, in);
}

Tensor elemwise(ScalarOp op, const Tensor& a, const Tensor& b, const Tensor& c) {
  const Tensor in[] = {a, b, c};
  return elemwise(op, in);
}

void elemwise_into(ScalarOp op, std::span<const Tensor> inputs, Tensor& out) {
  const ScalarProgram& p = program_for(op, inputs);
  if (!out.valid()) throw ValueError(fmt::format("`{}`: the output is null", scalar_op_name(op)));
  if (out.dtype() != p.output_dtype(0))
    throw ValueError(fmt::format("`{}` computes {}, the output is {}", scalar_op_name(op),
                                 dtype_name(p.output_dtype(0)), dtype_name(out.dtype())));
  run_elemwise(p, inputs, std::span<Tensor>(&out, 1));
}

Tensor cast(const Tensor& x, DType dtype) {
  if (!x.valid()) throw ValueError("cast of a null tensor");
  if (x.dtype() == dtype) return x;
  const DType from = x.dtype();
  const ScalarProgram& p = detail::single_op_program(ScalarOp::Cast, std::span(&from, 1), dtype);
  Tensor out;
  run_elemwise(p, std::span<const Tensor>(&x, 1), std::span<Tensor>(&out, 1));
  return out;
}

}  // namespace rw

// What a profiled function measures: time per node and intermediate memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rw {

/// One node of a profiled function, in run order.
struct NodeProfile {
  /// The Op, as `Op::to_string` prints it.
  std::string op;
  /// The Op's C++ class without its namespace (`Elemwise`, `Composite`,
  /// `Dot`): what PyTensor's "Class" table groups by.
  std::string op_class;
  /// The node's first output in infix form, for telling nodes apart.
  std::string node;
  /// Time spent in the Op's perform over all calls.
  double seconds = 0;
  /// The bytes of the node's outputs in the last call (views and in-place
  /// outputs count their own size too).
  std::size_t output_bytes = 0;
  /// The floating-point operations of all calls, as the Op reports them for
  /// each call's shapes (Op::flops); `has_flops` is false when it does not.
  double flops = 0;
  bool has_flops = false;
  /// flops / seconds / 1e9, or 0 when either is unknown or zero.
  double gflops_per_second() const { return has_flops && seconds > 0 ? flops / seconds / 1e9 : 0; }
};

/// Counters of a function compiled with `FunctionOptions::profile`.
///
/// Intermediate bytes are the bytes of the buffers the VM holds for
/// variables that are neither inputs, constants nor outputs of the function,
/// counting each buffer a node computed (views and in-place outputs share
/// their input's buffer and are not counted again), from the moment the
/// node computes it until the VM releases it or hands it to a later node.
struct FunctionProfile {
  std::uint64_t calls = 0;
  /// Time spent inside calls, input checks and output copies included.
  double seconds = 0;
  std::vector<NodeProfile> nodes;
  /// Peak intermediate bytes and buffers of the last call.
  std::size_t last_peak_bytes = 0;
  std::size_t last_peak_buffers = 0;
  /// The largest of those over all calls.
  std::size_t peak_bytes = 0;
  std::size_t peak_buffers = 0;
  /// Node outputs computed into a buffer already in the output slot (kept
  /// from an earlier call or handed over by an earlier node) and into a new
  /// buffer, over all calls.
  std::uint64_t reused_buffers = 0;
  std::uint64_t new_buffers = 0;

  /// PyTensor's profile tables: the time by Op class, by Op and by node (with
  /// each node's output bytes), each with its share of the time in nodes,
  /// its GFLOP/s where the Ops report their work (`-` where not), and the
  /// classes and Ops sorted by time; then memory and buffer counts. An Op
  /// whose text is long (a Composite's) is written once at the end and named
  /// `[k]` in the tables, so that lines stay readable.
  std::string summary() const;
};

}  // namespace rw

// DebugMode's checks of each node a compiled function runs (FunctionOptions::
// debug_mode): shapes against infer_shape, destroy_map and view_map, repeated
// and non-contiguous runs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <span>
#include <vector>

#include "engine/compile/function.hpp"
#include "engine/compile/function_options.hpp"
#include "runtime/tensor.hpp"

namespace rw::detail {

struct Program;

/// The checks of one Program's nodes. Built once per function (the shapes
/// `infer_shape` promises become a small compiled function per node); a copy
/// has storage of its own, like the function it belongs to.
class DebugChecker {
 public:
  DebugChecker(const Program& program, DebugMode mode);

  /// Runs node k's Op through `debug_perform` on `in` into `out`, then checks
  /// what it did. Throws DebugModeError naming the node and the finding;
  /// leaves the outputs for the VM's own type check when they are missing or
  /// of another type (that is its message to give).
  void run_node(std::size_t k, std::span<const Tensor> in, std::span<Tensor> out) const;

  const DebugMode& mode() const { return mode_; }

 private:
  /// The shapes infer_shape gives for one node, as a function of the node's
  /// non-constant inputs and each input's extents.
  struct ShapeFunction {
    FunctionBase fn;
    /// Which node inputs are passed as values (the others are constants or
    /// shared variables the function reads itself).
    std::vector<std::size_t> value_inputs;
    /// The number of inferred extents per output (tensor outputs only).
    std::vector<std::size_t> ranks;
  };

  void check_shapes(std::size_t k, std::span<const Tensor> before, std::span<Tensor> out) const;
  void check_io_maps(std::size_t k, std::span<const Tensor> before, std::span<const Tensor> in,
                     std::span<Tensor> out) const;
  void check_again(std::size_t k, std::span<const Tensor> before, std::span<Tensor> out,
                   bool strided) const;
  [[noreturn]] void fail(std::size_t k, const std::string& finding) const;

  const Program* program_;
  DebugMode mode_;
  std::vector<std::optional<ShapeFunction>> shapes_;  // per step; empty: not checked
};

/// While one exists, compile_function ignores RW_FLAGS: the functions
/// DebugMode compiles for itself are not debugged, guarded or profiled.
class IgnoreEnvironmentFlags {
 public:
  IgnoreEnvironmentFlags();
  ~IgnoreEnvironmentFlags();
  IgnoreEnvironmentFlags(const IgnoreEnvironmentFlags&) = delete;
  IgnoreEnvironmentFlags& operator=(const IgnoreEnvironmentFlags&) = delete;
  static bool active();
};

}  // namespace rw::detail

// Reductions over any set of axes: sum, prod, max, min, mean, any, all,
// argmax, argmin; and a reduction of a ScalarProgram's output in one pass.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>

#include "runtime/scalar_program.hpp"
#include "runtime/small_vec.hpp"
#include "runtime/tensor.hpp"

struct rw_ctx;
struct rw_reduce_job;

namespace rw {

/// A reduction.
enum class ReduceOp : std::uint8_t { Sum, Prod, Max, Min, Mean, Any, All };

/// "sum", "prod", "max", "min", "mean", "any", "all".
std::string_view reduce_op_name(ReduceOp op);

/// The dtype a reduction of elements of `input` gives (NumPy's): sum and prod
/// of bool and integers give int64, of floats the same float; mean gives
/// float32 for float32 and float64 otherwise; max and min keep the dtype; any
/// and all give bool.
DType reduce_result_dtype(ReduceOp op, DType input);

/// The axes a reduction runs over: `Axes::all()`, or a list such as
/// `Axes{0, -1}` (negative axes count from the end; an empty list reduces
/// nothing).
class Axes {
 public:
  Axes(std::initializer_list<std::int64_t> axes) : all_(false), list_(axes) {}
  explicit Axes(std::span<const std::int64_t> axes) : all_(false), list_(axes) {}
  /// Every axis.
  static Axes all() { return Axes(AllTag{}); }

  bool is_all() const { return all_; }
  std::span<const std::int64_t> list() const { return list_; }

 private:
  struct AllTag {};
  explicit Axes(AllTag) : all_(true) {}
  bool all_;
  SmallVec<std::int64_t, 6> list_;
};

/// `op` over `axes` of `x`; reduced axes are removed, or kept with extent 1
/// when `keepdims`. Float sums are pairwise (float32 accumulates in double),
/// integer sums and products wrap in int64. Max and min propagate NaN. An
/// empty sum is 0, product 1, any false, all true, mean NaN; an empty max or
/// min throws ValueError naming the shape. Large reductions run on
/// the thread pool, with results independent of the number of threads.
Tensor reduce(ReduceOp op, const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);

/// Shorthands for reduce(ReduceOp::…, x, axes, keepdims).
Tensor sum(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor prod(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor max(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor min(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor mean(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor any(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);
Tensor all(const Tensor& x, const Axes& axes = Axes::all(), bool keepdims = false);

/// Index (int64) of the first maximum along `axis`, or of the flattened
/// tensor when `axis` is nullopt (NumPy semantics: a NaN counts as the
/// maximum). `keepdims` keeps the reduced axis (all axes for nullopt) with
/// extent 1. Throws ValueError for an empty reduction.
Tensor argmax(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
              bool keepdims = false);
/// As argmax, for the first minimum.
Tensor argmin(const Tensor& x, std::optional<std::int64_t> axis = std::nullopt,
              bool keepdims = false);

/// `op` over `axes` of the single output of `program` run on `inputs`
/// (broadcast together; axes refer to the broadcast shape), in one pass: the
/// program's values are reduced block by block and never stored, so
/// `sum(exp(x) * y)` costs one read of x and y. Input checks are those of
/// run_elemwise; the program must have exactly one output.
Tensor reduce_program(ReduceOp op, const ScalarProgram& program, std::span<const Tensor> inputs,
                      const Axes& axes = Axes::all(), bool keepdims = false);

/// The host side of a native module's reduction (runtime/native_abi.hpp's
/// rw_reduce_job, reached as a host function): reduce_program's drivers run
/// over the values the module's code computes, with the same blocks, chunks
/// and accumulation order, so the results are the interpreter's bit for bit.
/// Handles dense and one-element inputs with the reduced axes trailing (the
/// flat order of memory) or leading (the outer mode, or the inner mode over
/// (kept, reduced) through the job's eval_kr); returns kNativeFallback for an
/// empty max or min (the interpreter's ValueError), kNativeFail with
/// ctx->message when memory or threads run out.
int native_reduce(rw_ctx* ctx, const rw_reduce_job* job);

}  // namespace rw

// Cumulative sums and products: one sequential pass per line along the axis,
// lines split over the pool.
#include "runtime/kernels/cumulative.hpp"

#include <vector>

#include <fmt/format.h>

#include "runtime/detail/scalar_math.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

constexpr std::int64_t kGrainElems = 1 << 15;

template <bool kProd>
Tensor cumulative(const char* name, const Tensor& x, std::optional<std::int64_t> axis) {
  if (!x.valid()) throw ValueError(fmt::format("`{}` of a null tensor", name));
  const DType t = reduce_result_dtype(kProd ? ReduceOp::Prod : ReduceOp::Sum, x.dtype());
  // The input in the result dtype, contiguous and private; the scan then runs
  // in place.
  Tensor out = cast(x, t);
  if (out.shares_storage(x) || !out.is_contiguous()) out = out.copy();
  if (!axis) out = out.reshape(std::vector<std::int64_t>{-1});
  if (out.ndim() == 0) return out;
  const std::int64_t a = axis ? normalize_axis(*axis, out.ndim()) : 0;
  const std::int64_t n = out.shape()[static_cast<std::size_t>(a)];
  std::int64_t inner = 1, outer = 1;
  for (std::int64_t d = 0; d < out.ndim(); ++d) {
    if (d < a) outer *= out.shape()[static_cast<std::size_t>(d)];
    if (d > a) inner *= out.shape()[static_cast<std::size_t>(d)];
  }
  if (out.size() == 0 || n <= 1) return out;
  visit_dtype(t, [&]<class T>() {
    T* p = out.data<T>();
    using Step = std::conditional_t<kProd, detail::scalar::Fn<ScalarOp::Mul>,
                                    detail::scalar::Fn<ScalarOp::Add>>;
    // Each task owns whole (outer, inner range) columns and walks the axis in
    // order: the same rounding as a serial scan.
    const std::int64_t width = std::min<std::int64_t>(inner, 1024);
    const std::int64_t stripes = (inner + width - 1) / width;
    parallel_for(outer * stripes, std::max<std::int64_t>(1, kGrainElems / (n * width)),
                 [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t task = lo; task < hi; ++task) {
        const std::int64_t o = task / stripes, i0 = (task % stripes) * width;
        const std::int64_t i1 = std::min(inner, i0 + width);
        T* base = p + o * n * inner;
        for (std::int64_t k = 1; k < n; ++k) {
          const T* prev = base + (k - 1) * inner;
          T* cur = base + k * inner;
          for (std::int64_t i = i0; i < i1; ++i) cur[i] = Step::template apply<T>(prev[i], cur[i]);
        }
      }
    });
  });
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& x, std::optional<std::int64_t> axis) {
  return cumulative<false>("cumsum", x, axis);
}

Tensor cumprod(const Tensor& x, std::optional<std::int64_t> axis) {
  return cumulative<true>("cumprod", x, axis);
}

}  // namespace rw

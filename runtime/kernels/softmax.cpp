// Softmax kernels: one pass per line along the axis (max, then exp-sum, then
// the write), lines split over the pool; the gradients are fused programs.
#include "runtime/kernels/softmax.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "runtime/kernels/elemwise.hpp"
#include "runtime/kernels/reduce.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

constexpr std::int64_t kGrainElems = 1 << 14;

// The lines of `t` along `axis`: line l starts at line_offset(l) and steps by
// the axis stride.
struct Lines {
  Shape outer_shape;
  Strides outer_strides;
  std::int64_t count = 1, length = 0, stride = 0;
  std::int64_t offset(std::int64_t l) const {
    std::int64_t off = 0;
    for (std::size_t d = outer_shape.size(); d-- > 0;) {
      off += (l % outer_shape[d]) * outer_strides[d];
      l /= outer_shape[d];
    }
    return off;
  }
};

Lines lines_of(const Tensor& t, std::int64_t axis) {
  Lines ls;
  for (std::int64_t d = 0; d < t.ndim(); ++d) {
    const auto du = static_cast<std::size_t>(d);
    if (d == axis) {
      ls.length = t.shape()[du];
      ls.stride = t.strides()[du];
    } else {
      ls.outer_shape.push_back(t.shape()[du]);
      ls.outer_strides.push_back(t.strides()[du]);
      ls.count *= t.shape()[du];
    }
  }
  return ls;
}

template <bool kLog, class In, class Out>
void softmax_lines(const Tensor& x, Tensor& out, std::int64_t axis) {
  const Lines lx = lines_of(x, axis), lo = lines_of(out, axis);
  const In* src = x.data<In>();
  Out* dst = out.data<Out>();
  const std::int64_t n = lx.length;
  parallel_for(lx.count, std::max<std::int64_t>(1, kGrainElems / std::max<std::int64_t>(1, n)),
               [&](std::int64_t l0, std::int64_t l1) {
                 std::vector<double> buf(static_cast<std::size_t>(n));
                 for (std::int64_t l = l0; l < l1; ++l) {
                   const In* xs = src + lx.offset(l);
                   Out* os = dst + lo.offset(l);
                   double m = -INFINITY;
                   bool nan = false;
                   for (std::int64_t i = 0; i < n; ++i) {
                     const double v = static_cast<double>(xs[i * lx.stride]);
                     buf[static_cast<std::size_t>(i)] = v;
                     m = v > m ? v : m;
                     nan |= v != v;
                   }
                   if (nan) m = NAN;
                   double sum = 0;
                   for (std::int64_t i = 0; i < n; ++i) {
                     double& b = buf[static_cast<std::size_t>(i)];
                     b -= m;
                     sum += std::exp(b);
                   }
                   if constexpr (kLog) {
                     const double ls = std::log(sum);
                     for (std::int64_t i = 0; i < n; ++i)
                       os[i * lo.stride] = static_cast<Out>(buf[static_cast<std::size_t>(i)] - ls);
                   } else {
                     const double inv = 1.0 / sum;
                     for (std::int64_t i = 0; i < n; ++i)
                       os[i * lo.stride] =
                           static_cast<Out>(std::exp(buf[static_cast<std::size_t>(i)]) * inv);
                   }
                 }
               });
}

template <bool kLog> Tensor softmax_impl(const char* name, const Tensor& x, std::int64_t axis) {
  if (!x.valid()) throw ValueError(fmt::format("`{}` of a null tensor", name));
  if (x.ndim() == 0) throw ValueError(fmt::format("`{}` of a 0-d tensor", name));
  const std::int64_t a = normalize_axis(axis, x.ndim());
  const DType t = float_result(x.dtype());
  Tensor out = Tensor::empty(t, x.shape());
  if (out.size() == 0) return out;
  visit_dtype(x.dtype(), [&]<class In>() {
    if (t == DType::Float32) softmax_lines<kLog, In, float>(x, out, a);
    else softmax_lines<kLog, In, double>(x, out, a);
  });
  return out;
}

void check_pair(const char* name, const Tensor& dy, const Tensor& y) {
  if (!dy.valid() || !y.valid()) throw ValueError(fmt::format("`{}`: null operand", name));
  if (dy.shape() != y.shape())
    throw ValueError(fmt::format("`{}`: dy has shape {}, the output has {}", name,
                                 shape_to_string(dy.shape()), shape_to_string(y.shape())));
}

}  // namespace

Tensor softmax(const Tensor& x, std::int64_t axis) {
  return softmax_impl<false>("softmax", x, axis);
}

Tensor log_softmax(const Tensor& x, std::int64_t axis) {
  return softmax_impl<true>("log_softmax", x, axis);
}

Tensor softmax_grad(const Tensor& dy, const Tensor& sm, std::int64_t axis) {
  check_pair("softmax_grad", dy, sm);
  const std::int64_t a = normalize_axis(axis, sm.ndim());
  ScalarProgram prod;
  prod.output(prod.apply(ScalarOp::Mul, {prod.input(dy.dtype()), prod.input(sm.dtype())}));
  const Tensor both[] = {dy, sm};
  const Tensor s = reduce_program(ReduceOp::Sum, prod, both, Axes{a}, true);
  // sm * (dy - s), fused.
  ScalarProgram p;
  const Reg d = p.input(dy.dtype()), y = p.input(sm.dtype()), r = p.input(s.dtype());
  p.output(p.apply(ScalarOp::Mul, {y, p.apply(ScalarOp::Sub, {d, r})}));
  const Tensor in[] = {dy, sm, s};
  return run_elemwise(p, in)[0];
}

Tensor log_softmax_grad(const Tensor& dy, const Tensor& lsm, std::int64_t axis) {
  check_pair("log_softmax_grad", dy, lsm);
  const std::int64_t a = normalize_axis(axis, lsm.ndim());
  const Tensor s = sum(dy, Axes{a}, true);
  // dy - exp(lsm) * s, fused.
  ScalarProgram p;
  const Reg d = p.input(dy.dtype()), l = p.input(lsm.dtype()), r = p.input(s.dtype());
  p.output(p.apply(ScalarOp::Sub, {d, p.apply(ScalarOp::Mul, {p.apply(ScalarOp::Exp, {l}), r})}));
  const Tensor in[] = {dy, lsm, s};
  return run_elemwise(p, in)[0];
}

}  // namespace rw

// Linear algebra kernels; with kernels/decomp.cpp, the only translation units
// that include Eigen (through detail/eigen_dense.hpp): operands are mapped in
// place (Eigen::Map with an outer stride, transposed when column-major) and
// copied only when neither layout fits.
#include "runtime/kernels/linalg.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/LU>
#include <fmt/format.h>

#include "runtime/detail/eigen_dense.hpp"
#include "runtime/detail/scalar_math.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/scalar_program.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

using detail::check_valid;

namespace {

// Products below this many multiply-adds run on one thread.
constexpr std::int64_t kParallelMacs = std::int64_t{1} << 20;

// A 2-d operand as Eigen sees it: `stored` is a row-major matrix with outer
// stride `ld` at `data`; the logical matrix (rows × cols) is `stored`, or its
// transpose when `trans` (then `stored` is cols × rows).
struct MatView {
  std::byte* data = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 1;
  bool trans = false;
  MatView transposed() const { return {data, cols, rows, ld, !trans}; }
};

std::optional<MatView> view_of(const Tensor& t) {
  const std::int64_t r = t.shape()[0], c = t.shape()[1];
  const std::int64_t s0 = t.strides()[0], s1 = t.strides()[1];
  auto* data = static_cast<std::byte*>(const_cast<void*>(t.raw_data()));
  if ((c <= 1 || s1 == 1) && (r <= 1 || s0 >= std::max<std::int64_t>(c, 1)))
    return MatView{data, r, c, r <= 1 ? std::max<std::int64_t>(c, 1) : s0, false};
  if ((r <= 1 || s0 == 1) && (c <= 1 || s1 >= std::max<std::int64_t>(r, 1)))
    return MatView{data, r, c, c <= 1 ? std::max<std::int64_t>(r, 1) : s1, true};
  return std::nullopt;
}

// `t` as a MatView; when its layout does not map, a contiguous copy is made
// and kept alive in `keep`.
MatView mat_view(const Tensor& t, Tensor& keep) {
  if (auto v = view_of(t)) return *v;
  keep = t.copy();
  return *view_of(keep);
}

using detail::RowMat;
template <class T>
using ConstMap = Eigen::Map<const RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T> using MutMap = Eigen::Map<RowMat<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class T> const T* ptr(const MatView& v) {
  return reinterpret_cast<const T*>(v.data);
}

// Calls f(M) with M the Eigen expression of rows [r0, r0 + nr) and columns
// [c0, c0 + nc) of the logical matrix of v.
template <class T, class F>
void with_block(const MatView& v, std::int64_t r0, std::int64_t nr, std::int64_t c0,
                std::int64_t nc, F&& f) {
  if (!v.trans) {
    f(ConstMap<T>(ptr<T>(v) + r0 * v.ld + c0, nr, nc, Eigen::OuterStride<>(v.ld)));
  } else {
    f(ConstMap<T>(ptr<T>(v) + c0 * v.ld + r0, nc, nr, Eigen::OuterStride<>(v.ld)).transpose());
  }
}

// c[r0:r0+nr, c0:c0+nc] = alpha a[r0:r0+nr, :] b[:, c0:c0+nc] + beta c[…], c row-major.
template <class T>
void gemm_block(const MatView& c, const MatView& a, const MatView& b, T alpha, T beta,
                std::int64_t r0, std::int64_t nr, std::int64_t c0, std::int64_t nc) {
  MutMap<T> C(reinterpret_cast<T*>(c.data) + r0 * c.ld + c0, nr, nc, Eigen::OuterStride<>(c.ld));
  const std::int64_t k = a.cols;
  with_block<T>(a, r0, nr, 0, k, [&](const auto& A) {
    with_block<T>(b, 0, k, c0, nc, [&](const auto& B) {
      if (beta == T(0)) {
        C.noalias() = alpha * A * B;
      } else {
        if (beta != T(1)) C *= beta;
        C.noalias() += alpha * A * B;
      }
    });
  });
}

// Float gemm on views; c not transposed and not overlapping a or b.
template <class T>
void gemm_float(const MatView& c, const MatView& a, const MatView& b, T alpha, T beta) {
  const std::int64_t m = c.rows, n = c.cols, k = a.cols;
  if (m == 0 || n == 0) return;
  const std::int64_t threads = num_threads();
  if (m * n * k < kParallelMacs || threads == 1) {
    gemm_block<T>(c, a, b, alpha, beta, 0, m, 0, n);
    return;
  }
  // One task per thread, along the longer side of c, in multiples of 16 so
  // that each task keeps Eigen's register blocking whole.
  const bool by_rows = m >= n;
  const std::int64_t extent = by_rows ? m : n;
  std::int64_t step = (extent + threads - 1) / threads;
  step = (step + 15) / 16 * 16;
  parallel_for(extent, step, [&](std::int64_t lo, std::int64_t hi) {
    if (by_rows) gemm_block<T>(c, a, b, alpha, beta, lo, hi - lo, 0, n);
    else gemm_block<T>(c, a, b, alpha, beta, 0, m, lo, hi - lo);
  });
}

// Integer gemm: a plain i-k-j loop on contiguous copies, wrapping like the
// elementwise ops, writing c through its strides.
template <class T>
void gemm_int(Tensor& c, const Tensor& a, const Tensor& b, double alpha, double beta) {
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  const T* pa = ac.data<T>();
  const T* pb = bc.data<T>();
  T* pc = c.data<T>();
  const std::int64_t m = c.shape()[0], n = c.shape()[1], k = a.shape()[1];
  const std::int64_t cs0 = c.strides()[0], cs1 = c.strides()[1];
  const T al = detail::scalar::convert<T>(alpha), be = detail::scalar::convert<T>(beta);
  using Add = detail::scalar::Fn<ScalarOp::Add>;
  using Mul = detail::scalar::Fn<ScalarOp::Mul>;
  const std::int64_t grain =
      std::max<std::int64_t>(1, kParallelMacs / std::max<std::int64_t>(1, n * k));
  parallel_for(m, grain, [&](std::int64_t lo, std::int64_t hi) {
    std::vector<T> row(static_cast<std::size_t>(n));
    for (std::int64_t i = lo; i < hi; ++i) {
      std::fill(row.begin(), row.end(), T(0));
      for (std::int64_t p = 0; p < k; ++p) {
        const T av = pa[i * k + p];
        const T* brow = pb + p * n;
        for (std::int64_t j = 0; j < n; ++j)
          row[static_cast<std::size_t>(j)] =
              Add::apply<T>(row[static_cast<std::size_t>(j)], Mul::apply<T>(av, brow[j]));
      }
      for (std::int64_t j = 0; j < n; ++j) {
        T& out = pc[i * cs0 + j * cs1];
        const T prod = Mul::apply<T>(al, row[static_cast<std::size_t>(j)]);
        out = be == T(0) ? prod : Add::apply<T>(prod, Mul::apply<T>(be, out));
      }
    }
  });
}

// c ← alpha a b + beta c for checked 2-d operands of one dtype, c not
// overlapping a or b.
void gemm_checked(Tensor& c, double alpha, const Tensor& a, const Tensor& b, double beta) {
  if (!is_float(c.dtype())) {
    visit_dtype(c.dtype(), [&]<class T>() {
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
        gemm_int<T>(c, a, b, alpha, beta);
    });
    return;
  }
  Tensor c_copy;
  std::optional<MatView> cv = view_of(c);
  if (!cv) {
    // An output Eigen cannot map: compute into a contiguous copy, write back.
    c_copy = c.copy();
    cv = view_of(c_copy);
  }
  Tensor ka, kb;
  MatView av = mat_view(a, ka), bv = mat_view(b, kb), out = *cv;
  if (out.trans) {
    // Column-major c: compute c^T = b^T a^T, which is row-major.
    out = out.transposed();
    std::swap(av, bv);
    av = av.transposed();
    bv = bv.transposed();
  }
  if (c.dtype() == DType::Float64) gemm_float<double>(out, av, bv, alpha, beta);
  else gemm_float<float>(out, av, bv, static_cast<float>(alpha), static_cast<float>(beta));
  if (c_copy.valid()) c.assign(c_copy);
}

std::string dtypes3(const Tensor& a, const Tensor& b, const Tensor& c) {
  return fmt::format("{}, {} and {}", dtype_name(a.dtype()), dtype_name(b.dtype()),
                     dtype_name(c.dtype()));
}

// c ← alpha a b + beta c, through a temporary when c overlaps an operand.
void gemm_any(Tensor& c, double alpha, const Tensor& a, const Tensor& b, double beta) {
  if (c.shares_storage(a) || c.shares_storage(b)) {
    Tensor tmp = Tensor::empty(c.dtype(), c.shape());
    gemm_checked(tmp, alpha, a, b, 0.0);
    if (beta == 0.0) {
      c.assign(tmp);
    } else {
      const Tensor scaled = elemwise(ScalarOp::Mul, c, Tensor::scalar(beta, c.dtype()));
      elemwise_into(ScalarOp::Add, std::vector<Tensor>{tmp, scaled}, c);
    }
    return;
  }
  gemm_checked(c, alpha, a, b, beta);
}

// A batch of matrices: element (i, j) of matrix `batch` (flat index over the
// broadcast batch shape) of `t`, which has shape batch_shape + (r, c).
Tensor matrix_at(const Tensor& t, const Shape& batch_shape, std::int64_t batch) {
  std::int64_t off = t.offset();
  for (std::size_t d = batch_shape.size(); d-- > 0;) {
    off += (batch % batch_shape[d]) * t.strides()[d];
    batch /= batch_shape[d];
  }
  const std::size_t nd = t.shape().size();
  return TensorAccess::make(t.storage(), t.dtype(), Shape{t.shape()[nd - 2], t.shape()[nd - 1]},
                            Strides{t.strides()[nd - 2], t.strides()[nd - 1]}, off);
}

}  // namespace

void gemm(Tensor& c, double alpha, const Tensor& a, const Tensor& b, double beta) {
  check_valid("gemm", {&c, &a, &b});
  if (a.ndim() != 2 || b.ndim() != 2 || c.ndim() != 2)
    throw ValueError(fmt::format("`gemm` needs 2-d a, b and c, got shapes {}, {} and {}",
                                 shape_to_string(a.shape()), shape_to_string(b.shape()),
                                 shape_to_string(c.shape())));
  if (a.dtype() != c.dtype() || b.dtype() != c.dtype() || is_bool(c.dtype()))
    throw ValueError(
        fmt::format("`gemm` needs a, b and c of one numeric dtype, got {}", dtypes3(a, b, c)));
  if (a.shape()[1] != b.shape()[0] || c.shape()[0] != a.shape()[0] || c.shape()[1] != b.shape()[1])
    throw ValueError(fmt::format("`gemm` shapes do not fit: a {} @ b {} into c {}",
                                 shape_to_string(a.shape()), shape_to_string(b.shape()),
                                 shape_to_string(c.shape())));
  if (c.size() > 1)
    for (int d = 0; d < 2; ++d)
      if (c.strides()[static_cast<std::size_t>(d)] == 0 &&
          c.shape()[static_cast<std::size_t>(d)] > 1)
        throw ValueError("`gemm`: c is broadcast (stride 0) and cannot be written");
  gemm_any(c, alpha, a, b, beta);
}

void gemv(Tensor& y, double alpha, const Tensor& a, const Tensor& x, double beta) {
  check_valid("gemv", {&y, &a, &x});
  if (a.ndim() != 2 || x.ndim() != 1 || y.ndim() != 1)
    throw ValueError(fmt::format("`gemv` needs 2-d a, 1-d x and 1-d y, got shapes {}, {} and {}",
                                 shape_to_string(a.shape()), shape_to_string(x.shape()),
                                 shape_to_string(y.shape())));
  if (a.dtype() != y.dtype() || x.dtype() != y.dtype() || is_bool(y.dtype()))
    throw ValueError(
        fmt::format("`gemv` needs a, x and y of one numeric dtype, got {}", dtypes3(a, x, y)));
  if (a.shape()[1] != x.shape()[0] || a.shape()[0] != y.shape()[0])
    throw ValueError(fmt::format("`gemv` shapes do not fit: a {} @ x {} into y {}",
                                 shape_to_string(a.shape()), shape_to_string(x.shape()),
                                 shape_to_string(y.shape())));
  if (y.strides()[0] == 0 && y.shape()[0] > 1)
    throw ValueError("`gemv`: y is broadcast (stride 0) and cannot be written");
  // y and x as column matrices: Eigen picks its matrix-vector kernel for n == 1.
  Tensor ycol = y.expand_dims(1);
  gemm_any(ycol, alpha, a, x.expand_dims(1), beta);
}

Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& reuse) {
  check_valid("matmul", {&a, &b});
  // Built only for a message: a small product is called once per loop step.
  const auto shapes = [&] {
    return fmt::format("shapes {} and {}", shape_to_string(a.shape()), shape_to_string(b.shape()));
  };
  if (a.ndim() == 0 || b.ndim() == 0)
    throw ValueError(fmt::format("`matmul` does not take 0-d operands ({}); use `mul`", shapes()));
  const DType t = promote(a.dtype(), b.dtype());
  const Tensor A = a.ndim() == 1 ? cast(a, t).expand_dims(0) : cast(a, t);
  const Tensor B = b.ndim() == 1 ? cast(b, t).expand_dims(1) : cast(b, t);
  const std::size_t na = A.shape().size(), nb = B.shape().size();
  const std::int64_t m = A.shape()[na - 2], k = A.shape()[na - 1];
  const std::int64_t k2 = B.shape()[nb - 2], n = B.shape()[nb - 1];
  if (k != k2)
    throw ValueError(
        fmt::format("`matmul` of {}: the inner dimensions {} and {} differ", shapes(), k, k2));
  const Shape batch_a(A.shape().begin(), A.shape().end() - 2);
  const Shape batch_b(B.shape().begin(), B.shape().end() - 2);
  Shape batch;
  try {
    batch = broadcast_shapes(batch_a, batch_b);
  } catch (const ValueError&) {
    throw ValueError(fmt::format("`matmul` of {}: batch shapes {} and {} cannot be broadcast",
                                 shapes(), shape_to_string(batch_a), shape_to_string(batch_b)));
  }
  if (is_bool(t)) {
    // Or of ands: the integer product of 0/1 values is nonzero where a term was.
    return cast(matmul(cast(a, DType::Int64), cast(b, DType::Int64)), DType::Bool);
  }
  Shape full = batch;
  full.push_back(m);
  full.push_back(n);
  Shape result = batch;
  if (a.ndim() > 1) result.push_back(m);
  if (b.ndim() > 1) result.push_back(n);
  const bool reused = reuse.valid() && reuse.dtype() == t && reuse.is_contiguous() &&
                      reuse.shape() == result && !reuse.shares_storage(a) &&
                      !reuse.shares_storage(b);
  Tensor out = reused ? reuse.reshape(full) : Tensor::empty(t, full);
  const std::int64_t batches = shape_size(batch);
  if (batches == 1 || shape_size(full) == 0) {
    if (shape_size(full) != 0) {
      Tensor c = out.reshape(std::vector<std::int64_t>{m, n});
      gemm_any(c, 1.0, matrix_at(A, batch_a, 0), matrix_at(B, batch_b, 0), 0.0);
    }
  } else if (batch_b.empty() && A.is_contiguous()) {
    // A stack of matrices times one matrix is one tall product.
    Tensor c = out.reshape(std::vector<std::int64_t>{batches * m, n});
    gemm_any(c, 1.0, A.reshape(std::vector<std::int64_t>{batches * m, k}), B, 0.0);
  } else {
    Shape ba = batch, bb = batch;
    ba.push_back(m);
    ba.push_back(k);
    bb.push_back(k);
    bb.push_back(n);
    const Tensor Ab = A.broadcast_to(ba), Bb = B.broadcast_to(bb);
    const std::int64_t grain =
        std::max<std::int64_t>(1, kParallelMacs / std::max<std::int64_t>(1, m * n * k));
    parallel_for(batches, grain, [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t i = lo; i < hi; ++i) {
        Tensor c = matrix_at(out, batch, i);
        gemm_checked(c, 1.0, matrix_at(Ab, batch, i), matrix_at(Bb, batch, i), 0.0);
      }
    });
  }
  return reused ? reuse : out.reshape(result);
}

Tensor dot(const Tensor& a, const Tensor& b) {
  check_valid("dot", {&a, &b});
  if (a.ndim() > 2 || b.ndim() > 2)
    throw ValueError(fmt::format(
        "`dot` takes operands of at most 2 dimensions, got shapes {} and {}; use `matmul`",
        shape_to_string(a.shape()), shape_to_string(b.shape())));
  if (a.ndim() == 0 || b.ndim() == 0) return elemwise(ScalarOp::Mul, a, b);
  return matmul(a, b);
}

void ger(Tensor& a, double alpha, const Tensor& x, const Tensor& y) {
  check_valid("ger", {&a, &x, &y});
  if (a.ndim() != 2 || x.ndim() != 1 || y.ndim() != 1)
    throw ValueError(fmt::format("`ger` needs 2-d a, 1-d x and 1-d y, got shapes {}, {} and {}",
                                 shape_to_string(a.shape()), shape_to_string(x.shape()),
                                 shape_to_string(y.shape())));
  if (x.dtype() != a.dtype() || y.dtype() != a.dtype() || is_bool(a.dtype()))
    throw ValueError(
        fmt::format("`ger` needs a, x and y of one numeric dtype, got {}", dtypes3(a, x, y)));
  if (a.shape()[0] != x.shape()[0] || a.shape()[1] != y.shape()[0])
    throw ValueError(fmt::format("`ger` shapes do not fit: x {} yᵀ {} into a {}",
                                 shape_to_string(x.shape()), shape_to_string(y.shape()),
                                 shape_to_string(a.shape())));
  // a + (alpha x) y, one fused elementwise pass, in place (overlap handled there).
  ScalarProgram p;
  const DType t = a.dtype();
  const Reg ar = p.input(t), xr = p.input(t), yr = p.input(t);
  const Reg ax = p.apply(ScalarOp::Mul, {p.constant(alpha, t), xr});
  p.output(p.apply(ScalarOp::Add, {ar, p.apply(ScalarOp::Mul, {ax, yr})}));
  const Tensor in[] = {a, x.expand_dims(1), y.expand_dims(0)};
  run_elemwise(p, in, std::span<Tensor>(&a, 1));
}

Tensor outer(const Tensor& x, const Tensor& y) {
  check_valid("outer", {&x, &y});
  if (x.ndim() != 1 || y.ndim() != 1)
    throw ValueError(fmt::format("`outer` takes 1-d operands, got shapes {} and {}",
                                 shape_to_string(x.shape()), shape_to_string(y.shape())));
  return elemwise(ScalarOp::Mul, x.expand_dims(1), y.expand_dims(0));
}

using detail::check_square;
using detail::eigen_copy;
using detail::from_eigen;
using detail::visit_float;

Tensor matrix_inverse(const Tensor& a) {
  check_square("matrix_inverse", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::FullPivLU<RowMat<T>> lu(eigen_copy<T>(a));
    if (!lu.isInvertible()) throw ValueError("`matrix_inverse`: the matrix is singular");
    return from_eigen<T>(lu.inverse(), a.shape());
  });
}

Tensor det(const Tensor& a) {
  check_square("det", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const T d = a.shape()[0] == 0 ? T(1) : Eigen::PartialPivLU<RowMat<T>>(eigen_copy<T>(a)).determinant();
    return Tensor::scalar(d);
  });
}

Tensor solve(const Tensor& a, const Tensor& b) {
  check_square("solve", a);
  check_valid("solve", {&b});
  if ((b.ndim() != 1 && b.ndim() != 2) || b.shape()[0] != a.shape()[0] || b.dtype() != a.dtype())
    throw ValueError(fmt::format("`solve`: b of dtype {} and shape {} does not fit a of shape {}",
                                 dtype_name(b.dtype()), shape_to_string(b.shape()),
                                 shape_to_string(a.shape())));
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::FullPivLU<RowMat<T>> lu(eigen_copy<T>(a));
    if (!lu.isInvertible()) throw ValueError("`solve`: the matrix is singular");
    return from_eigen<T>(lu.solve(eigen_copy<T>(b)), b.shape());
  });
}

}  // namespace rw

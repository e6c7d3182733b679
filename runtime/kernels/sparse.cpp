// The sparse kernels: Eigen maps over packed values for the products, sums
// and conversions, plain loops where the pattern is kept as it is.
#include "runtime/kernels/sparse.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <type_traits>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <fmt/format.h>

#include "support/error.hpp"

namespace rw {

namespace {

template <class T, int Opt> using SpMat = Eigen::SparseMatrix<T, Opt, SparseIndex>;
template <class T>
using DenseMap = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
template <class T>
using DenseOut = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

template <int Opt> constexpr SparseFormat format_of() {
  return Opt == Eigen::RowMajor ? SparseFormat::Csr : SparseFormat::Csc;
}

template <class T, int Opt> Eigen::Map<const SpMat<T, Opt>> eigen_map(const SparseView& v) {
  return {v.rows, v.cols, v.nnz, v.indptr, v.indices, v.values<T>()};
}

// Calls f with the Eigen map of `v` (one of four types: two dtypes, two orders).
template <class F> Tensor visit_sparse(const SparseView& v, F&& f) {
  const bool csr = v.format == SparseFormat::Csr;
  if (v.dtype == DType::Float32)
    return csr ? f(eigen_map<float, Eigen::RowMajor>(v)) : f(eigen_map<float, Eigen::ColMajor>(v));
  return csr ? f(eigen_map<double, Eigen::RowMajor>(v)) : f(eigen_map<double, Eigen::ColMajor>(v));
}

// Calls f.template operator()<T>() for a float dtype.
template <class F> Tensor visit_float(DType d, F&& f) {
  if (d == DType::Float32) return f.template operator()<float>();
  return f.template operator()<double>();
}

// A packed copy of an Eigen matrix, its inner indices sorted within each
// outer slice (products may leave them in the order they were found).
template <class M> Tensor pack(M&& m) {
  using T = typename std::decay_t<M>::Scalar;
  constexpr int Opt = std::decay_t<M>::IsRowMajor ? Eigen::RowMajor : Eigen::ColMajor;
  m.makeCompressed();
  SparseBuffer b = allocate_sparse(format_of<Opt>(), dtype_of<T>(), m.rows(), m.cols(), m.nonZeros());
  const std::int64_t outer = m.outerSize();
  std::memcpy(b.indptr, m.outerIndexPtr(), static_cast<std::size_t>(outer + 1) * sizeof(SparseIndex));
  std::memcpy(b.indices, m.innerIndexPtr(), static_cast<std::size_t>(m.nonZeros()) * sizeof(SparseIndex));
  std::memcpy(b.data, m.valuePtr(), static_cast<std::size_t>(m.nonZeros()) * sizeof(T));
  std::vector<std::pair<SparseIndex, T>> slice;
  for (std::int64_t o = 0; o < outer; ++o) {
    const SparseIndex lo = b.indptr[o], hi = b.indptr[o + 1];
    if (std::is_sorted(b.indices + lo, b.indices + hi)) continue;
    slice.clear();
    for (SparseIndex k = lo; k < hi; ++k) slice.emplace_back(b.indices[k], b.values<T>()[k]);
    std::sort(slice.begin(), slice.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
    for (SparseIndex k = lo; k < hi; ++k) {
      b.indices[k] = slice[static_cast<std::size_t>(k - lo)].first;
      b.values<T>()[k] = slice[static_cast<std::size_t>(k - lo)].second;
    }
  }
  return b.value;
}

void require(bool ok, const std::string& message) {
  if (!ok) throw ValueError(message);
}

std::string shape_of(const SparseView& v) { return fmt::format("({}, {})", v.rows, v.cols); }

// A value of v's format and shape holding v's pattern, its data to be filled.
SparseBuffer same_pattern(const SparseView& v, SparseFormat format, std::int64_t rows,
                          std::int64_t cols) {
  SparseBuffer b = allocate_sparse(format, v.dtype, rows, cols, v.nnz);
  std::memcpy(b.indptr, v.indptr, static_cast<std::size_t>(v.outer() + 1) * sizeof(SparseIndex));
  std::memcpy(b.indices, v.indices, static_cast<std::size_t>(v.nnz) * sizeof(SparseIndex));
  return b;
}
SparseBuffer same_pattern(const SparseView& v) { return same_pattern(v, v.format, v.rows, v.cols); }

// Calls f(row, column, k) for each stored entry k, in storage order.
template <class F> void for_each_entry(const SparseView& v, F&& f) {
  const bool csr = v.format == SparseFormat::Csr;
  for (std::int64_t q = 0; q < v.outer(); ++q)
    for (SparseIndex k = v.indptr[q]; k < v.indptr[q + 1]; ++k) {
      const std::int64_t i = v.indices[k];
      f(csr ? q : i, csr ? i : q, static_cast<std::int64_t>(k));
    }
}

}  // namespace

Tensor sparse_convert(const Tensor& s, SparseFormat format, DType dtype) {
  const SparseView v = sparse_view(s);
  require(is_sparse_dtype(dtype),
          fmt::format("a sparse matrix holds float32 or float64 values, not {}", dtype_name(dtype)));
  if (v.format == format && v.dtype == dtype) return s;
  return visit_sparse(v, [&](const auto& m) {
    return visit_float(dtype, [&]<class U>() {
      if (format == SparseFormat::Csr) return pack(SpMat<U, Eigen::RowMajor>(m.template cast<U>()));
      return pack(SpMat<U, Eigen::ColMajor>(m.template cast<U>()));
    });
  });
}

Tensor sparse_transpose(const Tensor& s) {
  const SparseView v = sparse_view(s);
  SparseBuffer b = same_pattern(v, other_format(v.format), v.cols, v.rows);
  std::memcpy(b.data, v.data, static_cast<std::size_t>(v.nnz) * itemsize(v.dtype));
  return b.value;
}

Tensor sparse_dense_dot(const Tensor& s, const Tensor& d, Tensor out, bool transpose_s) {
  const SparseView v = sparse_view(s);
  require(d.valid() && (d.ndim() == 1 || d.ndim() == 2) && d.dtype() == v.dtype,
          fmt::format("sparse_dense_dot: the dense operand must be a {} vector or matrix",
                      dtype_name(v.dtype)));
  const std::int64_t rows = transpose_s ? v.cols : v.rows, inner = transpose_s ? v.rows : v.cols;
  const std::int64_t k = d.shape()[0], n = d.ndim() == 2 ? d.shape()[1] : 1;
  require(k == inner, fmt::format("sparse_dense_dot: a sparse {}{} and a dense {} do not multiply",
                                  shape_of(v), transpose_s ? " transposed" : "",
                                  shape_to_string(d.shape())));
  Shape out_shape{rows};
  if (d.ndim() == 2) out_shape.push_back(n);
  const bool reuse = out.valid() && out.dtype() == v.dtype && out.shape() == out_shape &&
                     out.is_contiguous();
  if (!reuse) out = Tensor::empty(v.dtype, out_shape);
  const Tensor dc = d.contiguous();
  return visit_sparse(v, [&](const auto& m) {
    using T = typename std::decay_t<decltype(m)>::Scalar;
    DenseOut<T> o(out.data<T>(), rows, n);
    if (transpose_s)
      o.noalias() = m.transpose() * DenseMap<T>(dc.data<T>(), k, n);
    else
      o.noalias() = m * DenseMap<T>(dc.data<T>(), k, n);
    return out;
  });
}

Tensor sparse_sparse_dot(const Tensor& a, const Tensor& b) {
  const SparseView va = sparse_view(a), vb = sparse_view(b);
  require(va.dtype == vb.dtype, "sparse_sparse_dot: the operands' dtypes differ");
  require(va.cols == vb.rows, fmt::format("sparse_sparse_dot: a sparse {} and a sparse {} do not multiply",
                                          shape_of(va), shape_of(vb)));
  return visit_sparse(va, [&](const auto& ma) {
    return visit_sparse(vb, [&](const auto& mb) {
      using A = std::decay_t<decltype(ma)>;
      using B = std::decay_t<decltype(mb)>;
      if constexpr (!std::is_same_v<typename A::Scalar, typename B::Scalar>) {
        return Tensor();  // dtypes checked above
      } else {
        using T = typename A::Scalar;
        constexpr int Opt = A::IsRowMajor ? Eigen::RowMajor : Eigen::ColMajor;
        // Eigen multiplies operands of one storage order; b is converted when its differs.
        const SpMat<T, Opt> bb(mb);
        return pack(SpMat<T, Opt>(ma * bb));
      }
    });
  });
}

Tensor sparse_add(const Tensor& a, const Tensor& b) {
  const SparseView va = sparse_view(a), vb = sparse_view(b);
  require(va.dtype == vb.dtype && va.format == vb.format,
          "sparse_add: the operands differ in format or dtype");
  require(va.rows == vb.rows && va.cols == vb.cols,
          fmt::format("sparse_add: shapes {} and {} differ", shape_of(va), shape_of(vb)));
  return visit_sparse(va, [&](const auto& ma) {
    using M = std::decay_t<decltype(ma)>;
    using T = typename M::Scalar;
    constexpr int Opt = M::IsRowMajor ? Eigen::RowMajor : Eigen::ColMajor;
    return pack(SpMat<T, Opt>(ma + eigen_map<T, Opt>(vb)));
  });
}

Tensor sparse_add_dense(const Tensor& s, const Tensor& d) {
  const SparseView v = sparse_view(s);
  require(d.valid() && d.ndim() == 2 && d.shape()[0] == v.rows && d.shape()[1] == v.cols &&
              d.dtype() == v.dtype,
          fmt::format("sparse_add_dense: the dense operand must be a {} matrix of shape {}",
                      dtype_name(v.dtype), shape_of(v)));
  Tensor out = d.copy();
  return visit_float(v.dtype, [&]<class T>() {
    T* o = out.data<T>();
    for_each_entry(v, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
      o[r * v.cols + c] += v.values<T>()[k];
    });
    return out;
  });
}

Tensor sparse_mul_dense(const Tensor& s, const Tensor& d) {
  const SparseView v = sparse_view(s);
  require(d.valid() && d.ndim() <= 2 && d.dtype() == v.dtype,
          fmt::format("sparse_mul_dense: the dense operand must be a {} tensor of rank 0 to 2",
                      dtype_name(v.dtype)));
  const std::int64_t target[] = {v.rows, v.cols};
  const Tensor db = d.broadcast_to(target);  // throws ValueError when it does not broadcast
  const std::int64_t s0 = db.strides()[0], s1 = db.strides()[1];
  SparseBuffer b = same_pattern(v);
  return visit_float(v.dtype, [&]<class T>() {
    const T* x = db.data<T>();
    for_each_entry(v, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
      b.values<T>()[k] = v.values<T>()[k] * x[r * s0 + c * s1];
    });
    return b.value;
  });
}

Tensor sparse_sum(const Tensor& s, int axis) {
  const SparseView v = sparse_view(s);
  require(axis >= -1 && axis <= 1, fmt::format("sparse_sum: axis {} is not none, 0 or 1", axis));
  return visit_float(v.dtype, [&]<class T>() {
    if (axis < 0) {
      T total = 0;
      for (std::int64_t k = 0; k < v.nnz; ++k) total += v.values<T>()[k];
      return Tensor::scalar<T>(total);
    }
    Tensor out = Tensor::zeros({axis == 0 ? v.cols : v.rows}, v.dtype);
    T* o = out.data<T>();
    for_each_entry(v, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
      o[axis == 0 ? c : r] += v.values<T>()[k];
    });
    return out;
  });
}

Tensor sampling_dot(const Tensor& x, const Tensor& y, const Tensor& p) {
  const SparseView v = sparse_view(p);
  require(x.valid() && y.valid() && x.ndim() == 2 && y.ndim() == 2 && x.dtype() == v.dtype &&
              y.dtype() == v.dtype,
          fmt::format("sampling_dot: x and y must be {} matrices", dtype_name(v.dtype)));
  require(x.shape()[0] == v.rows && y.shape()[0] == v.cols && x.shape()[1] == y.shape()[1],
          fmt::format("sampling_dot: x {} and y {} do not give the pattern's shape {} as x · yᵀ",
                      shape_to_string(x.shape()), shape_to_string(y.shape()), shape_of(v)));
  const Tensor xc = x.contiguous(), yc = y.contiguous();
  const std::int64_t kk = x.shape()[1];
  SparseBuffer b = same_pattern(v);
  return visit_float(v.dtype, [&]<class T>() {
    const T* xd = xc.data<T>();
    const T* yd = yc.data<T>();
    for_each_entry(v, [&](std::int64_t r, std::int64_t c, std::int64_t k) {
      T acc = 0;
      for (std::int64_t j = 0; j < kk; ++j) acc += xd[r * kk + j] * yd[c * kk + j];
      b.values<T>()[k] = v.values<T>()[k] * acc;
    });
    return b.value;
  });
}

Tensor sparse_values_at(const Tensor& g, SparseFormat format, const Tensor& indices,
                        const Tensor& indptr) {
  const Tensor gc = sparse_convert(g, format, sparse_view(g).dtype);
  const SparseView v = sparse_view(gc);
  require(indices.valid() && indptr.valid() && indices.ndim() == 1 && indptr.ndim() == 1 &&
              is_integer(indices.dtype()) && is_integer(indptr.dtype()),
          "sparse_values_at: indices and indptr must be integer vectors");
  require(indptr.shape()[0] == v.outer() + 1,
          fmt::format("sparse_values_at: indptr has {} elements, the gradient's {} shape {} needs {}",
                      indptr.shape()[0], sparse_format_name(format), shape_of(v), v.outer() + 1));
  const Tensor ip = indptr.astype(DType::Int64), ix = indices.astype(DType::Int64);
  const std::int64_t* p = ip.data<std::int64_t>();
  const std::int64_t* ind = ix.data<std::int64_t>();
  const std::int64_t n = ix.shape()[0];
  require(p[0] == 0 && p[v.outer()] == n,
          fmt::format("sparse_values_at: indptr runs from {} to {}, not from 0 to the {} indices",
                      p[0], p[v.outer()], n));
  Tensor out = Tensor::zeros({n}, v.dtype);
  return visit_float(v.dtype, [&]<class T>() {
    T* o = out.data<T>();
    for (std::int64_t q = 0; q < v.outer(); ++q) {
      require(p[q] <= p[q + 1], fmt::format("sparse_values_at: indptr decreases at {}", q + 1));
      // Both slices sorted: one merge walk.
      SparseIndex k = v.indptr[q];
      for (std::int64_t e = p[q]; e < p[q + 1]; ++e) {
        while (k < v.indptr[q + 1] && v.indices[k] < ind[e]) ++k;
        if (k < v.indptr[q + 1] && v.indices[k] == ind[e]) o[e] = v.values<T>()[k];
      }
    }
    return out;
  });
}

}  // namespace rw

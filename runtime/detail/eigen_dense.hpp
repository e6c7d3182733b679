// What the Eigen kernels (kernels/linalg.cpp, kernels/decomp.cpp) share: the
// row-major matrix type, copies between tensors and Eigen matrices, and the
// operand checks. Included by those two translation units only, so Eigen stays
// out of every other one.
#pragma once

#include <initializer_list>
#include <span>

#include <Eigen/Core>
#include <fmt/format.h>

#include "runtime/shape.hpp"
#include "runtime/tensor.hpp"
#include "support/error.hpp"

namespace rw::detail {

template <class T> using RowMat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Throws ValueError when an operand is a null tensor.
inline void check_valid(const char* op, std::initializer_list<const Tensor*> ts) {
  int i = 0;
  for (const Tensor* t : ts) {
    if (!t->valid()) throw ValueError(fmt::format("`{}`: operand {} is null", op, i));
    ++i;
  }
}

/// The checks the factorisations share: a valid, square float matrix.
inline void check_square(const char* op, const Tensor& a) {
  check_valid(op, {&a});
  if (a.ndim() != 2 || a.shape()[0] != a.shape()[1] || !is_float(a.dtype()))
    throw ValueError(fmt::format("`{}`: expected a square float matrix, got {} of shape {}", op,
                                 dtype_name(a.dtype()), shape_to_string(a.shape())));
}

/// f.template operator()<float or double>() by the (float) dtype.
template <class F> decltype(auto) visit_float(DType d, F&& f) {
  if (d == DType::Float32) return f.template operator()<float>();
  return f.template operator()<double>();
}

/// A 1-d or 2-d tensor as an Eigen matrix (a vector is one column).
template <class T> RowMat<T> eigen_copy(const Tensor& t) {
  const Tensor c = t.contiguous();
  const std::int64_t cols = t.ndim() == 2 ? t.shape()[1] : 1;
  return Eigen::Map<const RowMat<T>>(c.data<T>(), t.shape()[0], cols);
}

/// A new tensor of `shape` holding m's elements in row-major order.
template <class T, class M> Tensor from_eigen(const M& m, std::span<const std::int64_t> shape) {
  Tensor out = Tensor::empty(dtype_of<T>(), shape);
  Eigen::Map<RowMat<T>>(out.data<T>(), m.rows(), m.cols()) = m;
  return out;
}

}  // namespace rw::detail

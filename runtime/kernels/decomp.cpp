// Matrix factorisations on Eigen. Every result is copied out of Eigen into a
// new row-major tensor; the inputs are copied in (eigen_copy), as each
// factorisation overwrites its working matrix anyway.
#include "runtime/kernels/decomp.hpp"

#include <cmath>
#include <limits>
#include <unsupported/Eigen/MatrixFunctions>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <fmt/format.h>

#include "runtime/detail/eigen_dense.hpp"
#include "support/error.hpp"

namespace rw {

using detail::check_square;
using detail::check_valid;
using detail::eigen_copy;
using detail::from_eigen;
using detail::RowMat;
using detail::visit_float;

namespace {

/// A valid float matrix of any shape.
void check_float_matrix(const char* op, const Tensor& a) {
  check_valid(op, {&a});
  if (a.ndim() != 2 || !is_float(a.dtype()))
    throw ValueError(fmt::format("`{}`: expected a float matrix, got {} of shape {}", op,
                                 dtype_name(a.dtype()), shape_to_string(a.shape())));
}

template <class T> Tensor vector_from_eigen(const Eigen::Matrix<T, Eigen::Dynamic, 1>& v) {
  const std::int64_t n = v.size();
  return from_eigen<T>(v, std::span(&n, 1));
}

}  // namespace

Tensor cholesky(const Tensor& a) {
  check_square("cholesky", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::LLT<RowMat<T>, Eigen::Lower> llt(eigen_copy<T>(a));
    if (llt.info() != Eigen::Success)
      throw ValueError("`cholesky`: the matrix is not positive definite");
    return from_eigen<T>(RowMat<T>(llt.matrixL()), a.shape());
  });
}

LuResult lu(const Tensor& a) {
  check_square("lu", a);
  if (a.shape()[0] == 0) return LuResult{a.copy(), a.copy(), a.copy()};
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::PartialPivLU<RowMat<T>> f(eigen_copy<T>(a));
    // Eigen factors P a = L U; scipy's p is Pᵀ, so that a = p L U.
    const RowMat<T> p = f.permutationP().transpose().toDenseMatrix().template cast<T>();
    const RowMat<T> l = f.matrixLU().template triangularView<Eigen::UnitLower>();
    const RowMat<T> u = f.matrixLU().template triangularView<Eigen::Upper>();
    return LuResult{from_eigen<T>(p, a.shape()), from_eigen<T>(l, a.shape()),
                    from_eigen<T>(u, a.shape())};
  });
}

Tensor expm(const Tensor& a) {
  check_square("expm", a);
  if (a.shape()[0] == 0) return a.copy();
  return visit_float(a.dtype(), [&]<class T>() {
    const RowMat<T> m = eigen_copy<T>(a);
    return from_eigen<T>(RowMat<T>(m.exp()), a.shape());
  });
}

Tensor solve_triangular(const Tensor& a, const Tensor& b, bool lower) {
  check_square("solve_triangular", a);
  check_valid("solve_triangular", {&b});
  if ((b.ndim() != 1 && b.ndim() != 2) || b.shape()[0] != a.shape()[0] || b.dtype() != a.dtype())
    throw ValueError(
        fmt::format("`solve_triangular`: b of dtype {} and shape {} does not fit a of shape {}",
                    dtype_name(b.dtype()), shape_to_string(b.shape()), shape_to_string(a.shape())));
  return visit_float(a.dtype(), [&]<class T>() {
    const RowMat<T> m = eigen_copy<T>(a);
    // Eigen divides by the diagonal without looking: a zero there is a
    // singular matrix, not an infinity to pass on.
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      if (m(i, i) == T(0)) throw ValueError("`solve_triangular`: the matrix is singular");
    RowMat<T> x = eigen_copy<T>(b);
    if (lower) m.template triangularView<Eigen::Lower>().solveInPlace(x);
    else m.template triangularView<Eigen::Upper>().solveInPlace(x);
    return from_eigen<T>(x, b.shape());
  });
}

SignLogDet slogdet(const Tensor& a) {
  check_square("slogdet", a);
  return visit_float(a.dtype(), [&]<class T>() {
    T sign = 1, logabs = 0;
    if (a.shape()[0] > 0) {
      const Eigen::PartialPivLU<RowMat<T>> lu(eigen_copy<T>(a));
      sign = static_cast<T>(lu.permutationP().determinant());
      for (Eigen::Index i = 0; i < lu.matrixLU().rows(); ++i) {
        const T u = lu.matrixLU()(i, i);
        if (u == T(0)) {
          sign = 0;
          logabs = -std::numeric_limits<T>::infinity();
          break;
        }
        if (u < 0) sign = -sign;
        logabs += std::log(std::abs(u));
      }
    }
    return SignLogDet{Tensor::scalar(sign), Tensor::scalar(logabs)};
  });
}

EighResult eigh(const Tensor& a) {
  check_square("eigh", a);
  return visit_float(a.dtype(), [&]<class T>() {
    // Reads the lower triangle only, as NumPy's eigh(a, 'L').
    const Eigen::SelfAdjointEigenSolver<RowMat<T>> es(eigen_copy<T>(a));
    if (es.info() != Eigen::Success)
      throw ValueError("`eigh`: the eigenvalue iteration did not converge");
    return EighResult{vector_from_eigen<T>(es.eigenvalues()),
                      from_eigen<T>(es.eigenvectors(), a.shape())};
  });
}

SvdResult svd(const Tensor& a, bool compute_uv) {
  check_float_matrix("svd", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const unsigned options = compute_uv ? Eigen::ComputeThinU | Eigen::ComputeThinV : 0;
    const Eigen::JacobiSVD<RowMat<T>> s(eigen_copy<T>(a), options);
    SvdResult out{{}, vector_from_eigen<T>(s.singularValues()), {}};
    if (compute_uv) {
      const std::int64_t m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
      const std::int64_t us[] = {m, k}, vs[] = {k, n};
      out.u = from_eigen<T>(s.matrixU(), us);
      out.vt = from_eigen<T>(RowMat<T>(s.matrixV().transpose()), vs);
    }
    return out;
  });
}

QrResult qr(const Tensor& a) {
  check_float_matrix("qr", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::Index m = a.shape()[0], n = a.shape()[1], k = std::min(m, n);
    const Eigen::HouseholderQR<RowMat<T>> h(eigen_copy<T>(a));
    const RowMat<T> q = h.householderQ() * RowMat<T>::Identity(m, k);
    const RowMat<T> r = h.matrixQR().topRows(k).template triangularView<Eigen::Upper>();
    const std::int64_t qs[] = {m, k}, rs[] = {k, n};
    return QrResult{from_eigen<T>(q, qs), from_eigen<T>(r, rs)};
  });
}

Tensor pinv(const Tensor& a) {
  check_float_matrix("pinv", a);
  return visit_float(a.dtype(), [&]<class T>() {
    const Eigen::Index m = a.shape()[0], n = a.shape()[1];
    const std::int64_t shape[] = {n, m};
    if (m == 0 || n == 0) return from_eigen<T>(RowMat<T>::Zero(n, m), shape);
    const Eigen::JacobiSVD<RowMat<T>> s(eigen_copy<T>(a),
                                        Eigen::ComputeThinU | Eigen::ComputeThinV);
    const auto& sv = s.singularValues();
    const T cutoff = static_cast<T>(std::max(m, n)) * std::numeric_limits<T>::epsilon() * sv(0);
    Eigen::Matrix<T, Eigen::Dynamic, 1> inv(sv.size());
    for (Eigen::Index i = 0; i < sv.size(); ++i) inv(i) = sv(i) > cutoff ? T(1) / sv(i) : T(0);
    const RowMat<T> p = s.matrixV() * inv.asDiagonal() * s.matrixU().transpose();
    return from_eigen<T>(p, shape);
  });
}

}  // namespace rw

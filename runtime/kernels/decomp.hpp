// Matrix factorisations on Eigen: Cholesky, LU, triangular solve, sign and
// log of the determinant, symmetric eigendecomposition, SVD, QR, the
// pseudo-inverse and the matrix exponential. Each takes float32/float64 matrices and throws
// ValueError for anything else.
#pragma once

#include "runtime/tensor.hpp"

namespace rw {

/// The lower Cholesky factor L (L Lᵀ = a) of a square float matrix, reading
/// a's lower triangle only. Throws when a is not positive definite.
Tensor cholesky(const Tensor& a);

/// a = p l u (scipy's lu) for a square float matrix, with partial pivoting:
/// p a permutation matrix, l unit lower triangular, u upper triangular, all
/// of a's dtype. A singular a factors too (zeros on u's diagonal).
struct LuResult {
  Tensor p, l, u;
};
LuResult lu(const Tensor& a);

/// e^a of a square float matrix (Padé approximation with scaling and
/// squaring, Eigen's MatrixFunctions).
Tensor expm(const Tensor& a);

/// x with a @ x = b, reading only the lower (or upper) triangle of the square
/// float matrix a; b is (n) or (n, k) of a's dtype. Throws for a zero on the
/// diagonal.
Tensor solve_triangular(const Tensor& a, const Tensor& b, bool lower);

/// The sign (-1, 0 or 1) and the log of the absolute value of the
/// determinant of a square float matrix (partial-pivot LU), 0-d each; a
/// singular matrix gives 0 and -inf, a 0 × 0 one 1 and 0.
struct SignLogDet {
  Tensor sign, logabsdet;
};
SignLogDet slogdet(const Tensor& a);

/// The eigenvalues (ascending) and orthonormal eigenvectors (columns) of the
/// symmetric matrix whose lower triangle is a's.
struct EighResult {
  Tensor w, v;
};
EighResult eigh(const Tensor& a);

/// The reduced SVD a = u diag(s) vt of an (m, n) float matrix: u (m, k),
/// s (k) descending and non-negative, vt (k, n), k = min(m, n). Without
/// `compute_uv`, u and vt are left null.
struct SvdResult {
  Tensor u, s, vt;
};
SvdResult svd(const Tensor& a, bool compute_uv);

/// The reduced QR a = q r of an (m, n) float matrix (Householder): q (m, k)
/// with orthonormal columns, r (k, n) upper triangular, k = min(m, n).
struct QrResult {
  Tensor q, r;
};
QrResult qr(const Tensor& a);

/// The Moore-Penrose pseudo-inverse (n, m) of an (m, n) float matrix, from
/// its SVD: singular values at most max(m, n) · eps · the largest are taken
/// as zero.
Tensor pinv(const Tensor& a);

}  // namespace rw

// Linear algebra: matmul with NumPy semantics, in-place gemm and gemv, dot,
// outer; inverse, determinant and solve (LU). Float32/float64 run on Eigen; integers and bool on a plain loop.
#pragma once

#include "runtime/tensor.hpp"

namespace rw {

/// NumPy's matmul (`a @ b`). 2-d @ 2-d is the matrix product; a 1-d operand
/// is a row (left) or column (right) vector whose axis is removed from the
/// result, so 1-d @ 1-d is the dot product (a 0-d tensor); operands of more
/// dimensions are stacks of matrices whose leading (batch) dims broadcast.
/// The result dtype is promote(a, b) (bool: or of ands; integers wrap).
/// Throws ValueError naming both shapes for 0-d operands, inner
/// dimensions that differ or batch shapes that do not broadcast. `reuse`,
/// when it is a contiguous tensor of the result's dtype and shape that
/// shares no storage with a or b, receives the result (and is returned).
Tensor matmul(const Tensor& a, const Tensor& b, const Tensor& reuse = {});

/// NumPy's dot for operands of at most 2 dims: a 0-d operand scales the
/// other; otherwise as matmul.
Tensor dot(const Tensor& a, const Tensor& b);

/// BLAS gemm, in place: c ← alpha · a @ b + beta · c, for 2-d a (m, k), b
/// (k, n) and c (m, n), all of one dtype (float32, float64 or an integer
/// type). With beta == 0 the old contents of c are not read (NaN in c does
/// not propagate). c may be any writable view; a and b may overlap c (the
/// product is then formed in a temporary). Throws ValueError, with
/// c unchanged, for mismatched shapes or dtypes.
void gemm(Tensor& c, double alpha, const Tensor& a, const Tensor& b, double beta);

/// BLAS gemv, in place: y ← alpha · a @ x + beta · y, for 2-d a (m, n), 1-d x
/// (n) and y (m) of one dtype. As gemm for beta == 0, overlap and errors.
void gemv(Tensor& y, double alpha, const Tensor& a, const Tensor& x, double beta);

/// BLAS ger, in place: a ← a + alpha · x yᵀ, for 2-d a (m, n), 1-d x (m) and
/// y (n) of one dtype. As gemm for overlap and errors.
void ger(Tensor& a, double alpha, const Tensor& x, const Tensor& y);

/// The inverse of a square float32/float64 matrix (LU with full pivoting).
/// Throws ValueError for a matrix that is not square, not float,
/// or singular.
Tensor matrix_inverse(const Tensor& a);
/// The determinant of a square float matrix, as a 0-d tensor of its dtype
/// (1 for a 0 × 0 matrix). Throws ValueError as matrix_inverse,
/// except that a singular matrix has determinant 0.
Tensor det(const Tensor& a);
/// x with a @ x = b, for a square float matrix a (n, n) and b (n) or (n, k)
/// of a's dtype. Throws ValueError for mismatched shapes or a
/// singular a.
Tensor solve(const Tensor& a, const Tensor& b);

/// The outer product of two 1-d tensors: (m,) and (n,) give (m, n), of dtype
/// promote(x, y).
Tensor outer(const Tensor& x, const Tensor& y);

}  // namespace rw

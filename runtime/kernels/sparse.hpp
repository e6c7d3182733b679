// Kernels of the sparse Ops over packed values (runtime/sparse.hpp), through
// Eigen's SparseMatrix maps (RowMajor for CSR, ColMajor for CSC).
#pragma once

#include <cstdint>

#include "runtime/sparse.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// The same matrix in another format and dtype (a copy).
Tensor sparse_convert(const Tensor& s, SparseFormat format, DType dtype);
/// The transpose: a CSR matrix's arrays read as a CSC matrix of the
/// transposed shape, and the reverse (the arrays are copied, not permuted).
Tensor sparse_transpose(const Tensor& s);

/// s · d: a sparse (m, k) times a dense (k, n) or (k,) of the same dtype;
/// with `transpose_s`, sᵀ · d for s (k, m), read from s's arrays as they are.
/// Writes into `out` when it is a contiguous tensor of the result's dtype
/// and shape (and returns it), else allocates.
Tensor sparse_dense_dot(const Tensor& s, const Tensor& d, Tensor out = {}, bool transpose_s = false);
/// a · b of two sparse matrices of one dtype; the result has a's format.
Tensor sparse_sparse_dot(const Tensor& a, const Tensor& b);
/// a + b of two sparse matrices of one shape, format and dtype.
Tensor sparse_add(const Tensor& a, const Tensor& b);
/// s + d with d a dense matrix of s's shape and dtype: a dense result.
Tensor sparse_add_dense(const Tensor& s, const Tensor& d);
/// s ⊙ d on the entries s stores (structured): d is a dense tensor of s's
/// dtype that broadcasts to s's shape (0-d, (n,), (1, n), (m, 1), (m, n)).
Tensor sparse_mul_dense(const Tensor& s, const Tensor& d);
/// The sum of the entries: axis -1 all (0-d), 0 down the columns ((n,)),
/// 1 along the rows ((m,)). A dense result of s's dtype.
Tensor sparse_sum(const Tensor& s, int axis);
/// p ⊙ (x · yᵀ) on the entries p stores: x (m, k), y (n, k) dense, p (m, n)
/// sparse, one dtype; the result has p's pattern and format.
Tensor sampling_dot(const Tensor& x, const Tensor& y, const Tensor& p);
/// The entries of g (a sparse matrix) at the positions of the pattern
/// (indices, indptr) of a matrix of g's shape in `format`, zero where g
/// stores none: a vector with one element per pattern entry.
Tensor sparse_values_at(const Tensor& g, SparseFormat format, const Tensor& indices,
                        const Tensor& indptr);

}  // namespace rw

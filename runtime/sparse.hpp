// Sparse matrix values (CSR and CSC) packed into one int64 tensor, and views
// of them: how a sparse value travels through graphs, functions and shared
// variables, which all hold Tensors (docs/sparse.md, "Values").
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "runtime/dtype.hpp"
#include "runtime/tensor.hpp"

namespace rw {

/// Compressed sparse row (rows are the outer dimension) or column.
enum class SparseFormat : std::uint8_t { Csr, Csc };

/// "csr" or "csc".
std::string_view sparse_format_name(SparseFormat format);
/// The format named `name` ("csr", "csc"), or nullopt.
std::optional<SparseFormat> parse_sparse_format(std::string_view name);
/// The other format: what a transpose gives.
constexpr SparseFormat other_format(SparseFormat f) {
  return f == SparseFormat::Csr ? SparseFormat::Csc : SparseFormat::Csr;
}

/// The index type of indices and indptr, Eigen's default StorageIndex
/// (and scipy's for matrices of fewer than 2^31 stored entries).
using SparseIndex = std::int32_t;

/// The layout of a packed sparse value, read-only: a CSR matrix stores, for
/// each row r, the entries indptr[r] … indptr[r + 1] - 1 of `indices`
/// (their columns) and `data` (their values); CSC the same by columns.
/// Entries are kept in the order given, indices within an outer slice
/// sorted and without repeats (what Eigen's compressed matrices are).
struct SparseView {
  SparseFormat format = SparseFormat::Csr;
  DType dtype = DType::Float64;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  const SparseIndex* indptr = nullptr;
  const SparseIndex* indices = nullptr;
  const void* data = nullptr;

  /// Rows for CSR, columns for CSC; and the other extent.
  std::int64_t outer() const { return format == SparseFormat::Csr ? rows : cols; }
  std::int64_t inner() const { return format == SparseFormat::Csr ? cols : rows; }
  template <class T> const T* values() const { return static_cast<const T*>(data); }
};

/// A packed sparse value being filled in (see `allocate_sparse`).
struct SparseBuffer {
  Tensor value;
  SparseIndex* indptr = nullptr;
  SparseIndex* indices = nullptr;
  void* data = nullptr;
  template <class T> T* values() const { return static_cast<T*>(data); }
};

/// True for the dtypes a sparse value may hold: float32 and float64.
constexpr bool is_sparse_dtype(DType d) { return is_float(d); }

/// A packed value of `nnz` entries whose arrays are uninitialised (indptr
/// has outer + 1 entries). Throws ValueError for a dtype other
/// than float32/float64, negative extents, or more than 2^31 - 1 entries
/// or extents.
SparseBuffer allocate_sparse(SparseFormat format, DType dtype, std::int64_t rows,
                             std::int64_t cols, std::int64_t nnz);

/// Why `value` is not a valid packed sparse value ("indptr is not
/// non-decreasing at 3", …), or nullopt when it is one.
std::optional<std::string> sparse_value_problem(const Tensor& value);
/// True when `value` is a packed sparse value (sparse_value_problem is nullopt).
bool is_sparse_value(const Tensor& value);
/// The view of a packed value; throws ValueError with the
/// problem when it is not one.
SparseView sparse_view(const Tensor& value);

/// A packed value from its arrays (scipy's csr_matrix((data, indices,
/// indptr), shape)): `data` float32/float64 of nnz elements, `indices` and
/// `indptr` of any integer dtype. Throws ValueError naming the
/// array at fault: lengths that disagree, an index out of range, indptr not
/// starting at 0 or decreasing, indices unsorted or repeated within a slice.
Tensor make_sparse_value(SparseFormat format, std::int64_t rows, std::int64_t cols,
                         const Tensor& data, const Tensor& indices, const Tensor& indptr);

/// The nonzero entries of a 2-d float tensor, in `format`. Throws
/// ValueError for another rank or dtype.
Tensor sparse_from_dense(const Tensor& dense, SparseFormat format);
/// The dense 2-d tensor of a packed value.
Tensor sparse_to_dense(const Tensor& value);
/// The data, indices and indptr arrays of a packed value, as tensors
/// (data of its dtype; indices and indptr int32).
Tensor sparse_data(const Tensor& value);
Tensor sparse_indices(const Tensor& value);
Tensor sparse_indptr(const Tensor& value);

/// `csr_f64 (3, 4) nnz=5` and the nonzeros: what printing a sparse value shows.
std::string sparse_to_string(const Tensor& value);

}  // namespace rw

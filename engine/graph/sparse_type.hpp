// SparseType (`csr_f64[?,?]`, `csc_f32[3,4]`): the type of variables whose
// values are sparse matrices, compressed by rows or by columns.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "engine/graph/type.hpp"
#include "runtime/sparse.hpp"

namespace rw {

/// The type of a sparse matrix (PyTensor's SparseTensorType): a format (CSR
/// or CSC), a float dtype and a static shape of two extents, each known or
/// kUnknownDim. Printed `csr_f64[?,?]`, the graph-file syntax. Every
/// variable's value is a Tensor, so a value is a packed one
/// (runtime/sparse.hpp): the arrays Eigen's SparseMatrix (RowMajor for CSR,
/// ColMajor for CSC) maps without copying. Not a TensorType: the tensor Ops
/// refuse it, and the sparse Ops (ops/sparse/sparse.hpp) take it.
class SparseType final : public Type {
 public:
  /// Throws TypeError for a dtype other than float32/float64, a shape of
  /// another length than 2 or an invalid extent.
  SparseType(SparseFormat format, DType dtype, StaticShape shape);
  static std::shared_ptr<const SparseType> make(SparseFormat format, DType dtype,
                                                StaticShape shape = {kUnknownDim, kUnknownDim});

  SparseFormat format() const { return format_; }
  DType dtype() const { return dtype_; }
  const StaticShape& shape() const { return shape_; }

  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  std::string to_string() const override;
  /// Same format and dtype, and each extent the same or unknown here.
  bool is_super(const Type& other) const override;
  /// A valid packed value of this format, dtype and shape is returned as it
  /// is. Unless `strict`, a sparse value of the other format is converted, and
  /// one of the other dtype when that loses nothing (float32 to float64) or
  /// `allow_downcast`. Anything else (a dense tensor, a wrong shape) is a
  /// TypeError saying what was expected and what came.
  Tensor filter(const Tensor& value, bool strict = false,
                bool allow_downcast = false) const override;
  bool is_valid_value(const Tensor& value) const override;

  /// This type with another format, dtype or shape.
  std::shared_ptr<const SparseType> with_format(SparseFormat format) const;
  std::shared_ptr<const SparseType> with_dtype(DType dtype) const;
  std::shared_ptr<const SparseType> with_shape(StaticShape shape) const;

 private:
  SparseFormat format_;
  DType dtype_;
  StaticShape shape_;
};

/// The SparseType of `type`, or nullptr when it is another kind of type.
const SparseType* as_sparse_type(const Type& type);
/// The format and dtype a graph-file type word names (`csr_f64`,
/// `csc_float32`), or nullopt when it is not such a word.
std::optional<std::pair<SparseFormat, DType>> parse_sparse_type_word(std::string_view word);

}  // namespace rw

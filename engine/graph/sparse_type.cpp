// SparseType: format, dtype and static shape of sparse matrix variables.
#include "engine/graph/sparse_type.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "runtime/hash_mix.hpp"
#include "runtime/kernels/sparse.hpp"

namespace rw {

SparseType::SparseType(SparseFormat format, DType dtype, StaticShape shape)
    : format_(format), dtype_(dtype), shape_(std::move(shape)) {
  if (!is_sparse_dtype(dtype_))
    throw TypeError(fmt::format("a sparse matrix type holds float32 or float64, not {}",
                                dtype_name(dtype_)));
  if (shape_.size() != 2)
    throw TypeError(fmt::format("a sparse matrix type has two extents, got {}", shape_.size()));
  for (auto d : shape_)
    if (d < kUnknownDim || d > 2147483647)
      throw TypeError(fmt::format("invalid static extent {} in a sparse matrix type", d));
}

std::shared_ptr<const SparseType> SparseType::make(SparseFormat format, DType dtype,
                                                   StaticShape shape) {
  return std::make_shared<const SparseType>(format, dtype, std::move(shape));
}

const SparseType* as_sparse_type(const Type& type) {
  return dynamic_cast<const SparseType*>(&type);
}

std::optional<std::pair<SparseFormat, DType>> parse_sparse_type_word(std::string_view word) {
  if (word.size() < 5 || word[3] != '_') return std::nullopt;
  const auto format = parse_sparse_format(word.substr(0, 3));
  if (!format) return std::nullopt;
  const std::string_view d = word.substr(4);
  for (DType t : {DType::Float32, DType::Float64})
    if (d == dtype_short_name(t) || d == dtype_name(t)) return std::pair{*format, t};
  return std::nullopt;
}

bool SparseType::equals(const Type& other) const {
  const SparseType* s = as_sparse_type(other);
  return s && s->format_ == format_ && s->dtype_ == dtype_ && s->shape_ == shape_;
}

std::size_t SparseType::hash() const {
  std::uint64_t h = hash_mix(0x5ba75eULL, static_cast<std::uint64_t>(format_));
  h = hash_mix(h, static_cast<std::uint64_t>(dtype_));
  for (auto d : shape_) h = hash_mix(h, static_cast<std::uint64_t>(d));
  return static_cast<std::size_t>(h);
}

std::string SparseType::to_string() const {
  return std::string(sparse_format_name(format_)) + "_" + format_tensor_type(dtype_, shape_);
}

bool SparseType::is_super(const Type& other) const {
  const SparseType* s = as_sparse_type(other);
  if (!s || s->format_ != format_ || s->dtype_ != dtype_) return false;
  for (std::size_t i = 0; i < 2; ++i)
    if (shape_[i] != kUnknownDim && shape_[i] != s->shape_[i]) return false;
  return true;
}

bool SparseType::is_valid_value(const Tensor& value) const {
  if (!is_sparse_value(value)) return false;
  const SparseView v = sparse_view(value);
  return v.format == format_ && v.dtype == dtype_ &&
         (shape_[0] == kUnknownDim || shape_[0] == v.rows) &&
         (shape_[1] == kUnknownDim || shape_[1] == v.cols);
}

Tensor SparseType::filter(const Tensor& value, bool strict, bool allow_downcast) const {
  const std::string expected = fmt::format("expected a sparse matrix of type `{}`", to_string());
  if (auto problem = sparse_value_problem(value))
    throw TypeError(fmt::format("{}, but {} (rw::sparse_from_dense builds one from a dense matrix)",
                                expected, *problem));
  const SparseView v = sparse_view(value);
  const std::string got = fmt::format("{}, got a `{}_{}` of shape ({}, {})", expected,
                                      sparse_format_name(v.format), dtype_short_name(v.dtype),
                                      v.rows, v.cols);
  for (std::size_t i = 0; i < 2; ++i)
    if (shape_[i] != kUnknownDim && shape_[i] != (i == 0 ? v.rows : v.cols))
      throw TypeError(fmt::format("{} (axis {} has length {}, not {})", got, i,
                                  i == 0 ? v.rows : v.cols, shape_[i]));
  if (v.format == format_ && v.dtype == dtype_) return value;
  if (strict) throw TypeError(got + " (format and dtype must match exactly)");
  if (v.dtype != dtype_ && promote(v.dtype, dtype_) != dtype_ && !allow_downcast)
    throw TypeError(fmt::format("{} ({} to {} may lose precision; allow downcast to accept it)",
                                got, dtype_name(v.dtype), dtype_name(dtype_)));
  return sparse_convert(value, format_, dtype_);
}

std::shared_ptr<const SparseType> SparseType::with_format(SparseFormat format) const {
  return make(format, dtype_, shape_);
}
std::shared_ptr<const SparseType> SparseType::with_dtype(DType dtype) const {
  return make(format_, dtype, shape_);
}
std::shared_ptr<const SparseType> SparseType::with_shape(StaticShape shape) const {
  return make(format_, dtype_, std::move(shape));
}

}  // namespace rw

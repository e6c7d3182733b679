// Tensor: a dtype, a shape, strides and an offset into shared storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/detail/convert.hpp"
#include "runtime/dtype.hpp"
#include "runtime/small_vec.hpp"
#include "support/error.hpp"

namespace rw {

/// Extents of a tensor, outermost first. Inline for up to 6 dimensions.
using Shape = SmallVec<std::int64_t, 6>;
/// Distance between neighbours along each axis, in elements (may be 0 for a
/// broadcast axis, or negative for a reversed view).
using Strides = SmallVec<std::int64_t, 6>;

/// Number of elements of a shape (1 for a 0-d shape). Throws
/// ValueError when the extents multiply beyond 2^63 - 1: no
/// tensor, view or static type has such a shape (see check_shape_size).
std::int64_t shape_size(std::span<const std::int64_t> shape);
/// False when the extents above 1 multiply beyond 2^63 - 1 (a 0 does not
/// excuse the others, and negative entries — unknown extents — count as 1).
bool shape_size_fits(std::span<const std::int64_t> shape);
/// Throws ValueError "the shape (4, 4611686018427387905) has too
/// many elements: …" unless shape_size_fits.
void check_shape_size(std::span<const std::int64_t> shape);
namespace detail {
/// Row-major (C order) strides of a contiguous tensor of this shape.
Strides contiguous_strides(std::span<const std::int64_t> shape);
}  // namespace detail
/// "(2, 3)" as NumPy prints a shape.
std::string shape_to_string(std::span<const std::int64_t> shape);

/// A block of bytes shared by a tensor and all its views. 64-byte aligned.
class Storage {
 public:
  explicit Storage(std::size_t nbytes);
  ~Storage();
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;

  std::byte* data() { return data_; }
  const std::byte* data() const { return data_; }
  std::size_t nbytes() const { return nbytes_; }

 private:
  std::byte* data_;
  std::size_t nbytes_;
};

/// Storages of at least 4 MiB freed by the process are kept (up to 512 MiB in
/// all, the oldest let go first) and handed to the next storage of the same
/// rounded size, so that a function whose calls each make a large array does
/// not have the kernel map and zero it again every call. This frees them and
/// returns the bytes freed (docs/runtime.md, "Memory").
std::size_t release_cached_storage();
/// The bytes of freed storages kept for reuse.
std::size_t cached_storage_bytes();

/// An n-dimensional array value. Copying a Tensor copies the handle, not the
/// data (as NumPy's `b = a`); use `copy()` for an independent array. A
/// default-constructed Tensor is "null": it has no storage and `valid()` is
/// false; the runtime uses it for an output slot not yet computed.
class Tensor {
 public:
  Tensor() = default;

  /// Uninitialised contiguous tensor.
  static Tensor empty(DType dtype, std::span<const std::int64_t> shape);
  static Tensor empty(DType dtype, std::initializer_list<std::int64_t> shape) {
    return empty(dtype, std::span<const std::int64_t>(shape.begin(), shape.size()));
  }
  static Tensor zeros(std::span<const std::int64_t> shape, DType dtype = DType::Float64);
  static Tensor zeros(std::initializer_list<std::int64_t> shape, DType dtype = DType::Float64) {
    return zeros(std::span<const std::int64_t>(shape.begin(), shape.size()), dtype);
  }
  static Tensor ones(std::span<const std::int64_t> shape, DType dtype = DType::Float64);
  static Tensor ones(std::initializer_list<std::int64_t> shape, DType dtype = DType::Float64) {
    return ones(std::span<const std::int64_t>(shape.begin(), shape.size()), dtype);
  }
  /// Every element set to `value` converted to `dtype`.
  static Tensor full(std::span<const std::int64_t> shape, double value,
                     DType dtype = DType::Float64);
  /// A 0-d tensor holding `value`.
  template <class T> static Tensor scalar(T value) {
    Tensor t = empty(dtype_of<T>(), {});
    *t.data<T>() = value;
    return t;
  }
  /// A 0-d tensor holding `value` converted to `dtype`.
  static Tensor scalar(double value, DType dtype);
  /// A 1-d tensor from a list: `Tensor::from({1.0, 2.0})`.
  template <class T> static Tensor from(std::initializer_list<T> values) {
    Tensor t = empty(dtype_of<T>(), {static_cast<std::int64_t>(values.size())});
    std::int64_t i = 0;
    for (const T& v : values) t.data<T>()[i++] = v;
    return t;
  }
  /// A 2-d tensor from rows: `Tensor::from({{1.0, 2.0}, {3.0, 4.0}})`.
  /// Throws ValueError naming the first row of another length.
  template <class T> static Tensor from(std::initializer_list<std::initializer_list<T>> rows);
  /// A 3-d tensor from nested lists: `Tensor::from({{{1, 2}}, {{3, 4}}})`.
  template <class T>
  static Tensor from(
      std::initializer_list<std::initializer_list<std::initializer_list<T>>> blocks);
  /// Values start, start + step, … up to but excluding stop (NumPy's arange:
  /// ceil((stop - start) / step) elements), converted to `dtype`. Throws
  /// ValueError for a zero step or non-finite bounds.
  static Tensor arange(double start, double stop, double step = 1.0,
                       DType dtype = DType::Float64);
  /// 0, 1, …, stop - 1 as int64.
  static Tensor arange(std::int64_t stop);
  /// An n × m matrix with ones on diagonal k (0 the main one, k > 0 above it,
  /// k < 0 below) and zeros elsewhere (NumPy's eye).
  static Tensor eye(std::int64_t n, std::int64_t m, std::int64_t k = 0,
                    DType dtype = DType::Float64);
  /// A contiguous tensor with these elements and this shape.
  template <class T>
  static Tensor from_vector(const std::vector<T>& values, std::span<const std::int64_t> shape);

  bool valid() const { return storage_ != nullptr; }
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  const Strides& strides() const { return strides_; }
  std::int64_t offset() const { return offset_; }
  std::int64_t ndim() const { return static_cast<std::int64_t>(shape_.size()); }
  std::int64_t size() const { return shape_size(shape_); }
  /// Extent of axis `axis`; negative axes count from the end.
  std::int64_t dim(std::int64_t axis) const;
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * itemsize(dtype_); }

  /// Address of the element at index (0, …, 0). Checks the element type.
  template <class T> T* data() {
    check_element_type(dtype_of<T>());
    return reinterpret_cast<T*>(storage_->data()) + offset_;
  }
  template <class T> const T* data() const {
    check_element_type(dtype_of<T>());
    return reinterpret_cast<const T*>(storage_->data()) + offset_;
  }
  void* raw_data() { return storage_->data() + offset_ * static_cast<std::int64_t>(itemsize(dtype_)); }
  const void* raw_data() const {
    return storage_->data() + offset_ * static_cast<std::int64_t>(itemsize(dtype_));
  }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  /// True when elements are laid out densely in row-major order.
  bool is_contiguous() const;
  /// True when this tensor and `other` may read or write the same bytes.
  bool shares_storage(const Tensor& other) const {
    return storage_ != nullptr && storage_ == other.storage_;
  }

  /// The element at `index` (one entry per axis) converted to double.
  double at(std::span<const std::int64_t> index) const;
  double at(std::initializer_list<std::int64_t> index) const {
    return at(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  /// The single element of a tensor of size 1, converted to T as Cast
  /// converts (float to integer saturates, NaN to 0).
  template <class T> T item() const;

  /// An independent contiguous copy, optionally converted to `dtype`.
  Tensor copy() const;
  Tensor astype(DType dtype) const;
  /// This tensor if already contiguous, otherwise a contiguous copy.
  Tensor contiguous() const;
  /// Copies the elements of `src` (same shape, any layout and dtype) into this
  /// tensor, converting the element type.
  void assign(const Tensor& src);

  // Views: share storage with this tensor.
  /// Axes permuted: result axis i is axis perm[i] of this tensor.
  Tensor transpose(std::span<const std::int64_t> perm) const;
  /// Reverses the axes (NumPy's `.T`).
  Tensor transpose() const;
  /// Elements start, start+step, … before stop along `axis` (Python slice
  /// semantics, negative indices and steps allowed).
  Tensor slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
               std::int64_t step = 1) const;
  /// Index `i` taken along `axis`, which is removed.
  Tensor select(std::int64_t axis, std::int64_t i) const;
  /// Broadcast to `shape` (NumPy rules); broadcast axes get stride 0.
  Tensor broadcast_to(std::span<const std::int64_t> shape) const;
  /// Same elements in a new shape; a view when the layout allows, a copy
  /// otherwise. One entry may be -1 (inferred).
  Tensor reshape(std::span<const std::int64_t> shape) const;
  /// A new axis of length 1 inserted before `axis`.
  Tensor expand_dims(std::int64_t axis) const;
  /// A length-1 axis removed.
  Tensor squeeze(std::int64_t axis) const;

  /// Same-shape, same-dtype, elementwise-equal (NaN never equals NaN).
  bool equal(const Tensor& other) const;
  /// Hash of dtype, shape and element values; equal tensors hash equal.
  std::size_t content_hash() const;
  /// NumPy's str(): `[[1.  2.5]\n [3.  4. ]]` — one format for all elements
  /// (positional or scientific, as NumPy chooses), lines wrapped at 75
  /// columns, more than 1000 elements summarised with `...`.
  std::string to_string() const;

 private:
  friend class TensorAccess;
  void check_element_type(DType requested) const;

  std::shared_ptr<Storage> storage_;
  Shape shape_;
  Strides strides_;
  std::int64_t offset_ = 0;
  DType dtype_ = DType::Float64;
};

/// |a - b| <= atol + rtol * |b| elementwise, shapes equal (no broadcasting),
/// NaN equal to NaN when `equal_nan`. Dtypes may differ.
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8,
              bool equal_nan = false);

/// How close two results must be to count as the same (NumPy's allclose,
/// NaN equal to NaN). Integer and bool elements must be equal.
struct Tolerance {
  double rtol = 1e-5;
  double atol = 1e-8;
};

/// How `got` differs from `want`, as a phrase for a message (`dtype float32,
/// not float64`, `shape (2), not (3)`, `element 4 (row-major) is 3, not 2`),
/// or nullopt when they have one dtype and shape and every element is within
/// `tolerance` (integers exactly, so an int64 state compares bit for bit).
std::optional<std::string> describe_difference(const Tensor& got, const Tensor& want,
                                               Tolerance tolerance = {});

/// Builds views without going through the public constructors; for kernels.
class TensorAccess {
 public:
  static Tensor make(std::shared_ptr<Storage> storage, DType dtype, Shape shape, Strides strides,
                     std::int64_t offset);
};

// ---------------------------------------------------------------------------

template <class T>
Tensor Tensor::from(std::initializer_list<std::initializer_list<T>> rows) {
  const auto nrows = static_cast<std::int64_t>(rows.size());
  const auto ncols = nrows == 0 ? 0 : static_cast<std::int64_t>(rows.begin()->size());
  std::int64_t r = 0;
  for (const auto& row : rows) {
    if (static_cast<std::int64_t>(row.size()) != ncols)
      throw ValueError("Tensor::from: row " + std::to_string(r) + " has " +
                       std::to_string(row.size()) + " elements, row 0 has " +
                       std::to_string(ncols));
    ++r;
  }
  Tensor t = empty(dtype_of<T>(), {nrows, ncols});
  T* out = t.data<T>();
  for (const auto& row : rows)
    for (const T& v : row) *out++ = v;
  return t;
}

template <class T>
Tensor Tensor::from(
    std::initializer_list<std::initializer_list<std::initializer_list<T>>> blocks) {
  const auto n0 = static_cast<std::int64_t>(blocks.size());
  const auto n1 = n0 == 0 ? 0 : static_cast<std::int64_t>(blocks.begin()->size());
  const auto n2 = n1 == 0 ? 0 : static_cast<std::int64_t>(blocks.begin()->begin()->size());
  std::int64_t i = 0;
  for (const auto& block : blocks) {
    if (static_cast<std::int64_t>(block.size()) != n1)
      throw ValueError("Tensor::from: block " + std::to_string(i) + " has " +
                       std::to_string(block.size()) + " rows, block 0 has " + std::to_string(n1));
    std::int64_t j = 0;
    for (const auto& row : block) {
      if (static_cast<std::int64_t>(row.size()) != n2)
        throw ValueError("Tensor::from: row " + std::to_string(j) + " of block " +
                         std::to_string(i) + " has " + std::to_string(row.size()) +
                         " elements, rows have " + std::to_string(n2));
      ++j;
    }
    ++i;
  }
  Tensor t = empty(dtype_of<T>(), {n0, n1, n2});
  T* out = t.data<T>();
  for (const auto& block : blocks)
    for (const auto& row : block)
      for (const T& v : row) *out++ = v;
  return t;
}

template <class T>
Tensor Tensor::from_vector(const std::vector<T>& values, std::span<const std::int64_t> shape) {
  if (shape_size(shape) != static_cast<std::int64_t>(values.size()))
    throw ValueError("Tensor::from_vector: " + std::to_string(values.size()) +
                     " values do not fill shape " + shape_to_string(shape));
  Tensor t = empty(dtype_of<T>(), shape);
  T* out = t.data<T>();
  for (const T& v : values) *out++ = v;
  return t;
}

template <class T> T Tensor::item() const {
  if (size() != 1)
    throw ValueError("Tensor::item: tensor of shape " + shape_to_string(shape_) + " has " +
                     std::to_string(size()) + " elements, not 1");
  return visit_dtype(dtype_, [&]<class U>() {
    return detail::scalar::convert<T>(*(reinterpret_cast<const U*>(storage_->data()) + offset_));
  });
}

}  // namespace rw

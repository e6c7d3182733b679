// Packed sparse values: the layout, its checks, and building one from arrays
// or from a dense matrix.
#include "runtime/sparse.hpp"

#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "support/error.hpp"

namespace rw {

namespace {

// The words of a packed value: a header, then indptr, indices and data, each
// starting on a word (int32 arrays two to a word, float32 data two to a word).
constexpr std::int64_t kMagic = 0x7277737061727365;  // "rwsparse"
constexpr std::int64_t kHeaderWords = 6;             // magic, format, dtype, rows, cols, nnz
constexpr std::int64_t kMaxIndex = std::numeric_limits<SparseIndex>::max();

std::int64_t words_for(std::int64_t bytes) { return (bytes + 7) / 8; }

struct Layout {
  std::int64_t indptr_word, indices_word, data_word, total_words;
};

Layout layout_of(DType dtype, std::int64_t outer, std::int64_t nnz) {
  Layout l{};
  l.indptr_word = kHeaderWords;
  l.indices_word = l.indptr_word + words_for((outer + 1) * 4);
  l.data_word = l.indices_word + words_for(nnz * 4);
  l.total_words = l.data_word + words_for(nnz * static_cast<std::int64_t>(itemsize(dtype)));
  return l;
}

void check_extent(const char* what, std::int64_t n) {
  if (n < 0 || n > kMaxIndex)
    throw ValueError(fmt::format("a sparse matrix's {} must be in [0, 2^31 - 1], got {}", what, n));
}

// Whether the arrays describe a compressed matrix; the problem when not.
std::optional<std::string> pattern_problem(std::int64_t outer, std::int64_t inner,
                                           std::int64_t nnz, const SparseIndex* indptr,
                                           const SparseIndex* indices) {
  if (indptr[0] != 0) return fmt::format("indptr starts at {}, not 0", indptr[0]);
  for (std::int64_t o = 0; o < outer; ++o) {
    if (indptr[o + 1] < indptr[o])
      return fmt::format("indptr decreases at {} ({} after {})", o + 1, indptr[o + 1], indptr[o]);
    for (std::int64_t k = indptr[o]; k < indptr[o + 1]; ++k) {
      if (k >= nnz) break;
      if (indices[k] < 0 || indices[k] >= inner)
        return fmt::format("index {} at entry {} is out of range for an inner extent of {}",
                           indices[k], k, inner);
      if (k > indptr[o] && indices[k] <= indices[k - 1])
        return fmt::format("indices are not sorted and unique within slice {} (entry {}: {} after {})",
                           o, k, indices[k], indices[k - 1]);
    }
  }
  if (indptr[outer] != nnz)
    return fmt::format("indptr ends at {}, but there are {} entries", indptr[outer], nnz);
  return std::nullopt;
}

}  // namespace

std::string_view sparse_format_name(SparseFormat format) {
  return format == SparseFormat::Csr ? "csr" : "csc";
}

std::optional<SparseFormat> parse_sparse_format(std::string_view name) {
  if (name == "csr") return SparseFormat::Csr;
  if (name == "csc") return SparseFormat::Csc;
  return std::nullopt;
}

SparseBuffer allocate_sparse(SparseFormat format, DType dtype, std::int64_t rows,
                             std::int64_t cols, std::int64_t nnz) {
  if (!is_sparse_dtype(dtype))
    throw ValueError(
        fmt::format("a sparse matrix holds float32 or float64 values, not {}", dtype_name(dtype)));
  check_extent("number of rows", rows);
  check_extent("number of columns", cols);
  check_extent("number of entries", nnz);
  const std::int64_t outer = format == SparseFormat::Csr ? rows : cols;
  const Layout l = layout_of(dtype, outer, nnz);
  SparseBuffer b;
  b.value = Tensor::zeros({l.total_words}, DType::Int64);
  std::int64_t* w = b.value.data<std::int64_t>();
  w[0] = kMagic;
  w[1] = static_cast<std::int64_t>(format);
  w[2] = static_cast<std::int64_t>(dtype);
  w[3] = rows;
  w[4] = cols;
  w[5] = nnz;
  b.indptr = reinterpret_cast<SparseIndex*>(w + l.indptr_word);
  b.indices = reinterpret_cast<SparseIndex*>(w + l.indices_word);
  b.data = w + l.data_word;
  return b;
}

std::optional<std::string> sparse_value_problem(const Tensor& value) {
  if (!value.valid()) return "there is no value";
  if (value.dtype() != DType::Int64 || value.ndim() != 1 || !value.is_contiguous())
    return fmt::format("it is a dense {} tensor of shape {}, not a packed sparse value",
                       dtype_name(value.dtype()), shape_to_string(value.shape()));
  const std::int64_t n = value.shape()[0];
  const std::int64_t* w = value.data<std::int64_t>();
  if (n < kHeaderWords || w[0] != kMagic)
    return fmt::format("it is an int64 tensor of shape ({}), not a packed sparse value", n);
  if (w[1] != 0 && w[1] != 1) return fmt::format("its format code {} is neither csr nor csc", w[1]);
  if (w[2] != static_cast<std::int64_t>(DType::Float32) &&
      w[2] != static_cast<std::int64_t>(DType::Float64))
    return fmt::format("its dtype code {} is not float32 or float64", w[2]);
  for (int k = 3; k < 6; ++k)
    if (w[k] < 0 || w[k] > kMaxIndex) return fmt::format("its header word {} is {}", k, w[k]);
  const auto format = static_cast<SparseFormat>(w[1]);
  const auto dtype = static_cast<DType>(w[2]);
  const std::int64_t outer = format == SparseFormat::Csr ? w[3] : w[4];
  const std::int64_t inner = format == SparseFormat::Csr ? w[4] : w[3];
  const Layout l = layout_of(dtype, outer, w[5]);
  if (l.total_words != n)
    return fmt::format("it has {} words where its header needs {}", n, l.total_words);
  return pattern_problem(outer, inner, w[5], reinterpret_cast<const SparseIndex*>(w + l.indptr_word),
                         reinterpret_cast<const SparseIndex*>(w + l.indices_word));
}

bool is_sparse_value(const Tensor& value) { return !sparse_value_problem(value); }

SparseView sparse_view(const Tensor& value) {
  if (auto problem = sparse_value_problem(value))
    throw ValueError("not a sparse value: " + *problem);
  const std::int64_t* w = value.data<std::int64_t>();
  SparseView v;
  v.format = static_cast<SparseFormat>(w[1]);
  v.dtype = static_cast<DType>(w[2]);
  v.rows = w[3];
  v.cols = w[4];
  v.nnz = w[5];
  const Layout l = layout_of(v.dtype, v.outer(), v.nnz);
  v.indptr = reinterpret_cast<const SparseIndex*>(w + l.indptr_word);
  v.indices = reinterpret_cast<const SparseIndex*>(w + l.indices_word);
  v.data = w + l.data_word;
  return v;
}

Tensor make_sparse_value(SparseFormat format, std::int64_t rows, std::int64_t cols,
                         const Tensor& data, const Tensor& indices, const Tensor& indptr) {
  auto vector_of = [](const Tensor& t, const char* what) {
    if (!t.valid() || t.ndim() != 1)
      throw ValueError(fmt::format("`{}` must be a vector, got shape {}", what,
                                   t.valid() ? shape_to_string(t.shape()) : "none"));
  };
  vector_of(data, "data");
  vector_of(indices, "indices");
  vector_of(indptr, "indptr");
  if (!is_sparse_dtype(data.dtype()))
    throw ValueError(
        fmt::format("`data` must be float32 or float64, got {}", dtype_name(data.dtype())));
  for (const Tensor* t : {&indices, &indptr})
    if (!is_integer(t->dtype()))
      throw ValueError(fmt::format("`{}` must hold integers, got {}",
                                   t == &indices ? "indices" : "indptr", dtype_name(t->dtype())));
  check_extent("number of rows", rows);
  check_extent("number of columns", cols);
  const std::int64_t nnz = data.shape()[0];
  if (indices.shape()[0] != nnz)
    throw ValueError(fmt::format("`indices` has {} elements and `data` {}; they must agree",
                                 indices.shape()[0], nnz));
  const std::int64_t outer = format == SparseFormat::Csr ? rows : cols;
  const std::int64_t inner = format == SparseFormat::Csr ? cols : rows;
  if (indptr.shape()[0] != outer + 1)
    throw ValueError(fmt::format("`indptr` has {} elements; a {} matrix of shape ({}, {}) needs {}",
                                 indptr.shape()[0], sparse_format_name(format), rows, cols,
                                 outer + 1));
  SparseBuffer b = allocate_sparse(format, data.dtype(), rows, cols, nnz);
  const Tensor ip = indptr.astype(DType::Int64), ix = indices.astype(DType::Int64);
  for (std::int64_t k = 0; k <= outer; ++k) {
    const std::int64_t v = ip.data<std::int64_t>()[k];
    if (v < 0 || v > nnz)
      throw ValueError(fmt::format("`indptr` entry {} is {}, outside [0, {}]", k, v, nnz));
    b.indptr[k] = static_cast<SparseIndex>(v);
  }
  for (std::int64_t k = 0; k < nnz; ++k) {
    const std::int64_t v = ix.data<std::int64_t>()[k];
    if (v < 0 || v >= inner)
      throw ValueError(fmt::format("`indices` entry {} is {}, outside [0, {})", k, v, inner));
    b.indices[k] = static_cast<SparseIndex>(v);
  }
  if (auto problem = pattern_problem(outer, inner, nnz, b.indptr, b.indices))
    throw ValueError("`indptr` and `indices` do not describe a compressed matrix: " + *problem);
  const Tensor d = data.contiguous();
  std::memcpy(b.data, d.raw_data(), static_cast<std::size_t>(nnz) * itemsize(data.dtype()));
  return b.value;
}

Tensor sparse_from_dense(const Tensor& dense, SparseFormat format) {
  if (!dense.valid() || dense.ndim() != 2 || !is_sparse_dtype(dense.dtype()))
    throw ValueError(
        fmt::format("a sparse matrix is made from a float32 or float64 matrix, got {} of shape {}",
                    dense.valid() ? dtype_name(dense.dtype()) : "none",
                    dense.valid() ? shape_to_string(dense.shape()) : "()"));
  const Tensor c = dense.contiguous();
  const std::int64_t rows = c.shape()[0], cols = c.shape()[1];
  const bool csr = format == SparseFormat::Csr;
  return visit_dtype(c.dtype(), [&]<class T>() -> Tensor {
    if constexpr (!std::is_floating_point_v<T>) {
      return {};
    } else {
      const T* x = c.data<T>();
      auto at = [&](std::int64_t o, std::int64_t i) { return csr ? x[o * cols + i] : x[i * cols + o]; };
      const std::int64_t outer = csr ? rows : cols, inner = csr ? cols : rows;
      std::int64_t nnz = 0;
      for (std::int64_t k = 0; k < rows * cols; ++k) nnz += x[k] != T(0);
      SparseBuffer b = allocate_sparse(format, c.dtype(), rows, cols, nnz);
      std::int64_t k = 0;
      for (std::int64_t o = 0; o < outer; ++o) {
        b.indptr[o] = static_cast<SparseIndex>(k);
        for (std::int64_t i = 0; i < inner; ++i)
          if (const T v = at(o, i); v != T(0)) {
            b.indices[k] = static_cast<SparseIndex>(i);
            b.values<T>()[k++] = v;
          }
      }
      b.indptr[outer] = static_cast<SparseIndex>(k);
      return b.value;
    }
  });
}

Tensor sparse_to_dense(const Tensor& value) {
  const SparseView v = sparse_view(value);
  Tensor out = Tensor::zeros({v.rows, v.cols}, v.dtype);
  visit_dtype(v.dtype, [&]<class T>() {
    if constexpr (std::is_floating_point_v<T>) {
      T* o = out.data<T>();
      const bool csr = v.format == SparseFormat::Csr;
      for (std::int64_t s = 0; s < v.outer(); ++s)
        for (SparseIndex k = v.indptr[s]; k < v.indptr[s + 1]; ++k) {
          const std::int64_t r = csr ? s : v.indices[k], c = csr ? v.indices[k] : s;
          o[r * v.cols + c] = v.values<T>()[k];
        }
    }
  });
  return out;
}

Tensor sparse_data(const Tensor& value) {
  const SparseView v = sparse_view(value);
  Tensor out = Tensor::empty(v.dtype, {v.nnz});
  std::memcpy(out.raw_data(), v.data, static_cast<std::size_t>(v.nnz) * itemsize(v.dtype));
  return out;
}

Tensor sparse_indices(const Tensor& value) {
  const SparseView v = sparse_view(value);
  Tensor out = Tensor::empty(DType::Int32, {v.nnz});
  std::memcpy(out.raw_data(), v.indices, static_cast<std::size_t>(v.nnz) * sizeof(SparseIndex));
  return out;
}

Tensor sparse_indptr(const Tensor& value) {
  const SparseView v = sparse_view(value);
  Tensor out = Tensor::empty(DType::Int32, {v.outer() + 1});
  std::memcpy(out.raw_data(), v.indptr, static_cast<std::size_t>(v.outer() + 1) * sizeof(SparseIndex));
  return out;
}

std::string sparse_to_string(const Tensor& value) {
  const SparseView v = sparse_view(value);
  std::string out = fmt::format("{}_{} ({}, {}) nnz={}", sparse_format_name(v.format),
                                dtype_short_name(v.dtype), v.rows, v.cols, v.nnz);
  const bool csr = v.format == SparseFormat::Csr;
  std::int64_t shown = 0;
  for (std::int64_t s = 0; s < v.outer() && shown < 20; ++s)
    for (SparseIndex k = v.indptr[s]; k < v.indptr[s + 1] && shown < 20; ++k, ++shown) {
      const double x = v.dtype == DType::Float32 ? v.values<float>()[k] : v.values<double>()[k];
      out += fmt::format("\n  ({}, {}) {}", csr ? s : v.indices[k], csr ? v.indices[k] : s, x);
    }
  if (shown < v.nnz) out += "\n  ...";
  return out;
}

}  // namespace rw

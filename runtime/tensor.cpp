// Tensor core: storage, creation, views, element access, comparison, printing.
#include "runtime/tensor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <mutex>
#include <new>
#include <sstream>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include "runtime/detail/asan.hpp"
#include "runtime/detail/program_cache.hpp"
#include "runtime/detail/strided.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/scalar_program.hpp"
#include "support/error.hpp"

namespace rw {

std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : kAllDTypes)
    if (s == dtype_name(t) || s == dtype_short_name(t)) return t;
  if (s == "b8") return DType::Bool;
  return std::nullopt;
}

namespace {
int int_bits(DType t) { return static_cast<int>(itemsize(t)) * 8; }
DType signed_int_of_bits(int bits) {
  switch (bits) {
    case 8: return DType::Int8;
    case 16: return DType::Int16;
    case 32: return DType::Int32;
    default: return DType::Int64;
  }
}
}  // namespace

DType promote(DType a, DType b) {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_float(a) || is_float(b)) {
    if (a == DType::Float64 || b == DType::Float64) return DType::Float64;
    // float32 with an integer: float32 holds int8/uint8/int16 exactly, not wider.
    const DType other = is_float(a) ? b : a;
    return int_bits(other) <= 16 ? DType::Float32 : DType::Float64;
  }
  // Both integers.
  const bool sa = is_signed(a), sb = is_signed(b);
  if (sa == sb) return int_bits(a) >= int_bits(b) ? a : b;
  const DType u = sa ? b : a;  // the unsigned one (uint8)
  const DType s = sa ? a : b;
  return signed_int_of_bits(std::max(int_bits(s), 2 * int_bits(u)));
}

bool shape_size_fits(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape)
    if (d > 1 && __builtin_mul_overflow(n, d, &n)) return false;
  return true;
}

void check_shape_size(std::span<const std::int64_t> shape) {
  if (!shape_size_fits(shape))
    throw ValueError(
        fmt::format("the shape {} has too many elements: its extents multiply beyond 2^63 - 1",
                    shape_to_string(shape)));
}

std::int64_t shape_size(std::span<const std::int64_t> shape) {
  check_shape_size(shape);
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

Strides detail::contiguous_strides(std::span<const std::int64_t> shape) {
  Strides s(shape.size());
  std::int64_t acc = 1;
  for (std::size_t i = shape.size(); i-- > 0;) {
    s[i] = acc;
    acc *= std::max<std::int64_t>(shape[i], 1);
  }
  return s;
}

std::string shape_to_string(std::span<const std::int64_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

/// Blocks of 4 MiB or more are 2 MiB aligned (and offered to the kernel as
/// huge pages); smaller ones are 64-byte aligned.
std::size_t alignment_of(std::size_t nbytes) {
  return nbytes >= 2 * kHuge ? kHuge : 64;
}
/// The size allocated for `nbytes`: a multiple of the alignment (which
/// aligned_alloc wants), and never zero, so every storage has its own address.
std::size_t rounded_size(std::size_t nbytes) {
  const std::size_t align = alignment_of(nbytes);
  return std::max(align, (nbytes + align - 1) / align * align);
}

/// Freed large blocks, kept for the next allocation of the same size. glibc
/// unmaps a block above its mmap threshold (at most 32 MiB) when it is freed,
/// so a function whose calls each make a 65 MB array (an RNN's stacked
/// states) had the kernel map, fault in and zero it again on every call.
/// Bounded by kLargeCacheBytes; the oldest block goes first. Not used under
/// AddressSanitizer, which must see each block freed.
class LargeBlocks {
 public:
  static constexpr std::size_t kLargeCacheBytes = std::size_t{512} << 20;
  static LargeBlocks& get() {
    static LargeBlocks* blocks = new LargeBlocks;  // never destroyed: storages outlive statics
    return *blocks;
  }
  /// A kept block of exactly `size` bytes, or null.
  std::byte* take(std::size_t size) {
    const std::lock_guard lock(mutex_);
    for (auto it = blocks_.rbegin(); it != blocks_.rend(); ++it)
      if (it->size == size) {
        std::byte* p = it->data;
        held_ -= size;
        blocks_.erase(std::next(it).base());
        return p;
      }
    return nullptr;
  }
  /// Keeps `data` (of `size` bytes) for a later take, letting the oldest
  /// blocks go to stay within the bound, or frees it.
  void give(std::byte* data, std::size_t size) noexcept {
    const std::lock_guard lock(mutex_);
    if (size > kLargeCacheBytes) {
      std::free(data);
      return;
    }
    std::size_t first = 0;
    while (held_ + size > kLargeCacheBytes) {
      held_ -= blocks_[first].size;
      std::free(blocks_[first++].data);
    }
    blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(first));
    try {
      blocks_.push_back({data, size});
      held_ += size;
    } catch (...) {  // no room to remember it: give it back
      std::free(data);
    }
  }
  /// Frees every kept block; the bytes freed.
  std::size_t release() noexcept {
    std::vector<Block> all;
    {
      const std::lock_guard lock(mutex_);
      all.swap(blocks_);
      held_ = 0;
    }
    std::size_t bytes = 0;
    for (const Block& b : all) {
      bytes += b.size;
      std::free(b.data);
    }
    return bytes;
  }
  std::size_t held() {
    const std::lock_guard lock(mutex_);
    return held_;
  }

 private:
  struct Block {
    std::byte* data;
    std::size_t size;
  };
  std::mutex mutex_;
  std::vector<Block> blocks_;  // oldest first
  std::size_t held_ = 0;
};

#ifdef RW_ASAN
constexpr bool kKeepLargeBlocks = false;
#else
constexpr bool kKeepLargeBlocks = true;
#endif

}  // namespace

std::size_t release_cached_storage() {
  return LargeBlocks::get().release();
}
std::size_t cached_storage_bytes() {
  return LargeBlocks::get().held();
}

Storage::Storage(std::size_t nbytes) : nbytes_(nbytes) {
  // Large blocks are 2 MiB aligned and offered to the kernel as huge pages
  // (as NumPy does): first touching a fresh 8 MB array otherwise costs 2048
  // page faults, more than an elementwise pass over it.
  const std::size_t align = alignment_of(nbytes), rounded = rounded_size(nbytes);
  if (kKeepLargeBlocks && align == kHuge) {
    data_ = LargeBlocks::get().take(rounded);
    if (data_) return;
  }
  data_ = static_cast<std::byte*>(std::aligned_alloc(align, rounded));
  if (!data_) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
  if (align == kHuge) madvise(data_, rounded, MADV_HUGEPAGE);
#endif
}

Storage::~Storage() {
  if (kKeepLargeBlocks && alignment_of(nbytes_) == kHuge)
    LargeBlocks::get().give(data_, rounded_size(nbytes_));
  else
    std::free(data_);
}

Tensor TensorAccess::make(std::shared_ptr<Storage> storage, DType dtype, Shape shape,
                          Strides strides, std::int64_t offset) {
  check_shape_size(shape);  // every tensor, view or not, has a countable shape
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.strides_ = std::move(strides);
  t.offset_ = offset;
  return t;
}

Tensor Tensor::empty(DType dtype, std::span<const std::int64_t> shape) {
  for (auto d : shape)
    if (d < 0)
      throw ValueError("Tensor::empty: negative dimension in shape " + shape_to_string(shape));
  const auto n = static_cast<std::size_t>(shape_size(shape));
  if (n > std::numeric_limits<std::size_t>::max() / itemsize(dtype))
    throw ValueError(
        fmt::format("the shape {} has too many elements: their {} bytes do not fit in 64 bits",
                    shape_to_string(shape), dtype_name(dtype)));
  return TensorAccess::make(std::make_shared<Storage>(n * itemsize(dtype)), dtype,
                            Shape(shape.begin(), shape.end()), detail::contiguous_strides(shape),
                            0);
}

Tensor Tensor::full(std::span<const std::int64_t> shape, double value, DType dtype) {
  Tensor t = empty(dtype, shape);
  visit_dtype(dtype, [&]<class T>() {
    std::fill_n(t.data<T>(), t.size(), detail::scalar::convert<T>(value));
  });
  return t;
}

Tensor Tensor::zeros(std::span<const std::int64_t> shape, DType dtype) {
  Tensor t = empty(dtype, shape);
  std::memset(t.raw_data(), 0, t.nbytes());
  return t;
}

Tensor Tensor::ones(std::span<const std::int64_t> shape, DType dtype) {
  return full(shape, 1.0, dtype);
}

Tensor Tensor::scalar(double value, DType dtype) { return full({}, value, dtype); }

Tensor Tensor::arange(double start, double stop, double step, DType dtype) {
  if (step == 0) throw ValueError("Tensor::arange: step must not be zero");
  if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(step))
    throw ValueError(fmt::format(
        "Tensor::arange: bounds must be finite, got start {} stop {} step {}", start, stop, step));
  const double count = std::ceil((stop - start) / step);
  const auto n = count > 0 ? static_cast<std::int64_t>(count) : std::int64_t{0};
  Tensor t = empty(DType::Float64, {n});
  double* p = t.data<double>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = start + static_cast<double>(i) * step;
  return dtype == DType::Float64 ? t : cast(t, dtype);
}

Tensor Tensor::eye(std::int64_t n, std::int64_t m, std::int64_t k, DType dtype) {
  if (n < 0 || m < 0) throw ValueError(fmt::format("Tensor::eye: negative size {} x {}", n, m));
  Tensor t = zeros({n, m}, dtype);
  visit_dtype(dtype, [&]<class T>() {
    T* p = t.data<T>();
    for (std::int64_t i = std::max<std::int64_t>(0, -k); i < n && i + k < m; ++i)
      p[i * m + i + k] = T(1);
  });
  return t;
}

Tensor Tensor::arange(std::int64_t stop) {
  const std::int64_t n = std::max<std::int64_t>(stop, 0);
  Tensor t = empty(DType::Int64, {n});
  std::int64_t* p = t.data<std::int64_t>();
  for (std::int64_t i = 0; i < n; ++i) p[i] = i;
  return t;
}

std::int64_t Tensor::dim(std::int64_t axis) const {
  const std::int64_t a = axis < 0 ? axis + ndim() : axis;
  if (a < 0 || a >= ndim())
    throw IndexError(
        fmt::format("axis {} is out of range for a tensor of {} dimensions", axis, ndim()));
  return shape_[static_cast<std::size_t>(a)];
}

void Tensor::check_element_type(DType requested) const {
  if (!storage_) throw ValueError("access to the data of a null tensor");
  if (requested != dtype_)
    throw ValueError(
        fmt::format("tensor holds {} elements, not {}", dtype_name(dtype_), dtype_name(requested)));
}

bool Tensor::is_contiguous() const {
  std::int64_t expected = 1;
  for (std::size_t i = shape_.size(); i-- > 0;) {
    if (shape_[i] == 1) continue;
    if (strides_[i] != expected) return false;
    expected *= shape_[i];
  }
  return true;
}

double Tensor::at(std::span<const std::int64_t> index) const {
  if (static_cast<std::int64_t>(index.size()) != ndim())
    throw ValueError(
        fmt::format("index of {} entries for a tensor of {} dimensions", index.size(), ndim()));
  std::int64_t off = offset_;
  for (std::size_t i = 0; i < index.size(); ++i) {
    std::int64_t k = index[i] < 0 ? index[i] + shape_[i] : index[i];
    if (k < 0 || k >= shape_[i])
      throw IndexError(fmt::format("index {} is out of bounds for axis {} with size {}", index[i],
                                   i, shape_[i]));
    off += k * strides_[i];
  }
  return visit_dtype(dtype_, [&]<class T>() {
    return static_cast<double>(reinterpret_cast<const T*>(storage_->data())[off]);
  });
}

void Tensor::assign(const Tensor& src) {
  if (!valid() || !src.valid()) throw ValueError("Tensor::assign: null tensor");
  if (!std::equal(shape_.begin(), shape_.end(), src.shape_.begin(), src.shape_.end()))
    throw ValueError("Tensor::assign: shape " + shape_to_string(src.shape_) + " into shape " +
                     shape_to_string(shape_));
  // Through the elementwise engine: blocked, threaded, with Cast's defined
  // conversions, and safe when `src` overlaps this tensor.
  const DType from = src.dtype_;
  const ScalarProgram& p =
      detail::single_op_program(ScalarOp::Cast, std::span<const DType>(&from, 1), dtype_);
  Tensor self = *this;
  run_elemwise(p, std::span<const Tensor>(&src, 1), std::span<Tensor>(&self, 1));
}

Tensor Tensor::astype(DType dtype) const {
  Tensor out = empty(dtype, shape_);
  out.assign(*this);
  return out;
}

Tensor Tensor::copy() const {
  // A contiguous tensor is one block of bytes: no need for the elementwise
  // engine (constant folding copies many tiny results).
  if (valid() && is_contiguous()) {
    Tensor out = empty(dtype_, shape_);
    if (const std::size_t n = nbytes()) std::memcpy(out.raw_data(), raw_data(), n);
    return out;
  }
  return astype(dtype_);
}

Tensor Tensor::contiguous() const { return is_contiguous() ? *this : copy(); }

namespace {
std::int64_t normalize_axis(std::int64_t axis, std::int64_t ndim, const char* what) {
  const std::int64_t a = axis < 0 ? axis + ndim : axis;
  if (a < 0 || a >= ndim)
    throw IndexError(
        fmt::format("{}: axis {} is out of range for a tensor of {} dimensions", what, axis, ndim));
  return a;
}
}  // namespace

Tensor Tensor::transpose(std::span<const std::int64_t> perm) const {
  if (static_cast<std::int64_t>(perm.size()) != ndim())
    throw ValueError(fmt::format("Tensor::transpose: permutation of {} axes for a tensor of {}",
                                 perm.size(), ndim()));
  std::vector<bool> seen(perm.size(), false);
  Shape shape(perm.size());
  Strides strides(perm.size());
  for (std::size_t i = 0; i < perm.size(); ++i) {
    const auto a = static_cast<std::size_t>(normalize_axis(perm[i], ndim(), "Tensor::transpose"));
    if (seen[a]) throw ValueError("Tensor::transpose: repeated axis in permutation");
    seen[a] = true;
    shape[i] = shape_[a];
    strides[i] = strides_[a];
  }
  return TensorAccess::make(storage_, dtype_, std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::transpose() const {
  Shape perm(shape_.size());
  for (std::size_t i = 0; i < perm.size(); ++i)
    perm[i] = static_cast<std::int64_t>(perm.size() - 1 - i);
  return transpose(perm);
}

Tensor Tensor::slice(std::int64_t axis, std::int64_t start, std::int64_t stop,
                     std::int64_t step) const {
  const auto a = static_cast<std::size_t>(normalize_axis(axis, ndim(), "Tensor::slice"));
  if (step == 0) throw ValueError("Tensor::slice: step must not be zero");
  const std::int64_t n = shape_[a];
  // Python's slice.indices().
  auto clamp = [&](std::int64_t v, bool is_start) {
    if (v < 0) v += n;
    if (step > 0) return std::clamp<std::int64_t>(v, 0, n);
    (void)is_start;
    return std::clamp<std::int64_t>(v, -1, n - 1);
  };
  const std::int64_t b = clamp(start, true), e = clamp(stop, false);
  std::int64_t len = step > 0 ? (e > b ? (e - b + step - 1) / step : 0)
                              : (b > e ? (b - e + (-step) - 1) / (-step) : 0);
  Shape shape = shape_;
  Strides strides = strides_;
  shape[a] = len;
  strides[a] = strides_[a] * step;
  const std::int64_t off = len > 0 ? offset_ + b * strides_[a] : offset_;
  return TensorAccess::make(storage_, dtype_, std::move(shape), std::move(strides), off);
}

Tensor Tensor::select(std::int64_t axis, std::int64_t i) const {
  const auto a = static_cast<std::size_t>(normalize_axis(axis, ndim(), "Tensor::select"));
  const std::int64_t k = i < 0 ? i + shape_[a] : i;
  if (k < 0 || k >= shape_[a])
    throw IndexError(
        fmt::format("index {} is out of bounds for axis {} with size {}", i, axis, shape_[a]));
  Shape shape = shape_;
  Strides strides = strides_;
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(a));
  strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(a));
  return TensorAccess::make(storage_, dtype_, std::move(shape), std::move(strides),
                            offset_ + k * strides_[a]);
}

Tensor Tensor::broadcast_to(std::span<const std::int64_t> shape) const {
  if (shape.size() < shape_.size())
    throw ValueError("cannot broadcast shape " + shape_to_string(shape_) + " to " +
                     shape_to_string(shape));
  const std::size_t lead = shape.size() - shape_.size();
  Strides strides(shape.size(), 0);
  for (std::size_t i = 0; i < shape_.size(); ++i) {
    const std::int64_t want = shape[lead + i];
    if (shape_[i] == want) strides[lead + i] = strides_[i];
    else if (shape_[i] == 1) strides[lead + i] = 0;
    else
      throw ValueError("cannot broadcast shape " + shape_to_string(shape_) + " to " +
                       shape_to_string(shape));
  }
  return TensorAccess::make(storage_, dtype_, Shape(shape.begin(), shape.end()),
                            std::move(strides), offset_);
}

Tensor Tensor::reshape(std::span<const std::int64_t> shape) const {
  check_shape_size(shape);  // -1 counts as 1: `known` below cannot overflow
  Shape target(shape.begin(), shape.end());
  std::int64_t known = 1;
  int infer = -1;
  for (std::size_t i = 0; i < target.size(); ++i) {
    if (target[i] == -1) {
      if (infer >= 0) throw ValueError("Tensor::reshape: more than one -1 in shape");
      infer = static_cast<int>(i);
    } else if (target[i] < 0) {
      throw ValueError("Tensor::reshape: negative dimension in " + shape_to_string(shape));
    } else {
      known *= target[i];
    }
  }
  if (infer >= 0) {
    if (known == 0 || size() % known != 0)
      throw ValueError("cannot reshape a tensor of shape " + shape_to_string(shape_) + " into " +
                       shape_to_string(shape));
    target[static_cast<std::size_t>(infer)] = size() / known;
  }
  if (shape_size(target) != size())
    throw ValueError("cannot reshape a tensor of shape " + shape_to_string(shape_) + " into " +
                     shape_to_string(shape));
  const Tensor src = contiguous();
  return TensorAccess::make(src.storage_, dtype_, target, detail::contiguous_strides(target),
                            src.offset_);
}

Tensor Tensor::expand_dims(std::int64_t axis) const {
  const std::int64_t a = axis < 0 ? axis + ndim() + 1 : axis;
  if (a < 0 || a > ndim())
    throw IndexError(fmt::format("Tensor::expand_dims: axis {} out of range", axis));
  Shape shape = shape_;
  Strides strides = strides_;
  shape.insert(shape.begin() + a, 1);
  strides.insert(strides.begin() + a, 0);
  return TensorAccess::make(storage_, dtype_, std::move(shape), std::move(strides), offset_);
}

Tensor Tensor::squeeze(std::int64_t axis) const {
  const auto a = static_cast<std::size_t>(normalize_axis(axis, ndim(), "Tensor::squeeze"));
  if (shape_[a] != 1)
    throw ValueError(fmt::format("Tensor::squeeze: axis {} has length {}, not 1", axis, shape_[a]));
  Shape shape = shape_;
  Strides strides = strides_;
  shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(a));
  strides.erase(strides.begin() + static_cast<std::ptrdiff_t>(a));
  return TensorAccess::make(storage_, dtype_, std::move(shape), std::move(strides), offset_);
}

bool Tensor::equal(const Tensor& other) const {
  if (dtype_ != other.dtype_ || shape_ != other.shape_) return false;
  if (valid() != other.valid()) return false;
  if (!valid()) return true;
  bool same = true;
  visit_dtype(dtype_, [&]<class T>() {
    const T* a = reinterpret_cast<const T*>(storage_->data()) + offset_;
    const T* b = reinterpret_cast<const T*>(other.storage_->data()) + other.offset_;
    detail::for_each_strided2(shape_, strides_, other.strides_,
                              [&](std::int64_t ia, std::int64_t ib) {
                                if (!(a[ia] == b[ib])) same = false;
                              });
  });
  return same;
}

std::size_t Tensor::content_hash() const {
  std::size_t h = std::hash<int>()(static_cast<int>(dtype_));
  auto mix = [&](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  for (auto d : shape_) mix(std::hash<std::int64_t>()(d));
  if (!valid()) return h;
  visit_dtype(dtype_, [&]<class T>() {
    const T* a = reinterpret_cast<const T*>(storage_->data()) + offset_;
    detail::for_each_strided(shape_, strides_, [&](std::int64_t i) {
      T v = a[i];
      if constexpr (std::is_floating_point_v<T>) {
        if (v == T(0)) v = T(0);  // -0.0 == 0.0 must hash equal
      }
      mix(std::hash<T>()(v));
    });
  });
  return h;
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  if (a.shape() != b.shape()) return false;
  const Tensor x = a.astype(DType::Float64), y = b.astype(DType::Float64);
  const double* px = x.data<double>();
  const double* py = y.data<double>();
  for (std::int64_t i = 0; i < x.size(); ++i) {
    const double u = px[i], v = py[i];
    if (std::isnan(u) || std::isnan(v)) {
      if (equal_nan && std::isnan(u) && std::isnan(v)) continue;
      return false;
    }
    if (std::isinf(u) || std::isinf(v)) {
      if (u != v) return false;
      continue;
    }
    if (std::fabs(u - v) > atol + rtol * std::fabs(v)) return false;
  }
  return true;
}

std::optional<std::string> describe_difference(const Tensor& got, const Tensor& want,
                                               Tolerance tol) {
  if (got.dtype() != want.dtype())
    return fmt::format("dtype {}, not {}", dtype_short_name(got.dtype()),
                       dtype_short_name(want.dtype()));
  if (got.shape() != want.shape())
    return fmt::format("shape {}, not {}", shape_to_string(got.shape()),
                       shape_to_string(want.shape()));
  if (want.size() == 0) return std::nullopt;
  if (!is_float(want.dtype())) {
    const Tensor a = got.astype(DType::Int64), b = want.astype(DType::Int64);
    const std::int64_t* pa = a.data<std::int64_t>();
    const std::int64_t* pb = b.data<std::int64_t>();
    for (std::int64_t k = 0; k < a.size(); ++k)
      if (pa[k] != pb[k])
        return fmt::format("element {} (row-major) is {}, not {}", k, pa[k], pb[k]);
    return std::nullopt;
  }
  if (allclose(got, want, tol.rtol, tol.atol, /*equal_nan=*/true)) return std::nullopt;
  const Tensor a = got.astype(DType::Float64), b = want.astype(DType::Float64);
  const double* pa = a.data<double>();
  const double* pb = b.data<double>();
  // The first element allclose's test (NaN equal to NaN) turns down.
  for (std::int64_t k = 0; k < a.size(); ++k) {
    const double u = pa[k], v = pb[k];
    const bool same = (std::isnan(u) && std::isnan(v)) || u == v ||
                      std::fabs(u - v) <= tol.atol + tol.rtol * std::fabs(v);
    if (!same) return fmt::format("element {} (row-major) is {}, not {}", k, u, v);
  }
  return "differs beyond the tolerance";
}

}  // namespace rw

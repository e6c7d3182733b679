// Joining, splitting, gather and scatter kernels, and writes into views
// (through the elementwise engine).
#include "runtime/kernels/indexing.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "runtime/detail/program_cache.hpp"
#include "runtime/detail/scalar_math.hpp"
#include "runtime/detail/strided.hpp"
#include "runtime/kernels/elemwise.hpp"
#include "runtime/scalar_program.hpp"
#include "runtime/shape.hpp"
#include "runtime/thread_pool.hpp"
#include "support/error.hpp"

namespace rw {

namespace {

// Elements copied per parallel task.
constexpr std::int64_t kGrainElems = 1 << 15;

void check_valid(const char* op, const Tensor& t, const char* what) {
  if (!t.valid()) throw ValueError(fmt::format("`{}`: {} is null", op, what));
}

// `shape` as the broadcast target of `value`, or an error naming both.
void check_broadcast(const char* op, const Tensor& value, std::span<const std::int64_t> shape) {
  bool ok = value.ndim() <= static_cast<std::int64_t>(shape.size());
  for (std::size_t i = 0; ok && i < value.shape().size(); ++i) {
    const std::int64_t v = value.shape()[i];
    const std::int64_t s = shape[shape.size() - value.shape().size() + i];
    ok = v == s || v == 1;
  }
  if (!ok)
    throw ValueError(fmt::format("`{}`: a value of shape {} cannot be broadcast to {}", op,
                                 shape_to_string(value.shape()), shape_to_string(shape)));
}

// Integer indices along an axis of extent n, made non-negative; throws for
// non-integer dtypes and out-of-bounds entries.
std::vector<std::int64_t> checked_indices(const char* op, const Tensor& indices, std::int64_t axis,
                                          std::int64_t n) {
  check_valid(op, indices, "the index tensor");
  if (!is_integer(indices.dtype()))
    throw ValueError(
        fmt::format("`{}`: indices must be integers, got {}", op, dtype_name(indices.dtype())));
  const Tensor idx = cast(indices, DType::Int64).contiguous();
  const std::int64_t* p = idx.data<std::int64_t>();
  std::vector<std::int64_t> out(p, p + idx.size());
  for (std::int64_t& i : out) {
    if (i < -n || i >= n)
      throw IndexError(
          fmt::format("index {} is out of bounds for axis {} with size {}", i, axis, n));
    if (i < 0) i += n;
  }
  return out;
}

// The tensor split around `axis`: outer dims, the axis, inner dims.
struct AxisSplit {
  Shape outer_shape, inner_shape;
  Strides outer_strides, inner_strides;
  std::int64_t outer = 1, inner = 1, axis_stride = 0;
  bool inner_dense = true;  // inner dims laid out contiguously
};

AxisSplit split_at(const Tensor& t, std::int64_t axis) {
  AxisSplit s;
  const auto a = static_cast<std::size_t>(axis);
  for (std::size_t d = 0; d < t.shape().size(); ++d) {
    if (d < a) {
      s.outer_shape.push_back(t.shape()[d]);
      s.outer_strides.push_back(t.strides()[d]);
      s.outer *= t.shape()[d];
    } else if (d > a) {
      s.inner_shape.push_back(t.shape()[d]);
      s.inner_strides.push_back(t.strides()[d]);
      s.inner *= t.shape()[d];
    }
  }
  s.axis_stride = t.strides()[a];
  std::int64_t expected = 1;
  for (std::size_t d = s.inner_shape.size(); d-- > 0;) {
    if (s.inner_shape[d] == 1) continue;
    if (s.inner_strides[d] != expected) s.inner_dense = false;
    expected *= s.inner_shape[d];
  }
  return s;
}

// Element offset of outer index o (row-major over the outer dims).
std::int64_t outer_offset(const AxisSplit& s, std::int64_t o) {
  std::int64_t off = 0;
  for (std::size_t d = s.outer_shape.size(); d-- > 0;) {
    off += (o % s.outer_shape[d]) * s.outer_strides[d];
    o /= s.outer_shape[d];
  }
  return off;
}

// Calls f.template operator()<U>() with U an unsigned word of `bytes` bytes.
template <class F> void with_word(std::size_t bytes, F&& f) {
  switch (bytes) {
    case 1: f.template operator()<std::uint8_t>(); break;
    case 2: f.template operator()<std::uint16_t>(); break;
    case 4: f.template operator()<std::uint32_t>(); break;
    default: f.template operator()<std::uint64_t>(); break;
  }
}

Shape gathered_shape(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  Shape shape(x.shape().begin(), x.shape().begin() + axis);
  for (auto d : indices.shape()) shape.push_back(d);
  for (auto it = x.shape().begin() + axis + 1; it != x.shape().end(); ++it) shape.push_back(*it);
  return shape;
}

std::int64_t rows_grain(std::int64_t inner) {
  return std::max<std::int64_t>(1, kGrainElems / std::max<std::int64_t>(1, inner));
}

template <bool kAdd>
void scatter(const char* op, Tensor& target, const Tensor& indices, const Tensor& values,
             std::int64_t axis) {
  check_valid(op, target, "the target");
  check_valid(op, values, "the values");
  if (target.ndim() == 0) throw ValueError(fmt::format("`{}`: the target is 0-d", op));
  const std::int64_t a = normalize_axis(axis, target.ndim());
  for (std::size_t d = 0; d < target.shape().size(); ++d)
    if (target.strides()[d] == 0 && target.shape()[d] > 1)
      throw ValueError(
          fmt::format("`{}`: the target is broadcast along axis {} and cannot be written", op, d));
  const std::vector<std::int64_t> idx = checked_indices(op, indices, a, target.shape()[a]);
  const Shape shape = gathered_shape(target, indices, a);
  check_broadcast(op, values, shape);
  // A contiguous private copy: values may alias the target.
  const Tensor vals = alloc(cast(values, target.dtype()), shape);
  const AxisSplit s = split_at(target, a);
  const auto m = static_cast<std::int64_t>(idx.size());
  if (s.outer == 0 || s.inner == 0 || m == 0) return;
  std::vector<std::int64_t> inner_offsets;
  if (!s.inner_dense)
    detail::for_each_strided(s.inner_shape, s.inner_strides,
                             [&](std::int64_t off) { inner_offsets.push_back(off); });
  // Tasks own disjoint (outer index, inner range) pieces of the target and
  // walk j in order, so repeated indices combine deterministically.
  const std::int64_t chunk = std::max<std::int64_t>(1, std::min(s.inner, kGrainElems));
  const std::int64_t chunks = (s.inner + chunk - 1) / chunk;
  visit_dtype(target.dtype(), [&]<class T>() {
    T* base = target.data<T>();
    const T* src = vals.data<T>();
    parallel_for(s.outer * chunks, std::max<std::int64_t>(1, kGrainElems / (chunk * m)),
                 [&](std::int64_t lo, std::int64_t hi) {
                   for (std::int64_t t = lo; t < hi; ++t) {
                     const std::int64_t o = t / chunks, i0 = (t % chunks) * chunk;
                     const std::int64_t i1 = std::min(s.inner, i0 + chunk);
                     const std::int64_t ooff = outer_offset(s, o);
                     for (std::int64_t j = 0; j < m; ++j) {
                       T* dst = base + ooff + idx[static_cast<std::size_t>(j)] * s.axis_stride;
                       const T* v = src + (o * m + j) * s.inner;
                       for (std::int64_t i = i0; i < i1; ++i) {
                         T& cell =
                             dst[s.inner_dense ? i : inner_offsets[static_cast<std::size_t>(i)]];
                         if constexpr (kAdd)
                           cell = detail::scalar::Fn<ScalarOp::Add>::apply<T>(cell, v[i]);
                         else cell = v[i];
                       }
                     }
                   }
                 });
  });
}

}  // namespace

Tensor concatenate(std::span<const Tensor> tensors, std::int64_t axis) {
  if (tensors.empty()) throw ValueError("`concatenate` needs at least one tensor");
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (!tensors[i].valid()) throw ValueError(fmt::format("`concatenate`: tensor {} is null", i));
  const Tensor& first = tensors[0];
  if (first.ndim() == 0) throw ValueError("`concatenate`: 0-d tensors cannot be joined");
  const std::int64_t a = normalize_axis(axis, first.ndim());
  Shape shape = first.shape();
  DType dtype = first.dtype();
  shape[static_cast<std::size_t>(a)] = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (t.ndim() != first.ndim())
      throw ValueError(fmt::format("`concatenate`: tensor {} has {} dimensions, tensor 0 has {}", i,
                                   t.ndim(), first.ndim()));
    for (std::int64_t d = 0; d < t.ndim(); ++d)
      if (d != a &&
          t.shape()[static_cast<std::size_t>(d)] != first.shape()[static_cast<std::size_t>(d)])
        throw ValueError(fmt::format(
            "`concatenate` along axis {}: tensor {} has shape {} but tensor 0 has {}; all other "
            "axes must match",
            a, i, shape_to_string(t.shape()), shape_to_string(first.shape())));
    shape[static_cast<std::size_t>(a)] += t.shape()[static_cast<std::size_t>(a)];
    dtype = promote(dtype, t.dtype());
  }
  Tensor out = Tensor::empty(dtype, shape);
  std::int64_t at = 0;
  for (const Tensor& t : tensors) {
    const std::int64_t len = t.shape()[static_cast<std::size_t>(a)];
    Tensor piece = out.slice(a, at, at + len);
    if (len > 0) copy_into(piece, t);
    at += len;
  }
  return out;
}

Tensor stack(std::span<const Tensor> tensors, std::int64_t axis) {
  if (tensors.empty()) throw ValueError("`stack` needs at least one tensor");
  std::vector<Tensor> expanded;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    if (!tensors[i].valid()) throw ValueError(fmt::format("`stack`: tensor {} is null", i));
    if (tensors[i].shape() != tensors[0].shape())
      throw ValueError(fmt::format(
          "`stack`: tensor {} has shape {} but tensor 0 has {}; stacked tensors need one shape", i,
          shape_to_string(tensors[i].shape()), shape_to_string(tensors[0].shape())));
  }
  const std::int64_t a = normalize_axis(axis, tensors[0].ndim() + 1);
  for (const Tensor& t : tensors) expanded.push_back(t.expand_dims(a));
  return concatenate(expanded, a);
}

std::vector<Tensor> split(const Tensor& x, std::span<const std::int64_t> sizes, std::int64_t axis) {
  check_valid("split", x, "the tensor");
  if (x.ndim() == 0) throw ValueError("`split`: a 0-d tensor has no axis to split");
  const std::int64_t a = normalize_axis(axis, x.ndim());
  std::int64_t total = 0;
  for (std::int64_t s : sizes) {
    if (s < 0)
      throw ValueError(fmt::format("`split`: negative size {} in {}", s, shape_to_string(sizes)));
    total += s;
  }
  if (total != x.shape()[static_cast<std::size_t>(a)])
    throw ValueError(fmt::format("`split`: sizes {} sum to {}, axis {} has length {}",
                                 shape_to_string(sizes), total, a,
                                 x.shape()[static_cast<std::size_t>(a)]));
  std::vector<Tensor> out;
  std::int64_t at = 0;
  for (std::int64_t s : sizes) {
    out.push_back(x.slice(a, at, at + s));
    at += s;
  }
  return out;
}

Tensor take(const Tensor& x, const Tensor& indices, std::int64_t axis) {
  check_valid("take", x, "the tensor");
  if (x.ndim() == 0) throw ValueError("`take`: cannot index a 0-d tensor");
  const std::int64_t a = normalize_axis(axis, x.ndim());
  const std::vector<std::int64_t> idx =
      checked_indices("take", indices, a, x.shape()[static_cast<std::size_t>(a)]);
  Tensor out = Tensor::empty(x.dtype(), gathered_shape(x, indices, a));
  const AxisSplit s = split_at(x, a);
  const auto m = static_cast<std::int64_t>(idx.size());
  const std::int64_t rows = s.outer * m;
  if (out.size() == 0) return out;
  const std::size_t item = itemsize(x.dtype());
  with_word(item, [&]<class U>() {
    const U* src = static_cast<const U*>(x.raw_data());
    U* dst = static_cast<U*>(out.raw_data());
    parallel_for(rows, rows_grain(s.inner), [&](std::int64_t lo, std::int64_t hi) {
      for (std::int64_t r = lo; r < hi; ++r) {
        const std::int64_t o = r / m, j = r % m;
        const U* from = src + outer_offset(s, o) + idx[static_cast<std::size_t>(j)] * s.axis_stride;
        U* to = dst + r * s.inner;
        if (s.inner_dense) {
          std::memcpy(to, from, static_cast<std::size_t>(s.inner) * sizeof(U));
        } else {
          detail::for_each_strided(s.inner_shape, s.inner_strides,
                                   [&](std::int64_t off) { *to++ = from[off]; });
        }
      }
    });
  });
  return out;
}

void scatter_add(Tensor& target, const Tensor& indices, const Tensor& values, std::int64_t axis) {
  scatter<true>("scatter_add", target, indices, values, axis);
}

void scatter_set(Tensor& target, const Tensor& indices, const Tensor& values, std::int64_t axis) {
  scatter<false>("scatter_set", target, indices, values, axis);
}

void copy_into(Tensor& dst, const Tensor& src) {
  check_valid("copy_into", dst, "the destination");
  check_valid("copy_into", src, "the source");
  check_broadcast("copy_into", src, dst.shape());
  const DType from = src.dtype();
  const ScalarProgram& p =
      detail::single_op_program(ScalarOp::Cast, std::span<const DType>(&from, 1), dst.dtype());
  run_elemwise(p, std::span<const Tensor>(&src, 1), std::span<Tensor>(&dst, 1));
}

void add_into(Tensor& dst, const Tensor& src) {
  check_valid("add_into", dst, "the destination");
  check_valid("add_into", src, "the source");
  check_broadcast("add_into", src, dst.shape());
  ScalarProgram p;
  const Reg d = p.input(dst.dtype()), s = p.input(src.dtype());
  p.output(p.apply(ScalarOp::Add, {d, p.cast(s, dst.dtype())}));
  const Tensor in[] = {dst, src};
  run_elemwise(p, in, std::span<Tensor>(&dst, 1));
}

Tensor alloc(const Tensor& value, std::span<const std::int64_t> shape) {
  check_valid("alloc", value, "the value");
  for (std::int64_t d : shape)
    if (d < 0)
      throw ValueError(
          fmt::format("`alloc`: negative dimension in shape {}", shape_to_string(shape)));
  check_broadcast("alloc", value, shape);
  Tensor out = Tensor::empty(value.dtype(), shape);
  copy_into(out, value);
  return out;
}

void fill(Tensor& dst, double value) {
  check_valid("fill", dst, "the destination");
  ScalarProgram p;
  p.output(p.constant(value, dst.dtype()));
  run_elemwise(p, {}, std::span<Tensor>(&dst, 1));
}

}  // namespace rw

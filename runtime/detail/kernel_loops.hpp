// The dense loop every elementwise kernel instantiates; included by the kernel
// table translation units only.
#pragma once

#include <cstdint>

#include "runtime/detail/kernel_table.hpp"
#include "runtime/detail/scalar_math.hpp"

namespace rw::detail {

template <ScalarOp Op, class T>
void dense_loop(std::int64_t n, const void* const* args, void* out) {
  using F = scalar::Fn<Op>;
  if constexpr (Op == ScalarOp::Switch) {
    const bool* c = static_cast<const bool*>(args[0]);
    const T* a = static_cast<const T*>(args[1]);
    const T* b = static_cast<const T*>(args[2]);
    T* o = static_cast<T*>(out);
#pragma GCC ivdep
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::template apply<T>(c[i], a[i], b[i]);
  } else if constexpr (F::arity == 1) {
    using R = decltype(F::template apply<T>(T{}));
    const T* a = static_cast<const T*>(args[0]);
    R* o = static_cast<R*>(out);
#pragma GCC ivdep
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::template apply<T>(a[i]);
  } else if constexpr (F::arity == 2) {
    using R = decltype(F::template apply<T>(T{}, T{}));
    const T* a = static_cast<const T*>(args[0]);
    const T* b = static_cast<const T*>(args[1]);
    R* o = static_cast<R*>(out);
#pragma GCC ivdep
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::template apply<T>(a[i], b[i]);
  } else {
    using R = decltype(F::template apply<T>(T{}, T{}, T{}));
    const T* a = static_cast<const T*>(args[0]);
    const T* b = static_cast<const T*>(args[1]);
    const T* c = static_cast<const T*>(args[2]);
    R* o = static_cast<R*>(out);
#pragma GCC ivdep
    for (std::int64_t i = 0; i < n; ++i) o[i] = F::template apply<T>(a[i], b[i], c[i]);
  }
}

/// The kernel of Op on dtype t, or null where Op is not defined.
template <ScalarOp Op> KernelFn kernel_for(DType t) {
  return visit_dtype(t, [&]<class T>() -> KernelFn {
    if constexpr (scalar::Fn<Op>::template ok<T>) return &dense_loop<Op, T>;
    else return nullptr;
  });
}

}  // namespace rw::detail

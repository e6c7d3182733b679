// Implementations of Ops by backend (Aesara's jax_funcify / numba_funcify
// dispatch): an interpreter or native implementation for an Op class or an
// Op name, added without touching the Op.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeindex>
#include <unordered_map>

#include "engine/graph/errors.hpp"
#include "engine/graph/native_code.hpp"
#include "engine/graph/op.hpp"

namespace rw {

/// Where a compiled function's nodes run.
enum class Backend : std::uint8_t {
  Interpreter,  ///< The VM calls each node's perform.
  Native,       ///< The nodes with native code run it from a compiled module.
};

/// "interpreter" / "native"; nullopt for another name.
std::optional<Backend> parse_backend(std::string_view name);
std::string_view backend_name(Backend backend);

/// An interpreter implementation: what `Op::perform` does.
using PerformImpl =
    std::function<void(const Apply& node, std::span<const Tensor> inputs, std::span<Tensor> outputs)>;
/// A native implementation: what `Op::native_code` gives.
using NativeImpl =
    std::function<std::optional<NativeCode>(const Apply& node, const NativeNames& names)>;

/// Implementations that replace an Op's own for one backend, keyed by the
/// Op's class or by its name (the class is looked up first). Given to a
/// function through FunctionOptions::impls; not changed while a function
/// compiled with it exists.
class ImplRegistry {
 public:
  /// Replaces `perform` for Ops of class `op_class` / named `op_name`.
  void add_perform(std::type_index op_class, PerformImpl impl);
  void add_perform(std::string_view op_name, PerformImpl impl);
  /// Replaces `native_code` likewise.
  void add_native(std::type_index op_class, NativeImpl impl);
  void add_native(std::string_view op_name, NativeImpl impl);

  /// The implementation for `op`, or null when `op`'s own applies.
  const PerformImpl* perform_for(const Op& op) const;
  const NativeImpl* native_for(const Op& op) const;
  bool empty() const { return perform_.empty() && native_.empty(); }

 private:
  template <class F> struct Table {
    std::unordered_map<std::uint32_t, F> by_class;  // Op::class_index
    std::unordered_map<std::string, F> by_name;
    bool empty() const { return by_class.empty() && by_name.empty(); }
    const F* find(const Op& op) const;
  };
  Table<PerformImpl> perform_;
  Table<NativeImpl> native_;
};

/// Adds `impl` for Ops of class `OpT` on the backend named `backend`
/// ("interpreter": a PerformImpl, "native": a NativeImpl). Throws
/// ValueError naming an unknown backend or a callable that does
/// not fit it.
template <class OpT, class F>
void register_impl(ImplRegistry& registry, std::string_view backend, F&& impl) {
  const std::optional<Backend> b = parse_backend(backend);
  if (!b)
    throw ValueError("unknown backend `" + std::string(backend) + "` (known: interpreter, native)");
  if constexpr (std::is_constructible_v<PerformImpl, F>) {
    if (*b == Backend::Interpreter) return registry.add_perform(typeid(OpT), PerformImpl(impl));
  }
  if constexpr (std::is_constructible_v<NativeImpl, F>) {
    if (*b == Backend::Native) return registry.add_native(typeid(OpT), NativeImpl(impl));
  }
  throw ValueError("the implementation given for backend `" + std::string(backend) +
                   "` has the wrong signature");
}

/// register_impl for the Ops named `op_name`.
template <class F>
void register_impl(ImplRegistry& registry, std::string_view op_name, std::string_view backend,
                   F&& impl) {
  const std::optional<Backend> b = parse_backend(backend);
  if (!b)
    throw ValueError("unknown backend `" + std::string(backend) + "` (known: interpreter, native)");
  if constexpr (std::is_constructible_v<PerformImpl, F>) {
    if (*b == Backend::Interpreter) return registry.add_perform(op_name, PerformImpl(impl));
  }
  if constexpr (std::is_constructible_v<NativeImpl, F>) {
    if (*b == Backend::Native) return registry.add_native(op_name, NativeImpl(impl));
  }
  throw ValueError("the implementation given for backend `" + std::string(backend) +
                   "` has the wrong signature");
}

}  // namespace rw

// The table of Op implementations by backend.
#include "engine/graph/impl_registry.hpp"

namespace rw {

std::optional<Backend> parse_backend(std::string_view name) {
  if (name == "interpreter") return Backend::Interpreter;
  if (name == "native") return Backend::Native;
  return std::nullopt;
}

std::string_view backend_name(Backend backend) {
  return backend == Backend::Native ? "native" : "interpreter";
}

template <class F> const F* ImplRegistry::Table<F>::find(const Op& op) const {
  if (empty()) return nullptr;
  if (const auto it = by_class.find(op.class_index()); it != by_class.end()) return &it->second;
  if (const auto it = by_name.find(std::string(op.name())); it != by_name.end())
    return &it->second;
  return nullptr;
}

void ImplRegistry::add_perform(std::type_index op_class, PerformImpl impl) {
  perform_.by_class[Op::class_index_of(op_class)] = std::move(impl);
}

void ImplRegistry::add_perform(std::string_view op_name, PerformImpl impl) {
  perform_.by_name[std::string(op_name)] = std::move(impl);
}

void ImplRegistry::add_native(std::type_index op_class, NativeImpl impl) {
  native_.by_class[Op::class_index_of(op_class)] = std::move(impl);
}

void ImplRegistry::add_native(std::string_view op_name, NativeImpl impl) {
  native_.by_name[std::string(op_name)] = std::move(impl);
}

const PerformImpl* ImplRegistry::perform_for(const Op& op) const { return perform_.find(op); }

const NativeImpl* ImplRegistry::native_for(const Op& op) const { return native_.find(op); }

}  // namespace rw

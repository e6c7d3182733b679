// Shared variables.
#include "engine/compile/shared.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/printing.hpp"

namespace rw {

SharedVariable::SharedVariable(TypePtr type, std::string name, Tensor value, bool strict,
                               bool allow_downcast)
    : Variable(std::move(type), std::move(name), false), value_(std::move(value)),
      strict_(strict), allow_downcast_(allow_downcast) {}

Tensor SharedVariable::get_value(bool borrow) const { return borrow ? value_ : value_.copy(); }

void SharedVariable::set_value(const Tensor& value, bool borrow) {
  Tensor checked;
  try {
    checked = type()->filter(value, strict_, allow_downcast_);
  } catch (const TypeError& e) {
    throw TypeError(fmt::format("cannot set shared variable `{}`: {}", name(), e.what()));
  }
  // filter returns the value itself when it fits as it is; a converted value
  // is already a private copy.
  const bool converted = !checked.shares_storage(value);
  value_ = borrow || converted ? std::move(checked) : checked.copy();
}

Shared::Shared(const Var& var) : Var(var) {
  if (!var || !as_shared(var))
    throw TypeError(fmt::format("{} is not a shared variable",
                                var ? describe(*var) : std::string("a null variable")));
}

Shared shared(std::string name, const Tensor& value, SharedOptions options) {
  if (!value.valid()) throw TypeError(fmt::format("shared variable `{}` needs a value", name));
  StaticShape shape = options.shape ? *options.shape
                                    : StaticShape(static_cast<std::size_t>(value.ndim()),
                                                  kUnknownDim);
  return shared(std::move(name), value, TensorType::make(value.dtype(), std::move(shape)),
                options);
}

Shared shared(std::string name, const Tensor& value, TypePtr type, SharedOptions options) {
  if (!value.valid()) throw TypeError(fmt::format("shared variable `{}` needs a value", name));
  if (!type) throw TypeError(fmt::format("shared variable `{}` needs a type", name));
  Tensor checked;
  try {
    checked = type->filter(value, /*strict=*/true);
  } catch (const TypeError& e) {
    throw TypeError(fmt::format("cannot create shared variable `{}`: {}", name, e.what()));
  }
  if (!options.borrow) checked = checked.copy();
  return Shared(new SharedVariable(std::move(type), std::move(name), std::move(checked),
                                   options.strict, options.allow_downcast));
}

SharedVariable* as_shared(const Var& var) { return var ? as_shared(*var) : nullptr; }
SharedVariable* as_shared(Variable& var) { return dynamic_cast<SharedVariable*>(&var); }
const SharedVariable* as_shared(const Variable& var) {
  return dynamic_cast<const SharedVariable*>(&var);
}

}  // namespace rw

// Variable and Constant construction, and freeing unreferenced variables.
#include "engine/graph/variable.hpp"

#include "engine/graph/apply.hpp"
#include "engine/graph/errors.hpp"

namespace rw {

Variable::Variable(TypePtr type, std::string name, bool is_constant)
    : type_(std::move(type)), name_(std::move(name)), count_(&own_count_),
      is_constant_(is_constant) {
  if (!type_) throw TypeError("a variable needs a type");
}

Variable::Variable(TypePtr type, Apply* owner, std::uint32_t index, detail::RefCount* count)
    : type_(std::move(type)), owner_(owner), count_(count), index_(index) {}

Var Variable::make(TypePtr type, std::string name) {
  return Var(new Variable(std::move(type), std::move(name), false));
}

Constant::Constant(Tensor value, TypePtr type, std::string name)
    : Variable(std::move(type), std::move(name), true), value_(std::move(value)) {
  signature_ = this->type()->hash() * 31 + value_.content_hash();
}

Var Constant::make(Tensor value, TypePtr type, std::string name) {
  if (!value.valid()) throw TypeError("a constant needs a value");
  if (!type) {
    StaticShape shape(value.shape().begin(), value.shape().end());
    type = TensorType::make(value.dtype(), std::move(shape));
  }
  Tensor owned = type->filter(value);
  value = Tensor();  // this handle would make the storage look shared
  // Constants are immutable: keep a private copy, converted to the type —
  // unless the storage already is private (a temporary moved in, or filter's
  // conversion), as for the literals of a rule's right side.
  if (owned.storage().use_count() != 1 || !owned.is_contiguous() || owned.offset() != 0)
    owned = owned.copy();
  return Var(new Constant(std::move(owned), std::move(type), std::move(name)));
}

Var Constant::scalar(double value, DType dtype) {
  return make(Tensor::scalar(value, dtype));
}

bool Constant::same_value(const Constant& other) const {
  return signature_ == other.signature_ && type()->equals(*other.type()) &&
         value_.equal(other.value_);
}

std::optional<double> Constant::scalar_value() const {
  if (value_.size() != 1) return std::nullopt;
  return value_.item<double>();
}

namespace detail {
void destroy_unreferenced(Variable* v) noexcept {
  if (v->owner_) Apply::destroy(v->owner_);
  else delete v;
}
}  // namespace detail

}  // namespace rw

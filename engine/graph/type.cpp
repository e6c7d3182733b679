// Type, TensorType and the gradient marker types.
#include "engine/graph/type.hpp"

#include <fmt/format.h>

#include "engine/graph/errors.hpp"
#include "engine/graph/variable.hpp"

namespace rw {

Var Type::convert_variable(const Var& var) const {
  if (!var) return nullptr;
  return is_super(*var->type()) ? var : Var();
}

std::string format_tensor_type(DType dtype, std::span<const std::int64_t> shape) {
  std::string out(dtype_short_name(dtype));
  out += '[';
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ',';
    out += shape[i] == kUnknownDim ? std::string("?") : std::to_string(shape[i]);
  }
  return out + ']';
}

TensorType::TensorType(DType dtype, StaticShape shape) : dtype_(dtype), shape_(std::move(shape)) {
  for (auto d : shape_)
    if (d < kUnknownDim)
      throw TypeError(fmt::format("invalid static extent {} in tensor type", d));
  if (!shape_size_fits(shape_))
    throw TypeError(fmt::format(
        "the type `{}` has too many elements: its extents multiply beyond 2^63 - 1", to_string()));
}

std::shared_ptr<const TensorType> TensorType::make(DType dtype, StaticShape shape) {
  return std::make_shared<const TensorType>(dtype, std::move(shape));
}

std::vector<bool> TensorType::broadcastable() const {
  std::vector<bool> out(shape_.size());
  for (std::size_t i = 0; i < shape_.size(); ++i) out[i] = shape_[i] == 1;
  return out;
}

bool TensorType::shape_known() const {
  for (auto d : shape_)
    if (d == kUnknownDim) return false;
  return true;
}

bool TensorType::equals(const Type& other) const {
  const auto* t = as_tensor_type(other);
  return t && t->dtype_ == dtype_ && t->shape_ == shape_;
}

std::size_t TensorType::hash() const {
  std::size_t h = 0x7e45 ^ static_cast<std::size_t>(dtype_);
  for (auto d : shape_) h = h * 1000003u ^ static_cast<std::size_t>(d + 2);
  return h;
}

std::string TensorType::to_string() const { return format_tensor_type(dtype_, shape_); }

bool TensorType::is_super(const Type& other) const {
  const auto* t = as_tensor_type(other);
  if (!t || t->dtype_ != dtype_ || t->shape_.size() != shape_.size()) return false;
  for (std::size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != kUnknownDim && shape_[i] != t->shape_[i]) return false;
  return true;
}

namespace {
std::string shape_mismatch(const TensorType& type, const Tensor& value) {
  return fmt::format("expected a tensor of type {}, got one of dtype {} and shape {}",
                     type.to_string(), dtype_name(value.dtype()),
                     shape_to_string(value.shape()));
}
}  // namespace

bool TensorType::is_valid_value(const Tensor& value) const {
  if (!value.valid() || value.dtype() != dtype_) return false;
  if (static_cast<std::size_t>(value.ndim()) != shape_.size()) return false;
  for (std::size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != kUnknownDim && shape_[i] != value.shape()[i]) return false;
  return true;
}

Tensor TensorType::filter(const Tensor& value, bool strict, bool allow_downcast) const {
  if (!value.valid()) throw TypeError("expected a tensor of type " + to_string() + ", got none");
  if (static_cast<std::size_t>(value.ndim()) != shape_.size())
    throw TypeError(shape_mismatch(*this, value) + fmt::format(" ({} dimensions instead of {})",
                                                                value.ndim(), shape_.size()));
  for (std::size_t i = 0; i < shape_.size(); ++i)
    if (shape_[i] != kUnknownDim && shape_[i] != value.shape()[i])
      throw TypeError(shape_mismatch(*this, value) +
                      fmt::format(" (axis {} has length {}, not {})", i, value.shape()[i],
                                  shape_[i]));
  if (value.dtype() == dtype_) return value;
  if (strict)
    throw TypeError(shape_mismatch(*this, value) + " (dtype must match exactly)");
  if (promote(value.dtype(), dtype_) == dtype_ || allow_downcast) return value.astype(dtype_);
  throw TypeError(shape_mismatch(*this, value) +
                  fmt::format(" ({} to {} may lose precision; allow downcast to accept it)",
                              dtype_name(value.dtype()), dtype_name(dtype_)));
}

std::shared_ptr<const TensorType> TensorType::with_dtype(DType dtype) const {
  return make(dtype, shape_);
}

std::shared_ptr<const TensorType> TensorType::with_shape(StaticShape shape) const {
  return make(dtype_, std::move(shape));
}

TypePtr DisconnectedType::make() {
  static const TypePtr instance = std::make_shared<const DisconnectedType>();
  return instance;
}

bool DisconnectedType::equals(const Type& other) const {
  return dynamic_cast<const DisconnectedType*>(&other) != nullptr;
}

Tensor DisconnectedType::filter(const Tensor&, bool, bool) const {
  throw TypeError("a disconnected gradient holds no value");
}

TypePtr NullType::make(std::string why) { return std::make_shared<const NullType>(std::move(why)); }

bool NullType::equals(const Type& other) const {
  const auto* t = dynamic_cast<const NullType*>(&other);
  return t && t->why_ == why_;
}

std::size_t NullType::hash() const { return std::hash<std::string>()(why_) ^ 0x9011; }

Tensor NullType::filter(const Tensor&, bool, bool) const {
  throw TypeError("an undefined gradient holds no value: " + why_);
}

}  // namespace rw

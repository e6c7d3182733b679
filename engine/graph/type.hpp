// Types of graph variables: TensorType, and the marker types of gradients.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/tensor.hpp"

namespace rw {

class Type;
class TensorType;
class Var;
/// Types are immutable and shared.
using TypePtr = std::shared_ptr<const Type>;

/// A static (compile-time) shape: one entry per axis, kUnknownDim where the
/// extent is not known until run time.
using StaticShape = std::vector<std::int64_t>;
inline constexpr std::int64_t kUnknownDim = -1;

/// What a Variable may hold. Implements Aesara's type contract: check and
/// convert a value (`filter`), compare, and relate a more specific type to a
/// less specific one (`is_super`, `convert_variable`).
class Type {
 public:
  virtual ~Type() = default;

  virtual bool equals(const Type& other) const = 0;
  virtual std::size_t hash() const = 0;
  /// Short form used by printers: `f64[?,3]`.
  virtual std::string to_string() const = 0;

  /// True when every value valid for `other` is valid for this type (this type
  /// is the same or more general).
  virtual bool is_super(const Type& other) const { return equals(other); }

  /// This type as a TensorType, or nullptr: what `as_tensor_type` asks,
  /// which the graph and every Op ask so often that a dynamic_cast showed.
  virtual const TensorType* as_tensor() const { return nullptr; }

  /// Returns `value` if it is valid for this type; otherwise converts it where
  /// that loses nothing (or, with `allow_downcast`, where it may lose
  /// precision), or throws TypeError naming what does not fit. With `strict`,
  /// no conversion is made at all.
  virtual Tensor filter(const Tensor& value, bool strict = false,
                        bool allow_downcast = false) const = 0;
  /// True when `value` is valid as it is.
  virtual bool is_valid_value(const Tensor& value) const = 0;

  /// A variable of this type standing for `var`: `var` itself when this type
  /// is a supertype of its type, a null Var when the types are incompatible.
  virtual Var convert_variable(const Var& var) const;

  friend bool operator==(const Type& a, const Type& b) { return a.equals(b); }
};

/// Type of n-dimensional arrays: a dtype and a static shape whose entries are
/// known extents or kUnknownDim. An axis of static extent 1 is broadcastable.
class TensorType final : public Type {
 public:
  TensorType(DType dtype, StaticShape shape);
  static std::shared_ptr<const TensorType> make(DType dtype, StaticShape shape);

  DType dtype() const { return dtype_; }
  const StaticShape& shape() const { return shape_; }
  std::size_t ndim() const { return shape_.size(); }
  /// True for each axis whose static extent is 1.
  std::vector<bool> broadcastable() const;
  bool is_broadcastable(std::size_t axis) const { return shape_[axis] == 1; }
  /// True when every extent is known.
  bool shape_known() const;

  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  std::string to_string() const override;
  bool is_super(const Type& other) const override;
  const TensorType* as_tensor() const override { return this; }
  Tensor filter(const Tensor& value, bool strict = false,
                bool allow_downcast = false) const override;
  bool is_valid_value(const Tensor& value) const override;

  /// This type with another dtype, or another static shape.
  std::shared_ptr<const TensorType> with_dtype(DType dtype) const;
  std::shared_ptr<const TensorType> with_shape(StaticShape shape) const;

 private:
  DType dtype_;
  StaticShape shape_;
};

/// The type of a gradient that does not exist because an output does not
/// depend on an input (Aesara's DisconnectedType).
class DisconnectedType final : public Type {
 public:
  static TypePtr make();
  bool equals(const Type& other) const override;
  std::size_t hash() const override { return 0xd15c0; }
  std::string to_string() const override { return "disconnected"; }
  Tensor filter(const Tensor& value, bool strict, bool allow_downcast) const override;
  bool is_valid_value(const Tensor&) const override { return false; }
};

/// The type of a gradient that is undefined, with the reason (Aesara's
/// NullType), e.g. the gradient of an integer-valued operation.
class NullType final : public Type {
 public:
  explicit NullType(std::string why) : why_(std::move(why)) {}
  static TypePtr make(std::string why);
  const std::string& why() const { return why_; }
  bool equals(const Type& other) const override;
  std::size_t hash() const override;
  std::string to_string() const override { return "null(" + why_ + ")"; }
  Tensor filter(const Tensor& value, bool strict, bool allow_downcast) const override;
  bool is_valid_value(const Tensor&) const override { return false; }

 private:
  std::string why_;
};

/// The TensorType of `type`, or nullptr when it is another kind of type.
inline const TensorType* as_tensor_type(const Type& type) { return type.as_tensor(); }
/// `f64[?,3]` for a dtype and static shape.
std::string format_tensor_type(DType dtype, std::span<const std::int64_t> shape);

}  // namespace rw

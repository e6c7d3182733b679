// Variable (a typed value in a graph), Constant, and the Var handle.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

#include "engine/graph/type.hpp"
#include "runtime/tensor.hpp"

namespace rw {

class Apply;
class Constant;
class Variable;

namespace detail {
/// Reference count shared by an Apply node and its outputs.
struct RefCount {
  std::atomic<std::uint32_t> n{0};
};
/// Frees a Variable (or its owner Apply) whose count reached zero. Iterative:
/// dropping a chain of a million nodes does not recurse.
void destroy_unreferenced(Variable* v) noexcept;
struct FGraphImpl;
struct WorklistMark;
}  // namespace detail

/// A counted handle to a Variable. Holding an output variable keeps its Apply
/// node (and so everything it was computed from) alive; nothing forms a cycle,
/// because a node refers to its inputs and never to its clients.
///
/// `==` compares identity, as Aesara's `is`; the ops library gives the
/// arithmetic and ordering operators their graph-building meaning.
class Var {
 public:
  Var() noexcept = default;
  Var(std::nullptr_t) noexcept {}
  explicit Var(Variable* v) noexcept;
  Var(const Var& o) noexcept;
  Var(Var&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  Var& operator=(const Var& o) noexcept {
    Var(o).swap(*this);
    return *this;
  }
  Var& operator=(Var&& o) noexcept {
    Var(std::move(o)).swap(*this);
    return *this;
  }
  ~Var();

  Variable* get() const noexcept { return p_; }
  Variable* operator->() const noexcept { return p_; }
  Variable& operator*() const noexcept { return *p_; }
  explicit operator bool() const noexcept { return p_ != nullptr; }
  void swap(Var& o) noexcept { std::swap(p_, o.p_); }

  /// Gives up this handle's reference without dropping it and returns the
  /// variable (as boost::intrusive_ptr::detach). Pair with `adopt`: packed
  /// handles (e.g. a term that stores a Variable* in tagged bits) own counts
  /// this way.
  [[nodiscard]] Variable* release() noexcept { return std::exchange(p_, nullptr); }
  /// A handle that takes over one reference given up by `release`.
  static Var adopt(Variable* v) noexcept {
    Var out;
    out.p_ = v;
    return out;
  }

  friend bool operator==(const Var& a, const Var& b) noexcept { return a.p_ == b.p_; }
  friend bool operator==(const Var& a, std::nullptr_t) noexcept { return a.p_ == nullptr; }

 private:
  Variable* p_ = nullptr;
};

/// A value in a graph: an input, a constant, or output `index` of its owner
/// Apply node.
class Variable {
 public:
  /// A new root variable (a graph input) of this type.
  static Var make(TypePtr type, std::string name = {});

  virtual ~Variable() = default;
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  const TypePtr& type() const { return type_; }
  /// The TensorType of this variable, or nullptr for other types.
  const TensorType* tensor_type() const { return as_tensor_type(*type_); }
  const std::string& name() const { return name_; }
  void set_name(std::string name) { name_ = std::move(name); }
  /// The node that computes this variable; nullptr for inputs and constants.
  Apply* owner() const { return owner_; }
  /// Which output of the owner this variable is.
  std::uint32_t index() const { return index_; }
  bool is_constant() const { return is_constant_; }
  /// This variable as a Constant, or nullptr.
  const Constant* as_constant() const;
  /// A handle to this variable.
  Var ref() { return Var(this); }

 protected:
  Variable(TypePtr type, std::string name, bool is_constant);

 private:
  friend class Var;
  friend class Apply;
  friend void detail::destroy_unreferenced(Variable*) noexcept;
  // An output variable, constructed in place inside its Apply's allocation.
  Variable(TypePtr type, Apply* owner, std::uint32_t index, detail::RefCount* count);

  TypePtr type_;
  std::string name_;
  Apply* owner_ = nullptr;
  detail::RefCount* count_;  // the owner's count for outputs, own_count_ for roots
  detail::RefCount own_count_;
  std::uint32_t index_ = 0;
  bool is_constant_ = false;
};

/// A root variable with a fixed value. Two constants with the same type and
/// value are recognisable as equal (`same_value`) so that merging can fold them.
class Constant final : public Variable {
 public:
  /// A constant of `value`; its type is the tensor type with the value's dtype
  /// and its exact shape, unless `type` is given.
  static Var make(Tensor value, TypePtr type = nullptr, std::string name = {});
  /// A 0-d constant.
  static Var scalar(double value, DType dtype = DType::Float64);

  const Tensor& value() const { return value_; }
  /// Hash of type and value, computed once.
  std::size_t signature_hash() const { return signature_; }
  /// Same type and elementwise-equal value.
  bool same_value(const Constant& other) const;
  /// For a constant of size 1, its element as double.
  std::optional<double> scalar_value() const;

 private:
  Constant(Tensor value, TypePtr type, std::string name);
  Tensor value_;
  std::size_t signature_;
};

// ---------------------------------------------------------------------------

inline Var::Var(Variable* v) noexcept : p_(v) {
  if (p_) p_->count_->n.fetch_add(1, std::memory_order_relaxed);
}
inline Var::Var(const Var& o) noexcept : p_(o.p_) {
  if (p_) p_->count_->n.fetch_add(1, std::memory_order_relaxed);
}
inline Var::~Var() {
  if (p_ && p_->count_->n.fetch_sub(1, std::memory_order_acq_rel) == 1)
    detail::destroy_unreferenced(p_);
}

inline const Constant* Variable::as_constant() const {
  return is_constant_ ? static_cast<const Constant*>(this) : nullptr;
}

}  // namespace rw

template <> struct std::hash<rw::Var> {
  std::size_t operator()(const rw::Var& v) const noexcept {
    return std::hash<const void*>()(v.get());
  }
};

// Shared variables: graph inputs whose value lives between calls of the
// functions that use them, and that updates change after a call.
#pragma once

#include <optional>
#include <string>

#include "engine/graph/type.hpp"
#include "engine/graph/variable.hpp"
#include "runtime/tensor.hpp"

namespace rw {

namespace detail {
class FunctionCore;
}

/// How `shared` builds a variable.
struct SharedOptions {
  /// Static shape of the variable's type; by default every extent is unknown,
  /// so that `set_value` may change the shape (as Aesara's `shared`).
  std::optional<StaticShape> shape;
  /// Keep `value` itself instead of a copy.
  bool borrow = false;
  /// `set_value` accepts only values of the exact dtype.
  bool strict = false;
  /// `set_value` accepts conversions that may lose precision.
  bool allow_downcast = false;
};

class Shared;
/// A new shared variable `name` holding `value` (a copy unless
/// `options.borrow`). Its type has the value's dtype and, unless
/// `options.shape` says otherwise, unknown extents.
Shared shared(std::string name, const Tensor& value, SharedOptions options = {});
/// A new shared variable `name` of type `type` (any Type: a generator's
/// `rng`, say) holding `value`, which the type checks as `set_value` does
/// (TypeError naming the variable when it does not fit); a copy unless
/// `options.borrow`. `options.shape` is not used.
Shared shared(std::string name, const Tensor& value, TypePtr type, SharedOptions options = {});

/// A root variable that holds a value (Aesara's SharedVariable). Every
/// compiled function that uses it reads its current value as an implicit
/// input, and a function's updates assign it a new value after a call.
///
/// The value is always valid for the variable's type: `set_value` checks and
/// converts it. Shared variables are never overwritten in place by a
/// function; a call that throws leaves every one of them as it was.
class SharedVariable final : public Variable {
 public:
  /// A copy of the value, or the value itself with `borrow` (then the caller
  /// must not write into it: functions assume it does not change).
  Tensor get_value(bool borrow = false) const;
  /// Replaces the value. It is checked against the type (converted where no
  /// precision is lost, unless the variable is strict; with precision loss
  /// when it allows downcasts) and copied unless `borrow`. Throws TypeError
  /// naming the variable when the value does not fit; the old value stays.
  void set_value(const Tensor& value, bool borrow = false);
  /// The value, without copying.
  const Tensor& value() const { return value_; }

 private:
  friend Shared shared(std::string name, const Tensor& value, TypePtr type,
                       SharedOptions options);
  friend class detail::FunctionCore;
  SharedVariable(TypePtr type, std::string name, Tensor value, bool strict, bool allow_downcast);

  Tensor value_;
  bool strict_;
  bool allow_downcast_;
};

/// A handle to a SharedVariable. It is a Var, so it goes wherever a variable
/// does (`x * w`, `grad(loss, {w})`, `function({x}, {y})`), and it gives the
/// value's accessors.
class Shared : public Var {
 public:
  /// A null handle.
  Shared() = default;
  /// The shared variable behind `var`; throws TypeError when it is not one.
  explicit Shared(const Var& var);

  /// The variable itself.
  SharedVariable& variable() const { return static_cast<SharedVariable&>(**this); }
  /// Its name, as given to `shared`.
  const std::string& name() const { return (*this)->name(); }
  /// See SharedVariable::get_value and set_value.
  Tensor get_value(bool borrow = false) const { return variable().get_value(borrow); }
  void set_value(const Tensor& value, bool borrow = false) const {
    variable().set_value(value, borrow);
  }

 private:
  friend Shared shared(std::string name, const Tensor& value, TypePtr type,
                       SharedOptions options);
  explicit Shared(SharedVariable* v) : Var(v) {}
};

/// `var` as a shared variable, or nullptr.
SharedVariable* as_shared(const Var& var);
SharedVariable* as_shared(Variable& var);
const SharedVariable* as_shared(const Variable& var);

}  // namespace rw

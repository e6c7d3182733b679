// Rule variables by index, and Bindings: what a match bound each to, the
// input of guard evaluation and of building a rule's right side.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "engine/graph/op.hpp"
#include "engine/graph/variable.hpp"

namespace rw::dsl {

/// Index of a variable in CheckedRule::vars.
enum class VarId : std::uint32_t {};
/// The index a VarId stands for.
constexpr std::uint32_t index_of(VarId id) {
  return static_cast<std::uint32_t>(id);
}

/// The values a match bound to a rule's variables: a graph variable for each
/// tensor variable, a property value for each parameter variable.
class Bindings {
 public:
  /// Room for `n` variables, none bound.
  explicit Bindings(std::size_t n = 0) : values_(n) {}

  /// Number of variables.
  std::size_t size() const { return values_.size(); }
  /// Binds a tensor variable to a graph variable.
  void bind(VarId id, Var value) { values_.at(index_of(id)) = std::move(value); }
  /// Binds a parameter variable to a property value.
  void bind(VarId id, PropValue value) { values_.at(index_of(id)) = std::move(value); }
  /// Forgets what `id` was bound to.
  void unbind(VarId id) { values_.at(index_of(id)) = std::monostate{}; }
  /// Whether `id` is bound to anything.
  bool is_bound(VarId id) const {
    return !std::holds_alternative<std::monostate>(values_.at(index_of(id)));
  }
  /// The graph variable bound to `id`, or null.
  const Var* tensor(VarId id) const { return std::get_if<Var>(&values_.at(index_of(id))); }
  /// The property value bound to `id`, or null.
  const PropValue* param(VarId id) const {
    return std::get_if<PropValue>(&values_.at(index_of(id)));
  }

 private:
  std::vector<std::variant<std::monostate, Var, PropValue>> values_;
};

}  // namespace rw::dsl

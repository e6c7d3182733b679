// op_as: the Op of a node as one final Op class, by type_info, for passes that
// ask it of every node.
#pragma once

#include <cstdint>
#include <type_traits>
#include <typeinfo>

#include "engine/graph/op.hpp"

namespace rw::ops_detail {

/// `op` as a `T` when it is one, else nullptr. T is final, so comparing the
/// classes gives dynamic_cast's answer without walking the class hierarchy.
/// Most answers are no: those come from Op::class_index, a number each Op
/// keeps, instead of type_info's string compare; a yes is confirmed by
/// type_info (equal objects, in the usual case).
template <class T> [[gnu::always_inline]] inline const T* op_as(const Op& op) {
  static_assert(std::is_final_v<T>, "op_as needs a final Op class");
  static const std::uint32_t want = Op::class_index_of(typeid(T));
  if (op.class_index() != want) return nullptr;
  // Equal type_info objects, in the usual case: a pointer compare.
  return typeid(op) == typeid(T) ? static_cast<const T*>(&op) : nullptr;
}

}  // namespace rw::ops_detail

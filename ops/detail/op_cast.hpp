// op_as: the Op of a node as one final Op class, by type_info, for passes that
// ask it of every node.
#pragma once

#include <type_traits>
#include <typeinfo>

#include "engine/graph/op.hpp"

namespace rw::ops_detail {

/// `op` as a `T` when it is one, else nullptr. T is final, so comparing
/// type_info gives dynamic_cast's answer without walking the class hierarchy.
template <class T> const T* op_as(const Op& op) {
  static_assert(std::is_final_v<T>, "op_as needs a final Op class");
  return typeid(op) == typeid(T) ? static_cast<const T*>(&op) : nullptr;
}

}  // namespace rw::ops_detail

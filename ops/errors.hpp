// The errors Ops raise at run time, when values (not types) are wrong.
#pragma once

#include "engine/graph/errors.hpp"

namespace rw {

/// A value does not fit what an Op computes at run time: extents that do not
/// broadcast, a reshape to another number of elements, a shape that differs
/// from the one specified. The message names the Op and the input.
class ValueError : public Error {
 public:
  using Error::Error;
};

/// An index is out of bounds for the axis it indexes. The message names the
/// Op, the index, the axis and its extent.
class IndexError : public Error {
 public:
  using Error::Error;
};

}  // namespace rw

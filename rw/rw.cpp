// The umbrella target's own definitions.
#include "rw/rw.hpp"

namespace rw {

const char* version() { return "0.1.0"; }

}  // namespace rw

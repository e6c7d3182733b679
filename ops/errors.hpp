// The errors Ops raise at run time, when values (not types) are wrong:
// ValueError and IndexError, which the runtime's kernels throw too. They are
// defined at the bottom layer (support/error.hpp); this header stays so that
// the Ops' code names what it throws.
#pragma once

#include "engine/graph/errors.hpp"

// The exception the rewrite layer throws for misuse: a bad registration or
// query, or a rewriter that returned something the drivers cannot apply.
#pragma once

#include "engine/graph/errors.hpp"

namespace rw {

/// A rewrite database or driver was misused (a name registered twice, a tag
/// that collides with a name, an unknown mode), or a node rewriter returned a
/// malformed result (the wrong number of replacements).
class RewriteError : public Error {
 public:
  using Error::Error;
};

}  // namespace rw

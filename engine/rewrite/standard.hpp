// The standard pipeline (Aesara's optdb): merge -> canonicalize -> stabilize
// -> specialize -> (fusion, inplace: added by the layers that own them) ->
// merge, by position.
#pragma once

#include <memory>

#include "engine/rewrite/database.hpp"

namespace rw {

/// Positions of the standard pipeline's passes (Aesara's).
namespace position {
/// The merges, the walk of useless-node removals and the equilibrium groups.
inline constexpr double kMerge1 = 0;
inline constexpr double kUseless = 0.6;
inline constexpr double kMerge11 = 0.65;
inline constexpr double kCanonicalize = 1;
inline constexpr double kMerge12 = 1.2;
inline constexpr double kStabilize = 1.5;
/// Cancellation in products (ops/simplify.hpp), its own pass after stabilize.
inline constexpr double kStabilizeProducts = 1.6;
inline constexpr double kSpecialize = 2;
inline constexpr double kUncanonicalize = 3;
/// Where elementwise fusion goes (registered by the Op library).
inline constexpr double kFusion = 49;
inline constexpr double kMerge2 = 49;
/// Where in-place rewrites go (registered by the compile layer).
inline constexpr double kInplace = 75;
inline constexpr double kMerge3 = 100;
}  // namespace position

/// A fresh standard database, named `optdb`:
///
/// | position | entry          | kind        | tags                          |
/// |----------|----------------|-------------|-------------------------------|
/// | 0        | merge1         | merge       | fast_run fast_compile merge   |
/// | 0.6      | useless        | walking     | fast_run fast_compile         |
/// | 0.65     | merge1.1       | merge       | fast_run fast_compile merge   |
/// | 1        | canonicalize   | equilibrium | fast_run fast_compile         |
/// | 1.2      | merge1.2       | merge       | fast_run fast_compile merge   |
/// | 1.5      | stabilize      | equilibrium | fast_run                      |
/// | 2        | specialize     | equilibrium | fast_run fast_compile         |
/// | 3        | uncanonicalize | equilibrium | fast_run                      |
/// | 49       | merge2         | merge       | fast_run merge                |
/// | 100      | merge3         | merge       | fast_run merge                |
///
/// canonicalize, stabilize and specialize hold `constant_folding` (tags
/// fast_run fast_compile); canonicalize has a merge cleanup (`merge`). Rules
/// and C++ rewriters are registered into the groups by the layers that define
/// them: `db->sub<EquilibriumDB>("canonicalize").add(rule, {"fast_run"})`.
std::shared_ptr<SequenceDB> make_standard_db();

}  // namespace rw

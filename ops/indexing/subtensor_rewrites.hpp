// Subtensor rewrites (PyTensor's local_subtensor_merge, local_useless_subtensor,
// local_subtensor_lift, local_subtensor_of_alloc, local_subtensor_of_join)
// and the slice arithmetic they rest on.
#pragma once

#include <cstdint>
#include <optional>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// A slice with constant bounds, as Python reads it (absent: nullopt).
struct ConstSlice {
  std::optional<std::int64_t> start, stop, step;
  friend bool operator==(const ConstSlice&, const ConstSlice&) = default;
};

/// A slice `s` with `x[s] == x[first][second]` for every x whose axis has
/// extent `n` (nullopt: any extent), or nullopt when none can be proven:
///   - with `n` known, any steps and signs (both slices become arithmetic
///     progressions of indices, which compose exactly);
///   - with `n` unknown, positive steps and non-negative bounds only:
///     `a1:b1:c1` then `a2:b2:c2` is `a1+a2*c1 : min(b1, a1+b2*c1) : c1*c2`
///     (a negative bound counts from an end the slice cannot see).
/// Also nullopt for a zero step or an overflow.
std::optional<ConstSlice> merge_slices(const ConstSlice& first, const ConstSlice& second,
                                       std::optional<std::int64_t> n);

/// The index j with `x[j] == x[first][i]` whenever the latter is in range, and
/// which raises exactly when it does, or nullopt: with `n` known, any slice
/// and an `i` in range (j >= 0); with `n` unknown, a slice `a::c` with a >= 0,
/// c > 0 and no stop, and i >= 0 (then j = a + i*c).
std::optional<std::int64_t> merge_slice_index(const ConstSlice& first, std::int64_t i,
                                              std::optional<std::int64_t> n);

/// `x[s1][s2] -> x[s]`: two subtensors merged axis by axis (merge_slices,
/// merge_slice_index; a `:` on either side passes the other's bounds, even
/// symbolic ones, through); fails where an axis cannot be proven.
class SubtensorMerge final : public NodeRewriter {
 public:
  SubtensorMerge();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `x[:]`, `x[0:]`, `x[::1]`, `x[:n]` with n at least x's static extent or
/// `shape_i(x)` -> x: a subtensor of slices that keep every element.
class SubtensorUseless final : public NodeRewriter {
 public:
  SubtensorUseless();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `f(x, y)[idx] -> f(x[idx], y[idx])` for an Elemwise f whose result only
/// the subtensor reads (PyTensor's local_subtensor_lift): less elementwise
/// work. Each input must be 0-d (kept as is) or of the result's rank with a
/// static extent other than 1 on every indexed axis where the result's is
/// not 1 (an input that broadcasts there is not indexed the same way:
/// refused). And `dimshuffle(x, order)[idx] -> dimshuffle(x[idx'], order')`:
/// each entry moves to the axis of x its result axis comes from, so that the
/// subtensor meets what computes x (`transpose(m)[1] -> m[:, 1]`); an integer
/// on a new axis must be a constant 0 or -1 and drops the axis, a slice
/// there refuses.
class SubtensorLift final : public NodeRewriter {
 public:
  SubtensorLift();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Constant integer indices into a result built of known pieces:
///   - `alloc(v, d0, …, dk, …)[i0, …, ik]` on leading axes v does not cover,
///     each `i` a constant in range of a constant extent -> `alloc(v, dk+1, …)`
///     (PyTensor's local_subtensor_of_alloc); v itself when only v's own
///     axes are left and none has static extent 1 (alloc would then only
///     check v's extents, a check this drops, as PyTensor does);
///   - `join{axis=0}(a, b, …)[i, rest…]` with the static extents of the pieces
///     up to the one holding i known -> `piece[i - offset, rest…]` (cast to
///     the join's dtype if the piece's differs).
class SubtensorOfPieces final : public NodeRewriter {
 public:
  SubtensorOfPieces();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Registers SubtensorMerge (`subtensor_merge`), SubtensorUseless
/// (`subtensor_useless`), SubtensorLift (`subtensor_lift`) and
/// SubtensorOfPieces (`subtensor_of_pieces`) in the `canonicalize` group of
/// a standard database, tags `fast_run`, `fast_compile`, `subtensor`.
void register_subtensor_rewrites(SequenceDB& db);

}  // namespace rw

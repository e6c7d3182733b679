// Shape folding (PyTensor's local_shape_to_shape_i family): a shape read
// from static types or from the inputs of the node that made the value,
// instead of from the computed value.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `shape_i(x, i=k)` folded, in this order:
///   - a known static extent of axis k -> that int64 constant;
///   - `x = alloc(v, d0, …)` -> `d_k` (as int64): alloc's extents are its inputs;
///   - `x` an elementwise result (Elemwise, Fill, Composite) -> `shape_i` of
///     the first input whose axis aligned with k (right-aligned) has a static
///     extent other than 1: only an axis of static extent 1 broadcasts
///     (docs/ops.md), so that input has the result's extent;
///   - `x = dimshuffle(y, order)` with `order[k]` an axis of y -> `shape_i(y, order[k])`;
///   - `x = specify_shape(y)` -> `shape_i(y)`; `x = join{axis=a}(y, …)`, a != k -> `shape_i(y)`.
/// Each step reads one node below: the shape no longer waits for (or keeps
/// alive) the value it was read from.
class ShapeIFold final : public NodeRewriter {
 public:
  ShapeIFold();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `shape(x)` folded: a fully known static shape -> an int64 constant; `x`
/// an elementwise result -> `shape(y)` for an input y of x's rank that has,
/// on every axis, a static extent other than 1 or the same as x's (so y is
/// never broadcast: its shape is x's).
class ShapeFold final : public NodeRewriter {
 public:
  ShapeFold();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// A constant integer index into a vector whose entries are known
/// (PyTensor's local_subtensor_of_shape / local_subtensor_make_vector):
/// `shape(x)[k] -> shape_i(x, i=k)` and `make_vector(a, b, c)[1] -> b` (cast
/// to the vector's dtype when b's differs), negative k counting from the end.
/// An index out of range is left alone (it raises at run time).
class VectorEntryFold final : public NodeRewriter {
 public:
  VectorEntryFold();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `reshape(y, shape(z)) -> y` when z's shape is provably y's: following
/// each through elementwise results to an input never broadcast (ShapeFold's
/// step, up to 8 times) ends at one variable; and `reshape(y, c) -> y` for a
/// constant c equal to y's known static shape. What the rule
/// `reshape_useless` does for `reshape(x, shape(x))`, once ShapeFold has
/// moved the shape to an input.
class ReshapeUseless final : public NodeRewriter {
 public:
  ReshapeUseless();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Registers ShapeIFold (`shape_i_fold`), ShapeFold (`shape_fold`) and
/// VectorEntryFold (`vector_entry_fold`) and ReshapeUseless
/// (`reshape_useless_shape`) in the `canonicalize` group of a
/// standard database (make_standard_db), tags `fast_run`, `fast_compile`,
/// `shape`.
void register_shape_rewrites(SequenceDB& db);

}  // namespace rw

// Shape folding (PyTensor's local_shape_to_shape_i family): a shape read
// from static types or from the inputs of the node that made the value,
// instead of from the computed value.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"

namespace rw {

/// `shape_i(x, i=k)` moved one node down towards where the extent comes
/// from (drivers repeat it): a known static extent -> that int64 constant;
/// an extent input of an alloc -> that input (as int64); through an
/// elementwise result (Elemwise, Fill, Composite) to an input whose aligned
/// axis (right-aligned) has a static extent other than 1 (only an axis of
/// static extent 1 broadcasts, docs/ops.md, so that input has the result's
/// extent), an input no node computes first; through `dimshuffle` (the input
/// axis it came from), `specify_shape`, and `join` off its axis; for any
/// other Op, its infer_shape when that gives a constant or an extent of an
/// input (`shape_i(dot(a, b), i=0) -> shape_i(a, i=0)`). An extent that is an
/// arithmetic of extents (along a join's axis) is left as it is. Depth 1, so
/// that the canonicalize group re-tries as few nodes after a change as it did.
class ShapeIFold final : public NodeRewriter {
 public:
  ShapeIFold();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `shape(x)` of a fully known static shape -> an int64 constant.
class ShapeFold final : public NodeRewriter {
 public:
  ShapeFold();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// `shape(x)` of an elementwise result -> `shape(y)` for an input y of x's
/// rank that is never broadcast (static extent 1 only where x's is 1), one
/// no node computes first (`shape(exp(x) + y) -> shape(y)`); drivers repeat
/// it down a chain. Registered without `fast_run` (include it by its name,
/// `shape_of_elemwise`): elementwise fusion makes a graph worse when its
/// shape reads an input rather than the fused value (mlp-2: 32 nodes
/// instead of 24, with or without this rewriter, when the graph is written
/// so). `shape(x)[k]` is folded in fast_run all the same, by
/// VectorEntryFold and ShapeIFold.
class ShapeOfElemwise final : public NodeRewriter {
 public:
  ShapeOfElemwise();
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

/// `reshape(y, shape(z)) -> y` when z's shape is provably y's: z is y, or
/// an input of the elementwise y that is never broadcast (ShapeOfElemwise's
/// step); and `reshape(y, c) -> y` for a constant c equal to y's fully known
/// static shape. What the rule `reshape_useless` does for
/// `reshape(x, shape(x))`, once ShapeOfElemwise has moved the shape.
class ReshapeUseless final : public NodeRewriter {
 public:
  ReshapeUseless();
  RewriteResult transform(FunctionGraph& fgraph, Apply& node,
                          const RewriteContext& ctx) const override;
};

/// Registers ShapeIFold (`shape_i_fold`), ShapeFold (`shape_fold`),
/// VectorEntryFold (`vector_entry_fold`) and ReshapeUseless
/// (`reshape_useless_shape`) in the `canonicalize` group of a standard
/// database (make_standard_db), tags `fast_run`, `fast_compile`, `shape`;
/// and ShapeOfElemwise (`shape_of_elemwise`), tag `shape` only (include it by
/// its name).
void register_shape_rewrites(SequenceDB& db);

}  // namespace rw

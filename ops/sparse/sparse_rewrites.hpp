// Rewrites of sparse graphs (PyTensor's sparse/rewriting.py): folding the
// arrays of a constructor, conversions or transposes that undo each other,
// and products of a transpose.
#pragma once

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/node_rewriter.hpp"
#include "ops/sparse/sparse.hpp"

namespace rw {

/// `csm_properties(csr(data, indices, indptr, shape)) -> (data, indices,
/// indptr, shape)` (cast to int32, int32 and int64), and the same for csc
/// (PyTensor's local_csm_properties_csm). The arrays are then used without
/// the constructor's checks, as PyTensor's.
class CsmPropertiesOfCsm final : public OpRewriter<CsmProperties> {
 public:
  CsmPropertiesOfCsm();
  RewriteResult rewrite(FunctionGraph& fgraph, Apply& node, const CsmProperties& op,
                        const RewriteContext& ctx) const override;
};

/// `sparse_transpose(sparse_transpose(x)) -> x`: the transpose of a
/// transpose has x's format, shape and arrays.
class SparseTransposeTwice final : public OpRewriter<SparseTranspose> {
 public:
  SparseTransposeTwice();
  RewriteResult rewrite(FunctionGraph& fgraph, Apply& node, const SparseTranspose& op,
                        const RewriteContext& ctx) const override;
};

/// `dense_from_sparse(csr_from_dense(x)) -> x`, and for csc (PyTensor's
/// local_dense_from_sparse_sparse_from_dense): the same values (a -0.0 of x
/// stays -0.0 instead of becoming 0.0).
class DenseOfSparseOfDense final : public OpRewriter<DenseFromSparse> {
 public:
  DenseOfSparseOfDense();
  RewriteResult rewrite(FunctionGraph& fgraph, Apply& node, const DenseFromSparse& op,
                        const RewriteContext& ctx) const override;
};

/// `structured_dot(sparse_transpose(s), d) -> structured_dot_t(s, d)`, and
/// `structured_dot_t(sparse_transpose(s), d) -> structured_dot(s, d)`: the
/// product reads s's arrays as they are instead of a transposed copy.
class StructuredDotOfTranspose final : public OpRewriter<StructuredDot> {
 public:
  StructuredDotOfTranspose();
  RewriteResult rewrite(FunctionGraph& fgraph, Apply& node, const StructuredDot& op,
                        const RewriteContext& ctx) const override;
};

/// Registers the four into `canonicalize`, tagged fast_run, fast_compile
/// and `sparse`.
void register_sparse_rewrites(SequenceDB& db);

}  // namespace rw

// The sparse rewrites: constructor folding, inverse pairs, products of a transpose.
#include "ops/sparse/sparse_rewrites.hpp"

#include "ops/api.hpp"
#include "ops/detail/op_cast.hpp"

namespace rw {

namespace {

Var as_dtype(const Var& v, DType d) { return v->tensor_type()->dtype() == d ? v : cast(v, d); }

// The node computing input 0 of `node` when its Op is an O, else null.
template <class O> const Apply* input_from(const Apply& node) {
  const Apply* owner = node.input(0)->owner();
  return owner && ops_detail::op_as<O>(owner->op()) ? owner : nullptr;
}

}  // namespace

CsmPropertiesOfCsm::CsmPropertiesOfCsm() : OpRewriter("local_csm_properties_csm", /*depth=*/1) {}

RewriteResult CsmPropertiesOfCsm::rewrite(FunctionGraph&, Apply& node, const CsmProperties&,
                                          const RewriteContext&) const {
  const Apply* owner = input_from<Csm>(node);
  if (!owner)
    return RewriteResult::fail("the matrix is not built by csr or csc");
  return RewriteResult::replace_outputs({owner->input(0), as_dtype(owner->input(1), DType::Int32),
                                         as_dtype(owner->input(2), DType::Int32),
                                         as_dtype(owner->input(3), DType::Int64)});
}

SparseTransposeTwice::SparseTransposeTwice()
    : OpRewriter("local_sparse_transpose_transpose", /*depth=*/1) {}

RewriteResult SparseTransposeTwice::rewrite(FunctionGraph&, Apply& node, const SparseTranspose&,
                                            const RewriteContext&) const {
  const Apply* owner = input_from<SparseTranspose>(node);
  if (!owner)
    return RewriteResult::fail("the input is not a sparse_transpose");
  return RewriteResult::replace_output(owner->input(0));
}

DenseOfSparseOfDense::DenseOfSparseOfDense()
    : OpRewriter("local_dense_from_sparse_sparse_from_dense", /*depth=*/1) {}

RewriteResult DenseOfSparseOfDense::rewrite(FunctionGraph&, Apply& node, const DenseFromSparse&,
                                            const RewriteContext&) const {
  const Apply* owner = input_from<SparseFromDense>(node);
  if (!owner)
    return RewriteResult::fail("the input is not csr_from_dense or csc_from_dense");
  return RewriteResult::replace_output(owner->input(0));
}

StructuredDotOfTranspose::StructuredDotOfTranspose()
    : OpRewriter("local_structured_dot_of_transpose", /*depth=*/1) {}

RewriteResult StructuredDotOfTranspose::rewrite(FunctionGraph&, Apply& node, const StructuredDot& op,
                                                const RewriteContext&) const {
  const Apply* owner = input_from<SparseTranspose>(node);
  if (!owner)
    return RewriteResult::fail("the sparse operand is not a sparse_transpose");
  const Var& s = owner->input(0);
  const Var& d = node.input(1);
  return RewriteResult::replace_output(op.transpose_s() ? structured_dot(s, d) : structured_dot_t(s, d));
}

void register_sparse_rewrites(SequenceDB& db) {
  auto& canonicalize = db.sub<EquilibriumDB>("canonicalize");
  const std::vector<std::string> tags{"fast_run", "fast_compile", "sparse"};
  canonicalize.add(std::make_shared<CsmPropertiesOfCsm>(), tags);
  canonicalize.add(std::make_shared<SparseTransposeTwice>(), tags);
  canonicalize.add(std::make_shared<DenseOfSparseOfDense>(), tags);
  canonicalize.add(std::make_shared<StructuredDotOfTranspose>(), tags);
}

}  // namespace rw

// ShapeIFold, ShapeFold, VectorEntryFold and their registration.
#include "ops/shape/shape_rewrites.hpp"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/equilibrium.hpp"
#include "ops/api.hpp"
#include "ops/detail/elemwise_of.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/elemwise.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/shape/alloc.hpp"
#include "ops/shape/dimshuffle.hpp"
#include "ops/shape/join.hpp"
#include "ops/shape/reshape.hpp"
#include "ops/shape/shape_ops.hpp"

namespace rw {

namespace {

/// Whether `op` computes elementwise over inputs broadcast to one shape.
using ops_detail::is_elementwise;

Var shape_i_of(const Var& x, std::int64_t axis) {
  return std::make_shared<ShapeI>(axis)->make_node(std::span(&x, 1))->output(0);
}

Var as_int64(const Var& v) {
  return v->tensor_type()->dtype() == DType::Int64 ? v : api::cast(v, DType::Int64);
}

/// Whether input `in` of an elementwise result of type `out` has the
/// result's extent on axis k (right-aligned): its axis there exists and has a
/// static extent other than 1.
bool gives_extent(const TensorType& in, const TensorType& out, std::size_t k) {
  if (in.ndim() + k < out.ndim()) return false;  // broadcast on a new leading axis
  return in.shape()[k - (out.ndim() - in.ndim())] != 1;
}

/// Among `candidates` (inputs that qualify), one no node computes when there
/// is one: a shape read from it keeps no intermediate value alive, and
/// fusion can still hide the values in between.
Var prefer_root(std::span<const Var> inputs, const std::function<bool(const Var&)>& qualifies) {
  Var first;
  for (const Var& in : inputs) {
    if (!qualifies(in)) continue;
    if (!in->owner()) return in;
    if (!first) first = in;
  }
  return first;
}

/// An input of the elementwise result `x` that is never broadcast (of x's
/// rank, and of static extent 1 only where x's is 1), whose shape is
/// therefore x's; null when x is not such a result or has no such input.
Var unbroadcast_input(const Var& x) {
  const Apply* owner = x->owner();
  if (!owner || !is_elementwise(owner->op())) return nullptr;
  const TensorType& t = *x->tensor_type();
  return prefer_root(owner->inputs(), [&](const Var& in) {
    const TensorType& it = *in->tensor_type();
    if (it.ndim() != t.ndim()) return false;
    for (std::size_t a = 0; a < t.ndim(); ++a)
      if (it.shape()[a] == 1 && t.shape()[a] != 1) return false;
    return true;
  });
}

/// One step down from axis `k` of x towards where its extent comes from:
/// the axis of an input with the same extent, the extent input of an alloc
/// (`dim`), or nothing.
struct ExtentStep {
  Var var;
  std::size_t axis = 0;
  Var dim;
};

ExtentStep extent_step(const Var& x, std::size_t k) {
  const Apply* owner = x->owner();
  if (!owner) return {};
  const Op& xop = owner->op();
  const TensorType& t = *x->tensor_type();
  if (ops_detail::op_as<Alloc>(xop)) return {nullptr, 0, owner->input(k + 1)};
  if (is_elementwise(xop)) {
    Var in = prefer_root(owner->inputs(),
                         [&](const Var& v) { return gives_extent(*v->tensor_type(), t, k); });
    if (!in) return {};
    const std::size_t a = k - (t.ndim() - in->tensor_type()->ndim());
    return {std::move(in), a, nullptr};
  }
  if (const auto* ds = ops_detail::op_as<DimShuffle>(xop)) {
    const std::int64_t from = ds->order()[k];
    if (from < 0) return {};
    return {owner->input(0), static_cast<std::size_t>(from), nullptr};
  }
  if (ops_detail::op_as<SpecifyShape>(xop)) return {owner->input(0), k, nullptr};
  if (const auto* j = ops_detail::op_as<Join>(xop)) {
    const auto n = static_cast<std::int64_t>(t.ndim());
    const std::int64_t axis = j->axis() < 0 ? j->axis() + n : j->axis();
    if (axis == static_cast<std::int64_t>(k)) return {};  // along the axis, a sum
    return {owner->input(0), k, nullptr};
  }
  return {};
}

}  // namespace

ShapeIFold::ShapeIFold() : NodeRewriter("shape_i_fold", Tracks{"shape_i"}, /*depth=*/1) {}

RewriteResult ShapeIFold::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = ops_detail::op_as<ShapeI>(node.op());
  if (!op) return RewriteResult::fail("not a shape_i");
  const Var& x = node.input(0);
  const auto k = static_cast<std::size_t>(op->axis());
  if (k >= x->tensor_type()->ndim()) return RewriteResult::fail("the axis is out of range");
  const std::int64_t d = x->tensor_type()->shape()[k];
  if (d != kUnknownDim) return RewriteResult::replace_output(ops_detail::int64_constant(d));
  const Apply* owner = x->owner();
  if (!owner) return RewriteResult::fail("the extent is unknown and x is an input");
  ExtentStep next = extent_step(x, k);
  if (next.dim) return RewriteResult::replace_output(as_int64(next.dim));
  if (next.var)
    return RewriteResult::replace_output(shape_i_of(next.var, static_cast<std::int64_t>(next.axis)));
  // Any other Op: its infer_shape, when that gives the extent as a constant,
  // as an extent of one of the node's inputs (dot, reshape to constants…) or
  // as one of its inputs.
  std::vector<ShapeVars> in_shapes;
  for (const Var& in : owner->inputs()) {
    ShapeVars dims;
    // A non-tensor input (a generator state, a sparse matrix) gets no
    // extents here; its Op's infer_shape reads them its own way.
    const std::size_t rank = in->tensor_type() ? in->tensor_type()->ndim() : 0;
    for (std::size_t a = 0; a < rank; ++a)
      dims.push_back(shape_i_of(in, static_cast<std::int64_t>(a)));
    in_shapes.push_back(std::move(dims));
  }
  std::vector<ShapeVars> out_shapes;
  try {
    out_shapes = owner->op().infer_shape(*owner, in_shapes);
  } catch (const Error&) {
    return RewriteResult::fail("the op's infer_shape failed");
  }
  std::size_t o = 0;
  while (o < owner->num_outputs() && owner->output(o) != x) ++o;
  if (o >= out_shapes.size() || k >= out_shapes[o].size() || !out_shapes[o][k])
    return RewriteResult::fail("the op's infer_shape gives no extent");
  const Var& e = out_shapes[o][k];
  if (const auto c = ops_detail::constant_int(e))
    return RewriteResult::replace_output(ops_detail::int64_constant(*c));
  for (const ShapeVars& dims : in_shapes)
    if (std::find(dims.begin(), dims.end(), e) != dims.end()) return RewriteResult::replace_output(e);
  // An input of the node itself (a loop's number of steps).
  if (std::find(owner->inputs().begin(), owner->inputs().end(), e) != owner->inputs().end())
    return RewriteResult::replace_output(as_int64(e));
  // An arithmetic of extents (a join's sum) is left to run as it is.
  return RewriteResult::fail("the op's infer_shape gives the extent as an expression");
}

ShapeFold::ShapeFold() : NodeRewriter("shape_fold", Tracks{"shape"}, /*depth=*/0) {}

RewriteResult ShapeFold::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  if (!ops_detail::op_as<ShapeOp>(node.op())) return RewriteResult::fail("not a shape");
  const StaticShape& s = node.input(0)->tensor_type()->shape();
  if (std::none_of(s.begin(), s.end(), [](std::int64_t d) { return d == kUnknownDim; })) {
    const std::vector<std::int64_t> dims(s.begin(), s.end());
    return RewriteResult::replace_output(ops_detail::int64_vector_constant(dims));
  }
  return RewriteResult::fail("x's static shape is not known");
}

ShapeOfElemwise::ShapeOfElemwise()
    : NodeRewriter("shape_of_elemwise", Tracks{"shape"}, /*depth=*/1) {}

RewriteResult ShapeOfElemwise::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  if (!ops_detail::op_as<ShapeOp>(node.op())) return RewriteResult::fail("not a shape");
  const Var& x = node.input(0);
  if (Var in = unbroadcast_input(x)) return RewriteResult::replace_output(api::shape(in));
  return RewriteResult::fail("x is not an elementwise result with an input never broadcast");
}

ReshapeUseless::ReshapeUseless()
    // Benefit -1: after the rule reshape_useless, which says the simple case.
    : NodeRewriter("reshape_useless_shape", Tracks{"reshape"}, /*depth=*/1, /*benefit=*/-1) {}

RewriteResult ReshapeUseless::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = ops_detail::op_as<Reshape>(node.op());
  const Var& y = node.input(0);
  const StaticShape& ys = y->tensor_type()->shape();
  if (!op || op->ndim() != static_cast<std::int64_t>(ys.size()))
    return RewriteResult::fail("not a reshape to the same rank");
  if (const auto dims = ops_detail::constant_ints(node.input(1))) {
    const bool known = std::find(ys.begin(), ys.end(), kUnknownDim) == ys.end();
    if (known && *dims == ys) return RewriteResult::replace_output(y);
    return RewriteResult::fail("the constant shape is not y's static shape");
  }
  const Apply* s = node.input(1)->owner();
  if (!s || !ops_detail::op_as<ShapeOp>(s->op())) return RewriteResult::fail("the shape is not a shape");
  const Var& z = s->input(0);
  if (z != y && unbroadcast_input(y) != z) return RewriteResult::fail("cannot prove the shape is y's");
  return RewriteResult::replace_output(y);
}

VectorEntryFold::VectorEntryFold()
    : NodeRewriter("vector_entry_fold", Tracks{"subtensor"}, /*depth=*/1) {}

RewriteResult VectorEntryFold::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = ops_detail::op_as<Subtensor>(node.op());
  if (!op || op->index().codes().size() != 1 || op->index().entries()[0].is_slice)
    return RewriteResult::fail("not one integer index");
  const Var& v = node.input(0);
  const Apply* owner = v->owner();
  if (!owner) return RewriteResult::fail("the vector is not computed");
  const auto k = ops_detail::constant_int(node.input(1));
  if (!k) return RewriteResult::fail("the index is not a constant");
  if (ops_detail::op_as<ShapeOp>(owner->op())) {
    const auto n = static_cast<std::int64_t>(owner->input(0)->tensor_type()->ndim());
    const std::int64_t i = *k < 0 ? *k + n : *k;
    if (i < 0 || i >= n) return RewriteResult::fail("the index is out of range");
    return RewriteResult::replace_output(shape_i_of(owner->input(0), i));
  }
  if (const auto* mv = ops_detail::op_as<MakeVector>(owner->op())) {
    const auto n = static_cast<std::int64_t>(owner->num_inputs());
    const std::int64_t i = *k < 0 ? *k + n : *k;
    if (i < 0 || i >= n) return RewriteResult::fail("the index is out of range");
    const Var& e = owner->input(static_cast<std::size_t>(i));
    return RewriteResult::replace_output(
        e->tensor_type()->dtype() == mv->dtype() ? e : api::cast(e, mv->dtype()));
  }
  return RewriteResult::fail("the vector is not a shape or a make_vector");
}

void register_shape_rewrites(SequenceDB& db) {
  auto& canonicalize = db.sub<EquilibriumDB>("canonicalize");
  const std::vector<std::string> tags{"fast_run", "fast_compile", "shape"};
  canonicalize.add(std::make_shared<ShapeIFold>(), tags);
  canonicalize.add(std::make_shared<ShapeFold>(), tags);
  canonicalize.add(std::make_shared<VectorEntryFold>(), tags);
  canonicalize.add(std::make_shared<ReshapeUseless>(), tags);
  // Not in fast_run: moving a shape off an elementwise result changes what
  // elementwise fusion makes of the graph, and on mlp-2 it makes 8 nodes more
  // (the same graph written with the moved shape gives the same count).
  canonicalize.add(std::make_shared<ShapeOfElemwise>(), {"shape"});
}

}  // namespace rw

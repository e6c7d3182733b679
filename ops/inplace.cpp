// GemmFromDot, InplacePass and their registration in the standard pipeline.
#include "ops/inplace.hpp"

#include <optional>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/destroy_handler.hpp"
#include "engine/rewrite/standard.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/fusion.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/linalg/linalg.hpp"

namespace rw {

namespace {

/// A term `scale * base` of a sum, the scale a one-element constant.
struct Term {
  double scale = 1;
  Var base;
};

std::optional<double> one_element_constant(const Var& v) {
  const Constant* c = v->as_constant();
  if (!c || c->value().size() != 1) return std::nullopt;
  return c->value().contiguous().astype(DType::Float64).item<double>();
}

const Elemwise* elemwise_of(const Variable& v, ScalarOp op) {
  const Apply* owner = v.owner();
  if (!owner) return nullptr;
  const auto* e = dynamic_cast<const Elemwise*>(&owner->op());
  return e && e->scalar_op() == op && !e->inplace_input() ? e : nullptr;
}

Term term_of(const Var& v) {
  if (elemwise_of(*v, ScalarOp::Mul) && v->owner()->num_inputs() == 2) {
    const Apply& m = *v->owner();
    for (std::size_t k = 0; k < 2; ++k)
      if (auto c = one_element_constant(m.input(k));
          c && m.input(1 - k)->tensor_type()->ndim() == v->tensor_type()->ndim())
        return {*c, m.input(1 - k)};
  }
  if (elemwise_of(*v, ScalarOp::Neg)) return {-1, v->owner()->input(0)};
  return {1, v};
}

bool is_dot(const Variable& v) {
  return v.owner() && dynamic_cast<const Dot*>(&v.owner()->op()) != nullptr;
}

/// The type an in-place output needs of its input: same dtype, rank and axes
/// of static extent 1 (an input that broadcasts cannot hold the output).
bool can_hold(const TensorType& in, const TensorType& out) {
  if (in.dtype() != out.dtype() || in.ndim() != out.ndim()) return false;
  for (std::size_t a = 0; a < in.ndim(); ++a)
    if ((in.shape()[a] == 1) != (out.shape()[a] == 1)) return false;
  return true;
}

}  // namespace

GemmFromDot::GemmFromDot() : NodeRewriter("gemm_from_dot", Tracks{"add", "sub"}, /*depth=*/2) {
  set_reads_uses();
}

RewriteResult GemmFromDot::transform(FunctionGraph& fgraph, Apply& node,
                                     const RewriteContext&) const {
  const auto* e = dynamic_cast<const Elemwise*>(&node.op());
  if (!e || e->inplace_input() || node.num_inputs() != 2)
    return RewriteResult::fail("not a two-input add or sub");
  const TensorType& out = *node.output_var(0).tensor_type();
  if (out.ndim() != 2 || !(out.dtype() == DType::Float64 || out.dtype() == DType::Float32))
    return RewriteResult::fail("the result is not a float matrix");
  Term a = term_of(node.input(0)), b = term_of(node.input(1));
  if (e->scalar_op() == ScalarOp::Sub) b.scale = -b.scale;
  if (!is_dot(*a.base)) std::swap(a, b);  // the dot first
  if (!is_dot(*a.base)) return RewriteResult::fail("no term is a dot product");
  const Apply& dot = *a.base->owner();
  const Var& z = b.base;
  if (fgraph.num_clients(*a.base) != 1) return RewriteResult::fail("the dot has other uses");
  const TensorType& zt = *z->tensor_type();
  if (!can_hold(zt, out) || zt.dtype() != out.dtype())
    return RewriteResult::fail("the addend does not have the product's type");
  for (std::size_t k = 0; k < 2; ++k)
    if (dot.input(k)->tensor_type()->ndim() != 2 || dot.input(k)->tensor_type()->dtype() != out.dtype())
      return RewriteResult::fail("the dot is not a product of matrices of the result's dtype");
  const double alpha = a.scale, beta = b.scale;
  static const auto gemm = std::make_shared<Gemm>(false);
  const std::vector<Var> inputs = {z, ops_detail::scalar_constant(alpha, out.dtype()), dot.input(0),
                                   dot.input(1), ops_detail::scalar_constant(beta, out.dtype())};
  return RewriteResult::replace_output(gemm->make_node(inputs)->output(0));
}

// ---------------------------------------------------------------------------

InplacePass::InplacePass(std::string name) : GraphRewriter(std::move(name)) {}

void InplacePass::add_requirements(FunctionGraph& fgraph) const {
  require_destroy_handler(fgraph);
}

namespace {

/// The in-place Op of `node`'s Op writing output `out` into input `in`, on top
/// of the pairs `pairs` it already has; null when the Op has none.
OpPtr inplace_variant(const Apply& node, const IoMap& pairs) {
  const Op& op = node.op();
  if (const auto* e = dynamic_cast<const Elemwise*>(&op)) return e->with_inplace(pairs.front().second);
  if (dynamic_cast<const Fill*>(&op)) return std::make_shared<Fill>(pairs.front().second);
  if (const auto* c = dynamic_cast<const Composite*>(&op)) return c->with_inplace(pairs);
  return nullptr;
}

void emit(RewriteContext& ctx, TraceKind kind, const std::string& pass, Apply* node,
          const Var& old_var, const Var& new_var, std::string message = {}) {
  if (!ctx.tracing()) return;
  TraceEvent ev;
  ev.kind = kind;
  ev.pass = pass;
  ev.rewriter = pass;
  ev.node = node;
  ev.old_var = old_var.get();
  ev.new_var = new_var.get();
  ev.message = std::move(message);
  ctx.trace->emit(ev);
}

}  // namespace

PassReport InplacePass::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport report;
  report.stop = StopReason::Completed;
  const DestroyHandler& dh = require_destroy_handler(fgraph);
  // Replacements keep the pending nodes (inputs of later ones), so handles
  // keep every node of the walk alive while earlier ones are replaced.
  std::vector<Var> order;
  for (Apply* n : fgraph.toposort()) order.push_back(n->output(0));

  auto try_replace = [&](Apply& node, const OpPtr& op) -> bool {
    std::vector<Var> ins(node.inputs().begin(), node.inputs().end());
    const ApplyRef fresh = op->make_node(ins);
    std::vector<std::pair<Var, Var>> pairs;
    for (std::size_t o = 0; o < node.num_outputs(); ++o)
      if (fgraph.num_clients(node.output_var(o)) > 0)
        pairs.emplace_back(node.output(o), fresh->output(o));
    try {
      fgraph.replace_all(pairs, name());
    } catch (const ReplacementError& err) {
      emit(ctx, TraceKind::Refused, name(), &node, {}, {}, err.what());
      return false;
    }
    ++report.applications;
    for (const auto& [o, n] : pairs) emit(ctx, TraceKind::Replaced, name(), &node, o, n);
    return true;
  };

  for (const Var& first : order) {
    Apply* node = first->owner();
    if (!fgraph.contains(*node) || !node->op().destroy_map().empty()) continue;
    const Op& op = node->op();
    if (dynamic_cast<const ElemwiseBase*>(&op)) {
      // Outputs one at a time, each into the first input that can take it;
      // an Elemwise or Fill has one output, a Composite may have several.
      IoMap pairs;
      std::vector<bool> taken(node->num_inputs(), false);
      for (std::size_t o = 0; o < node->num_outputs(); ++o) {
        if (pairs.size() == 1 && !dynamic_cast<const Composite*>(&op)) break;
        for (std::size_t i = 0; i < node->num_inputs(); ++i) {
          if (taken[i] ||
              !can_hold(*node->input(i)->tensor_type(), *node->output_var(o).tensor_type()))
            continue;
          if (!dh.can_destroy(fgraph, *node, i)) continue;
          IoMap trial = pairs;
          trial.emplace_back(o, i);
          if (const OpPtr v = inplace_variant(*node, trial); v && try_replace(*node, v)) {
            // The node was replaced: continue with its successor for the
            // next output.
            node = fgraph.clients(*node->input(i)).front().node;
            pairs = std::move(trial);
            taken[i] = true;
            break;
          }
        }
      }
      continue;
    }
    if (const auto* inc = dynamic_cast<const IncSubtensor*>(&op)) {
      if (!dh.can_destroy(fgraph, *node, 0)) continue;
      try_replace(*node, std::make_shared<IncSubtensor>(inc->index().codes(), inc->is_set(), true));
      continue;
    }
    if (dynamic_cast<const Gemm*>(&op)) {
      if (!dh.can_destroy(fgraph, *node, 0)) continue;
      try_replace(*node, std::make_shared<Gemm>(true));
    }
  }
  report.changed = report.applications > 0;
  return report;
}

void register_inplace_rewrites(SequenceDB& db) {
  db.add(std::make_shared<GemmFromDot>(), {"fast_run", "gemm"},
         {.position = position::kFusion - 1});
  db.add(std::make_shared<InplacePass>(), {"fast_run", "inplace"},
         {.position = position::kInplace});
}

void register_fast_run_rewrites(SequenceDB& db) {
  register_fusion_rewrites(db);
  register_inplace_rewrites(db);
}

}  // namespace rw

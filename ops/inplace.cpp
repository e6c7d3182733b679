// GemmFromDot, InplacePass and their registration in the standard pipeline.
#include "ops/inplace.hpp"

#include <algorithm>
#include <optional>

#include <boost/container/small_vector.hpp>

#include "engine/graph/errors.hpp"
#include "engine/rewrite/destroy_handler.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/walking.hpp"
#include "ops/detail/elemwise_of.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/elemwise/composite.hpp"
#include "ops/elemwise/fusion.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/linalg/linalg.hpp"

namespace rw {

namespace {

/// How many levels of nested adds and subs GemmFromDot reads into one sum.
constexpr int kMaxSumNesting = 4;

/// A term of a sum: `scale * base`, the scale a one-element constant, or,
/// when `x` is set, the product `scale * x @ y` (which `base` computes when
/// it is a dot's output; a product read out of a gemm has no base).
struct Term {
  double scale = 1;
  Var base;
  Var x, y;
  /// A product the gemm takes over from a dot or a dot22scalar, not one read
  /// out of a gemm an earlier step formed.
  bool fresh = false;
};
/// A sum's terms: few, and asked of every add and sub in the graph, most of
/// which turn out to have no product: kept off the heap.
using Terms = boost::container::small_vector<Term, 8>;

std::optional<double> one_element_constant(const Var& v) {
  const Constant* c = v->as_constant();
  if (!c || c->value().size() != 1) return std::nullopt;
  return c->value().contiguous().astype(DType::Float64).item<double>();
}

using ops_detail::elemwise_of;

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
  return v.owner() && ops_detail::op_as<Dot>(v.owner()->op()) != nullptr;
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

GemmFromDot::GemmFromDot()
    : NodeRewriter("gemm_from_dot", Tracks{"add", "sub"}, /*depth=*/kMaxSumNesting + 3) {
  set_reads_uses();
}

namespace {

/// The value of a gemm's alpha or beta, when it is a constant.
std::optional<double> gemm_scalar(const Apply& gemm, std::size_t k) {
  return one_element_constant(gemm.input(k));
}

/// Whether `base` is a dot of matrices of `dtype` that nothing but the sum
/// reads: the sum can take the product over.
bool sole_product(const FunctionGraph& fgraph, const Var& base, DType dtype) {
  if (!is_dot(*base) || fgraph.num_clients(*base) != 1) return false;
  const Apply& dot = *base->owner();
  for (std::size_t k = 0; k < 2; ++k)
    if (dot.input(k)->tensor_type()->ndim() != 2 || dot.input(k)->tensor_type()->dtype() != dtype)
      return false;
  return true;
}

/// Whether `base` is a dot22scalar of matrices of `dtype` with a constant
/// alpha that nothing but the sum reads: `alpha * x @ y` for the gemm.
std::optional<double> sole_scaled_product(const FunctionGraph& fgraph, const Var& base,
                                          DType dtype) {
  const Apply* node = base->owner();
  if (!node || !ops_detail::op_as<Dot22Scalar>(node->op()) || fgraph.num_clients(*base) != 1 ||
      base->tensor_type()->dtype() != dtype)
    return std::nullopt;
  return one_element_constant(node->input(2));
}

/// The terms of the sum `scale * v`: v itself, or, when only the sum reads
/// it (within `depth` levels), the terms of an add or sub of the output's
/// type, or of a gemm (`beta * z + alpha * x @ y`, constant alpha and beta)
/// which an earlier step of the same walk formed.
void collect_terms(const FunctionGraph& fgraph, const Var& v, double scale, int depth,
                   const TensorType& out, Terms& terms) {
  Term t = term_of(v);
  // A factor on a value of another dtype is part of a conversion: kept whole.
  if (t.base->tensor_type()->dtype() != v->tensor_type()->dtype()) t = {1, v};
  t.scale *= scale;
  const Variable& b = *t.base;
  const bool sole = fgraph.num_clients(b) == 1 && (t.base == v || fgraph.num_clients(*v) == 1);
  if (sole && sole_product(fgraph, t.base, out.dtype())) {
    t.x = b.owner()->input(0);
    t.y = b.owner()->input(1);
    t.fresh = true;
  } else if (const auto factor = sole ? sole_scaled_product(fgraph, t.base, out.dtype())
                                      : std::nullopt) {
    // uncanonicalize made `c * x @ y` one dot22scalar; the gemm takes its scale.
    terms.push_back({t.scale * *factor, {}, b.owner()->input(0), b.owner()->input(1), true});
    return;
  } else if (depth > 0 && sole && can_hold(*b.tensor_type(), out) &&
             b.tensor_type()->dtype() == out.dtype()) {
    if (elemwise_of(b, ScalarOp::Add)) {
      for (const Var& in : b.owner()->inputs())
        collect_terms(fgraph, in, t.scale, depth - 1, out, terms);
      return;
    }
    if (elemwise_of(b, ScalarOp::Sub)) {
      collect_terms(fgraph, b.owner()->input(0), t.scale, depth - 1, out, terms);
      collect_terms(fgraph, b.owner()->input(1), -t.scale, depth - 1, out, terms);
      return;
    }
    const auto* g = b.owner() ? ops_detail::op_as<Gemm>(b.owner()->op()) : nullptr;
    if (g && !g->inplace()) {
      const Apply& gemm = *b.owner();
      const auto alpha = gemm_scalar(gemm, 1), beta = gemm_scalar(gemm, 4);
      if (alpha && beta) {
        collect_terms(fgraph, gemm.input(0), t.scale * *beta, depth - 1, out, terms);
        terms.push_back({t.scale * *alpha, {}, gemm.input(2), gemm.input(3)});
        return;
      }
    }
  }
  terms.push_back(std::move(t));
}

}  // namespace

RewriteResult GemmFromDot::transform(FunctionGraph& fgraph, Apply& node,
                                     const RewriteContext&) const {
  const auto* e = ops_detail::op_as<Elemwise>(node.op());
  if (!e || e->inplace_input() || (e->scalar_op() == ScalarOp::Sub && node.num_inputs() != 2))
    return RewriteResult::fail("not an add or a two-input sub");
  const TensorType& out = *node.output_var(0).tensor_type();
  if (out.ndim() != 2 || !(out.dtype() == DType::Float64 || out.dtype() == DType::Float32))
    return RewriteResult::fail("the result is not a float matrix");
  Terms terms;
  for (std::size_t k = 0; k < node.num_inputs(); ++k) {
    const double sign = e->scalar_op() == ScalarOp::Sub && k == 1 ? -1.0 : 1.0;
    collect_terms(fgraph, node.input(k), sign, kMaxSumNesting, out, terms);
  }
  Terms products, rest;
  for (Term& t : terms) (t.x ? products : rest).push_back(std::move(t));
  if (products.empty()) return RewriteResult::fail("no term is a dot product");
  // The accumulator: the first other term of the product's type, or failing
  // that (a sum of products only) a product computed by its dot.
  const auto z = std::find_if(rest.begin(), rest.end(), [&](const Term& t) {
    return can_hold(*t.base->tensor_type(), out) && t.base->tensor_type()->dtype() == out.dtype();
  });
  const auto computed = std::find_if(products.begin(), products.end(),
                                     [](const Term& t) { return t.base != nullptr; });
  Term acc;
  if (z != rest.end()) {
    acc = *z;
    rest.erase(z);
  } else if (products.size() >= 2 && computed != products.end()) {
    acc = *computed;
    products.erase(computed);
  } else {
    return RewriteResult::fail("the addend does not have the product's type");
  }
  // Products read out of gemms only: the sum is already a gemm chain (plus
  // terms that broadcast), and rebuilding it would change nothing.
  if (std::none_of(products.begin(), products.end(), [](const Term& t) { return t.fresh; }))
    return RewriteResult::fail("no dot product is left to take in");
  static const auto gemm = std::make_shared<Gemm>(false);
  Var sum = acc.base;
  double beta = acc.scale;
  for (const Term& d : products) {
    const std::vector<Var> inputs = {sum, ops_detail::scalar_constant(d.scale, out.dtype()), d.x,
                                     d.y, ops_detail::scalar_constant(beta, out.dtype())};
    sum = gemm->make_node(inputs)->output(0);
    beta = 1;
  }
  if (!rest.empty()) {
    // Terms gemm cannot hold (a bias that broadcasts) are added to its result.
    std::vector<Var> addends = {sum};
    for (const Term& t : rest) {
      if (t.scale == 1) {
        addends.push_back(t.base);
        continue;
      }
      const DType dt = t.base->tensor_type()->dtype();
      const std::vector<Var> factors = {ops_detail::scalar_constant(t.scale, dt), t.base};
      addends.push_back(elemwise_op(ScalarOp::Mul)->make_node(factors)->output(0));
    }
    sum = elemwise_op(ScalarOp::Add)->make_node(addends)->output(0);
  }
  return RewriteResult::replace_output(sum);
}

// ---------------------------------------------------------------------------

GemmFormation::GemmFormation(std::string name)
    : GraphRewriter(name), walk_(in2out(std::move(name), {std::make_shared<GemmFromDot>()})) {}

void GemmFormation::add_requirements(FunctionGraph& fgraph) const {
  walk_->add_requirements(fgraph);
}

PassReport GemmFormation::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  for (const Apply* node : fgraph.nodes())
    if (ops_detail::op_as<Dot>(node->op()) || ops_detail::op_as<Dot22Scalar>(node->op()))
      return walk_->apply(fgraph, ctx);
  PassReport report;
  report.stop = StopReason::Completed;
  return report;
}

std::string GemmFormation::summary(int indent) const { return walk_->summary(indent); }

// ---------------------------------------------------------------------------

InplacePass::InplacePass(std::string name) : GraphRewriter(std::move(name)) {}

void InplacePass::add_requirements(FunctionGraph& fgraph) const {
  require_destroy_handler(fgraph);
}

namespace {

using ops_detail::op_as;

/// The in-place Op of `node`'s Op writing output `out` into input `in`, on top
/// of the pairs `pairs` it already has; null when the Op has none.
OpPtr inplace_variant(const Apply& node, const IoMap& pairs) {
  const Op& op = node.op();
  if (const auto* e = op_as<Elemwise>(op)) return e->with_inplace(pairs.front().second);
  if (op_as<Fill>(op)) return std::make_shared<Fill>(pairs.front().second);
  if (const auto* c = op_as<Composite>(op)) return c->with_inplace(pairs);
  return nullptr;
}

/// An event of the pass about `node` (a refusal, or a change of its Op).
void emit(RewriteContext& ctx, TraceKind kind, const std::string& pass, Apply* node,
          std::string message) {
  TraceEvent ev;
  ev.kind = kind;
  ev.pass = pass;
  ev.rewriter = pass;
  ev.node = node;
  ev.message = std::move(message);
  ctx.trace->emit(ev);
}

}  // namespace

PassReport InplacePass::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  PassReport report;
  report.stop = StopReason::Completed;
  const DestroyHandler& dh = require_destroy_handler(fgraph);
  // Changing a node's Op adds and removes no node: the order stays valid.
  const std::vector<Apply*> order = fgraph.toposort();

  // The node keeps its inputs and outputs and applies the in-place Op: no
  // edge of the graph changes, and the graph checks the Op types the node as
  // before.
  auto try_change = [&](Apply& node, const OpPtr& op) -> bool {
    OpPtr was = node.op_ptr();
    try {
      fgraph.change_op(node, op, name());
    } catch (const ReplacementError& err) {
      if (ctx.tracing()) emit(ctx, TraceKind::Refused, name(), &node, err.what());
      return false;
    }
    ++report.applications;
    if (ctx.tracing()) emit(ctx, TraceKind::Modified, name(), &node, was->to_string());
    return true;
  };

  for (Apply* node : order) {
    if (!node->op().cached_destroy_map().empty()) continue;
    const OpPtr held = node->op_ptr();  // alive while the node changes Op
    const Op& op = *held;
    const bool composite = op_as<Composite>(op) != nullptr;
    if (composite || op_as<Elemwise>(op) || op_as<Fill>(op)) {
      // Outputs one at a time, each into the first input that can take it;
      // an Elemwise or Fill has one output, a Composite may have several.
      IoMap pairs;
      std::vector<bool> taken(node->num_inputs(), false);
      for (std::size_t o = 0; o < node->num_outputs(); ++o) {
        if (pairs.size() == 1 && !composite) break;
        for (std::size_t i = 0; i < node->num_inputs(); ++i) {
          if (taken[i] ||
              !can_hold(*node->input(i)->tensor_type(), *node->output_var(o).tensor_type()))
            continue;
          if (!dh.can_destroy(fgraph, *node, i)) continue;
          IoMap trial = pairs;
          trial.emplace_back(o, i);
          if (const OpPtr v = inplace_variant(*node, trial); v && try_change(*node, v)) {
            pairs = std::move(trial);
            taken[i] = true;
            break;
          }
        }
      }
      continue;
    }
    if (const auto* inc = op_as<IncSubtensor>(op)) {
      if (!dh.can_destroy(fgraph, *node, 0)) continue;
      try_change(*node, std::make_shared<IncSubtensor>(inc->index().codes(), inc->is_set(), true));
      continue;
    }
    if (op_as<Gemm>(op)) {
      if (!dh.can_destroy(fgraph, *node, 0)) continue;
      try_change(*node, std::make_shared<Gemm>(true));
    }
  }
  report.changed = report.applications > 0;
  return report;
}

void register_inplace_rewrites(SequenceDB& db) {
  db.add(std::make_shared<GemmFormation>(), {"fast_run", "gemm"},
         {.position = position::kFusion - 1});
  db.add(std::make_shared<InplacePass>(), {"fast_run", "inplace"},
         {.position = position::kInplace});
}

void register_fast_run_rewrites(SequenceDB& db) {
  register_fusion_rewrites(db);
  register_inplace_rewrites(db);
}

}  // namespace rw

// UselessFill and CancellingDistributor, and their registration.
#include "ops/simplify.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <boost/container/small_vector.hpp>

#include "engine/rewrite/database.hpp"
#include "engine/rewrite/mode.hpp"
#include "engine/rewrite/standard.hpp"
#include "engine/rewrite/walking.hpp"
#include "ops/api.hpp"
#include "ops/detail/elemwise_of.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/nnet/softmax.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/shape/dimshuffle.hpp"

namespace rw {

namespace {

using ops_detail::op_as;

/// Whether `v` is computed elementwise from its inputs (its shape is their
/// broadcast shape).
using ops_detail::elemwise_of;

bool is_elementwise(const Variable& v) {
  return v.owner() && ops_detail::is_elementwise(v.owner()->op());
}

/// Static extents all 1: a value that broadcasts to anything of its rank or more.
bool scalar_like(const TensorType& t) {
  return std::all_of(t.shape().begin(), t.shape().end(), [](std::int64_t d) { return d == 1; });
}

/// Fully known static shapes, `inner` broadcasting to `outer` (trailing axes aligned).
bool statically_within(const TensorType& inner, const TensorType& outer) {
  if (!inner.shape_known() || !outer.shape_known()) return false;
  const std::size_t n = inner.ndim(), m = outer.ndim();
  for (std::size_t k = 0; k < n; ++k) {
    const std::int64_t a = inner.shape()[n - 1 - k], b = outer.shape()[m - 1 - k];
    if (a != 1 && a != b) return false;
  }
  return true;
}

}  // namespace

namespace {

/// The most variables shape_within looks at: beyond, it answers "not known".
constexpr std::size_t kShapeWithinBudget = 128;

/// Whether `v`'s shape lies within `outer`'s, given `reach`, the variables
/// known to (outer and the inputs of its elementwise ancestors).
bool within_reach(const Variable& v, const TensorType* ot,
                  std::span<const Variable* const> reach, int depth, std::size_t& budget) {
  if (budget == 0) return false;
  --budget;
  const TensorType* it = v.tensor_type();
  if (!it || !ot || it->ndim() > ot->ndim()) return false;
  if (std::find(reach.begin(), reach.end(), &v) != reach.end()) return true;
  if (scalar_like(*it) || statically_within(*it, *ot)) return true;
  // An elementwise result's shape is the broadcast of its inputs' shapes.
  if (depth <= 0 || !is_elementwise(v)) return false;
  const auto& ins = v.owner()->inputs();
  return std::all_of(ins.begin(), ins.end(), [&](const Var& in) {
    return within_reach(*in, ot, reach, depth - 1, budget);
  });
}

}  // namespace

// An elementwise result's shape holds each of its inputs' shapes: the values
// `outer` reads elementwise, breadth first, within `depth` levels.
ShapeWithin::ShapeWithin(const Variable& outer, int depth)
    : outer_type_(outer.tensor_type()), depth_(depth) {
  reach_.push_back(&outer);
  grow(0, depth);
}

ShapeWithin::ShapeWithin(std::span<const Var> operands, const TensorType& outer_type, int depth)
    : outer_type_(&outer_type), depth_(depth) {
  for (const Var& v : operands) reach_.push_back(v.get());
  grow(0, depth - 1);
}

void ShapeWithin::grow(std::size_t begin, int levels) {
  for (int level = 0; level < levels; ++level) {
    const std::size_t end = reach_.size();
    for (std::size_t k = begin; k < end && reach_.size() < kShapeWithinBudget; ++k)
      if (is_elementwise(*reach_[k]))
        for (const Var& in : reach_[k]->owner()->inputs()) reach_.push_back(in.get());
    begin = end;
  }
}

bool ShapeWithin::contains(const Variable& inner) const {
  std::size_t budget = kShapeWithinBudget;
  return within_reach(inner, outer_type_, reach_, depth_, budget);
}

bool shape_within(const Variable& inner, const Variable& outer, int depth) {
  if (&inner == &outer) return true;
  const TensorType* it = inner.tensor_type();
  const TensorType* ot = outer.tensor_type();
  if (!it || !ot || it->ndim() > ot->ndim()) return false;
  if (scalar_like(*it) || statically_within(*it, *ot)) return true;
  return ShapeWithin(outer, depth).contains(inner);
}

// ---------------------------------------------------------------------------
// UselessFill

// Benefit -1: the one-line rules of the same groups are tried first, so
// that a rule and a rewriter that both apply show as the rule.
constexpr int kAfterRules = -1;

// Depth 1, though shape_within reads further down: canonicalize re-tries
// the users of every change up to its deepest rewriter, and a depth of 4
// here made that busy group 1.5x slower on the reference graphs. A fill
// whose proof appears only after a change deeper down is missed.
UselessFill::UselessFill()
    : NodeRewriter("useless_fill", Tracks{"fill"}, /*depth=*/1, kAfterRules) {}

RewriteResult UselessFill::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  if (!op_as<Fill>(node.op())) return RewriteResult::fail("not a fill");
  const Var& model = node.input(0);
  const Var& value = node.input(1);
  const Var& out = node.output(0);
  if (!out->type()->is_super(*value->type()))
    return RewriteResult::fail("the value does not have the fill's type");
  if (!shape_within(*model, *value))
    return RewriteResult::fail("the model's shape is not known to lie within the value's");
  return RewriteResult::replace_output(value);
}

// ---------------------------------------------------------------------------
// FillSink

// Depth 1, as UselessFill's.
FillSink::FillSink()
    : NodeRewriter("fill_sink", Tracks::op_class<Elemwise>(), /*depth=*/1, kAfterRules) {
  // Tried on every elementwise node: the driver turns away those without a
  // fill input before a call.
  set_filter(NodeFilter().some_input_computed(OpKind::of("fill")));
}

RewriteResult FillSink::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = op_as<Elemwise>(node.op());
  if (!op || op->inplace_input()) return RewriteResult::fail("not an elementwise op");
  if (node.num_outputs() != 1) return RewriteResult::fail("more than one output");
  // Tried on every elementwise node: a scan first, copies only for a fill.
  const auto is_fill = [](const Var& in) {
    const Apply* owner = in->owner();
    return owner && op_as<Fill>(owner->op());
  };
  if (std::none_of(node.inputs().begin(), node.inputs().end(), is_fill))
    return RewriteResult::fail("no input is a fill");
  std::vector<Var> inputs(node.inputs().begin(), node.inputs().end());
  std::vector<Var> models;
  for (Var& in : inputs) {
    const Apply* owner = in->owner();
    if (!owner || !op_as<Fill>(owner->op())) continue;
    models.push_back(owner->input(0));
    in = owner->input(1);
  }
  // Only where the fill then goes: moved up without going, fills pile up
  // between elementwise ops, which fusion then groups badly (dag-5000 took
  // 1 s to fuse instead of 5 ms).
  // First without the node: the result's reach below itself is its inputs
  // and their elementwise ancestors, and the node's type holds the result's.
  // A model outside that reach is outside the result's, and building a node
  // (dear for a long sum) only to learn it is what the check spares.
  {
    const ShapeWithin below(inputs, *node.output(0)->tensor_type());
    for (const Var& m : models)
      if (!below.contains(*m))
        return RewriteResult::fail("a model's shape is not known to lie within the result's");
  }
  Var result = node.op()(inputs);
  for (const Var& m : models)
    if (!shape_within(*m, *result))
      return RewriteResult::fail("a model's shape is not known to lie within the result's");
  const Var& out = node.output(0);
  if (!out->type()->is_super(*result->type()))
    return RewriteResult::fail("the result without the fill does not have the node's type");
  return RewriteResult::replace_output(result);
}

// ---------------------------------------------------------------------------
// CancellingDistributor

namespace {

/// One factor of a product: `v` or, when `inverse`, `1 / v`; a null `v` is
/// the factor -1 of a negation (no constant is made until one is needed).
struct Factor {
  Var v;
  bool inverse = false;
};
using Factors = boost::container::small_vector<Factor, 8>;

/// One term of a sum: `v` or, when `negated`, `-v`.
struct Term {
  Var v;
  bool negated = false;
};
using Terms = boost::container::small_vector<Term, 4>;

constexpr int kMaxNesting = 6;

/// Whether `a` and `b` compute the same value: the same variable, equal
/// constants, or equal Ops applied to inputs that are (within `depth`
/// levels) — what merging would make one node, for the nodes a rewrite
/// builds before merging has seen them.
bool same_value(const Var& a, const Var& b, int depth = 3) {
  if (a == b) return true;
  const Constant* ca = a->as_constant();
  const Constant* cb = b->as_constant();
  if (ca || cb) return ca && cb && *a->type() == *b->type() && ca->value().equal(cb->value());
  const Apply* x = a->owner();
  const Apply* y = b->owner();
  if (depth <= 0 || !x || !y || x->num_inputs() != y->num_inputs() ||
      x->num_outputs() != 1 || y->num_outputs() != 1 || !(x->op() == y->op()))
    return false;
  for (std::size_t k = 0; k < x->num_inputs(); ++k)
    if (!same_value(x->input(k), y->input(k), depth - 1)) return false;
  return true;
}

/// Whether the tree below `root` may be read through `v`: a node of the same
/// dtype that nothing else uses (rewriting would otherwise compute it twice).
bool inner(const FunctionGraph& fgraph, const Var& v, DType dtype) {
  return v->owner() && fgraph.num_clients(*v) == 1 && v->tensor_type()->dtype() == dtype;
}

/// The most factors a product is read into.
constexpr std::size_t kMaxFactors = 32;

/// Whether a factor divides, or may once paired (`exp(x)` with a sum of
/// `exp(x)` broadcast back by a dimshuffle): without one nothing cancels.
bool divides(const Factors& factors) {
  return std::any_of(factors.begin(), factors.end(), [](const Factor& f) {
    return f.v && (f.inverse || (f.v->owner() && op_as<DimShuffle>(f.v->owner()->op())));
  });
}

/// The factors of `v` (mul, true_div, reciprocal and neg nodes of its dtype
/// read through), `inverse` flipping each. A node read through may have
/// other uses: it stays for them, and the product is rebuilt only when
/// something cancels — the gradient of a sigmoid read twice shares
/// `s * (1 - s)` between two products that each divide by s.
void collect_factors(const Var& v, bool inverse, int depth, DType dtype, bool is_root,
                     Factors& out) {
  const bool open = depth > 0 && out.size() < kMaxFactors &&
                    (is_root || (v->owner() && v->tensor_type()->dtype() == dtype));
  if (open && elemwise_of(*v, ScalarOp::Mul)) {
    for (const Var& in : v->owner()->inputs())
      collect_factors(in, inverse, depth - 1, dtype, false, out);
    return;
  }
  if (open && elemwise_of(*v, ScalarOp::TrueDiv)) {
    collect_factors(v->owner()->input(0), inverse, depth - 1, dtype, false, out);
    collect_factors(v->owner()->input(1), !inverse, depth - 1, dtype, false, out);
    return;
  }
  if (open && elemwise_of(*v, ScalarOp::Reciprocal)) {
    collect_factors(v->owner()->input(0), !inverse, depth - 1, dtype, false, out);
    return;
  }
  if (open && elemwise_of(*v, ScalarOp::Neg)) {
    out.push_back({Var(), false});
    collect_factors(v->owner()->input(0), inverse, depth - 1, dtype, false, out);
    return;
  }
  out.push_back({v, inverse});
}

/// `u` when `v` is `1 + exp(u)` or `exp(u) + 1`.
Var one_plus_exp_of(const Variable& v) {
  if (!elemwise_of(v, ScalarOp::Add) || v.owner()->num_inputs() != 2) return {};
  for (std::size_t k = 0; k < 2; ++k) {
    const Var& c = v.owner()->input(k);
    const Var& e = v.owner()->input(1 - k);
    const Constant* one = c->as_constant();
    if (one && one->scalar_value() == 1.0 && elemwise_of(*e, ScalarOp::Exp))
      return e->owner()->input(0);
  }
  return {};
}

/// Pairs `exp(u)` with `1 / (1 + exp(u))` among the factors as `sigmoid(u)`
/// (PyTensor's local_sigm_times_exp reads products the same way): the ratio
/// is inf / inf at large u, the sigmoid is not.
bool pair_sigmoids(Factors& factors) {
  for (std::size_t d = 0; d < factors.size(); ++d) {
    if (!factors[d].inverse || !factors[d].v) continue;
    const Var u = one_plus_exp_of(*factors[d].v);
    if (!u) continue;
    for (std::size_t e = 0; e < factors.size(); ++e) {
      const Factor& f = factors[e];
      if (f.inverse || !f.v || !elemwise_of(*f.v, ScalarOp::Exp) ||
          !same_value(f.v->owner()->input(0), u))
        continue;
      factors[d] = {sigmoid(u), false};
      factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(e));
      return true;
    }
  }
  return false;
}

/// The terms of the sum `v` (add, sub and neg nodes read through while `inner`).
void collect_terms(const FunctionGraph& fgraph, const Var& v, bool negated, int depth,
                   DType dtype, bool is_root, Terms& out) {
  const bool open = depth > 0 && (is_root || inner(fgraph, v, dtype));
  if (open && elemwise_of(*v, ScalarOp::Add)) {
    for (const Var& in : v->owner()->inputs())
      collect_terms(fgraph, in, negated, depth - 1, dtype, false, out);
    return;
  }
  if (open && elemwise_of(*v, ScalarOp::Sub)) {
    collect_terms(fgraph, v->owner()->input(0), negated, depth - 1, dtype, false, out);
    collect_terms(fgraph, v->owner()->input(1), !negated, depth - 1, dtype, false, out);
    return;
  }
  if (open && elemwise_of(*v, ScalarOp::Neg)) {
    collect_terms(fgraph, v->owner()->input(0), !negated, depth - 1, dtype, false, out);
    return;
  }
  out.push_back({v, negated});
}

/// The sum of `exp(x)` over one axis of `x` (every axis of a vector) when
/// `v` is one, possibly broadcast back along that axis by a dimshuffle that
/// only inserts it: `x`, and in `axis` the axis softmax would take.
Var sum_of_exp(const Var& v, bool inverse, std::int64_t& axis) {
  Var s = v;
  std::optional<std::size_t> inserted;
  if (const Apply* d = s->owner(); d && op_as<DimShuffle>(d->op())) {
    const auto& order = op_as<DimShuffle>(d->op())->order();
    std::size_t news = 0;
    for (std::size_t k = 0; k < order.size(); ++k)
      if (order[k] == -1) {
        ++news;
        inserted = k;
      } else if (order[k] != static_cast<std::int64_t>(k - news)) {
        return {};
      }
    if (news != 1 && !(news >= 1 && d->input(0)->tensor_type()->ndim() == 0)) return {};
    s = d->input(0);
  }
  // `dimshuffle(reciprocal(sum))` as a factor is `1 / dimshuffle(sum)`.
  if (!inverse) {
    if (!elemwise_of(*s, ScalarOp::Reciprocal)) return {};
    s = s->owner()->input(0);
  }
  const Apply* r = s->owner();
  const auto* reduce = r ? op_as<Reduce>(r->op()) : nullptr;
  if (!reduce || reduce->reduce_op() != ReduceOp::Sum || !elemwise_of(*r->input(0), ScalarOp::Exp))
    return {};
  const Var x = r->input(0)->owner()->input(0);
  const std::vector<bool> reduced = reduce->reduced_axes(*r);
  if (std::count(reduced.begin(), reduced.end(), true) != 1) return {};
  axis = std::find(reduced.begin(), reduced.end(), true) - reduced.begin();
  // Broadcast back at the axis it removed, or a vector's sum broadcast as a whole.
  const std::size_t rank = x->tensor_type()->ndim();
  if (rank > 1 && (!inserted || *inserted != static_cast<std::size_t>(axis))) return {};
  if (v->tensor_type()->ndim() != rank && !(rank == 1 && v->tensor_type()->ndim() == 0)) return {};
  return x;
}

/// Pairs `exp(x)` with `1 / sum(exp(x))` over one axis (broadcast back) as
/// `softmax(x)` along it: the gradient of `log(sum(exp(x)))`, whose ratio is
/// inf / inf at large x.
bool pair_softmax(Factors& factors) {
  for (std::size_t d = 0; d < factors.size(); ++d) {
    if (!factors[d].v) continue;
    std::int64_t axis = 0;
    const Var x = sum_of_exp(factors[d].v, factors[d].inverse, axis);
    if (!x) continue;
    for (std::size_t e = 0; e < factors.size(); ++e) {
      const Factor& f = factors[e];
      if (f.inverse || !f.v || !elemwise_of(*f.v, ScalarOp::Exp) ||
          !same_value(f.v->owner()->input(0), x) ||
          f.v->tensor_type()->ndim() != x->tensor_type()->ndim())
        continue;
      factors[d] = {softmax(x, axis), false};
      factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(e));
      return true;
    }
  }
  return false;
}

/// Removes pairs `v` and `1 / v` (equal as merging finds them); the removed
/// values go to `cancelled`.
bool cancel_pairs(Factors& factors, std::vector<Var>& cancelled) {
  bool any = false;
  for (std::size_t i = 0; i < factors.size(); ++i)
    for (std::size_t j = i + 1; j < factors.size(); ++j)
      if (factors[i].v && factors[j].v && factors[i].inverse != factors[j].inverse &&
          same_value(factors[i].v, factors[j].v)) {
        cancelled.push_back(factors[i].v);
        factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(j));
        factors.erase(factors.begin() + static_cast<std::ptrdiff_t>(i));
        --i;
        any = true;
        break;
      }
  return any;
}

bool is_sum(const Variable& v) {
  return elemwise_of(v, ScalarOp::Add) || elemwise_of(v, ScalarOp::Sub);
}

/// The value of a one-element constant of rank 0, if `v` is one.
std::optional<double> scalar_constant(const Var& v) {
  const Constant* c = v->as_constant();
  if (!c || v->tensor_type()->ndim() != 0) return std::nullopt;
  return c->scalar_value();
}

/// The product of `factors`, `a * b / (c * d)`, its 0-d constants folded
/// into one coefficient (a sign when it is ±1); `negated` takes the sign.
Var build_product(const Factors& factors, DType dtype, bool& negated) {
  std::vector<Var> num, den;
  double coefficient = 1;
  for (const Factor& f : factors) {
    if (!f.v) {
      coefficient = -coefficient;
      continue;
    }
    if (const auto c = scalar_constant(f.v); c && *c != 0) {
      coefficient = f.inverse ? coefficient / *c : coefficient * *c;
      continue;
    }
    (f.inverse ? den : num).push_back(f.v);
  }
  if (coefficient < 0) {
    negated = !negated;
    coefficient = -coefficient;
  }
  if (coefficient != 1 || num.empty()) num.insert(num.begin(), constant(coefficient, dtype));
  const Var top = num.size() == 1 ? num[0] : mul(num);
  if (den.empty()) return top;
  return true_div(top, den.size() == 1 ? den[0] : mul(den));
}

}  // namespace

namespace {

/// The product of `factors` (the node `out`) distributed over a sum among
/// them, when that cancels a division in at least as many terms as not.
RewriteResult distribute(const FunctionGraph& fgraph, const Var& out, const Factors& factors,
                         std::vector<Var> cancelled);

/// `result` for `out`, with the broadcast of each cancelled factor kept
/// where it could widen the result.
RewriteResult finish(const Var& out, Var result, const std::vector<Var>& cancelled) {
  if (!cancelled.empty()) {
    ShapeWithin within(*result);
    for (const Var& c : cancelled)
      if (!within.contains(*c)) {
        result = fill(c, result);
        within.add(*c);
      }
  }
  if (!out->type()->is_super(*result->type()))
    return RewriteResult::fail("the simplified product does not have the node's type");
  return RewriteResult::replace_output(result);
}

}  // namespace

CancellingDistributor::CancellingDistributor(std::string name)
    : NodeRewriter(std::move(name), Tracks{"mul", "true_div"}, /*depth=*/2 * kMaxNesting,
                   kAfterRules) {
  set_reads_uses();
}

RewriteResult CancellingDistributor::transform(FunctionGraph& fgraph, Apply& node,
                                               const RewriteContext&) const {
  const Var& out = node.output(0);
  const TensorType* type = out->tensor_type();
  if (!type || !is_float(type->dtype())) return RewriteResult::fail("not a float product");
  if (!elemwise_of(*out, ScalarOp::Mul) && !elemwise_of(*out, ScalarOp::TrueDiv))
    return RewriteResult::fail("not a mul or true_div");
  // Only the root of a product tree: a node every user of which is a
  // product of its dtype is read by those.
  if (fgraph.num_clients(*out) <= 4) {
    const ClientList clients = fgraph.clients(*out);
    const bool inner_only = !clients.empty() && std::all_of(clients.begin(), clients.end(),
        [&](const Client& c) {
          return c.node && c.node->num_outputs() == 1 &&
                 (elemwise_of(*c.node->output(0), ScalarOp::Mul) ||
                  elemwise_of(*c.node->output(0), ScalarOp::TrueDiv)) &&
                 c.node->output(0)->tensor_type()->dtype() == type->dtype();
        });
    if (inner_only) return RewriteResult::fail("the product continues in the nodes that read it");
  }
  const DType dtype = type->dtype();
  // The common case, a product of plain operands: no divisions, no sums.
  if (elemwise_of(*out, ScalarOp::Mul)) {
    const auto& ins = node.inputs();
    if (std::none_of(ins.begin(), ins.end(), [](const Var& in) {
          const Apply* owner = in->owner();
          return elemwise_of(*in, ScalarOp::Mul) || elemwise_of(*in, ScalarOp::TrueDiv) ||
                 elemwise_of(*in, ScalarOp::Reciprocal) || elemwise_of(*in, ScalarOp::Neg) ||
                 is_sum(*in) || (owner && op_as<DimShuffle>(owner->op()));
        }))
      return RewriteResult::fail("no factor is a product, a division or a sum");
  }
  Factors factors;
  collect_factors(out, false, kMaxNesting, dtype, true, factors);
  if (factors.size() < 2) return RewriteResult::fail("fewer than two factors");

  // Nothing cancels without a division: a product of plain factors, none a
  // sum that distribution could open, is left at once.
  const bool has_sum = std::any_of(factors.begin(), factors.end(), [&](const Factor& f) {
    return f.v && !f.inverse && is_sum(*f.v) && inner(fgraph, f.v, dtype);
  });
  if (!divides(factors) && !has_sum) return RewriteResult::fail("nothing divides, and no factor is a sum");

  // The product alone: stable forms of its ratios, and factors that cancel.
  std::vector<Var> cancelled;
  bool changed = false;
  while (pair_sigmoids(factors) || pair_softmax(factors)) changed = true;
  changed = cancel_pairs(factors, cancelled) || changed;
  if (changed) {
    if (RewriteResult r = distribute(fgraph, out, factors, cancelled); r.applied()) return r;
    bool negated = false;
    Var result = build_product(factors, dtype, negated);
    if (negated) result = neg(result);
    return finish(out, result, cancelled);
  }
  return distribute(fgraph, out, factors, cancelled);
}

namespace {

RewriteResult distribute(const FunctionGraph& fgraph, const Var& out, const Factors& factors,
                         std::vector<Var> cancelled) {
  const DType dtype = out->tensor_type()->dtype();

  // Distributed over a sum among its factors, when that cancels more
  // divisions than it adds products.
  for (std::size_t s = 0; s < factors.size(); ++s) {
    const Factor& sum = factors[s];
    if (sum.inverse || !sum.v || !is_sum(*sum.v) || !inner(fgraph, sum.v, dtype)) continue;
    Terms terms;
    collect_terms(fgraph, sum.v, false, kMaxNesting, dtype, true, terms);
    if (terms.size() < 2) continue;
    std::vector<Factors> products(terms.size());
    for (std::size_t k = 0; k < terms.size(); ++k)
      collect_factors(terms[k].v, false, kMaxNesting, dtype, true, products[k]);
    // Nothing cancels, and nothing pairs, where nothing divides: the
    // gradients' `(1 - sqr(t)) * g` are left without more reading.
    const bool term_divides = std::any_of(products.begin(), products.end(),
                                          [](const Factors& p) { return divides(p); });
    if (!term_divides && !divides(factors)) continue;
    std::vector<Var> removed = cancelled;
    std::size_t cancelling = 0;
    for (Factors& mine : products) {
      while (pair_sigmoids(mine) || pair_softmax(mine)) {
      }
      for (std::size_t k = 0; k < factors.size(); ++k)
        if (k != s) mine.push_back(factors[k]);
      if (cancel_pairs(mine, removed)) ++cancelling;
    }
    if (cancelling == 0 || terms.size() - cancelling > cancelling) continue;
    Var result;
    for (std::size_t k = 0; k < terms.size(); ++k) {
      bool negated = terms[k].negated;
      const Var p = build_product(products[k], dtype, negated);
      if (!result)
        result = negated ? neg(p) : p;
      else
        result = negated ? sub(result, p) : add(result, p);
    }
    return finish(out, result, removed);
  }
  return RewriteResult::fail("nothing cancels, and no sum among the factors cancels on distribution");
}

}  // namespace

ProductCancellation::ProductCancellation(std::string name)
    : GraphRewriter(name),
      walk_(in2out(std::move(name), {std::make_shared<CancellingDistributor>()})) {}

void ProductCancellation::add_requirements(FunctionGraph& fgraph) const {
  walk_->add_requirements(fgraph);
}

PassReport ProductCancellation::apply(FunctionGraph& fgraph, RewriteContext& ctx) const {
  for (const Apply* node : fgraph.nodes())
    if (elemwise_of(*node->output(0), ScalarOp::TrueDiv) ||
        elemwise_of(*node->output(0), ScalarOp::Reciprocal))
      return walk_->apply(fgraph, ctx);
  PassReport report;
  report.stop = StopReason::Completed;
  return report;
}

std::string ProductCancellation::summary(int indent) const { return walk_->summary(indent); }

void register_simplify_rewrites(SequenceDB& optdb) {
  const std::vector<std::string> both{"fast_run", "fast_compile"};
  optdb.sub<EquilibriumDB>("canonicalize").add(std::make_shared<UselessFill>(), both);
  optdb.sub<EquilibriumDB>("canonicalize").add(std::make_shared<FillSink>(), both);
  // After stabilize: by then canonicalize has merged equal factors and
  // stabilize's rules have given them the forms that cancel (`1 - sigmoid(z)
  // -> sigmoid(-z)`, `1 / (1 + exp(-z)) -> sigmoid(z)`). In canonicalize or
  // stabilize its re-queue depth would make every change of those busier
  // groups re-try twelve levels of users (chain-1000 rewrote 1.8x slower).
  optdb.add(std::make_shared<ProductCancellation>(),
            {"fast_run", std::string(kAssumptionTag), std::string(kAssumptionTag) + "_nonzero",
             std::string(kAssumptionTag) + "_finite"},
            {.position = position::kStabilizeProducts});
}

}  // namespace rw

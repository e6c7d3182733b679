// Size lifting and the dimshuffle and subtensor lifts through random variables.
#include "ops/random/random_rewrites.hpp"

#include <memory>
#include <vector>

#include "engine/rewrite/equilibrium.hpp"
#include "ops/api.hpp"
#include "ops/detail/op_cast.hpp"
#include "ops/detail/util.hpp"
#include "ops/indexing/subtensor.hpp"
#include "ops/random/random.hpp"
#include "ops/shape/dimshuffle.hpp"

namespace rw {

namespace {

/// The names of every distribution with a size, for Tracks.
const std::vector<std::string>& sized_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (Distribution d : {Distribution::Normal, Distribution::Uniform, Distribution::Bernoulli,
                           Distribution::Binomial, Distribution::Poisson, Distribution::Gamma,
                           Distribution::Beta, Distribution::Exponential, Distribution::Categorical,
                           Distribution::MultivariateNormal, Distribution::Integers})
      v.emplace_back(distribution_name(d));
    return v;
  }();
  return names;
}

bool scalar_core(Distribution d) {
  return d != Distribution::Categorical && d != Distribution::MultivariateNormal &&
         d != Distribution::Choice && d != Distribution::Permutation;
}

std::size_t size_length(const Apply& rv) {
  return static_cast<std::size_t>(rv.input(1)->tensor_type()->shape()[0]);
}

/// `p` with leading broadcastable axes up to rank `r`.
Var padded(const Var& p, std::size_t r) {
  const std::size_t n = p->tensor_type()->ndim();
  if (n == r) return p;
  std::vector<std::int64_t> order(r - n, -1);
  for (std::size_t a = 0; a < n; ++a) order.push_back(static_cast<std::int64_t>(a));
  return dimshuffle(p, order);
}

/// What the dimshuffle and subtensor lifts share: when input 0 of `node` is
/// the draw of a random variable of scalar parameters and draws, without a
/// size, that nothing else reads, the same variable drawn from
/// `lift(p')` for each parameter p' (padded to the draw's rank),
/// its outputs replacing the old node's next state and `node`'s output.
template <class Lift>
RewriteResult lift_through(const FunctionGraph& fgraph, const Apply& node, Lift lift) {
  const Var& drawn = node.input(0);
  const Apply* rv = drawn->owner();
  const auto* op = rv ? ops_detail::op_as<RandomVariable>(rv->op()) : nullptr;
  if (!op || drawn->index() != 1) return RewriteResult::fail("not of a random draw");
  if (!scalar_core(op->distribution()))
    return RewriteResult::fail("the distribution's parameters or draws have core axes");
  if (size_length(*rv) != 0) return RewriteResult::fail("the draw has a size (lift it first)");
  if (fgraph.num_clients(*drawn) != 1) return RewriteResult::fail("the draw has other uses");
  std::vector<Var> in{rv->input(0), rv->input(1)};
  for (std::size_t p = 2; p < rv->num_inputs(); ++p)
    in.push_back(lift(padded(rv->input(p), drawn->tensor_type()->ndim())));
  const ApplyRef lifted = op->make_node(in);
  if (!node.output_var(0).type()->is_super(*lifted->output_var(1).type()))
    return RewriteResult::fail("the lifted draw's type does not fit");
  return RewriteResult::replace(
      {{rv->output(0), lifted->output(0)}, {node.output(0), lifted->output(1)}});
}

}  // namespace

RvSizeLift::RvSizeLift() : NodeRewriter("local_rv_size_lift", Tracks(sized_names()), /*depth=*/0) {}

RewriteResult RvSizeLift::transform(FunctionGraph&, Apply& node, const RewriteContext&) const {
  const auto* op = ops_detail::op_as<RandomVariable>(node.op());
  if (!op) return RewriteResult::fail("not a random variable");
  const std::size_t k = size_length(node);
  if (k == 0) return RewriteResult::fail("the size is empty");
  std::vector<Var> in{node.input(0), size_vector({})};
  for (std::size_t p = 2; p < node.num_inputs(); ++p) {
    const Var& param = node.input(p);
    const TensorType& t = *param->tensor_type();
    std::vector<Operand> dims;
    for (std::size_t j = 0; j < k; ++j)
      dims.emplace_back(ops_detail::vector_element(node.input(1), static_cast<std::int64_t>(j)));
    for (std::size_t a = t.ndim() - op->param_core_ndim(p - 2); a < t.ndim(); ++a)
      dims.emplace_back(t.shape()[a] != kUnknownDim ? ops_detail::int64_constant(t.shape()[a])
                                                    : shape_i(param, static_cast<std::int64_t>(a)));
    in.push_back(broadcast_to(param, dims));
  }
  const ApplyRef lifted = op->make_node(in);
  if (!node.output_var(1).type()->is_super(*lifted->output_var(1).type()))
    return RewriteResult::fail("the lifted draw's type does not fit");
  return RewriteResult::replace_outputs(lifted->outputs());
}

DimShuffleRvLift::DimShuffleRvLift()
    : NodeRewriter("local_dimshuffle_rv_lift", Tracks{"dimshuffle"}, /*depth=*/1) {}

RewriteResult DimShuffleRvLift::transform(FunctionGraph& fgraph, Apply& node,
                                          const RewriteContext&) const {
  const auto* ds = ops_detail::op_as<DimShuffle>(node.op());
  if (!ds) return RewriteResult::fail("not a dimshuffle");
  return lift_through(fgraph, node, [&](const Var& p) { return dimshuffle(p, ds->order()); });
}

SubtensorRvLift::SubtensorRvLift()
    : NodeRewriter("local_subtensor_rv_lift", Tracks{"subtensor"}, /*depth=*/1) {}

RewriteResult SubtensorRvLift::transform(FunctionGraph& fgraph, Apply& node,
                                         const RewriteContext&) const {
  const auto* st = ops_detail::op_as<Subtensor>(node.op());
  if (!st) return RewriteResult::fail("not a subtensor");
  const StaticShape& drawn = node.input(0)->tensor_type()->shape();
  const std::vector<IndexEntry>& entries = st->index().entries();
  return lift_through(fgraph, node, [&](const Var& param) {
    // The draw's index, with `0` or `:` where this parameter broadcasts.
    const StaticShape& ps = param->tensor_type()->shape();
    std::vector<std::int64_t> codes;
    std::vector<Var> args{param};
    std::size_t next = 1;
    for (std::size_t a = 0; a < entries.size(); ++a) {
      const IndexEntry& e = entries[a];
      const bool broadcast = ps[a] == 1 && drawn[a] != 1;
      if (broadcast && e.is_slice) {
        codes.push_back(kSliceCode);
      } else if (broadcast) {
        codes.push_back(kIndexFromInput);
        args.push_back(ops_detail::int64_constant(0));
      } else {
        codes.push_back(e.code());
        for (std::size_t i = 0; i < e.num_inputs(); ++i) args.push_back(node.input(next + i));
      }
      next += e.num_inputs();
    }
    return (*std::make_shared<Subtensor>(std::move(codes)))(args);
  });
}

void register_random_rewrites(SequenceDB& db) {
  auto& canonicalize = db.sub<EquilibriumDB>("canonicalize");
  const std::vector<std::string> tags{"random_lift"};
  canonicalize.add(std::make_shared<RvSizeLift>(), tags);
  canonicalize.add(std::make_shared<DimShuffleRvLift>(), tags);
  canonicalize.add(std::make_shared<SubtensorRvLift>(), tags);
}

}  // namespace rw
